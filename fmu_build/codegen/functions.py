"""Modelica functions (rumoca's flat stage, records already split into fields) -> static C functions.

Signature of the C function of ``f(inputs) -> (outputs)``: ``ModelInstance *m`` (for assert's
model_error), then each input (a scalar by value; an array as ``const double *`` followed by its
sizes, one int per dimension), then a pointer per output except the first scalar one, which is
the return value (a NULL pointer drops an output). Array outputs are written into buffers the
caller provides; their sizes must be constant in the declaration.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from fmu_build.codegen.cexpr import Emitter, Slot, Unsupported, count, fold_int, indices, offset_of, ref_name

CTYPE = {"Real": "double", "Integer": "int", "Boolean": "int"}


def c_function_name(name: str) -> str:
    return "f_" + name.replace(".", "_")


@dataclass
class Signature:
    name: str
    cname: str
    inputs: list[dict]
    outputs: list[dict]
    returns_first: bool


@dataclass
class FunctionTable:
    """Every function of a flat model; each translated once, on first use, in dependency order."""

    functions: dict[str, dict]
    where: object                                  # node -> "file:line"
    code: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    _busy: set = field(default_factory=set)
    _inlinable: dict = field(default_factory=dict)
    _variants: dict = field(default_factory=dict)
    _serial: int = 0

    def find(self, name: str) -> dict:
        if name in self.functions:
            return self.functions[name]
        matches = [k for k in self.functions if k.endswith("." + name)]
        if matches:
            return self.functions[matches[0]]
        raise Unsupported(f"the function {name}, which rumoca's flattening does not define")

    def signature(self, name: str) -> Signature:
        fn = self.find(name)
        if fn.get("external"):
            raise Unsupported(f"the external function {fn['name']} (no C implementation is generated for it)")
        outputs = fn["outputs"]
        first_scalar = bool(outputs) and not outputs[0]["shape_expr"]
        return Signature(fn["name"], c_function_name(fn["name"]), fn["inputs"], outputs, first_scalar)

    def use(self, name: str) -> Signature:
        """``name``'s signature, its C written first (a failed write leaves no name without code behind:
        the model writer's read analysis goes on past an Unsupported construct and asks again later)."""
        sig = self.signature(name)
        if sig.name not in self.code and sig.name not in self._busy:
            self._busy.add(sig.name)
            try:
                self.code[sig.name] = FunctionWriter(self, self.find(name)).write()
            finally:
                self._busy.discard(sig.name)
            self.order.append(sig.name)
        return sig

    def variant(self, name: str, sizes: dict | None, needed: frozenset | None, packs: tuple = ()) -> str:
        """C name of ``name`` specialised for constant input array ``sizes`` (so sizes, loop bounds
        and whatever depends on them fold at compile time), computing only the ``needed`` outputs
        (statements no needed output depends on are left out; None: all) and taking the runs of
        scalar inputs in ``packs`` as one pointer each (see _packed)."""
        sig = self.use(name)
        if not sizes and needed is None and not packs:
            return sig.cname
        key = (sig.name, tuple(sorted((sizes or {}).items())), needed, packs)
        if key not in self._variants:
            self._serial += 1                  # never reused: a failed write's callees keep their names
            cname = f"{sig.cname}_{self._serial}"
            self._variants[key] = cname
            try:
                self.code[cname] = FunctionWriter(self, self.find(name), cname, sizes or {}, needed, packs).write()
            except BaseException:
                del self._variants[key]    # asked again, the write fails again, with its message
                raise
            self.order.append(cname)
        return self._variants[key]

    def output_dependencies(self, name: str) -> list[frozenset]:
        """For each output, the indices of the inputs it depends on (data and control flow)."""
        fn = self.find(name)
        deps = {spec["name"]: {k} for k, spec in enumerate(fn["inputs"])}

        def of(node, control):
            return set().union(control, *(deps.get(n, set()) for n in _names(node, set())))

        def run(statements, control):
            for st in statements:
                kind = next(iter(st))
                body = st[kind]
                if kind == "Assignment":
                    target = "_".join(p["ident"] for p in body["comp"]["parts"])
                    deps[target] = deps.get(target, set()) | of(body["value"], control) | \
                        (of(body["comp"]["parts"][-1].get("subs") or [], control))
                elif kind == "FunctionCall":
                    used = of(body["args"], control)
                    for comp in body.get("outputs") or []:
                        if comp and comp.get("parts"):
                            target = comp["parts"][0]["ident"]
                            deps[target] = deps.get(target, set()) | used
                elif kind == "For":
                    inner = control | of([i["range"] for i in body["indices"]], set())
                    for _ in range(3):
                        run(body["equations"], inner)
                elif kind == "While":
                    inner = control | of(body["cond"], set())
                    for _ in range(3):
                        run(body["stmts"], inner | of(body["cond"], set()))
                elif kind == "If":
                    inner = set(control)
                    for block in body["cond_blocks"]:
                        inner |= of(block["cond"], set())
                        run(block["stmts"], inner)
                    run(body.get("else_block") or [], inner)

        for spec in [*fn["outputs"], *fn["locals"]]:
            if spec.get("default") is not None:
                deps[spec["name"]] = of(spec["default"], set())
        for _ in range(2):
            run(fn["body"], set())
        return [frozenset(deps.get(spec["name"], set())) for spec in fn["outputs"]]

    def inlinable(self, name: str) -> bool:
        """Small straight-line functions (scalar assignments, call statements, if-statements of
        those; scalar outputs and locals) are expanded at the call site, so that their values are
        shared. A large one stays one C function: one copy of its code serves every call (the
        instruction cache holds the derivative function)."""
        return self.expanded_size(name) <= EXPAND_LIMIT

    def expanded_size(self, name: str) -> float:
        """Expression nodes of a function with the functions it expands (inf: not straight-line)."""
        fn = self.find(name)
        if fn["name"] not in self._inlinable:
            self._inlinable[fn["name"]] = float("inf")      # recursion is never expanded
            size = _node_count(fn["body"]) if _straight_line(fn) else float("inf")
            for callee in _callees(fn["body"]):
                callee_size = self.expanded_size(callee)
                size += callee_size if callee_size <= EXPAND_LIMIT else 0
            self._inlinable[fn["name"]] = size
        return self._inlinable[fn["name"]]

    def prototypes(self) -> list[str]:
        return [self.code[n].split("\n{", 1)[0] + ";" for n in self.order]

    def definitions(self) -> list[str]:
        return [self.code[n] for n in self.order]


