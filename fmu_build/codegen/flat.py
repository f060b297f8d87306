"""rumoca's flattened model as the code generator reads it: variables, equations, functions, places.

rumoca 0.10.2 exposes two stages: ``flat`` (expression trees, for-equations expanded into scalar
equations, those points it did not materialize expanded again by ``structured``; function bodies
with record arguments split into fields) and ``dae`` (an arena of lowered nodes). The generator
reads the ``flat`` trees and takes only the source map (file of each span) from the ``dae`` stage,
to name Modelica file:line in its messages.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from pathlib import Path

from fmu_build.codegen.structured import expand_structured
from fmu_build.errors import BuildError


def tag(entry) -> str:
    """The variant name of a rumoca enum value ('Parameter', 'Empty', ...)."""
    return next(iter(entry)) if isinstance(entry, dict) else str(entry)


@dataclass
class Var:
    """One flattened variable (scalar or array)."""

    name: str
    dims: tuple[int, ...]
    type: str               # Real, Integer, Boolean
    role: str               # parameter, constant, input, state, discrete, algebraic
    final: bool
    protected: bool
    raw: dict

    @property
    def size(self) -> int:
        return math.prod(self.dims) if self.dims else 1

    @property
    def binding(self):
        return self.raw.get("binding")

    @property
    def start(self):
        return self.raw.get("start")


class SourceMap:
    """Span (source id, byte offset) -> 'path:line' of the Modelica file."""

    def __init__(self, files: list):
        self._files = {}
        for source_id, path, text in files:
            starts = [0] + [k + 1 for k, ch in enumerate(text) if ch == "\n"]
            self._files[source_id] = (path, starts)

    def where(self, span: dict | None) -> str:
        if not span or span.get("source") not in self._files:
            return "<unknown place>"
        path, starts = self._files[span["source"]]
        line = bisect.bisect_right(starts, span.get("start", 0))
        from fmu_build.diagnostics import _relative

        return f"{_relative(path)}:{line}"


def first_span(node) -> dict | None:
    """The first source span found in an expression tree (depth first)."""
    if isinstance(node, dict):
        if "span" in node and isinstance(node["span"], dict) and "source" in node["span"]:
            return node["span"]
        for value in node.values():
            found = first_span(value)
            if found:
                return found
    elif isinstance(node, list):
        for value in node:
            found = first_span(value)
            if found:
                return found
    return None


@dataclass
class FlatModel:
    """What the generator needs from rumoca's flattening of one class."""

    name: str
    vars: dict[str, Var]
    equations: list[dict]                 # {"residual": expr, ...}
    initial_equations: list[dict]
    initial_asserts: list[dict]
    asserts: list[dict]
    when_chains: list[dict]
    functions: dict[str, dict]
    sources: SourceMap
    states: list[str] = field(default_factory=list)

    def where(self, node) -> str:
        return self.sources.where(first_span(node))


def _scalar_type(var: dict, type_name: str) -> str:
    if not var["is_discrete_type"]:
        return "Real"
    return "Boolean" if type_name == "Boolean" else "Integer"


def load_flat(model) -> FlatModel:
    """Read a ``rumoca.Model`` into a :class:`FlatModel`."""
    flat = model.to_dict("flat")
    sources = SourceMap(model.to_dict("dae")["source_map"]["files"])
    states = list(model.states.names)
    finals = flat["variable_final_flags"]
    type_names = flat["variable_type_names"]
    assigned_in_when = {a["Assign"]["target"] for chain in flat["when_chains"] for part in [chain["first"]]
                        for a in part["equations"] if "Assign" in a}
    variables = {}
    for name, raw in flat["variables"].items():
        variability, causality = tag(raw["variability"]), tag(raw["causality"])
        type_name = type_names.get(name, "Real")
        if type_name not in ("Real", "Integer", "Boolean"):
            type_name = {"real": "Real"}.get(str(type_name).lower(), type_name)
        scalar = _scalar_type(raw, str(type_names.get(name, "")))
        if variability == "Constant":
            role = "constant"
        elif variability == "Parameter":
            role = "parameter"
        elif causality == "Input" and "." not in name:
            role = "input"
        elif name in states:
            role = "state"
        elif raw["is_discrete_type"] or variability == "Discrete" or name in assigned_in_when:
            role = "discrete"
        else:
            role = "algebraic"
        variables[name] = Var(name, tuple(raw["dims"]), scalar, role, bool(finals.get(name)),
                              bool(raw["is_protected"]), raw)
    for name in type_names:
        if name not in variables:
            raise BuildError(f"rumoca's flat model names {name} without declaring it")

    def where(node) -> str:
        return sources.where(first_span(node))

    for key in ("algorithms", "initial_algorithms"):
        if flat.get(key):
            raise BuildError(f"{where(flat[key][0])}: an {key[:-1].replace('_', ' ')} section is not supported by "
                             "the native backend (write its assignments as equations)")
    equations = expand_structured(flat["equations"], flat.get("structured_equations", []), where)
    equations += [_binding_equation(var) for var in variables.values()
                  if var.role in ("algebraic", "discrete") and var.binding is not None]
    initial = expand_structured(flat["initial_equations"], flat.get("initial_structured_equations", []), where)
    return FlatModel(model.name if hasattr(model, "name") else "", variables, equations,
                     initial, flat["initial_assert_equations"], flat["assert_equations"],
                     flat["when_chains"], flat["functions"], sources, states)


def _binding_equation(var: Var) -> dict:
    """The equation ``name = binding`` of a variable declared with one (``output Real x = 2*z;``): rumoca's
    flat stage keeps such a declaration equation on the variable only, unlike the equations of the
    equation sections."""
    span = var.raw.get("source_span")
    target = {"VarRef": {"name": {"name": var.name}, "subscripts": [], "span": span}}
    return {"residual": {"Binary": {"op": "Sub", "lhs": target, "rhs": var.binding, "span": span}}, "span": span}


def library_source(path: str | Path) -> str:
    return Path(path).read_text()
