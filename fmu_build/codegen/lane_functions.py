"""Lane versions of the scalar model's functions (table searches and interpolations, kinematic maps, ...).

The lane model (fmu_build.codegen.lanes) calls a model function of the generated scalar C through its lane
version ``lf_<name>(LaneInstance *M, li act, ...)`` where :class:`Translator` can write one, else lane by
lane on the lanes' scalar instances. In a lane version a ``double`` parameter is an ``lv``, an ``int`` an
``li``, an array (``const double *``) points at LANES-wide elements (``lv *``, as the lane instance's
``M->r``), loops with bounds the same on every lane stay C loops, an index that differs between lanes is a
gather, and what the function writes through its pointers is blended by the caller's lane mask ``act``.
Operations keep the scalar function's order, so every lane's result is the scalar function's, bit for bit.
"""
from __future__ import annotations

import re

from fmu_build.codegen.cexpr import Unsupported
from fmu_build.codegen.lanes import Function, LaneWriter, _body, parse

_FOR = re.compile(r"for \(int (\w+) = (.+?)(?:, (\w+) = (.+?))?; (\w+) <= (.+?); (\w+) \+= (\d+)\) \{")
_INLINE = 40          # lane functions of at most this many lines are inlined (common loads shared)
_KINDS = {"double": "d", "int": "i", "double*": "da", "int*": "ia"}
_SIZE = re.compile(r"\w+_d\d+")   # an array parameter's size: the same on every lane, a plain C int


def kind_of(name: str, ctype: str) -> str:
    if ctype not in _KINDS:
        raise Unsupported(f"a parameter {name} of type {ctype}")
    return "ci" if ctype == "int" and _SIZE.fullmatch(name) else _KINDS[ctype]


_LANE_TYPES = {"double": "lv", "int": "li", "double*": "lv *", "int*": "li *", "void": "void"}


class FunctionWriter(LaneWriter):
    """One scalar function body -> the body of its lane version (parameters in the outermost scope)."""

    def __init__(self, translator: Translator, function: Function):
        super().__init__(translator.functions, {}, translator)
        self.scopes = [{n: kind_of(n, c) for n, (c, _) in zip(function.names, function.params)}, {}]
        self.masks = ["act", "act"]        # writes to anything but the function's own locals are blended
        self.returned = False

    def statement(self, line: str) -> list[str]:
        line = line.strip()
        if self.returned and line:
            raise Unsupported("a statement after 'return'")
        pre: list[str] = []
        if match := re.fullmatch(r"(double|int) (\w+) = (.*);", line):
            kind = _KINDS[match[1]]
            self.scopes[-1][match[2]] = kind
            text, t = self.expr(parse(match[3]), pre)
            value = self.as_d(text, t) if kind == "d" else self.as_i(text, t)
            return pre + [f"{'lv' if kind == 'd' else 'li'} {match[2]} = {value};"]
        if match := _FOR.fullmatch(line):
            return self.loop(match, pre)
        if match := re.fullmatch(r"if \((\w+)\) \*(\w+) = (.*);", line):
            if match[1] != match[2] or self.lookup(match[1])[0] not in ("da", "ia"):
                raise Unsupported(f"the statement '{line[:60]}'")
            text, t = self.expr(parse(match[3]), pre)
            if self.lookup(match[1])[0] == "da":
                value = f"lsel({self.masks[-1]}, {self.as_d(text, t)}, *{match[1]})"
            else:
                value = f"lseli({self.masks[-1]}, {self.as_i(text, t)}, *{match[1]})"
            return pre + [f"if ({match[1]}) *{match[1]} = {value};"]
        if match := re.fullmatch(r'if \((.*)\) model_error\(m, ("(?:[^"\\]|\\.)*")\);', line):
            text, t = self.expr(parse(match[1]), pre)
            failing = self.temp("bad")
            return pre + [f"const li {failing} = {self.masks[-1]} & ({self.as_b(text, t)});",
                          f"if (lany({failing})) lane_error(M, {failing}, {match[2]});"]
        if match := re.fullmatch(r"return (.*);", line):
            if len(self.frames) != 0:
                raise Unsupported("a 'return' inside a block")
            self.returned = True
            text, t = self.expr(parse(match[1]), pre)
            kind = "d" if t in ("d", "cd") else "i"
            return pre + [f"return {self.as_d(text, t) if kind == 'd' else self.as_i(text, t)};"]
        return super().statement(line)

    def loop(self, match, pre) -> list[str]:
        """A for loop whose bounds are the same on every lane: a C loop, its variables plain C ints."""
        var, start, end_var, end, test, bound, step_var, step = match.groups()
        start_text, t1 = self.expr(parse(start), pre)
        end_text, t2 = self.expr(parse(end), pre) if end else ("", "ci")
        bound_text, bound_kind = (bound, "ci") if bound == end_var else self.expr(parse(bound), pre)
        if not (test == step_var == var) or {t1, t2, bound_kind} - {"ci"}:
            raise Unsupported("a loop whose bounds differ between lanes")
        self.frames.append(("block", None, None))
        self.masks.append(self.masks[-1])
        self.scopes.append({var: "ci", **({end_var: "ci"} if end_var else {})})
        self.elementary.push(barrier=True)
        head = f"int {var} = {start_text}" + (f", {end_var} = {end_text}" if end_var else "")
        return pre + [f"for ({head}; {var} <= {bound_text}; {var} += {step}) {{"]