def _target(statement: dict) -> str | None:
    """The plain (unsubscripted, one-part) name an Assignment statement assigns, else None."""
    parts = statement["Assignment"]["comp"]["parts"]
    return parts[0]["ident"] if len(parts) == 1 and not parts[0].get("subs") else None


def _names(node, out: set) -> set:
    if isinstance(node, dict):
        if "VarRef" in node:
            out.add(node["VarRef"]["name"]["name"])
        for value in node.values():
            _names(value, out)
    elif isinstance(node, list):
        for value in node:
            _names(value, out)
    return out


def _assigned(node, out: set) -> set:
    """Names a statement (tree) assigns: assignment targets and output targets of call statements."""
    if isinstance(node, dict):
        if "Assignment" in node:
            out.add("_".join(p["ident"] for p in node["Assignment"]["comp"]["parts"]))
        if "FunctionCall" in node and isinstance(node["FunctionCall"], dict):
            for comp in node["FunctionCall"].get("outputs") or []:
                if comp and comp.get("parts"):
                    out.add(comp["parts"][0]["ident"])
        for value in node.values():
            _assigned(value, out)
    elif isinstance(node, list):
        for value in node:
            _assigned(value, out)
    return out


EXPAND_LIMIT = 20000     # expression nodes of rumoca's tree; the tyre model (combinedSlip) is ~9500


def _node_count(node) -> int:
    if isinstance(node, dict):
        return ("span" not in node or len(node) > 1) + sum(_node_count(v) for k, v in node.items() if k != "span")
    if isinstance(node, list):
        return sum(_node_count(v) for v in node)
    return 0


def _callees(node, out=None) -> list:
    out = [] if out is None else out
    if isinstance(node, dict):
        call = node.get("FunctionCall")
        if isinstance(call, dict):
            out.append((call.get("name") or call.get("comp"))["name"])
        for value in node.values():
            _callees(value, out)
    elif isinstance(node, list):
        for value in node:
            _callees(value, out)
    return out


def _has_statement(node, kinds) -> bool:
    if isinstance(node, dict):
        return any(k in kinds or _has_statement(v, kinds) for k, v in node.items())
    if isinstance(node, list):
        return any(_has_statement(v, kinds) for v in node)
    return False


def _slice(statements: list, needed: frozenset | None) -> list:
    """The statements the ``needed`` outputs depend on (all when None); asserts and loops' control
    statements are kept, a name once needed stays needed (no definition is ever dropped wrongly)."""
    if needed is None:
        return statements
    live, kept = set(needed), []
    for st in reversed(statements):
        if _assigned(st, set()) & live or _has_statement(st, ("Assert", "Break", "Return")):
            kept.append(st)
            live |= _names(st, set())
    return kept[::-1]


