"""One flat model -> the C file of the native runtime's contract (model.h).

- ``model_calculated_parameters``: every parameter binding in dependency order (guarded by
  ``model_*_was_set`` for an FMU parameter, so a value the importer set wins; plain assignment for
  final and protected ones),
  then the equations whose unknowns depend on parameters only (hoisted out of the derivatives),
  then the parameter-only asserts;
- ``model_initial_states``: state start values, discrete start values, the continuous equations,
  the initial equations (solved for their left side) and the discrete equations;
- ``model_outputs_and_derivatives``: the sorted continuous equations (discrete-typed unknowns are
  held between events);
- ``model_discrete_update``: the discrete equations and the when-clauses at step completion (a
  when-clause fires when its condition becomes true; pre(x) is x before the update), with an event
  iteration that recomputes the continuous equations after a change.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace

from fmu_build.codegen.cexpr import Emitter, Slot, Unsupported, count, indices, offset_of, ref_name, ref_subs
from fmu_build.codegen.flat import FlatModel, Var, first_span
from fmu_build.codegen.functions import CTYPE, FunctionTable, assert_lines, call_function, expand_call
from fmu_build.codegen.guards import check_derivatives
from fmu_build.codegen.lanes import windows_of
from fmu_build.codegen.shared_calls import share_elementary_calls
from fmu_build.codegen.sorting import AlgebraicLoop, Equation, match, solve, sort
from fmu_build.errors import BuildError
from fmu_build.variables import ModelVariable, ModelVariables, element_names

_ARRAY = {"Real": "r", "Integer": "i", "Boolean": "b"}
_MAX_EVENT_ITERATIONS = 10


@dataclass
class GeneratedModel:
    source: str                       # the C file
    variables: ModelVariables         # with hidden slots for protected variables
    locals: list[str]                 # MODEL_LOCALS


class Scope:
    """Model variables -> slots in ModelInstance; records the elements an expression reads."""

    def __init__(self, flat: FlatModel, variables: ModelVariables):
        self.flat = flat
        self.first = {}
        for var in variables.variables:
            self.first.setdefault(var.base, var)
        self.reads: set | None = None

    def slot(self, name: str) -> Slot:
        var = self.first.get(name)
        if var is None:
            raise KeyError(name)
        dims = self._dims(name)
        ctype = "double" if var.type == "Real" else "int"
        scope = self

        class Tracked(Slot):
            def access(self, offset) -> str:
                if scope.reads is not None:
                    scope.reads.add((name, offset if isinstance(offset, int) else None))
                return super().access(offset)

        return Tracked(ctype, dims, f"m->{_ARRAY[var.type]}[{var.value_reference}", "model")

    def _dims(self, name):
        if name.startswith("der("):
            return self.flat.vars[name[4:-1]].dims
        var = self.flat.vars.get(name)
        return var.dims if var is not None else ()


def _hidden_variables(flat: FlatModel, variables: ModelVariables, when_count: int) -> ModelVariables:
    """The FMU variables plus slots for protected variables and constants (not in the FMU)."""
    known = {v.base for v in variables.variables}
    extra = []
    for name, var in flat.vars.items():
        if name in known:
            continue
        for element, index in element_names(name, var.dims):
            extra.append(ModelVariable(element, name, index, "local", var.type, None, "", None))
        if var.role == "state" and f"der({name})" not in known:
            for element, index in element_names(name, var.dims):
                extra.append(ModelVariable(f"der({element})", f"der({name})", index, "local", "Real", None, "", None))
    for k in range(when_count):
        extra.append(ModelVariable(f"$when{k + 1}", f"$when{k + 1}", (), "local", "Boolean", None, "", 0.0))
    counters = {t: 1 + max((v.value_reference for v in variables.variables if v.type == t), default=-1)
                for t in ("Real", "Integer", "Boolean")}
    for var in extra:
        var.value_reference = counters[var.type]
        counters[var.type] += 1
    dims = dict(variables.dims)
    for var in extra:
        dims.setdefault(var.base, flat.vars[var.base].dims if var.base in flat.vars else ())
    return replace(variables, variables=[*variables.variables, *extra], dims=dims)


class Generator:
    def __init__(self, flat: FlatModel, variables: ModelVariables):
        self.flat = flat
        self.variables = _hidden_variables(flat, variables, len(flat.when_chains))
        self.scope = Scope(flat, self.variables)
        self.functions = FunctionTable(flat.functions, flat.where)
        self.counter = [0]

    # ---- emitters -----------------------------------------------------------------------------
    def emitter(self, pre_values=None, cse=None) -> Emitter:
        return Emitter(self.scope.slot, lambda node, em, **kw: call_function(self.functions, node, em, **kw),
                       counter=self.counter, pre_values=pre_values, cse=cse,
                       hoist=self.keep_parameter_value if cse is not None else None)

    # ---- parameter-only values of the derivative function -------------------------------------
    def parameter_elements(self, hoisted_unknowns: set) -> set:
        """('r'|'i'|'b', value reference) of every parameter, constant and parameter-only unknown."""
        out = set()
        for name, var in self.flat.vars.items():
            if var.role in ("parameter", "constant"):
                first = self.scope.first[name]
                out |= {(_ARRAY[first.type], first.value_reference + k) for k in range(var.size)}
        for name, offset in hoisted_unknowns:
            first = self.variables_by_base(name)
            out.add((_ARRAY[first.type], first.value_reference + offset))
        return out

    def keep_parameter_value(self, ctype: str, text: str) -> str | None:
        """A shared value of the derivative function that reads parameters only: computed once in
        model_calculated_parameters into a hidden slot, which is returned (None: not parameter-only)."""
        refs = [(kind, int(a) + int(b or 0)) for kind, a, b in _ELEMENT.findall(text)]
        if ctype != "double" or not refs or _LOCAL_NAME.search(text) or "m->time" in text:
            return None
        if not all(ref in self.parameter_values for ref in refs):
            return None
        vr = 1 + max(v.value_reference for v in self.variables.variables if v.type == "Real")
        name = f"$parameterValue{len(self.parameter_lines) + 1}"
        self.variables.variables.append(ModelVariable(name, name, (), "local", "Real", None, "", None,
                                                      value_reference=vr))
        self.variables.dims[name] = ()
        self.parameter_lines.append(f"m->r[{vr}] = {text};")
        self.parameter_values.add(("r", vr))
        return f"m->r[{vr}]"

    def reads_of(self, node, em: Emitter | None = None) -> set:
        """The (name, offset) elements an expression reads (offset None: the whole variable)."""
        self.scope.reads = set()
        try:
            (em or self.emitter()).scalar(node) if not self.emitter().shape(node) else self._elements(node, em)
            return self.scope.reads
        finally:
            self.scope.reads = None

    def _elements(self, node, em):
        em = em or self.emitter()
        shape = em.shape(node)
        for idx in indices(shape):
            em.element(node, idx)

    def fail(self, node, message) -> BuildError:
        return BuildError(f"{self.flat.where(node)}: {message}")

    # ---- classification -----------------------------------------------------------------------
    def is_param_like(self, name: str) -> bool:
        var = self.flat.vars.get(name)
        return var is not None and var.role in ("parameter", "constant")

    def unknown_elements(self) -> list[tuple]:
        out = []
        for name, var in self.flat.vars.items():
            if var.role in ("algebraic",) or (var.role == "discrete" and name not in self.when_targets):
                out += [(name, k) for k in range(var.size)]
            if var.role == "state":
                out += [(f"der({name})", k) for k in range(var.size)]
        return out

    @property
    def when_targets(self) -> set:
        return {a["Assign"]["target"] for chain in self.flat.when_chains
                for a in chain["first"]["equations"] if "Assign" in a}

    def expand(self, reads: set) -> set:
        out = set()
        for name, offset in reads:
            if offset is None:
                size = math.prod(self.scope._dims(name)) if self.scope._dims(name) else 1
                out |= {(name, k) for k in range(size)}
            else:
                out.add((name, offset))
        return out

    # ---- equations ----------------------------------------------------------------------------
    def equations(self) -> list[Equation]:
        unknown = set(self.unknown_elements())
        result = []
        for k, raw in enumerate(self.flat.equations):
            residual = raw["residual"]
            where = self.flat.where(residual)
            if "Binary" in residual and residual["Binary"]["op"] == "Sub":
                lhs, rhs = residual["Binary"]["lhs"], residual["Binary"]["rhs"]
            else:
                lhs, rhs = residual, {"Literal": {"value": {"Integer": 0}}}
            try:
                result += self._split(len(result), where, lhs, rhs, unknown, raw)
            except Unsupported as error:
                raise BuildError(f"{where}: {error}") from None
        return result

    def _split(self, start, where, lhs, rhs, unknown, raw) -> list[Equation]:
        em = self.emitter()
        if "Tuple" in lhs:
            # one block per group of outputs that depend on the same inputs, so that an output
            # that does not depend on an unknown does not wait for it (no false algebraic loop)
            targets = lhs["Tuple"]["elements"]
            name = rhs["FunctionCall"]["name"]["name"]
            dependencies = self.functions.output_dependencies(name)
            args = rhs["FunctionCall"]["args"]
            arg_reads = [self.expand(self.reads_of(a)) & unknown for a in args]
            groups: dict = {}
            for k, target in enumerate(targets):
                if target is not None and "VarRef" in target:
                    groups.setdefault(dependencies[k] if k < len(dependencies) else None, []).append(k)
            out = []
            for group, members in groups.items():
                solves = [u for k in members for u in sorted(self.expand(self.reads_of(targets[k])))]
                reads = set().union(*(arg_reads[i] for i in range(len(args)) if group is None or i in group))
                kept = [t if k in members else None for k, t in enumerate(targets)]
                out.append(Equation(start + len(out), where, {"Tuple": {"elements": kept}}, rhs, reads, solves,
                                    block=True, inputs=group))
            return out
        shape = em.shape(lhs) or em.shape(rhs)
        if not shape:
            reads = self.expand(self.reads_of(lhs) | self.reads_of(rhs)) & unknown
            return [Equation(start, where, lhs, rhs, reads)]
        # an array equation: a call with array results computes the variable on the other side as a
        # whole; otherwise one scalar equation per element, matched like any other
        for side, other in ((lhs, rhs), (rhs, lhs)):
            if "VarRef" in side and "FunctionCall" in other:
                targets = self.expand(self.reads_of(side))
                if targets <= unknown:
                    reads = self.expand(self.reads_of(other)) & unknown
                    return [Equation(start, where, side, other, reads, sorted(targets), block=True)]
        out = []
        for idx in indices(shape):
            self.scope.reads = set()
            self.emitter().element(lhs, idx)
            self.emitter().element(rhs, idx)
            reads = self.expand(self.scope.reads) & unknown
            self.scope.reads = None
            out.append(Equation(start + len(out), where, lhs, rhs, reads, [], idx))
        return out

    # ---- code for one equation ----------------------------------------------------------------
    def equation_code(self, eq: Equation, pre_values=None, cse=None) -> list[str]:
        """C of one equation; with ``cse`` (one dict per C function) its calls are expanded and its
        values shared with the other equations of that function (temporaries at function level)."""
        em = self.emitter(pre_values, cse)
        lines = []
        try:
            call = self._needed_arguments(eq, em) if eq.block and "Tuple" in eq.lhs and cse is not None else None
            values = expand_call(self.functions, call, em) if call is not None else None
            if values is not None:
                targets = [self._target_slot(t, em) for t in eq.lhs["Tuple"]["elements"]]
                lines += [f"{t.access(0)} = {v};" for t, v in zip(targets, values) if t is not None]
            elif eq.block and "Tuple" in eq.lhs:
                targets = [self._target_slot(t, em) for t in eq.lhs["Tuple"]["elements"]]
                text, _ = call_function(self.functions, eq.rhs, em, targets=targets)
                sig = self.functions.signature(eq.rhs["FunctionCall"]["name"]["name"])
                if sig.returns_first and targets and targets[0] is not None:
                    lines.append(f"{targets[0].access(0)} = {text};")
                else:
                    lines.append(f"{text};")
            elif eq.block and not eq.element:
                target = self._target_slot(eq.lhs, em)
                text, _ = call_function(self.functions, eq.rhs, em, targets=[target])
                sig = self.functions.signature(eq.rhs["FunctionCall"]["name"]["name"])
                if sig.returns_first:
                    lines.append(f"{target.access(0)} = {text};")
                else:
                    lines.append(f"{text};")
            elif eq.block:
                lines.append(f"{em.element(eq.lhs, eq.element)} = {em.element(eq.rhs, eq.element)};")
            else:
                name, offset = eq.solves[0]
                target = self.scope.slot(name).access(offset)

                def is_unknown(node) -> bool:
                    if not isinstance(node, dict):
                        return False
                    if "VarRef" in node or ("BuiltinCall" in node and node["BuiltinCall"]["function"] == "Der"):
                        self.scope.reads = set()
                        try:
                            if em.shape(node):
                                return False
                            em.scalar(node)
                            return self.scope.reads == {(name, offset)}
                        except Unsupported:
                            return False
                        finally:
                            self.scope.reads = None
                    return False

                if eq.element:
                    value = self._element_solve(eq, em, is_unknown)
                else:
                    value = em.scalar(solve(eq.lhs, eq.rhs, is_unknown))
                var = self.variables_by_base(name)
                cast = "(int)" if var is not None and var.type != "Real" and "(" in value else ""
                lines.append(f"{target} = {cast}{value};")
        except Unsupported as error:
            raise BuildError(f"{eq.where}: {error}") from None
        if em.pre and cse is not None:
            return [*em.pre, *lines]
        if em.pre:
            return ["{", *("    " + p for p in em.pre), *("    " + line for line in lines), "}"]
        return lines

    def _needed_arguments(self, eq: Equation, em: Emitter) -> dict | None:
        """The call of a tuple group with the scalar arguments its outputs do not need set to 0: they
        may not be computed yet where the group is (see _split), so they must not be read, nor be
        shared (Emitter.value) with a later group's call. None: an unneeded array argument."""
        if eq.inputs is None:
            return eq.rhs
        call = eq.rhs["FunctionCall"]
        args = []
        for k, arg in enumerate(call["args"]):
            if k in eq.inputs:
                args.append(arg)
            elif em.shape(arg):
                return None
            else:
                args.append({"Literal": {"value": {"Integer": 0}}})
        return {"FunctionCall": {**call, "args": args}}

    def _element_solve(self, eq, em, is_unknown) -> str:
        left, right = em.element(eq.lhs, eq.element), em.element(eq.rhs, eq.element)
        name, offset = eq.solves[0]
        target = self.scope.slot(name).access(offset)
        if left == target:
            return right
        if right == target:
            return left
        raise Unsupported("an array equation whose unknown element is not one side of it")

    def variables_by_base(self, name):
        base = name[4:-1] if name.startswith("der(") else name
        return self.scope.first.get(base)

    def _target_slot(self, node, em):
        if node is None or "VarRef" not in node:
            return None
        if ref_subs(node):
            raise Unsupported("a subscripted target of a function call")
        return self.scope.slot(ref_name(node))

    # ---- parameters ---------------------------------------------------------------------------
    def parameter_code(self) -> list[str]:
        order = graphlib_order({name: {n for n, _ in self.reads_of_binding(var)}
                                for name, var in self.flat.vars.items()
                                if var.role in ("parameter", "constant") and var.binding is not None})
        lines = []
        for name in order:
            var = self.flat.vars[name]
            if var.binding is None:
                continue
            exposed = var.role == "parameter" and not var.final and not var.protected
            if exposed and not self.binding_depends(var):
                continue   # a literal: its start value is the value
            em = self.emitter()
            try:
                shape = em.shape(var.binding)
                slot = self.scope.slot(name)
                values = ([em.element(var.binding, idx) for idx in indices(shape)] if shape
                          else [em.scalar(var.binding)])
            except Unsupported as error:
                raise self.fail(var.raw.get("source_span") and {"span": var.raw["source_span"]} or var.binding,
                                f"binding of {name}: {error}") from None
            body = []
            for k, value in enumerate(values):
                access = slot.access(k)
                if exposed:
                    check = {"Real": "real", "Integer": "integer", "Boolean": "boolean"}[var.type]
                    vr = self.scope.first[name].value_reference + k
                    body.append(f"if (!model_{check}_was_set(m, {vr})) {access} = {value};")
                else:
                    body.append(f"{access} = {value};")
            lines += (["{", *("    " + p for p in em.pre), *("    " + b for b in body), "}"] if em.pre
                      else body)
        return lines

    def reads_of_binding(self, var: Var) -> set:
        try:
            return {r for r in self.reads_of(var.binding) if r[0] != var.name}
        except Unsupported as error:
            raise self.fail({"span": var.raw["source_span"]}, f"binding of {var.name}: {error}") from None

    def binding_depends(self, var: Var) -> bool:
        return bool(self.reads_of_binding(var)) or "FunctionCall" in str(var.binding)

    # ---- the whole file -----------------------------------------------------------------------
    def generate(self) -> GeneratedModel:
        equations = self.equations()
        unknowns = self.unknown_elements()
        try:
            match(equations, unknowns)
            ordered = sort_with_single_calls(equations)
        except (Unsupported, AlgebraicLoop) as error:
            raise BuildError(str(error)) from None
        # hoist: equations reading parameters only (transitively)
        hoisted_unknowns = set()
        hoisted, continuous, discrete = [], [], []
        when_targets = self.when_targets
        for eq in ordered:
            reads = {r for r in self.expand(self._all_reads(eq))}
            names = {n for n, _ in reads}
            if all(self.is_param_like(n) or (n, o) in hoisted_unknowns for n, o in reads) and \
                    "Pre" not in str(eq.rhs) and not _reads_time(eq) and not any(n.startswith("der(") for n, _ in eq.solves):
                hoisted.append(eq)
                hoisted_unknowns |= set(eq.solves)
                continue
            target = eq.solves[0][0]
            var = self.flat.vars.get(target)
            if var is not None and var.role == "discrete" and target not in when_targets:
                discrete.append(eq)
            else:
                continuous.append(eq)
            del names
        param_lines = self.parameter_code()
        hoisted_lines = [line for eq in hoisted for line in self.equation_code(eq)]
        self.parameter_values, self.parameter_lines = self.parameter_elements(hoisted_unknowns), []
        derivative_part, output_part = split_for_derivatives(continuous, self.derivative_roots())
        check_derivatives(self.flat, derivative_part, hoisted + output_part + discrete)
        shared: dict = {}
        continuous_lines = drop_unused([line for eq in derivative_part for line in self.equation_code(eq, cse=shared)]
                                       + [_OUTPUTS_ONLY]
                                       + [line for eq in output_part for line in self.equation_code(eq, cse=shared)])
        continuous_lines = share_elementary_calls(continuous_lines, windows_of(self.variables), _OUTPUTS_ONLY)
        discrete_lines = [line for eq in discrete for line in self.equation_code(eq)]
        assert_param, assert_cont = self.asserts(self.flat.asserts)
        init_asserts = [line for node in self.flat.initial_asserts for line in self.assert_code(node)]
        initial = self.initial_states()
        initial_equations = self.initial_equation_code()
        when_code, when_init = self.when_code()
        functions = self.functions
        locals_ = [v.base for v in self.variables.variables if v.kind == "local" and not v.name.startswith("$")
                   and not self.flat.vars.get(v.base, Var("", (), "", "", False, True, {})).protected]
        locals_ = list(dict.fromkeys(locals_))
        out = [f"/* Generated by fmu_build (native backend) from rumoca's flattening of {self.flat.name}.",
               " * Do not edit: the Modelica source is the specification. */",
               "#include <math.h>", "#include <stdlib.h>", "#include <string.h>", "",
               '#include "model.h"', '#include "model_support.h"', "",
               "/* min/max inlined (the library calls cost more than the comparison) */",
               "static inline double rt_fmin(double a, double b) { return (a <= b || b != b) ? a : b; }",
               "static inline double rt_fmax(double a, double b) { return (a >= b || b != b) ? a : b; }",
               "/* cos(atan(u)) and sin(2*atan(u)) without trigonometric calls (equal to a few ulp) */",
               "static inline double rt_cos_atan(double u) { return fabs(u) < 1e150 ? 1 / sqrt(1 + u * u) : cos(atan(u)); }",
               "static inline double rt_sin_2atan(double u) { return fabs(u) < 1e150 ? 2 * u / (1 + u * u) : sin(2 * atan(u)); }",
               ""]
        out += functions.prototypes() + [""] + functions.definitions()
        out.append("const char *const MODEL_LOCALS[] = {" + "".join(f'"{n}", ' for n in locals_) + "NULL};")
        out += ["", "/* The sorted continuous equations: those the state derivatives (and the continuous asserts) need",
                " * first; with outputs == 0 it returns before the rest (outputs and locals only). */",
                "static void continuous_equations(ModelInstance *m, int outputs)", "{",
                *indent(continuous_lines), "    (void)outputs;", "}", "",
                "static void discrete_equations(ModelInstance *m)", "{", *indent(discrete_lines),
                "    (void)m;", "}", "",
                "void model_calculated_parameters(ModelInstance *m)", "{", *indent(param_lines),
                *indent(hoisted_lines), *indent(self.parameter_lines), *indent(assert_param), "}", "",
                "void model_initial_states(ModelInstance *m)", "{", *indent(initial), *indent(init_asserts),
                "    continuous_equations(m, 1);", *indent(initial_equations),
                "    continuous_equations(m, 1);", "    discrete_equations(m);", "    continuous_equations(m, 1);",
                *indent(when_init), "}", "",
                "void model_outputs_and_derivatives(ModelInstance *m)", "{", "    continuous_equations(m, 1);",
                *indent(assert_cont), "}", "",
                "void model_derivatives(ModelInstance *m)", "{", "    continuous_equations(m, 0);",
                *indent(assert_cont), "}", "",
                "void model_discrete_update(ModelInstance *m)", "{", *indent(when_code), "}", ""]
        return GeneratedModel("\n".join(out), self.variables, locals_)

    def _all_reads(self, eq: Equation) -> set:
        reads = set()
        for node in (eq.lhs, eq.rhs):
            try:
                self.scope.reads = set()
                em = self.emitter()
                if eq.element:
                    em.element(node, eq.element)
                elif em.shape(node) and "Tuple" not in node:
                    for idx in indices(em.shape(node)):
                        em.element(node, idx)
                elif "Tuple" not in node:
                    em.scalar(node) if "FunctionCall" not in node or not em.shape(node) else None
                if "FunctionCall" in node:
                    em.pre.clear()
                    call_function(self.functions, node, em, into_temp=True)
                reads |= self.scope.reads
            except Unsupported:
                pass
            finally:
                self.scope.reads = None
        return reads - {(n, o) for n, o in eq.solves} - {(n, None) for n, _ in eq.solves}

    def derivative_roots(self) -> set:
        """The unknown elements a derivative-only evaluation must compute: every state derivative and
        whatever the continuous asserts read (they run in both evaluations)."""
        roots = {(f"der({name})", k) for name, var in self.flat.vars.items() if var.role == "state"
                 for k in range(var.size)}
        for node in self.flat.asserts:
            self.scope.reads = set()
            try:
                assert_lines(self.emitter(), node, "", "")
                roots |= self.expand(self.scope.reads)
            except Unsupported as error:
                raise self.fail(node, str(error)) from None
            finally:
                self.scope.reads = None
        return roots

    def asserts(self, nodes) -> tuple[list, list]:
        params, cont = [], []
        for node in nodes:
            lines = self.assert_code(node)
            reads = self.reads_of(node["condition"])
            (params if all(self.is_param_like(n) for n, _ in reads) else cont).extend(lines)
        return params, cont

    def assert_code(self, node) -> list[str]:
        em = self.emitter()
        try:
            lines = assert_lines(em, node, self.flat.where(node), "")
        except Unsupported as error:
            raise self.fail(node, str(error)) from None
        return ["{", *("    " + line for line in lines), "}"] if len(lines) > 1 else lines

    def initial_states(self) -> list[str]:
        lines = []
        for name, var in self.flat.vars.items():
            if var.role not in ("state", "discrete") or var.start is None:
                continue
            em = self.emitter()
            slot = self.scope.slot(name)
            try:
                shape = em.shape(var.start)
                if shape:
                    values = [em.element(var.start, idx) for idx in indices(shape)]
                else:
                    values = [em.scalar(var.start)] * var.size
            except Unsupported as error:
                raise self.fail({"span": var.raw["source_span"]}, f"start value of {name}: {error}") from None
            body = [f"{slot.access(k)} = {v};" for k, v in enumerate(values)]
            lines += ["{", *("    " + p for p in em.pre), *("    " + b for b in body), "}"] if em.pre else body
        return lines

    def initial_equation_code(self) -> list[str]:
        lines = []
        for raw in self.flat.initial_equations:
            residual = raw["residual"]
            lhs, rhs = residual["Binary"]["lhs"], residual["Binary"]["rhs"]
            if "VarRef" not in lhs:
                raise self.fail(residual, "an initial equation must be 'variable = expression'")
            eq = Equation(0, self.flat.where(residual), lhs, rhs, set(),
                          sorted(self.expand(self.reads_of(lhs))), block=True)
            em = self.emitter()
            if em.shape(lhs):
                if "FunctionCall" not in rhs:
                    for idx in indices(em.shape(lhs)):
                        eq.element = idx
                        lines += self.equation_code(eq)
                    continue
            else:
                eq.block = False
            lines += self.equation_code(eq)
        return lines

    def when_code(self) -> tuple[list, list]:
        """Discrete update: discrete equations, when-clauses on rising conditions, event iteration."""
        if not self.flat.when_chains:
            return ["discrete_equations(m);", "(void)m;"], []
        targets = sorted(self.when_targets | {n for n, v in self.flat.vars.items()
                                              if v.role == "discrete"})
        pre_slots, save = {}, []
        for name in targets:
            slot = self.scope.slot(name)
            ctype = slot.ctype
            size = count(slot.dims)
            local = f"pre_{name.replace('.', '_')}"
            save.append(f"{ctype} {local}[{size}];")
            save.append(f"memcpy({local}, &{slot.access(0)}, sizeof {local});")
            pre_slots[name] = Slot(ctype, slot.dims or (1,), local, "local") if slot.dims else \
                Slot(ctype, (), f"{local}[0]", "local")
        body = []
        for k, chain in enumerate(self.flat.when_chains):
            if chain.get("else_when"):
                raise self.fail(chain["first"]["condition"], "elsewhen is not supported")
            memory = self.scope.slot(f"$when{k + 1}").access(0)
            em = self.emitter(pre_slots)
            cond = em.scalar(chain["first"]["condition"])
            assigns = []
            for entry in chain["first"]["equations"]:
                if "Assign" not in entry:
                    raise self.fail(entry if first_span(entry) else chain["first"]["condition"],
                                    f"'{next(iter(entry))}' inside a when-clause")
                slot = self.scope.slot(entry["Assign"]["target"])
                assigns.append(f"        {slot.access(0)} = {em.scalar(entry['Assign']['value'])};")
            body += [*("    " + p for p in em.pre), "    {", f"        const int c = {cond};",
                     f"        if (c && !{memory}) {{", "            fired = 1;",
                     *("    " + a for a in assigns), "        }", f"        {memory} = c;", "    }"]
        loop = ["int iteration;",
                f"for (iteration = 0; iteration < {_MAX_EVENT_ITERATIONS}; iteration++) {{",
                "    int fired = 0;", *("    " + s for s in save), "    discrete_equations(m);", *body,
                "    if (!fired) break;", "    continuous_equations(m, 1);", "}"]
        init = []
        for k, chain in enumerate(self.flat.when_chains):
            em = self.emitter()
            cond = em.scalar(chain["first"]["condition"])
            init += [*em.pre, f"{self.scope.slot(f'$when{k + 1}').access(0)} = {cond};"]
        return loop, init


