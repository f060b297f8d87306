"""Modelica expression trees (rumoca's flat stage) -> C expressions, scalar or element by element.

An :class:`Emitter` turns an expression into a C expression of type double/int. Arrays are never
values in the generated C: an array expression is read element by element (:meth:`Emitter.element`,
0-based indices that are Python ints or C index expressions), so an array equation becomes one
scalar assignment per element. A call of a function with an array result is hoisted into a
temporary buffer (``pre`` statements), one per equal argument texts where the emitter shares values
(``cse``). Unsupported constructs raise :class:`Unsupported`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field


class Unsupported(Exception):
    """A construct the generator cannot translate; the caller adds the Modelica file:line."""


Dim = "int | str"


@dataclass
class Slot:
    """Where a named value lives in C: ``access(offset)`` is an lvalue; ``dims`` its shape."""

    ctype: str                         # double or int
    dims: tuple                        # ints, or C expressions (open sizes in functions)
    base: str                          # e.g. "m->r[12" or "x" (scalar local) or "x" (array local)
    kind: str = "model"                # model: base + offset inside m->...[]; local: C variable

    def access(self, offset) -> str:
        if self.kind == "model":
            return f"{self.base} + {offset}]" if offset not in (0, "0") else f"{self.base}]"
        if not self.dims:
            return self.base
        return f"{self.base}[{offset}]"


_SIMPLE = re.compile(r"-?[\w.]+|m->[rib]\[\d+( \+ \d+)?\]|\(&m->r\[\d+\]\)\[\(?\d+\)?\]")


def _lit(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        return {"inf": "INFINITY", "-inf": "(-INFINITY)", "nan": "NAN"}[text]
    return text


def fold_int(text) -> object:
    """An int if the C index expression is a constant, else the text."""
    if isinstance(text, int):
        return text
    try:
        return int(eval(text, {"__builtins__": {}}, {})) if all(c in "0123456789+-*() " for c in text) else text
    except Exception:
        return text


def offset_of(dims: tuple, index: tuple):
    """Row-major offset of 0-based ``index`` in an array of ``dims`` (ints folded)."""
    if all(isinstance(i, int) for i in index) and all(isinstance(d, int) for d in dims):
        off = 0
        for i, d in zip(index, dims):
            off = off * d + i
        return off
    off = None
    for i, d in zip(index, dims):
        off = f"({i})" if off is None else f"(({off})*({d}) + ({i}))"
    return off if off is not None else 0


_BINARY = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "Lt": "<", "Le": "<=", "Gt": ">", "Ge": ">=",
           "Eq": "==", "Neq": "!=", "And": "&&", "Or": "||", "MulElem": "*", "DivElem": "/",
           "AddElem": "+", "SubElem": "-"}
_ARITHMETIC = ("Add", "Sub", "Mul", "Div", "MulElem", "DivElem", "AddElem", "SubElem")
_MATH = {"Abs": "fabs", "Sin": "sin", "Cos": "cos", "Tan": "tan", "Asin": "asin", "Acos": "acos",
         "Atan": "atan", "Atan2": "atan2", "Sinh": "sinh", "Cosh": "cosh", "Tanh": "tanh", "Exp": "exp",
         "Log": "log", "Log10": "log10", "Sqrt": "sqrt", "Ceil": "ceil", "Floor": "floor"}


def ref_name(node) -> str:
    ref = node["VarRef"]
    return ref["name"]["name"]


def ref_subs(node) -> list:
    return node["VarRef"].get("subscripts") or []


@dataclass
class Emitter:
    """Translate expressions in one scope (the model, or one function)."""

    resolve: object                         # name -> Slot (raises KeyError)
    call: object = None                     # (FunctionCall node, emitter) -> (C call text, output slots)
    env: dict = field(default_factory=dict)  # iterator name -> C int expression
    pre: list = field(default_factory=list)  # statements to run before the expression
    counter: list = field(default_factory=lambda: [0])
    pre_values: dict | None = None           # pre(x): name -> Slot of the saved value (discrete update)
    time: str = "m->time"
    cse: dict | None = None                  # (ctype, C text) -> temporary: shared values of one C function
    guarded: int = 0                         # > 0 inside a branch of if/&&/|| (evaluated conditionally)
    hoist: object = None                     # (ctype, text) -> where a parameter-only value is kept, or None
    hoisted: dict = field(default_factory=dict)  # id(call node) -> (node, Slot): array calls made in this scope

    # ---- helpers ----------------------------------------------------------------------------
    def temp(self, prefix="t") -> str:
        self.counter[0] += 1
        return f"{prefix}{self.counter[0]}"

    def with_env(self, **extra) -> "Emitter":
        return Emitter(self.resolve, self.call, {**self.env, **extra}, self.pre, self.counter, self.pre_values,
                       self.time, self.cse, self.guarded, self.hoist)

    def value(self, ctype: str, text: str) -> str:
        """``text`` as a temporary computed once per C function (shared by equal texts), when the
        emitter shares values (``cse``); a name, a number or an element access stays as it is."""
        if self.cse is None or _SIMPLE.fullmatch(text):
            return text
        key = (ctype, text)
        if key not in self.cse and self.guarded:
            return text         # evaluated conditionally: reuses a shared value, adds none
        if key not in self.cse and self.hoist is not None:
            kept = self.hoist(ctype, text)
            if kept is not None:
                self.cse[key] = kept
        if key not in self.cse:
            name = self.temp("v")
            self.pre.append(f"const {ctype} {name} = {text};")
            self.cse[key] = name
        return self.cse[key]

    def parameter_only(self, text: str) -> str:
        """An arithmetic value of parameters only (a product of tyre coefficients, ...) in the derivative
        function: computed once in model_calculated_parameters (``hoist``), wherever it stands (an arm too)."""
        if self.hoist is None or self.cse is None or "m->" not in text:
            return text
        key = ("double", text)
        if key not in self.cse:
            kept = self.hoist("double", text)
            if kept is None:
                return text
            self.cse[key] = kept
        return self.cse[key]

    def _is_real(self, lhs, rhs) -> bool:
        return not (self._is_int(lhs) and self._is_int(rhs))

    def branch(self, e, idx=None) -> str:
        """A conditionally evaluated operand: nothing of it is hoisted into ``pre`` as shared."""
        self.guarded += 1
        try:
            return self.scalar(e) if idx is None else self.element(e, idx)
        finally:
            self.guarded -= 1

    def const_int(self, e) -> int:
        text = fold_int(self.scalar(e))
        if not isinstance(text, int):
            raise Unsupported(f"a size or subscript that is not a constant: {text}")
        return text

    # ---- shapes -----------------------------------------------------------------------------
    def shape(self, e) -> tuple:
        kind = next(iter(e))
        body = e[kind]
        if kind == "VarRef":
            name = ref_name(e)
            if name in self.env or name == "time":
                return ()
            slot = self._slot(name)
            return self._sub_shape(slot.dims, ref_subs(e))
        if kind == "Literal":
            return ()
        if kind == "Binary":
            op = body["op"]
            left, right = self.shape(body["lhs"]), self.shape(body["rhs"])
            if op == "Mul" and left and right:
                if len(left) == 1 and len(right) == 1:
                    return ()
                if len(left) == 2 and len(right) == 1:
                    return (left[0],)
                if len(left) == 1 and len(right) == 2:
                    return (right[1],)
                return (left[0], right[1])
            return left or right if op in ("Add", "Sub", "Mul", "Div", "MulElem", "DivElem", "AddElem",
                                           "SubElem", "Exp") else ()
        if kind == "Unary":
            return self.shape(body["rhs"])
        if kind == "If":
            return self.shape(body["branches"][0][1])
        if kind == "Array":
            elements = body["elements"]
            return (len(elements),) + self.shape(elements[0])
        if kind == "ArrayComprehension":
            sizes = tuple(self._range_length(index["range"]) for index in body["indices"])
            inner = self.with_env(**{index["name"]: "0" for index in body["indices"]})
            return sizes + inner.shape(body["expr"])
        if kind == "Range":
            return (self._range_length(e),)
        if kind == "Tuple":
            return ()
        if kind == "Index":
            return self._sub_shape(self.shape(body["base"]), body["subscripts"])
        if kind == "FunctionCall":
            _, outputs = self.call(e, self, shape_only=True)
            return outputs[0].dims if outputs else ()
        if kind == "BuiltinCall":
            name, args = body["function"], body["args"]
            if name in ("Zeros", "Ones"):
                return tuple(self.const_int(a) for a in args)
            if name == "Fill":
                return tuple(self.const_int(a) for a in args[1:])
            if name in ("Der", "Pre", "NoEvent", "Smooth", "Abs") and name != "Smooth":
                return self.shape(args[0])
            if name == "Smooth":
                return self.shape(args[1])
            if name == "Diagonal":
                n = self.shape(args[0])[0]
                return (n, n)
            if name == "Transpose":
                s = self.shape(args[0])
                return (s[1], s[0])
            if name == "Cat":
                axis = self.const_int(args[0])
                if axis != 1:
                    raise Unsupported("cat() along a dimension other than 1")
                shapes = [self.shape(a) for a in args[1:]]
                total = sum(s[0] for s in shapes)
                return (total,) + shapes[0][1:]
            return ()
        raise Unsupported(f"expression '{kind}'")

    def _slot(self, name) -> Slot:
        try:
            return self.resolve(name)
        except KeyError:
            raise Unsupported(f"unknown name '{name}'") from None

    def _sub_shape(self, dims, subs) -> tuple:
        out = []
        for k, dim in enumerate(dims):
            if k < len(subs) and "Colon" not in subs[k] and subs[k] != "Colon":
                sub = subs[k]
                if "Expr" in sub and "Range" in sub["Expr"]["expr"]:
                    out.append(self._range_length(sub["Expr"]["expr"]))
                continue
            out.append(dim)
        return tuple(out)

    def _range(self, node):
        r = node["Range"]
        start = self.scalar(r["start"])
        step = self.scalar(r["step"]) if r.get("step") else "1"
        end = self.scalar(r["end"])
        return start, step, end

    def _range_length(self, node) -> int:
        start, step, end = (fold_int(x) for x in self._range(node))
        if not all(isinstance(x, int) for x in (start, step, end)):
            raise Unsupported("a range whose bounds are not constant at build time")
        return max(0, (end - start) // step + 1)

    # ---- scalars ----------------------------------------------------------------------------
    def scalar(self, e) -> str:
        kind = next(iter(e))
        body = e[kind]
        if kind == "Literal":
            value = body["value"]
            vkind = next(iter(value))
            if vkind == "String":
                raise Unsupported("a String expression")
            return _lit(value[vkind])
        if kind == "VarRef":
            name = ref_name(e)
            if name == "time":
                return self.time
            if name in self.env and not ref_subs(e):
                return self.env[name]
            slot = self._slot(name)
            subs = ref_subs(e)
            if self._sub_shape(slot.dims, subs):
                raise Unsupported(f"the array {name} where a scalar is expected")
            return slot.access(offset_of(slot.dims, tuple(self._index(s) for s in subs)))
        if kind == "Index":
            base_shape = self.shape(body["base"])
            if self._sub_shape(base_shape, body["subscripts"]):
                raise Unsupported("a slice where a scalar is expected")
            return self.element(body["base"], tuple(self._index(s) for s in body["subscripts"]))
        if kind == "Unary":
            op = body["op"]
            inner = self.scalar(body["rhs"])
            return {"Minus": f"(-{inner})", "Not": f"(!{inner})", "Plus": inner}.get(op) or self._no(op)
        if kind == "Binary":
            op = body["op"]
            ls, rs = self.shape(body["lhs"]), self.shape(body["rhs"])
            if op == "Mul" and ls and rs:
                if len(ls) == 1 and len(rs) == 1:
                    return self._dot(body["lhs"], body["rhs"], ls[0])
                raise Unsupported("a matrix product where a scalar is expected")
            if ls or rs:
                raise Unsupported(f"an array operand of '{op}' where a scalar is expected")
            a = self.scalar(body["lhs"])
            b = self.branch(body["rhs"]) if op in ("And", "Or") else self.scalar(body["rhs"])
            if op == "Exp":
                return self.parameter_only(self._power(body["rhs"], a, b))
            if op not in _BINARY:
                raise Unsupported(f"operator '{op}'")
            if op == "Div":
                return f"((double){a} / {b})" if self._is_int(body["lhs"]) and self._is_int(body["rhs"]) else \
                    self.parameter_only(f"({a} / {b})")
            text = f"({a} {_BINARY[op]} {b})"
            return self.parameter_only(text) if op in _ARITHMETIC and self._is_real(body["lhs"], body["rhs"]) else text
        if kind == "If":
            conds = [self.scalar(body["branches"][0][0])] + [self.branch(c) for c, _ in body["branches"][1:]]
            text = self.branch(body["else_branch"])
            for cond, (_, value) in reversed(list(zip(conds, body["branches"]))):
                text = f"({cond} ? {self.branch(value)} : {text})"
            return text
        if kind == "FunctionCall":
            text, outputs = self.call(e, self)
            if outputs and outputs[0].dims:
                raise Unsupported("an array-valued function where a scalar is expected")
            return text
        if kind == "BuiltinCall":
            return self._builtin(body["function"], body["args"])
        if kind == "Tuple" and len(body["elements"]) == 1:
            return self.scalar(body["elements"][0])
        raise Unsupported(f"expression '{kind}'")

    def _no(self, what):
        raise Unsupported(f"operator '{what}'")

    def _is_int(self, e) -> bool:
        kind = next(iter(e))
        if kind == "Literal":
            return "Integer" in e[kind]["value"]
        if kind == "VarRef":
            name = ref_name(e)
            if name in self.env:
                return True
            try:
                return self.resolve(name).ctype == "int"
            except KeyError:
                return False
        if kind == "BuiltinCall":
            return e[kind]["function"] in ("Size", "Integer", "Div")
        if kind == "Binary" and e[kind]["op"] in ("Add", "Sub", "Mul"):
            return self._is_int(e[kind]["lhs"]) and self._is_int(e[kind]["rhs"])
        return False

    def _power(self, exponent, a, b) -> str:
        if "Literal" in exponent:
            value = next(iter(exponent["Literal"]["value"].values()))
            if value in (2, 3, 4):
                a = self.value("double", a)
            if value == 2:
                return f"({a} * {a})"
            if value == 3:
                return f"({a} * {a} * {a})"
            if value == 4:
                return f"(({a} * {a}) * ({a} * {a}))"
            if value == 0.5:
                return f"sqrt({a})"
        return f"pow({a}, {b})"

    def _dot(self, left, right, n) -> str:
        if not isinstance(n, int):
            raise Unsupported("a scalar product of open-sized vectors")
        terms = [f"{self.element(left, (k,))} * {self.element(right, (k,))}" for k in range(n)]
        return "(" + " + ".join(terms) + ")" if terms else "0.0"

    def _reduce(self, arg, op: str, empty: str) -> str:
        kind = next(iter(arg))
        if kind == "ArrayComprehension":
            body = arg[kind]
            terms = self._comprehension_terms(body)
        else:
            shape = self.shape(arg)
            if not all(isinstance(d, int) for d in shape):
                return self._reduce_loop(arg, shape, op, empty)
            terms = [self.element(arg, idx) for idx in _indices(shape)]
        if not terms:
            return empty
        if op in ("+", "*"):
            return "(" + f" {op} ".join(terms) + ")"
        text = terms[0]
        for term in terms[1:]:
            text = f"{op}({text}, {term})"
        return text

    def _reduce_loop(self, arg, shape, op, empty) -> str:
        if len(shape) != 1:
            raise Unsupported("a reduction over an open-sized matrix")
        acc, k = self.temp("acc"), self.temp("k")
        self.pre.append(f"double {acc} = {empty};")
        element = self.element(arg, (k,))
        update = f"{acc} {op}= {element};" if op in ("+", "*") else f"{acc} = {op}({acc}, {element});"
        self.pre.append(f"for (int {k} = 0; {k} < {shape[0]}; {k}++) {update}")
        return acc

    def _comprehension_terms(self, body) -> list[str]:
        terms = []
        ranges = []
        for index in body["indices"]:
            start, step, _ = (fold_int(x) for x in self._range(index["range"]))
            ranges.append((index["name"], start, step, self._range_length(index["range"])))
        for idx in _indices(tuple(r[3] for r in ranges)):
            env = {name: str(start + k * step) for (name, start, step, _), k in zip(ranges, idx)}
            terms.append(self.with_env(**env).scalar(body["expr"]))
        return terms

    def _builtin(self, name, args) -> str:
        if name in ("Cos", "Sin") and self.cse is not None:
            # cos(atan(u)) = 1/sqrt(1 + u^2), sin(2*atan(u)) = 2u/(1 + u^2): no trigonometric call
            u = _atan_argument(args[0], 1 if name == "Cos" else 2)
            if u is not None:
                return self.value("double", f"{'rt_cos_atan' if name == 'Cos' else 'rt_sin_2atan'}({self.scalar(u)})")
        if name in _MATH:
            inner = [self.scalar(a) for a in args]
            if name == "Abs" and self._is_int(args[0]):
                return f"abs({inner[0]})"
            text = f"{_MATH[name]}({', '.join(inner)})"
            return text if name in ("Abs", "Ceil", "Floor") else self.value("double", text)
        if name in ("Min", "Max"):
            if len(args) == 1:
                return self._reduce(args[0], "rt_fmin" if name == "Min" else "rt_fmax", "0.0")
            a, b = self.scalar(args[0]), self.scalar(args[1])
            if self._is_int(args[0]) and self._is_int(args[1]):
                cmp = "<" if name == "Min" else ">"
                return f"(({a}) {cmp} ({b}) ? ({a}) : ({b}))"
            return f"{'rt_fmin' if name == 'Min' else 'rt_fmax'}({a}, {b})"
        if name == "Sum":
            return self._reduce(args[0], "+", "0.0")
        if name == "Product":
            return self._reduce(args[0], "*", "1.0")
        if name in ("NoEvent", "Homotopy"):
            return self.scalar(args[0])
        if name == "Smooth":
            return self.scalar(args[1])
        if name == "Size":
            dims = self.shape(args[0])
            if len(args) == 1:
                raise Unsupported("size() without a dimension")
            axis = self.const_int(args[1])
            return str(dims[axis - 1])
        if name == "Integer":
            return f"((int)floor({self.scalar(args[0])}))"
        if name == "Div":
            a, b = self.scalar(args[0]), self.scalar(args[1])
            if self._is_int(args[0]) and self._is_int(args[1]):
                return f"(({a}) / ({b}))"
            return f"trunc(({a}) / ({b}))"
        if name == "Mod":
            a, b = self.scalar(args[0]), self.scalar(args[1])
            return f"(({a}) - floor((double)({a}) / ({b})) * ({b}))"
        if name == "Sign":
            a = self.scalar(args[0])
            return f"(({a}) > 0 ? 1.0 : (({a}) < 0 ? -1.0 : 0.0))"
        if name == "Der":
            return self._der(args[0], ())
        if name == "Pre":
            return self._pre(args[0], ())
        if name in ("Initial", "Terminal"):
            return "0"
        raise Unsupported(f"the built-in function {name.lower()}()")

    def _der(self, arg, idx) -> str:
        if "VarRef" not in arg:
            raise Unsupported("der() of an expression (only der(variable) is supported)")
        name = ref_name(arg)
        slot = self._slot(f"der({name})")
        subs = tuple(self._index(s) for s in ref_subs(arg))
        return slot.access(offset_of(slot.dims, self._merge(slot.dims, ref_subs(arg), subs, idx)))

    def _pre(self, arg, idx) -> str:
        if "VarRef" not in arg:
            raise Unsupported("pre() of an expression")
        if self.pre_values is None:
            return self.element(arg, idx) if idx else self.scalar(arg)
        name = ref_name(arg)
        slot = self.pre_values.get(name) or self._slot(name)
        subs = tuple(self._index(s) for s in ref_subs(arg))
        return slot.access(offset_of(slot.dims, self._merge(slot.dims, ref_subs(arg), subs, idx)))

    def _index(self, sub):
        if "Index" in sub:
            return sub["Index"]["value"] - 1
        if "Expr" in sub:
            text = fold_int(self.scalar(sub["Expr"]["expr"]))
            return text - 1 if isinstance(text, int) else f"({text}) - 1"
        raise Unsupported("a slice subscript where an index is expected")

    # ---- array elements ---------------------------------------------------------------------
    def _merge(self, dims, subs, fixed, idx) -> tuple:
        """Full index into an array of ``dims`` from its subscripts (some ':') and the free ``idx``."""
        out, free = [], list(idx)
        for k in range(len(dims)):
            sub = subs[k] if k < len(subs) else "Colon"
            if sub == "Colon" or (isinstance(sub, dict) and "Colon" in sub):
                out.append(free.pop(0))
            elif isinstance(sub, dict) and "Expr" in sub and "Range" in sub["Expr"]["expr"]:
                start, step, _ = self._range(sub["Expr"]["expr"])
                i = free.pop(0)
                out.append(fold_int(f"({start}) - 1 + ({i})*({step})"))
            else:
                out.append(self._index(sub))
        return tuple(out)

    def element(self, e, idx: tuple) -> str:
        if not idx:
            return self.scalar(e)
        kind = next(iter(e))
        body = e[kind]
        if kind == "VarRef":
            name = ref_name(e)
            slot = self._slot(name)
            full = self._merge(slot.dims, ref_subs(e), None, idx)
            return slot.access(offset_of(slot.dims, full))
        if kind == "Index":
            base_shape = self.shape(body["base"])
            full = self._merge(base_shape, body["subscripts"], None, idx)
            return self.element(body["base"], full)
        if kind == "Literal":
            return self.scalar(e)
        if kind == "Array":
            first = idx[0]
            if not isinstance(first, int):
                raise Unsupported("an array literal indexed by a run-time index")
            return self.element(body["elements"][first], idx[1:])
        if kind == "ArrayComprehension":
            env = {}
            for index, k in zip(body["indices"], idx):
                start, step, _ = self._range(index["range"])
                env[index["name"]] = str(fold_int(f"({start}) + ({k})*({step})"))
            rest = idx[len(body["indices"]):]
            return self.with_env(**env).element(body["expr"], rest)
        if kind == "Range":
            start, step, _ = self._range(e)
            return str(fold_int(f"({start}) + ({idx[0]})*({step})"))
        if kind == "Unary":
            inner = self.element(body["rhs"], idx)
            return {"Minus": f"(-{inner})", "Not": f"(!{inner})", "Plus": inner}[body["op"]]
        if kind == "Binary":
            op = body["op"]
            ls, rs = self.shape(body["lhs"]), self.shape(body["rhs"])
            if op == "Mul" and ls and rs:
                return self._matmul(body["lhs"], body["rhs"], ls, rs, idx)
            a = self.element(body["lhs"], idx) if ls else self.scalar(body["lhs"])
            b = self.element(body["rhs"], idx) if rs else self.scalar(body["rhs"])
            if op == "Exp":
                return self.parameter_only(self._power(body["rhs"], a, b))
            text = f"({a} {_BINARY[op]} {b})"
            return self.parameter_only(text) if op in _ARITHMETIC and self._is_real(body["lhs"], body["rhs"]) else text
        if kind == "If":
            conds = [self.scalar(body["branches"][0][0])] + [self.branch(c) for c, _ in body["branches"][1:]]
            text = self.branch(body["else_branch"], idx)
            for cond, (_, value) in reversed(list(zip(conds, body["branches"]))):
                text = f"({cond} ? {self.branch(value, idx)} : {text})"
            return text
        if kind == "FunctionCall":
            slot = self.hoist_call(e)
            return slot.access(offset_of(slot.dims, idx))
        if kind == "BuiltinCall":
            name, args = body["function"], body["args"]
            if name in ("Zeros",):
                return "0.0"
            if name == "Ones":
                return "1.0"
            if name == "Fill":
                return self.scalar(args[0])
            if name in ("NoEvent", "Homotopy"):
                return self.element(args[0], idx)
            if name == "Smooth":
                return self.element(args[1], idx)
            if name == "Der":
                return self._der(args[0], idx)
            if name == "Pre":
                return self._pre(args[0], idx)
            if name == "Diagonal":
                i, j = idx
                if isinstance(i, int) and isinstance(j, int):
                    return self.element(args[0], (i,)) if i == j else "0.0"
                return f"(({i}) == ({j}) ? {self.element(args[0], (i,))} : 0.0)"
            if name == "Transpose":
                return self.element(args[0], (idx[1], idx[0]) + tuple(idx[2:]))
            if name == "Cat":
                first = idx[0]
                if not isinstance(first, int):
                    raise Unsupported("cat() indexed by a run-time index")
                for part in args[1:]:
                    n = self.shape(part)[0]
                    if first < n:
                        return self.element(part, (first,) + tuple(idx[1:]))
                    first -= n
                raise Unsupported("cat() index out of range")
            if name in _MATH or name in ("Min", "Max"):
                parts = [self.element(a, idx) if self.shape(a) else self.scalar(a) for a in args]
                func = _MATH.get(name) or ("rt_fmin" if name == "Min" else "rt_fmax")
                return f"{func}({', '.join(parts)})"
        raise Unsupported(f"array expression '{kind}'")

    def _matmul(self, left, right, ls, rs, idx) -> str:
        if len(ls) == 2 and len(rs) == 1:
            n, i, j = ls[1], idx[0], None
        elif len(ls) == 1 and len(rs) == 2:
            n, i, j = rs[0], None, idx[0]
        else:
            n, i, j = ls[1], idx[0], idx[1]
        if not isinstance(n, int):
            raise Unsupported("a matrix product of open-sized arrays")
        terms = []
        for k in range(n):
            a = self.element(left, (i, k) if i is not None else (k,))
            b = self.element(right, (k, j) if j is not None else (k,))
            terms.append(f"{a} * {b}")
        return "(" + " + ".join(terms) + ")"

    def hoist_call(self, e) -> Slot:
        """Call a function with an array result into a temporary; return its slot. A call read element by
        element (``y[i, :] := f(x)``) is made once per expression, not once per element (with ``cse``, once
        per equal argument texts in the C function: functions.call_function)."""
        if id(e) not in self.hoisted:
            text, outputs = self.call(e, self, into_temp=True)
            self.hoisted[id(e)] = (e, outputs[0])
        return self.hoisted[id(e)][1]


def _atan_argument(e, factor: int):
    """u if ``e`` is atan(u) (factor 1) or 2*atan(u) / atan(u)*2 (factor 2), else None."""
    def atan_of(node):
        call = node.get("BuiltinCall")
        return call["args"][0] if call and call["function"] == "Atan" else None

    if factor == 1:
        return atan_of(e)
    body = e.get("Binary")
    if not body or body["op"] != "Mul":
        return None
    for a, b in ((body["lhs"], body["rhs"]), (body["rhs"], body["lhs"])):
        literal = a.get("Literal")
        if literal and next(iter(literal["value"].values())) == 2 and atan_of(b) is not None:
            return atan_of(b)
    return None


def _indices(shape: tuple):
    import itertools

    return itertools.product(*(range(n) for n in shape))


def indices(shape: tuple):
    """All 0-based index tuples of a constant shape, row-major."""
    return _indices(shape)


def count(shape: tuple) -> int:
    return math.prod(shape) if shape else 1