def _call_targets(statement: dict) -> list | None:
    """Plain output names of a call statement (None for a dropped output); None if one is not plain."""
    names = []
    for comp in statement["FunctionCall"].get("outputs") or []:
        if not comp or not comp.get("parts"):
            names.append(None)
        elif len(comp["parts"]) != 1 or comp["parts"][0].get("subs"):
            return None
        else:
            names.append(comp["parts"][0]["ident"])
    return names


def _simple_block(statements: list) -> bool:
    """Assignments to plain names, call statements with plain targets, if-statements of such blocks."""
    for st in statements:
        kind = next(iter(st))
        if kind == "Assignment" and _target(st) is not None:
            continue
        if kind == "FunctionCall" and _call_targets(st) is not None:
            continue
        if kind == "If" and all(_simple_block(b["stmts"]) for b in st["If"]["cond_blocks"]) \
                and _simple_block(st["If"].get("else_block") or []):
            continue
        return False
    return True


def _straight_line(fn: dict) -> bool:
    if fn.get("external") or not fn["outputs"]:
        return False
    if any(spec["shape_expr"] for spec in [*fn["outputs"], *fn["locals"]]):
        return False
    return _simple_block(fn["body"])


def expand_call(table: FunctionTable, node: dict, em: Emitter) -> list[str] | None:
    """The output values of a call of a straight-line function (no loops, scalar outputs and
    locals), its body expanded into ``em.pre``; None when the function is not straight-line.

    Each assignment is a new temporary, shared by equal values in the C function (Emitter.value);
    an if-statement becomes a C if-statement assigning new temporaries; a call statement is
    expanded the same way, or called once into temporaries."""
    body = node["FunctionCall"]
    name = body["name"]["name"]
    if not table.inlinable(name):
        return None
    sig, fn = table.signature(name), table.find(name)
    slots: dict[str, Slot] = {}
    for k, spec in enumerate(sig.inputs):
        arg = body["args"][k] if k < len(body["args"]) else spec.get("default")
        if arg is None:
            raise Unsupported(f"{sig.name}: input {spec['name']} has no argument and no default")
        ctype = CTYPE.get(spec["type_name"], "double")
        if spec["shape_expr"]:
            shape = em.shape(arg)
            if len(shape) != len(spec["shape_expr"]) or not all(isinstance(d, int) for d in shape):
                return None
            pointer = array_pointer(arg, shape, em)
            pointer = pointer if re.fullmatch(r"\(&?[^()]*\)|\w+", pointer) else f"({pointer})"
            slots[spec["name"]] = Slot(ctype, shape, pointer, "local")
        else:
            slots[spec["name"]] = Slot(ctype, (), em.value(ctype, em.scalar(arg)), "local")
    # a pure function called again with the same argument values: the same outputs
    memo = ("call", sig.name, tuple(slots[spec["name"]].base for spec in sig.inputs))
    if memo in em.cse:
        return em.cse[memo]
    for spec in [*sig.outputs, *fn["locals"]]:
        slots[spec["name"]] = Slot(CTYPE.get(spec["type_name"], "double"), (), "0", "local")
    defaults = [{"Assignment": {"comp": {"parts": [{"ident": spec["name"]}]}, "value": spec["default"]}}
                for spec in [*sig.outputs, *fn["locals"]] if spec.get("default") is not None]
    _expand_block(table, [*defaults, *fn["body"]], slots, em)
    em.cse[memo] = [slots[spec["name"]].base for spec in sig.outputs]
    return em.cse[memo]


def _expand_block(table: FunctionTable, statements: list, slots: dict, em: Emitter) -> None:
    """Expand straight-line ``statements`` into ``em.pre``, updating ``slots`` (name -> value)."""
    def emitter() -> Emitter:
        return Emitter(lambda n: slots[n], em.call, counter=em.counter, pre=em.pre, cse=em.cse, time=em.time,
                       hoist=em.hoist)

    for st in statements:
        kind = next(iter(st))
        if kind == "Assignment":
            target = _target(st)
            ctype = slots[target].ctype
            slots[target] = Slot(ctype, (), emitter().value(ctype, emitter().scalar(st["Assignment"]["value"])),
                                 "local")
        elif kind == "FunctionCall":
            call = {"FunctionCall": {"name": st["FunctionCall"]["comp"], "args": st["FunctionCall"]["args"]}}
            values = expand_call(table, call, emitter())
            if values is None:
                _, outputs = call_function(table, call, emitter(), into_temp=True)
                values = [slot.access(0) if slot is not None else None for slot in outputs]
            for target, value in zip(_call_targets(st), values):
                if target is not None:
                    slots[target] = Slot(slots[target].ctype, (), value, "local")
        else:
            _expand_if(table, st["If"], slots, em)