def _merged(equations: list[Equation], calls: set) -> list[Equation]:
    """``equations`` with the output groups of each tuple equation in ``calls`` (ids of its call)
    joined into one equation again."""
    out, head = [], {}
    for eq in equations:
        key = id(eq.rhs)
        if not (eq.block and "Tuple" in eq.lhs and key in calls):
            out.append(eq)
        elif key not in head:
            head[key] = replace(eq, solves=list(eq.solves), reads=set(eq.reads))
            out.append(head[key])
        else:
            first = head[key]
            first.lhs = {"Tuple": {"elements": [a if a is not None else b for a, b in
                                                zip(first.lhs["Tuple"]["elements"], eq.lhs["Tuple"]["elements"])]}}
            first.solves += eq.solves
            first.reads |= eq.reads
            first.inputs = None if first.inputs is None or eq.inputs is None else first.inputs | eq.inputs
    return out


def sort_with_single_calls(equations: list[Equation]) -> list[Equation]:
    """The sorted equations, each tuple equation's call made once where that makes no algebraic
    loop (its outputs were split into groups by the inputs they need, see Generator._split)."""
    split = {}
    for eq in equations:
        if eq.block and "Tuple" in eq.lhs:
            split[id(eq.rhs)] = split.get(id(eq.rhs), 0) + 1
    candidates = [key for key, n in split.items() if n > 1]
    try:
        return sort(_merged(equations, set(candidates)))
    except AlgebraicLoop:
        pass
    accepted: set = set()
    for key in candidates:
        try:
            sort(_merged(equations, accepted | {key}))
            accepted.add(key)
        except AlgebraicLoop:
            pass
    return sort(_merged(equations, accepted))


