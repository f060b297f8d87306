"""For-equations as rumoca's flat stage leaves them: every point expanded from its template.

rumoca 0.10.2 keeps each for-equation twice in its flat stage: as a template over a domain of binders
(``structured_equations``: binders with integer ranges, ``first_equation_index``,
``equations_per_point``, the template body) and as scalar equations in ``equations``. Where it marks a
template ``interiors_materialized: false`` (seen where the equation's left side is ``der()`` of an
array element), only the first points are expanded; the others are placeholders ``lhs = 0.0`` (``der(z[3]) = 0`` for
``for i in 1:4 loop der(z[i]) = ...``), which compile without error into wrong derivatives. Here the
equations of such a template are expanded again, point by point, by substituting the binders' values
into the template. At each point rumoca's equation must read the same variable elements as ours (it
may have folded constants: an if-expression on the index), or, after the first point, be a
placeholder; anything else is refused with the Modelica place.
"""
from __future__ import annotations

import itertools

from fmu_build.errors import BuildError

_NOT_COMPARED = {"span", "component_ref", "resolved_function", "instance_id", "generated", "def_id"}


def expand_structured(equations: list[dict], blocks: list[dict], where) -> list[dict]:
    """``equations`` with the points of each template rumoca did not materialize expanded from the
    template; ``where(node)`` names the Modelica file:line of a node."""
    out = list(equations)
    for block in blocks:
        if block.get("interiors_materialized", True):
            continue
        place = where(block.get("template"))
        binders, body, per_point, first = _layout(block, place)
        points = list(itertools.product(*(_values(b, place) for b in binders)))
        if first < 0 or first + len(points) * per_point > len(out):
            raise BuildError(f"{place}: rumoca's for-equation covers equations {first} to "
                             f"{first + len(points) * per_point - 1} of {len(out)} (not understood)")
        names = [b["display_name"] for b in binders]
        for p, point in enumerate(points):
            values = dict(zip(names, point))
            for j, template in enumerate(body):
                k = first + p * per_point + j
                residual = _substitute(template, values)
                _check(out[k]["residual"], residual, p == 0, place, values)
                out[k] = {**out[k], "residual": residual}
    return out


def _layout(block: dict, place: str) -> tuple[list, list, int, int]:
    """The binders, template body, equations per point and first equation index of a block."""
    template = block.get("template") or {}
    binders = (block.get("domain") or {}).get("binders") or []
    body = template.get("body") or []
    per_point = block.get("equations_per_point")
    if template.get("scalar_view") not in (None, "BinderSubstitution") or not binders or \
            not isinstance(per_point, int) or len(body) != per_point:
        raise BuildError(f"{place}: rumoca's for-equation has a form the native backend does not "
                         f"expand (view {template.get('scalar_view')}, {len(binders)} binders, "
                         f"{len(body)} equations for {per_point} per point)")
    return binders, body, per_point, block.get("first_equation_index", -1)


def _values(binder: dict, place: str) -> range:
    lower, upper, step = binder.get("lower"), binder.get("upper"), binder.get("step")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lower, upper, step)) or step == 0:
        raise BuildError(f"{place}: the range of for-index {binder.get('display_name')} is not a constant "
                         f"integer range ({lower}:{step}:{upper})")
    return range(lower, upper + (1 if step > 0 else -1), step)


def _substitute(node, values: dict):
    """``node`` with each reference to a binder replaced by its integer value."""
    if isinstance(node, list):
        return [_substitute(v, values) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("VarRef")
    if ref is not None and not ref.get("subscripts") and ref["name"].get("name") in values:
        literal = {"value": {"Integer": values[ref["name"]["name"]]}}
        return {"Literal": {**literal, "span": ref["span"]} if "span" in ref else literal}
    return {k: _substitute(v, values) for k, v in node.items()}


def _check(rumoca: dict, ours: dict, first: bool, place: str, values: dict) -> None:
    """Refuse a point whose equation from rumoca reads other variable elements than ours (rumoca may have
    folded constants, e.g. an if-expression on the index), unless it is a placeholder after the first."""
    if _references(rumoca) == _references(ours):
        return
    if not first and _is_placeholder(rumoca):
        return
    at = ", ".join(f"{k} = {v}" for k, v in values.items())
    raise BuildError(f"{place}: rumoca's expansion of this for-equation at {at} differs from its template "
                     "(not understood by the native backend: write the equations out)")


def _is_placeholder(residual: dict) -> bool:
    """``lhs - 0``: what rumoca's flat stage gives for a point it did not materialize."""
    binary = residual.get("Binary") if isinstance(residual, dict) else None
    if not binary or binary.get("op") != "Sub" or "Literal" not in binary.get("rhs", {}):
        return False
    return list(binary["rhs"]["Literal"]["value"].values()) in ([0], [0.0])


def _references(node, out: set | None = None) -> set:
    """The variable elements (name, constant subscripts; der() marked) an expression reads."""
    out = set() if out is None else out
    if isinstance(node, list):
        for value in node:
            _references(value, out)
    elif isinstance(node, dict):
        call = node.get("BuiltinCall")
        ref = node.get("VarRef")
        if call is not None and call.get("function") == "Der":
            out |= {("der", r) for r in _references(call.get("args"))}
        elif ref is not None:
            out.add((ref["name"].get("name"), tuple(_subscript(s) for s in ref.get("subscripts") or [])))
            _references(ref.get("subscripts"), out)
        else:
            for value in node.values():
                _references(value, out)
    return out


def _subscript(sub):
    """An index as an int where it is constant, else its tree without places."""
    if isinstance(sub, dict) and "Index" in sub:
        return sub["Index"]["value"]
    if isinstance(sub, dict) and set(sub) == {"Expr"}:
        constant = _constant_int(sub["Expr"]["expr"])
        return constant if constant is not None else repr(_without_places(sub["Expr"]["expr"]))
    return repr(_without_places(sub))


def _without_places(node):
    if isinstance(node, list):
        return [_without_places(v) for v in node]
    if isinstance(node, dict):
        return {k: _without_places(v) for k, v in sorted(node.items()) if k not in _NOT_COMPARED}
    return node


def _constant_int(node) -> int | None:
    """The value of an integer expression of literals (+, -, *), else None."""
    if "Literal" in node:
        value = next(iter(node["Literal"]["value"].values()), None)
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if "Unary" in node and node["Unary"]["op"] == "Minus":
        inner = _constant_int(node["Unary"]["rhs"])
        return None if inner is None else -inner
    if "Binary" in node and node["Binary"]["op"] in ("Add", "Sub", "Mul"):
        a, b = _constant_int(node["Binary"]["lhs"]), _constant_int(node["Binary"]["rhs"])
        if a is None or b is None:
            return None
        return {"Add": a + b, "Sub": a - b, "Mul": a * b}[node["Binary"]["op"]]
    return None