def _expand_if(table: FunctionTable, node: dict, slots: dict, em: Emitter) -> None:
    """A C if-statement; each branch its own scope of shared values; the variables the statement
    assigns get new temporaries, assigned at the end of every branch."""
    assigned = [n for n in sorted(_assigned(node, set())) if n in slots]   # sorted: the same C whatever the hash seed
    # the same statement on the same values (a function expanded twice): the same results
    memo = ("if", id(node), tuple((n, slots[n].base) for n in sorted(_names(node, set()) | set(assigned))
                                  if n in slots))
    if memo in em.cse:
        for n, value in zip(assigned, em.cse[memo]):
            slots[n] = Slot(slots[n].ctype, (), value, "local")
        return
    results = {n: em.temp("b") for n in assigned}
    for n in assigned:
        em.pre.append(f"{slots[n].ctype} {results[n]};")

    def branch(statements: list, first_cond=None):
        local = dict(slots)
        sub = Emitter(em.resolve, em.call, counter=em.counter, pre=[], cse=dict(em.cse), time=em.time, hoist=em.hoist)
        _expand_block(table, statements, local, sub)
        return [*sub.pre, *(f"{results[n]} = {local[n].base};" for n in assigned)]

    def chain(blocks: list, scope: Emitter) -> list[str]:
        if not blocks:
            return branch(node.get("else_block") or [])
        cond_em = Emitter(lambda n: slots[n], em.call, counter=em.counter, pre=scope.pre, cse=scope.cse,
                          time=em.time, hoist=em.hoist)
        cond = cond_em.value("int", cond_em.scalar(blocks[0]["cond"]))
        inner = Emitter(em.resolve, em.call, counter=em.counter, pre=[], cse=dict(scope.cse), time=em.time, hoist=em.hoist)
        rest = chain(blocks[1:], inner)
        return [f"if ({cond}) {{", *("    " + line for line in branch(blocks[0]["stmts"])), "} else {",
                *("    " + line for line in [*inner.pre, *rest]), "}"]

    em.pre.extend(chain(node["cond_blocks"], em))
    em.cse[memo] = [results[n] for n in assigned]
    for n in assigned:
        slots[n] = Slot(slots[n].ctype, (), results[n], "local")


_MODEL_REAL = re.compile(r"m->r\[(\d+)(?: \+ (\d+))?\]")
_MIN_PACK = 4


def _packed(texts: list, scalars: list, tail: list) -> tuple[list, tuple]:
    """Arguments with each run of >= 4 scalar inputs that are consecutive model Reals passed as one
    pointer (a record's fields: a call reads the fields it uses instead of copying them all), and
    the runs as (first input, length) pairs."""
    def index(k):
        found = _MODEL_REAL.fullmatch(texts[k]) if scalars[k] is not None else None
        return int(found[1]) + int(found[2] or 0) if found else None

    out, packs, k = [], [], 0
    while k < len(texts):
        end = k
        while end + 1 < len(texts) and index(k) is not None and index(end + 1) == index(end) + 1:
            end += 1
        if end - k + 1 >= _MIN_PACK:
            out.append(f"&m->r[{index(k)}]")
            packs.append((scalars[k], end - k + 1))
            k = end + 1
        else:
            out.append(texts[k])
            k += 1
    return out + tail, tuple(packs)


def constant_dims(shape_expr: list, emitter: Emitter) -> tuple:
    dims = []
    for entry in shape_expr:
        if "Index" in entry:
            dims.append(entry["Index"]["value"])
        elif "Expr" in entry:
            dims.append(fold_int(emitter.scalar(entry["Expr"]["expr"])))
        else:
            raise Unsupported("an open size ':' of a function output or local")
    return tuple(dims)