_ELEMENT = re.compile(r"m->([rib])\[(\d+)(?: \+ (\d+))?\]")
_LOCAL_NAME = re.compile(r"\b(?:[a-z]+\d+|l_\w+|f_\w+)\b")
_SHARED = re.compile(r"\s*const (?:double|int) (v\d+) = ")


def _reads_time(eq: Equation) -> bool:
    """Whether an equation reads ``time`` (then it is not parameter-only, whatever else it reads)."""
    def walk(node) -> bool:
        if isinstance(node, dict):
            if "VarRef" in node and node["VarRef"]["name"]["name"] == "time":
                return True
            return any(walk(v) for v in node.values())
        return isinstance(node, list) and any(walk(v) for v in node)

    return walk(eq.lhs) or walk(eq.rhs)


_OUTPUTS_ONLY = "if (!outputs) return;   /* a derivative-only evaluation (model_derivatives) ends here */"


def split_for_derivatives(equations: list[Equation], roots: set) -> tuple[list[Equation], list[Equation]]:
    """The sorted ``equations`` as (those ``roots`` need, transitively; the others), each part in
    sorted order. The first part reads nothing the second computes, so running the first alone
    gives the state derivatives of an intermediate integrator stage at less cost."""
    need = set(roots)
    needed = [False] * len(equations)
    for k in range(len(equations) - 1, -1, -1):
        eq = equations[k]
        if any(u in need for u in eq.solves):
            needed[k] = True
            need |= eq.reads
    return ([eq for eq, n in zip(equations, needed) if n],
            [eq for eq, n in zip(equations, needed) if not n])


def drop_unused(lines: list[str]) -> list[str]:
    """Without the shared values (Emitter.value) nothing reads: a function expanded for some of its
    outputs computes only what those need (the functions are pure)."""
    while True:
        uses = Counter(re.findall(r"\bv\d+\b", "\n".join(lines)))
        kept = [line for line in lines if not ((m := _SHARED.match(line)) and uses[m.group(1)] == 1)]
        if len(kept) == len(lines):
            return lines
        lines = kept


def indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def graphlib_order(deps: dict[str, set]) -> list[str]:
    import graphlib

    # sorted predecessors: the order of a set of names follows the hash seed, and the order would with it
    sorter = graphlib.TopologicalSorter({k: sorted(d for d in v if d in deps and d != k) for k, v in deps.items()})
    try:
        return list(sorter.static_order())
    except graphlib.CycleError as error:
        raise BuildError(f"parameter bindings form a cycle: {' -> '.join(error.args[1])}") from None


def generate(flat: FlatModel, variables: ModelVariables) -> GeneratedModel:
    """The C file of ``flat`` for the native runtime, with the variables it addresses."""
    return Generator(flat, variables).generate()


__all__ = ["generate", "GeneratedModel", "CTYPE", "first_span", "offset_of"]
