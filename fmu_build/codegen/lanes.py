"""The lane model: the generated scalar model's continuous equations over a lane dimension (LANES vehicles).

:func:`lane_source` reads the scalar C of :mod:`fmu_build.codegen.model` (the generator's own, regular
output: one statement per line) and writes ``lane_outputs_and_derivatives`` / ``lane_derivatives`` on
``runtime/lanes.h``'s LaneInstance: every value a vector of LANES lanes, ``if``-expressions and
``if``-statements as per-lane selects (a branch runs when any active lane takes it; what it assigns
outside itself is blended by the lane mask; an ``if``-expression's arm that calls elementary functions runs
only when a lane takes it), elementary functions glibc's vector functions (libmvec). Calls of the
model's table functions (data-dependent searches) run lane by lane on the lanes' scalar instances, with
the arrays they read or write that change while stepping copied in and out. Operations keep the scalar
model's order, so each lane equals the scalar model to round-off (libmvec's elementary functions, at most 4 ulp).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from fmu_build.codegen.cexpr import Unsupported
from fmu_build.codegen.lane_elementary import ELEMENTARY, ElementaryCache
from fmu_build.codegen.lane_schedule import schedule, writing_functions

_TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+|\d+)|([A-Za-z_]\w*)|(->|<=|>=|==|!=|&&|\|\||[-+*/<>!?:(),\[\]&{}]))")
_MATH = {"atan": "latan", "sin": "lsin", "cos": "lcos", "tan": "ltan", "exp": "lexp", "log": "llog",
         "sqrt": "lsqrt", "tanh": "ltanh", "sinh": "lsinh", "cosh": "lcosh", "asin": "lasin",
         "acos": "lacos", "log10": "llog10", "pow": "lpow", "atan2": "latan2", "fabs": "lfabs", "floor": "lfloor",
         "rt_fmin": "lfmin", "rt_fmax": "lfmax", "rt_cos_atan": "lcos_atan", "rt_sin_2atan": "lsin_2atan"}
_BINARY = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/")]
_PROTOTYPE = re.compile(r"^static (double|int|void) (f_\w+)\(ModelInstance \*m(?:, ([^)]*))?\)", re.M)
_CONST = ("cd", "ci")
_CONST_LV = re.compile(r"const lv (\w+) = (.*);")


def tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise Unsupported(f"cannot read C at '{text[pos:pos + 30]}'")
        out.append(match.group(match.lastindex))
        pos = match.end()
    return out


class Parser:
    """Expressions of the generated C -> tuples: ('num', text), ('var', name), ('slot', array, index),
    ('elem', name, index), ('addr', array, index), ('gather', array, base, index expression), ('time',), ('call', name, args), ('un', op, x),
    ('bin', op, a, b), ('cond', c, a, b), ('cast', ctype, x)."""

    def __init__(self, text: str):
        self.toks, self.k = tokens(text), 0

    def peek(self, ahead=0):
        return self.toks[self.k + ahead] if self.k + ahead < len(self.toks) else None

    def take(self, expected=None):
        tok = self.peek()
        if expected is not None and tok != expected:
            raise Unsupported(f"expected '{expected}', found '{tok}'")
        self.k += 1
        return tok

    def expression(self):
        cond = self.binary(0)
        if self.peek() == "?":
            self.take()
            a = self.expression()
            self.take(":")
            return ("cond", cond, a, self.expression())
        return cond

    def binary(self, level):
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            op = self.take()
            left = ("bin", op, left, self.binary(level + 1))
        return left

    def unary(self):
        tok = self.peek()
        if tok in ("-", "!", "+"):
            self.take()
            return ("un", tok, self.unary())
        if tok == "(" and self.peek(1) in ("double", "int") and self.peek(2) == ")":
            self.take()
            ctype = self.take()
            self.take(")")
            return ("cast", ctype, self.unary())
        if tok == "&":
            self.take()
            node = self.primary()
            if node[0] == "var":
                return ("laddr", node[1])
            if node[0] != "slot":
                raise Unsupported("& of something other than a model variable")
            return ("addr",) + node[1:]
        return self.primary()

    def primary(self):
        tok = self.take()
        if tok is None:
            raise Unsupported("an incomplete expression")
        if tok[0].isdigit():
            return ("num", tok)
        if tok == "(":
            if self.peek() == "&":          # (&m->r[N])[k]
                self.take()
                base = self.primary()
                self.take(")")
                if self.peek() == "[":
                    self.take()
                    index = self.expression()
                    self.take("]")
                    try:
                        return ("slot", base[1], base[2] + self.constant(index))
                    except Unsupported:
                        return ("gather", base[1], base[2], index)
                return ("addr",) + base[1:]
            inner = self.expression()
            self.take(")")
            return inner
        if tok == "m" and self.peek() == "->":
            self.take()
            field_ = self.take()
            if field_ == "time":
                return ("time",)
            self.take("[")
            index = self.expression()
            self.take("]")
            try:
                return ("slot", field_, self.constant(index))
            except Unsupported:
                return ("gather", field_, 0, index)
        if self.peek() == "(":
            self.take()
            args = []
            while self.peek() != ")":
                args.append(self.expression())
                if self.peek() == ",":
                    self.take()
            self.take(")")
            return ("call", tok, args)
        if self.peek() == "[":
            self.take()
            index = self.expression()
            self.take("]")
            try:
                return ("elem", tok, self.constant(index))
            except Unsupported:
                return ("index", tok, index)
        return ("var", tok)

    @staticmethod
    def constant(node) -> int:
        if node[0] == "num" and node[1].isdigit():
            return int(node[1])
        if node[0] == "bin" and node[1] in "+-*":
            a, b = Parser.constant(node[2]), Parser.constant(node[3])
            return a + b if node[1] == "+" else a - b if node[1] == "-" else a * b
        raise Unsupported("an index that is not a constant")


def parse(text: str):
    parser = Parser(text)
    node = parser.expression()
    if parser.peek() is not None:
        raise Unsupported(f"unexpected '{parser.peek()}'")
    return node


@dataclass
class Function:
    """A scalar model function: its result type, its parameters (ctype, is output) and their names."""
    result: str
    params: list = field(default_factory=list)
    names: list = field(default_factory=list)


def functions_of(source: str) -> dict[str, Function]:
    out = {}
    for result, name, params in _PROTOTYPE.findall(source):
        parsed, names = [], []
        for param in (p.strip() for p in params.split(",")) if params else ():
            pointer = "*" in param
            parsed.append(("double*" if pointer and "double" in param else "int*" if pointer else
                           param.split()[0], pointer and not param.startswith("const")))
            names.append(param.replace("*", " ").split()[-1])
        out[name] = Function(result, parsed, names)
    return out


def _num_type(text: str) -> str:
    return "ci" if text.isdigit() else "cd"


class LaneWriter:
    """One scalar C function body -> its lane version (see the module's docstring)."""

    def __init__(self, functions: dict[str, Function], windows: dict[int, tuple[int, bool]], translator=None):
        self.functions, self.windows, self.translator = functions, windows, translator
        self.scopes = [{}]                 # local name -> 'd' | 'i' | 'b' | 'da' | 'ia' (arrays of lanes)
        self.masks = ["act"]               # the lanes a statement runs for, innermost block last
        self.frames = []                   # per open brace: ('if', condition name) | ('block', None)
        self.counter = 0
        self.sizes: dict[str, int] = {}    # local array -> its length
        self.elementary = ElementaryCache()  # elementary calls already in a temporary

    def temp(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def lookup(self, name):
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name], scope is self.scopes[-1]
        if name == "outputs":
            return "ci", True
        raise Unsupported(f"unknown name '{name}'")

    # ---- conversions ----------------------------------------------------------------------------
    @staticmethod
    def as_d(text, kind):
        return {"d": text, "cd": f"lbd({text})", "ci": f"lbd({text})", "i": f"ltod({text})",
                "b": f"ltod(-({text}))"}[kind]

    @staticmethod
    def as_i(text, kind):
        return {"i": text, "ci": f"lbi({text})", "cd": f"lbi((long long)({text}))", "d": f"ltoi({text})",
                "b": f"(-({text}))"}[kind]

    @staticmethod
    def as_b(text, kind):
        return {"b": text, "i": f"({text} != lbi(0))", "d": f"({text} != lbd(0))",
                "ci": f"lbi(-(({text}) != 0))", "cd": f"lbi(-(({text}) != 0))"}[kind]

    # ---- expressions ----------------------------------------------------------------------------
    def expr(self, node, pre: list) -> tuple[str, str]:
        kind = node[0]
        if kind == "num":
            return node[1], _num_type(node[1])
        if kind == "time":
            return "M->time", "cd"
        if kind == "var":
            return node[1], self.lookup(node[1])[0]
        if kind == "slot":
            return f"M->{node[1]}[{node[2]}]", "d" if node[1] == "r" else "i"
        if kind == "gather":
            index, t = self.expr(node[3], pre)
            gather = "lgather" if node[1] == "r" else "lgatheri"
            index = f"({self.as_i(index, t)} & {self.masks[-1]})"    # element 0 for the inactive lanes
            args = f"(&M->{node[1]}[{node[2]}], {index})"
            text = self.uniform(f"(&M->{node[1]}[{node[2]}])", node[3], gather + args, gather + "_hw" + args)
            return text, "d" if node[1] == "r" else "i"
        if kind == "elem":
            array, _ = self.lookup(node[1])
            return f"{node[1]}[{node[2]}]", array[0]
        if kind == "index":
            return self.indexed(node, pre)
        if kind == "un":
            text, t = self.expr(node[2], pre)
            if node[1] == "!":
                return (f"(!{text})", "ci") if t in _CONST else (f"(~{self.as_b(text, t)})", "b")
            if node[1] == "-":
                if t == "b":
                    text, t = self.as_i(text, t), "i"
                return f"(-{text})", t
            return text, t
        if kind == "cast":
            text, t = self.expr(node[2], pre)
            if t in _CONST:
                return f"(({node[1]}){text})", "cd" if node[1] == "double" else "ci"
            return (self.as_d(text, t), "d") if node[1] == "double" else (self.as_i(text, t), "i")
        if kind == "bin":
            return self.binary(node, pre)
        if kind == "cond":
            c, ct = self.expr(node[1], pre)
            (a, at, pre_a), (b, bt, pre_b) = self.arm(node[2]), self.arm(node[3])
            if ct in _CONST and at in _CONST and bt in _CONST:
                pre += pre_a + pre_b
                return f"({c} ? {a} : {b})", "cd" if "cd" in (at, bt) else "ci"
            mask = self.as_b(c, ct)
            pre += self.lazy(pre_a, mask) + self.lazy(pre_b, f"~{mask}")
            if "d" in (at, bt) or "cd" in (at, bt):
                return f"lsel({mask}, {self.as_d(a, at)}, {self.as_d(b, bt)})", "d"
            if at == bt == "b":
                return f"lseli({mask}, {a}, {b})", "b"
            return f"lseli({mask}, {self.as_i(a, at)}, {self.as_i(b, bt)})", "i"
        if kind == "call":
            return self.call(node, pre)
        raise Unsupported(f"'{kind}' in an expression")

    def arm(self, node) -> tuple[str, str, list[str]]:
        """An if-expression's arm: its text, type and the statements it needs (its elementary calls remembered
        only inside it: they may be made for the lanes that take the arm alone)."""
        own: list[str] = []
        self.elementary.push()
        text, t = self.expr(node, own)
        self.elementary.pop()
        return text, t, own

    def lazy(self, lines: list[str], mask: str) -> list[str]:
        """An arm's statements, run only when an active lane takes the arm where they include an elementary
        call (the scalar C's ?: evaluates one arm; the other lanes' values are discarded by the select)."""
        declared = [_CONST_LV.fullmatch(line) for line in lines]
        if not lines or not all(declared) or not any(ELEMENTARY.search(d[2]) for d in declared):
            return lines
        return [*(f"lv {d[1]} = lbd(0);" for d in declared), f"if (lany({self.masks[-1]} & {mask})) {{",
                *(f"    {d[1]} = {d[2]};" for d in declared), "}"]

    def indexed(self, node, pre) -> tuple[str, str]:
        """array[i]: a plain read where i is the same on every lane, else a per-lane gather."""
        array, _ = self.lookup(node[1])
        if array not in ("da", "ia"):
            raise Unsupported(f"'{node[1]}[...]' of something other than an array")
        index, t = self.expr(node[2], pre)
        if t in _CONST:
            return f"{node[1]}[{index}]", array[0]
        gather = "lgather_d" if array == "da" else "lgather_i"
        masked = f"({node[1]}, ({self.as_i(index, t)} & {self.masks[-1]}))"
        return self.uniform(node[1], node[2], gather + masked, gather.replace("_", "_hw_") + masked), array[0]

    def uniform(self, base: str, index, gathered: str, hardware: str) -> str:
        """A gather whose index is integer arithmetic of li variables: one load of base[index of lane 0] when
        every lane is active and each of those variables is the same on every lane (gcc shares the test
        between the reads of one table cell), else the hardware gather without gathered's own uniformity test
        (which would test again what this test found)."""
        names: set[str] = set()

        def scalar(node):
            if node[0] == "num" and node[1].isdigit():
                return node[1]
            if node[0] == "var" and self.lookup(node[1])[0] == "i":
                names.add(node[1])
                return f"{node[1]}[0]"
            if node[0] == "bin" and node[1] in ("+", "-", "*"):
                a, b = scalar(node[2]), scalar(node[3])
                return None if a is None or b is None else f"({a} {node[1]} {b})"
            return None

        text = scalar(index)
        if text is None or not names:
            return gathered
        test = " | ".join(f"ldiffers({n})" for n in sorted(names))
        return f"(!lany(~{self.masks[-1]} | {test}) ? {base}[{text}] : {hardware})"

    def binary(self, node, pre):
        op = node[1]
        (a, at), (b, bt) = self.expr(node[2], pre), self.expr(node[3], pre)
        if at in _CONST and bt in _CONST:
            result = "ci" if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||") or (at == bt == "ci") else "cd"
            return f"({a} {op} {b})", result
        if op in ("&&", "||"):
            return f"({self.as_b(a, at)} {'&' if op == '&&' else '|'} {self.as_b(b, bt)})", "b"
        real = {"d", "cd"} & {at, bt}
        if real:
            a, b = self.as_d(a, at), self.as_d(b, bt)
        else:
            a, b = self.as_i(a, at), self.as_i(b, bt)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            return f"({a} {op} {b})", "b"
        return f"({a} {op} {b})", "d" if real else "i"

    def call(self, node, pre):
        name, args = node[1], node[2]
        if name in self.functions:
            result = self.lane_call(name, args, pre)
            if any(ctype.endswith("*") for ctype, _ in self.functions[name].params):
                self.elementary.clear()        # it may have written what remembered calls read
            return result
        parts = [self.expr(a, pre) for a in args]
        if all(t in _CONST for _, t in parts):
            return f"{name}({', '.join(p for p, _ in parts)})", "cd"
        if name == "abs":
            (x, t), = parts
            x = self.as_i(x, t)
            return f"lseli({x} < lbi(0), -{x}, {x})", "i"
        if name not in _MATH:
            raise Unsupported(f"the function {name}() in the lane model")
        text = f"{_MATH[name]}({', '.join(self.as_d(p, t) for p, t in parts)})"
        if not ELEMENTARY.match(text):
            return text, "d"
        if (temp := self.elementary.get(text)) is None:
            temp = self.temp("e")
            pre.append(f"const lv {temp} = {text};")
            self.elementary.put(text, temp)
        return temp, "d"

    def lane_call(self, name, args, pre) -> tuple[str, str]:
        """A scalar model function: its lane version where the translator has one, else called for each
        active lane on its scalar instance."""
        function = self.functions[name]
        if len(args) != len(function.params) + 1:
            raise Unsupported(f"{name}(): {len(args) - 1} arguments for {len(function.params)} parameters")
        if self.translator is not None and self.translator.translate(name):
            return self.vector_call(name, function, args, pre)
        before, passed, after = [], ["S"], []
        for arg, (ctype, output) in zip(args[1:], function.params):
            if arg[0] == "addr":
                if arg[1] != "r":
                    raise Unsupported(f"{name}(): a pointer into m->{arg[1]}")
                vr = arg[2]
                size, dynamic = self.windows.get(vr, (1, True))
                if dynamic and not output:
                    before.append(f"for (int j = 0; j < {size}; j++) S->r[{vr} + j] = M->r[{vr} + j][l];")
                if output:
                    after.append(f"for (int j = 0; j < {size}; j++) M->r[{vr} + j][l] = S->r[{vr} + j];")
                passed.append(f"&S->r[{vr}]")
            elif arg[0] == "var" and self.lookup(arg[1])[0] in ("da", "ia"):
                array = arg[1]
                scratch = self.temp("s")
                size = self.sizes[array]
                before.append(f"{'double' if self.lookup(array)[0] == 'da' else 'long long'} {scratch}[{size}];")
                if not output:
                    before.append(f"for (int j = 0; j < {size}; j++) {scratch}[j] = {array}[j][l];")
                else:
                    after.append(f"for (int j = 0; j < {size}; j++) {array}[j][l] = {scratch}[j];")
                passed.append(scratch)
            else:
                text, t = self.expr(arg, pre)
                if t in _CONST:
                    passed.append(text)
                else:
                    value = self.temp("p")
                    pre.append(f"const {'lv' if ctype == 'double' else 'li'} {value} = "
                               f"{self.as_d(text, t) if ctype == 'double' else self.as_i(text, t)};")
                    passed.append(f"{value}[l]")
        result = None
        call = f"{name}({', '.join(passed)})"
        if function.result != "void":
            result = self.temp("c")
            pre.append(f"{'lv' if function.result == 'double' else 'li'} {result} = {{0}};")
            call = f"{result}[l] = {call}"
        pre += [f"for (int l = 0; l < LANES; l++) {{", f"    if (!{self.masks[-1]}[l]) continue;",
                "    ModelInstance *S = M->scalar[l];", *("    " + b for b in before), f"    {call};",
                *("    " + a for a in after), "}"]
        return (result, "d" if function.result == "double" else "i") if result else ("", "void")

    def vector_call(self, name, function, args, pre) -> tuple[str, str]:
        """A call of the function's lane version (fmu_build.codegen.lane_functions) for the current mask."""
        from fmu_build.codegen.lane_functions import kind_of

        passed = ["M", self.masks[-1]]
        for arg, (ctype, _), param in zip(args[1:], function.params, function.names):
            if ctype.endswith("*"):
                passed.append(self.pointer_argument(name, arg, ctype))
                continue
            text, t = self.expr(arg, pre)
            if kind_of(param, ctype) == "ci":
                if t != "ci":
                    raise Unsupported(f"{name}(): the array size {param} differs between lanes")
                passed.append(text)
            else:
                passed.append(self.as_d(text, t) if ctype == "double" else self.as_i(text, t))
        call = f"lf_{name}({', '.join(passed)})"
        if function.result == "void":
            pre.append(call + ";")
            return "", "void"
        result = self.temp("c")
        pre.append(f"const {'lv' if function.result == 'double' else 'li'} {result} = {call};")
        return result, "d" if function.result == "double" else "i"

    def pointer_argument(self, name, arg, ctype) -> str:
        want = "d" if ctype == "double*" else "i"
        if arg[0] == "addr" and arg[1] == {"d": "r", "i": "i"}[want]:
            return f"&M->{arg[1]}[{arg[2]}]"
        if arg[0] == "var" and self.lookup(arg[1])[0] == want + "a":
            return arg[1]
        if arg[0] == "laddr" and self.lookup(arg[1])[0] == want:
            return f"&{arg[1]}"
        if arg == ("num", "0"):
            return "0"
        raise Unsupported(f"{name}(): a {ctype} argument {arg[0]} the lane version cannot take")

    # ---- statements -----------------------------------------------------------------------------
    def assign(self, target_text: str, target_kind: str, outer: bool, value, pre) -> str:
        text, t = self.expr(value, pre)
        self.elementary.forget(target_text)
        if target_kind == "d":
            text = self.as_d(text, t)
            return f"{target_text} = {text};" if not outer or len(self.masks) == 1 else \
                f"{target_text} = lsel({self.masks[-1]}, {text}, {target_text});"
        text = self.as_b(text, t) if target_kind == "b" else self.as_i(text, t)
        return f"{target_text} = {text};" if not outer or len(self.masks) == 1 else \
            f"{target_text} = lseli({self.masks[-1]}, {text}, {target_text});"

    def statement(self, line: str) -> list[str]:
        pre: list[str] = []
        line = line.strip()
        if line in ("", "(void)outputs;", "(void)m;") or line.startswith("if (!outputs) return;"):
            return [line.replace("(void)m;", "")]
        if match := re.fullmatch(r"const (double|int) (\w+) = (.*);", line):
            text, t = self.expr(parse(match[3]), pre)
            kind = "d" if match[1] == "double" else ("b" if t == "b" else "i")
            self.scopes[-1][match[2]] = kind
            value = self.as_d(text, t) if kind == "d" else self.as_b(text, t) if kind == "b" else self.as_i(text, t)
            return pre + [f"const {'lv' if kind == 'd' else 'li'} {match[2]} = {value};"]
        if match := re.fullmatch(r"(double|int) (\w+);", line):
            self.scopes[-1][match[2]] = "d" if match[1] == "double" else "i"
            return [f"{'lv' if match[1] == 'double' else 'li'} {match[2]} = {{0}};"]
        if match := re.fullmatch(r"(double|int) (\w+)\[(\d+)\](?: = \{(.*)\})?;", line):
            kind = "da" if match[1] == "double" else "ia"
            self.scopes[-1][match[2]], self.sizes[match[2]] = kind, int(match[3])
            init = ""
            if match[4]:
                values = [self.expr(parse(v), pre) for v in _split_top(match[4])]
                init = " = {" + ", ".join(self.as_d(v, t) if kind == "da" else self.as_i(v, t)
                                          for v, t in values) + "}"
            return pre + [f"{'lv' if kind == 'da' else 'li'} {match[2]}[{match[3]}]{init};"]
        if match := re.fullmatch(r"if \((.*)\) \{", line):
            text, t = self.expr(parse(match[1]), pre)
            cond, mask = self.temp("cnd"), self.temp("msk")
            parent = self.masks[-1]
            self.frames.append(("if", cond, parent))
            self.masks.append(mask)
            self.scopes.append({})
            self.elementary.push()
            return pre + [f"const li {cond} = {self.as_b(text, t)};",
                          f"if (lany({parent} & {cond})) {{", f"    const li {mask} = {parent} & {cond};"]
        if line == "} else {":
            kind, cond, parent = self.frames[-1]
            mask = self.temp("msk")
            self.masks[-1] = mask
            self.scopes[-1] = {}
            self.elementary.pop()
            self.elementary.push()
            return ["}", f"if (lany({parent} & ~{cond})) {{", f"    const li {mask} = {parent} & ~{cond};"]
        if line == "{":
            self.frames.append(("block", None, None))
            self.masks.append(self.masks[-1])
            self.scopes.append({})
            self.elementary.push()
            return ["{"]
        if line == "}":
            self.frames.pop()
            self.masks.pop()
            self.scopes.pop()
            self.elementary.pop()
            return ["}"]
        if match := re.fullmatch(r"(.+?) = (.*);", line):
            target = parse(match[1])
            if target[0] == "slot":
                kind, outer, text = "d" if target[1] == "r" else "i", True, f"M->{target[1]}[{target[2]}]"
            elif target[0] == "var":
                kind, local = self.lookup(target[1])
                outer, text = not local, target[1]
            elif target[0] == "elem":
                array, local = self.lookup(target[1])
                kind, outer, text = array[0], not local, f"{target[1]}[{target[2]}]"
            elif target[0] == "index":
                text, kind = self.indexed(target, pre)
                if kind not in ("d", "i") or "lgather" in text:
                    raise Unsupported(f"an assignment to '{match[1]}' at a per-lane index")
                outer = not self.lookup(target[1])[1]
            else:
                raise Unsupported(f"an assignment to '{match[1]}'")
            line_out = self.assign(text, kind, outer, parse(match[2]), pre)
            return pre + [line_out]
        if match := re.fullmatch(r"(f_\w+\(.*\));", line):
            node = parse(match[1])
            self.call(node, pre)
            return pre
        raise Unsupported(f"the statement '{line[:60]}'")


def _split_top(text: str) -> list[str]:
    """Comma-separated items of an initialiser, commas inside parentheses kept."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(text[start:k])
            start = k + 1
    return out + [text[start:]]


def _body(source: str, signature: str) -> list[str]:
    """The lines of a top-level C function of the generated source, between its braces."""
    if signature + "\n{\n" not in source:
        raise Unsupported(f"no '{signature}' in the model's C")
    start = source.index(signature + "\n{\n") + len(signature) + 3
    end = source.index("\n}\n", start)
    return source[start:end].split("\n")


def windows_of(variables) -> dict[int, tuple[int, bool]]:
    """Real value reference -> (elements to the end of its variable, whether it changes while stepping)."""
    by_base: dict[str, list] = {}
    for var in variables.variables:
        if var.type == "Real":
            by_base.setdefault(var.base, []).append(var)
    out = {}
    for elements in by_base.values():
        last = max(v.value_reference for v in elements)
        for var in elements:
            dynamic = var.kind not in ("parameter", "calculatedParameter") and not var.name.startswith("$parameter")
            out[var.value_reference] = (last - var.value_reference + 1, dynamic)
    return out


def _scheduled(lines: list[str], writers: set[str]) -> list[str]:
    """``lines`` with each part (before and after the derivative-only return) in critical-path order."""
    split = next((k for k, line in enumerate(lines) if line.startswith("if (!outputs) return;")), len(lines))
    return schedule(lines[:split], writers) + lines[split:split + 1] + schedule(lines[split + 1:], writers)


def lane_source(scalar_source: str, variables) -> str:
    """The lane model's C (to be compiled in one unit after the scalar model's C and runtime/lanes.h)."""
    for name in ("model_outputs_and_derivatives", "model_derivatives"):
        body = [line.strip() for line in _body(scalar_source, f"void {name}(ModelInstance *m)")]
        if body != [f"continuous_equations(m, {1 if name == 'model_outputs_and_derivatives' else 0});"]:
            raise Unsupported(f"{name} does more than the continuous equations (continuous asserts)")
    from fmu_build.codegen.lane_functions import Translator

    functions = functions_of(scalar_source)
    translator = Translator(scalar_source, functions)
    writer = LaneWriter(functions, windows_of(variables), translator)
    lines = []
    for number, line in enumerate(_body(scalar_source, "static void continuous_equations(ModelInstance *m, int outputs)")):
        try:
            lines += writer.statement(line)
        except Unsupported as error:
            raise Unsupported(f"continuous_equations, line {number + 1}: {error}") from None
    lines = _scheduled([line for line in lines if line], writing_functions(translator.emitted))
    discrete = "\n".join(_body(scalar_source, "void model_discrete_update(ModelInstance *m)") +
                         _body(scalar_source, "static void discrete_equations(ModelInstance *m)"))
    reads = sorted({int(a) + int(b or 0) for a, b in re.findall(r"m->r\[(\d+)(?: \+ (\d+))?\]", discrete)})
    return "\n".join([
        "/* The lane model (fmu_build.codegen.lanes): the continuous equations over LANES vehicles. */",
        "/* the Reals model_discrete_update reads or writes (the lane runner's discrete check) */",
        f"#define N_LANE_DISCRETE_R {len(reads)}",
        "static const unsigned int LANE_DISCRETE_R[] = {" + ", ".join(map(str, reads or [0])) + "};",
        "/* the lane versions of the model functions it calls (fmu_build.codegen.lane_functions) */",
        *translator.emitted,
        "static void lane_continuous_equations(LaneInstance *M, int outputs, li act)", "{",
        *("    " + line for line in lines), "    (void)act;", "}", "",
        "void lane_outputs_and_derivatives(LaneInstance *M, li act) { lane_continuous_equations(M, 1, act); }",
        "void lane_derivatives(LaneInstance *M, li act) { lane_continuous_equations(M, 0, act); }", ""])