def call_function(table: FunctionTable, node: dict, em: Emitter, *, shape_only: bool = False,
                  into_temp: bool = False, targets: list | None = None):
    """C text of a call and the slots of its outputs (temporaries when ``into_temp``).

    ``targets``: slots (or None) receiving the outputs in order (a tuple equation or statement).
    """
    body = node["FunctionCall"]
    if not (shape_only or into_temp or targets) and em.cse is not None and not em.guarded:
        values = expand_call(table, node, em)
        if values is not None:
            sig = table.signature(body["name"]["name"])
            return values[0], [Slot(CTYPE.get(sig.outputs[0]["type_name"], "double"), (), values[0], "local")]
    sig = table.use(body["name"]["name"]) if not shape_only else table.signature(body["name"]["name"])
    args = body["args"]
    # named arguments are not produced by rumoca's flattening of this library
    if len(args) > len(sig.inputs):
        raise Unsupported(f"{sig.name} called with {len(args)} arguments, it has {len(sig.inputs)} inputs")
    input_dims = {}
    texts, size_flags, scalars = [], [], []
    for k, spec in enumerate(sig.inputs):
        if k < len(args):
            arg = args[k]
        elif spec.get("default") is not None:
            arg = spec["default"]
        else:
            raise Unsupported(f"{sig.name}: input {spec['name']} has no argument and no default")
        shape = em.shape(arg)
        input_dims[spec["name"]] = shape
        if shape_only:
            continue
        if spec["shape_expr"]:
            if len(shape) != len(spec["shape_expr"]):
                raise Unsupported(f"{sig.name}: input {spec['name']} expects {len(spec['shape_expr'])} "
                                  f"dimension(s), the argument has {len(shape)}")
            texts.append(array_pointer(arg, shape, em))
            texts += [str(d) for d in shape]
            size_flags += [False] + [True] * len(shape)
            scalars += [None] * (1 + len(shape))
        else:
            texts.append(em.scalar(arg))
            size_flags.append(False)
            scalars.append(spec["name"] if CTYPE.get(spec["type_name"], "double") == "double" else None)
    # a pure function called again on the same argument texts (equal values in one C function): its outputs
    shared = ("outputs", sig.name, tuple(texts)) if into_temp and not targets and not sig.returns_first else None
    if shared is not None and em.cse is not None and shared in em.cse:
        return "", em.cse[shared]
    shape_em = Emitter(lambda n: Slot("int", input_dims[n], n, "local") if n in input_dims else (_ for _ in ()).throw(KeyError(n)))
    out_slots = []
    for k, spec in enumerate(sig.outputs):
        dims = constant_dims(spec["shape_expr"], shape_em)
        ctype = CTYPE.get(spec["type_name"], "double")
        if shape_only:
            out_slots.append(Slot(ctype, dims, "", "local"))
            continue
        target = targets[k] if targets and k < len(targets) else None
        if k == 0 and sig.returns_first:
            out_slots.append(target or Slot(ctype, dims, "", "local"))
            continue
        if target is not None and (not dims or target.kind == "local" or target.kind == "model"):
            texts.append(f"&{target.access(0)}" if target.kind == "model" or not dims else target.base)
            out_slots.append(target)
        elif into_temp or dims:
            name = em.temp("out")
            em.pre.append(f"{ctype} {name}[{count(dims)}];")
            texts.append(name)
            out_slots.append(Slot(ctype, dims, name, "local") if dims else Slot(ctype, (), f"{name}[0]", "local"))
        else:
            texts.append("NULL")
            out_slots.append(None)
    if shape_only:
        return "", out_slots
    sizes = {spec["name"]: input_dims[spec["name"]] for spec in sig.inputs if spec["shape_expr"]}
    if not all(isinstance(d, int) for dims in sizes.values() for d in dims):
        sizes = {}
    needed = {spec["name"] for spec, slot in zip(sig.outputs, out_slots) if slot is not None}
    if sig.returns_first and targets and targets[0] is None:
        needed.discard(sig.outputs[0]["name"])     # a call statement that drops its first output
    needed = None if len(needed) == len(sig.outputs) else frozenset(needed)
    texts, packs = _packed([t for t, is_size in zip(texts, size_flags) if not (sizes and is_size)],
                           [n for n, is_size in zip(scalars, size_flags) if not (sizes and is_size)],
                           texts[len(size_flags):])
    call = f"{table.variant(sig.name, sizes, needed, packs)}(m{''.join(', ' + t for t in texts)})"
    if sig.returns_first and not (into_temp or targets):
        call = em.value(CTYPE.get(sig.outputs[0]["type_name"], "double"), call)
    if into_temp and not sig.returns_first:
        em.pre.append(call + ";")
        if shared is not None and em.cse is not None and not em.guarded:
            em.cse[shared] = out_slots
        return "", out_slots
    if into_temp and sig.returns_first:
        ctype = CTYPE.get(sig.outputs[0]["type_name"], "double")
        name = em.temp("r")
        em.pre.append(f"{ctype} {name} = {call};")
        out_slots[0] = Slot(ctype, (), name, "local")
        return name, out_slots
    return call, out_slots