_SEGMENT = """int l_i = 0;
int l_hi = 0;
int l_mid = 0;
l_i = 1;
l_hi = {n};
for (int l_k = 1, l_k_end = ((int)floor(ceil((log({n}) / log(2))))); l_k <= l_k_end; l_k += 1) {{
if (((l_hi - l_i) > 1)) {{
l_mid = (((l_i + l_hi)) / (2));
if ((l_u >= l_x[((l_mid) - 1)])) {{
l_i = l_mid;
}} else {{
l_hi = l_mid;
}}
}}
}}
return l_i;"""


def segment_count(name: str, body: list[str]) -> str | None:
    """VehicleRTM.Tables.segment's bisection over n breakpoints as a count, or None for another body.

    On strictly increasing breakpoints (the Tables package's contract) the bisection's index is 1 plus the
    number of inner breakpoints x[2..n-1] at or below u (1 for a NaN u, as the bisection's): n - 2
    comparisons of each lane's own breakpoints, no gathers and no chain of dependent loads."""
    lines = [line.strip() for line in body if line.strip()]
    n = next((line[len("l_hi = "):-1] for line in lines if line.startswith("l_hi = ")), "")
    if not n.isdigit() or lines != _SEGMENT.format(n=n).split("\n"):
        return None
    return "\n".join([f"static inline li lf_{name}(LaneInstance *M, li act, const lv *l_x, lv l_u)", "{",
                      "    li l_i = lbi(1);", f"    for (int l_m = 2; l_m <= {int(n) - 1}; l_m++)",
                      "        l_i -= (li)(l_u >= l_x[l_m - 1]);    /* a mask: -1 where at or above */",
                      "    return l_i;", "}", ""])


class Translator:
    """The lane versions of the functions the lane model calls, each written once, callees first."""

    def __init__(self, source: str, functions: dict[str, Function]):
        self.source, self.functions = source, functions
        self.done: dict[str, bool] = {}
        self.emitted: list[str] = []

    def translate(self, name: str) -> bool:
        """Whether ``name`` has a lane version (written on first use)."""
        if name not in self.done:
            self.done[name] = False           # a recursive call falls back to lane by lane
            try:
                text = self.write(name)
            except Unsupported:
                return False
            self.emitted.append(text)
            self.done[name] = True
        return self.done[name]

    def write(self, name: str) -> str:
        function = self.functions[name]
        head = re.search(rf"^static (?:double|int|void) {name}\(ModelInstance \*m[^)]*\)$", self.source, re.M)
        if head is None:
            raise Unsupported(f"no definition of {name}")
        body = _body(self.source, head[0])
        if (counted := segment_count(name, body)) is not None:
            return counted
        writer = FunctionWriter(self, function)
        lines = []
        for line in body:
            lines += writer.statement(line)
        if function.result != "void" and not writer.returned:
            raise Unsupported(f"{name}: no 'return' at its end")
        params = ", ".join(["LaneInstance *M", "li act"] + [
            f"{'const ' if c.endswith('*') and not out else ''}"
            f"{'int' if kind_of(n, c) == 'ci' else _LANE_TYPES[c]} {n}".replace("* ", "*")
            for n, (c, out) in zip(function.names, function.params)])
        inline = "static inline __attribute__((always_inline))" if len(lines) <= _INLINE else "static"
        return "\n".join([f"{inline} {_LANE_TYPES[function.result]} lf_{name}({params})", "{",
                          *("    " + line for line in lines if line), "}", ""])