def array_pointer(arg: dict, shape: tuple, em: Emitter) -> str:
    """A pointer to the row-major elements of an array argument (a temporary unless it is a plain name)."""
    if "VarRef" in arg and not (arg["VarRef"].get("subscripts")):
        slot = em.resolve(ref_name(arg))
        if slot.kind == "model":
            for offset in range(1, count(shape) if all(isinstance(d, int) for d in shape) else 1):
                slot.access(offset)     # the callee reads every element: each a read the sorting sees
            return f"&{slot.access(0)}"
        return slot.base
    if "FunctionCall" in arg:
        return em.hoist_call(arg).base
    if all(isinstance(d, int) for d in shape):
        values = [em.element(arg, idx) for idx in indices(shape)]
        key = ("array", shape, tuple(values))   # equal element texts: the same array in one C function
        if em.cse is not None and key in em.cse:
            return em.cse[key]
        name = em.temp("a")
        em.pre.append(f"double {name}[{count(shape)}] = {{{', '.join(values)}}};")
        if em.cse is not None and not em.guarded:
            em.cse[key] = name
        return name
    if len(shape) != 1:
        raise Unsupported("an open-sized matrix expression passed to a function")
    name, k = em.temp("a"), em.temp("k")
    em.pre.append(f"double {name}[{shape[0]}];")
    element = em.element(arg, (k,))
    em.pre.append(f"for (int {k} = 0; {k} < {shape[0]}; {k}++) {name}[{k}] = {element};")
    return name


class FunctionWriter:
    """Translate one function body."""

    def __init__(self, table: FunctionTable, fn: dict, cname: str | None = None, sizes: dict | None = None,
                 needed: frozenset | None = None, packs: tuple = ()):
        self.table, self.fn = table, fn
        self.cname, self.sizes, self.needed = cname, sizes or {}, needed
        self.packed = {}                # scalar input -> (pointer parameter, index)
        names = [spec["name"] for spec in fn["inputs"]]
        for j, (first, length) in enumerate(packs):
            start = names.index(first)
            for i in range(length):
                self.packed[names[start + i]] = (f"l_pack{j + 1}", i)
        self.slots: dict[str, Slot] = {}
        self.lines: list[str] = []
        self.counter = [0]

    def resolve(self, name: str) -> Slot:
        return self.slots[name]

    def emitter(self) -> Emitter:
        return Emitter(self.resolve, lambda node, em, **kw: call_function(self.table, node, em, **kw),
                       counter=self.counter, time="m->time")

    def fail(self, node, error: Exception):
        raise Unsupported(f"{self.table.where(node)}: in function {self.fn['name']}: {error}") from None

    def write(self) -> str:
        fn = self.fn
        sig = self.table.signature(fn["name"])
        params = ["ModelInstance *m"]
        for spec in fn["inputs"]:
            ctype = CTYPE.get(spec["type_name"], "double")
            cname = "l_" + spec["name"]
            if spec["shape_expr"] and spec["name"] in self.sizes:
                dims = self.sizes[spec["name"]]
                params.append(f"const {ctype} *{cname}")
                self.slots[spec["name"]] = Slot(ctype, dims, cname, "local")
            elif spec["shape_expr"]:
                dims = tuple(f"{cname}_d{k + 1}" for k in range(len(spec["shape_expr"])))
                params.append(f"const {ctype} *{cname}")
                params += [f"int {d}" for d in dims]
                self.slots[spec["name"]] = Slot(ctype, dims, cname, "local")
            elif spec["name"] in self.packed:
                pointer, i = self.packed[spec["name"]]
                if i == 0:
                    params.append(f"const double *{pointer}")
                self.slots[spec["name"]] = Slot(ctype, (), f"{pointer}[{i}]", "local")
            else:
                params.append(f"{ctype} {cname}")
                self.slots[spec["name"]] = Slot(ctype, (), cname, "local")
        em = self.emitter()
        declarations = []
        for k, spec in enumerate(fn["outputs"]):
            ctype = CTYPE.get(spec["type_name"], "double")
            cname = "l_" + spec["name"]
            dims = constant_dims(spec["shape_expr"], em)
            if k == 0 and sig.returns_first:
                declarations.append(f"    {ctype} {cname} = 0;")
                self.slots[spec["name"]] = Slot(ctype, (), cname, "local")
            elif dims:
                params.append(f"{ctype} *{cname}")
                self.slots[spec["name"]] = Slot(ctype, dims, cname, "local")
            else:
                params.append(f"{ctype} *out_{spec['name']}")
                declarations.append(f"    {ctype} {cname} = 0;")
                self.slots[spec["name"]] = Slot(ctype, (), cname, "local")
        for spec in fn["locals"]:
            ctype = CTYPE.get(spec["type_name"], "double")
            cname = "l_" + spec["name"]
            if spec["shape_expr"]:
                dims = []
                for entry in spec["shape_expr"]:
                    if "Index" in entry:
                        dims.append(entry["Index"]["value"])
                    elif "Expr" in entry:
                        dims.append(fold_int(em.scalar(entry["Expr"]["expr"])))
                    else:
                        raise Unsupported(f"{self.table.where(spec)}: local array {spec['name']} of "
                                          f"{fn['name']} has an open size")
                declarations.append(f"    {ctype} {cname}[{count(tuple(dims)) if all(isinstance(d, int) for d in dims) else '*'.join(f'({d})' for d in dims)}];")
                self.slots[spec["name"]] = Slot(ctype, tuple(dims), cname, "local")
            else:
                declarations.append(f"    {ctype} {cname} = 0;")
                self.slots[spec["name"]] = Slot(ctype, (), cname, "local")
        body: list[str] = []
        for spec in [*fn["outputs"], *fn["locals"]]:
            if spec.get("default") is not None:
                self.assign(spec["name"], [], spec["default"], body, 1, spec["default"])
        for statement in _slice(fn["body"], self.needed):
            self.statement(statement, body, 1)
        ret = fn["outputs"][0]["type_name"] if sig.returns_first else None
        tail = []
        for k, spec in enumerate(fn["outputs"]):
            if (k == 0 and sig.returns_first) or spec["shape_expr"]:
                continue
            tail.append(f"    if (out_{spec['name']}) *out_{spec['name']} = l_{spec['name']};")
        if ret:
            tail.append(f"    return l_{fn['outputs'][0]['name']};")
        rtype = CTYPE.get(ret, "double") if ret else "void"
        head = f"static {rtype} {self.cname or sig.cname}({', '.join(params)})"
        return "\n".join([f"/* {fn['name']} */", head, "{", *declarations, *body, *tail, "}", ""])

    # ---- statements ---------------------------------------------------------------------------
    def statement(self, st: dict, out: list, depth: int):
        kind = next(iter(st))
        body = st[kind]
        pad = "    " * depth
        try:
            if kind == "Assignment":
                parts = body["comp"]["parts"]
                name = "_".join(p["ident"] for p in parts) if len(parts) > 1 else parts[0]["ident"]
                subs = parts[-1].get("subs") or []
                self.assign(name, subs, body["value"], out, depth, st)
            elif kind == "FunctionCall":
                em = self.emitter()
                targets = []
                for comp in body.get("outputs") or []:
                    if comp is None or not comp.get("parts"):
                        targets.append(None)
                        continue
                    targets.append(self._call_target(comp["parts"], em))
                node = {"FunctionCall": {"name": body["comp"], "args": body["args"]}}
                text, slots = call_function(self.table, node, em, targets=targets)
                lines = [pad + p for p in em.pre]
                sig = self.table.signature(body["comp"]["name"])
                if sig.returns_first and targets and targets[0] is not None:
                    lines.append(f"{pad}{targets[0].access(0)} = {text};")
                else:
                    lines.append(f"{pad}{text};")
                out += self._scoped(lines, pad, em)
            elif kind == "For":
                for index in body["indices"]:
                    em = self.emitter()
                    start, step, end = em._range(index["range"])
                    var = "l_" + index["ident"]
                    self.slots[index["ident"]] = Slot("int", (), var, "local")
                    step_value = fold_int(step)
                    cmp = ">=" if isinstance(step_value, int) and step_value < 0 else "<="
                    out += [pad + p for p in em.pre]
                    # Modelica evaluates the range once, before the first iteration
                    bounds = f"int {var} = {start}"
                    if not isinstance(fold_int(end), int):
                        bounds += f", {var}_end = {end}"
                        end = f"{var}_end"
                    if not isinstance(step_value, int):
                        bounds += f", {var}_step = {step}"
                        step = f"{var}_step"
                    out.append(f"{pad}for ({bounds}; {var} {cmp} {end}; {var} += {step}) {{")
                    depth += 1
                    pad = "    " * depth
                for inner in body["equations"]:
                    self.statement(inner, out, depth)
                for _ in body["indices"]:
                    depth -= 1
                    out.append("    " * depth + "}")
            elif kind == "While":
                em = self.emitter()
                cond = em.scalar(body["cond"])
                if em.pre:
                    raise Unsupported("a while condition that calls an array function")
                out.append(f"{pad}while ({cond}) {{")
                for inner in body["stmts"]:
                    self.statement(inner, out, depth + 1)
                out.append(pad + "}")
            elif kind == "If":
                em = self.emitter()
                conds = [em.scalar(block["cond"]) for block in body["cond_blocks"]]
                out += [pad + p for p in em.pre]
                for k, (cond, block) in enumerate(zip(conds, body["cond_blocks"])):
                    out.append(f"{pad}{'if' if k == 0 else '} else if'} ({cond}) {{")
                    for inner in block["stmts"]:
                        self.statement(inner, out, depth + 1)
                if body.get("else_block"):
                    out.append(pad + "} else {")
                    for inner in body["else_block"]:
                        self.statement(inner, out, depth + 1)
                out.append(pad + "}")
            elif kind == "Assert":
                out += assert_lines(self.emitter(), body, self.table.where(st), pad)
            elif kind == "Break":
                out.append(pad + "break;")
            elif kind == "Return":
                out.append(pad + "goto done;")
                raise Unsupported("return")
            else:
                raise Unsupported(f"the statement '{kind}'")
        except Unsupported as error:
            if str(error).startswith(("modelica", "/", "<")) or ":" in str(error).split(" ")[0]:
                raise
            self.fail(st, error)

    def _call_target(self, parts: list, em: Emitter) -> Slot:
        """The slot an output of a call statement goes to: a variable, or one element of an array
        (``(t[w], d[w, 1]) := f(x)``; a slice target is refused)."""
        if len(parts) != 1:
            raise Unsupported("a record field as the output target of a function call statement")
        slot, subs = self.slots[parts[0]["ident"]], parts[0].get("subs")
        if not subs:
            return slot
        if len(subs) != len(slot.dims):
            raise Unsupported("a slice as the output target of a function call statement")
        element = slot.access(offset_of(slot.dims, tuple(em._index(sub) for sub in subs)))
        return Slot(slot.ctype, (), element, "local")

    def _scoped(self, lines: list, pad: str, em: Emitter) -> list:
        if em.pre:
            return [pad + "{"] + ["    " + line for line in lines] + [pad + "}"]
        return lines

    def assign(self, name: str, subs: list, value: dict, out: list, depth: int, node):
        pad = "    " * depth
        slot = self.slots.get(name)
        if slot is None:
            raise Unsupported(f"assignment to unknown name {name}")
        em = self.emitter()
        target = {"VarRef": {"name": {"name": name}, "subscripts": subs}}
        shape = em.shape(target)
        lines = []
        if not shape:
            if subs:
                full = tuple(em._index(s) for s in subs)
                lhs = slot.access(offset_of(slot.dims, full))
            else:
                lhs = slot.access(0)
            rhs = em.scalar(value)
            lines.append(f"{pad}{lhs} = {rhs};")
        elif all(isinstance(d, int) for d in shape):
            if "FunctionCall" in value and not subs:
                call_function(self.table, value, em, targets=[slot])
            else:
                # evaluate into a temporary first: the right side may read the target (B := B*A)
                tmp = em.temp("v")
                values = [em.element(value, idx) for idx in indices(shape)]
                lines.append(f"{pad}double {tmp}[{count(shape)}] = {{{', '.join(values)}}};")
                for k, idx in enumerate(indices(shape)):
                    full = em._merge(slot.dims, subs, None, idx)
                    lines.append(f"{pad}{slot.access(offset_of(slot.dims, full))} = {tmp}[{k}];")
        else:
            if len(shape) != 1:
                raise Unsupported("assignment of an open-sized matrix")
            k = em.temp("k")
            element = em.element(value, (k,))
            full = em._merge(slot.dims, subs, None, (k,))
            lines.append(f"{pad}for (int {k} = 0; {k} < {shape[0]}; {k}++) "
                         f"{slot.access(offset_of(slot.dims, full))} = {element};")
        out += self._scoped([pad + p for p in em.pre] + lines, pad, em)


def assert_lines(em: Emitter, body: dict, where: str, pad: str) -> list[str]:
    """if (!cond) model_error(m, "file:line: message") (a String message with String() parts)."""
    cond = em.scalar(body["condition"])
    fmt, args = string_format(body["message"], em)
    text = f"{where}: assertion failed: {fmt}".replace('"', '\\"')
    lines = [pad + p for p in em.pre]
    lines.append(f'{pad}if (!({cond})) model_error(m, "{text}"{"".join(", " + a for a in args)});')
    return lines


def string_format(node: dict, em: Emitter) -> tuple[str, list[str]]:
    """printf format and arguments of a String expression (literals, '+', String(x))."""
    kind = next(iter(node))
    if kind == "Literal" and "String" in node["Literal"]["value"]:
        return node["Literal"]["value"]["String"].replace("%", "%%"), []
    if kind == "Binary" and node["Binary"]["op"] == "Add":
        a, aa = string_format(node["Binary"]["lhs"], em)
        b, ba = string_format(node["Binary"]["rhs"], em)
        return a + b, aa + ba
    if kind == "StringConversion":
        return "%g", [f"(double)({em.scalar(node[kind]['value'])})"]
    if kind == "BuiltinCall" and node["BuiltinCall"]["function"] == "String":
        arg = node["BuiltinCall"]["args"][0]
        return "%g", [f"(double)({em.scalar(arg)})"]
    if kind == "FunctionCall" and node["FunctionCall"]["name"]["name"] == "String":
        arg = node["FunctionCall"]["args"][0]
        return "%g", [f"(double)({em.scalar(arg)})"]
    raise Unsupported("an assert message that is not built from strings and String(x)")
