"""The FMU-facing variables of a library model, taken from rumoca's flattening.

Names, causality, variability, units, dimensions and descriptions come from rumoca's flat model;
default values come from rumoca's own evaluation of the bindings (a probe model copies every
parameter into a variable and is simulated for one step), so nothing is re-implemented here and
nothing can drift from the Modelica source.
"""
from __future__ import annotations

import itertools
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fmu_build.modelica import LIBRARY_NAME, compile_source, find_class, load_model

KINDS = ("parameter", "calculatedParameter", "input", "output", "state", "derivative", "local")


@dataclass
class ModelVariable:
    """One scalar FMU variable (arrays are expanded row-major, e.g. ``frontAxleData.kinematics.toe[3,5]``)."""

    name: str
    base: str                      # flattened array (or scalar) name it belongs to, e.g. "frontAxleData.kinematics.toe"
    index: tuple[int, ...]         # 1-based index inside ``base`` ((), for a scalar)
    kind: str                      # one of KINDS
    type: str                      # "Real", "Integer" or "Boolean"
    unit: str | None = None
    description: str = ""
    start: float | None = None
    derivative_of: str | None = None     # for kind "derivative": the state's name
    value_reference: int = -1


@dataclass
class ModelVariables:
    """All FMU variables of one model, with value references assigned per type."""

    model: str
    variables: list[ModelVariable] = field(default_factory=list)
    dims: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def of_kind(self, *kinds: str) -> list[ModelVariable]:
        return [v for v in self.variables if v.kind in kinds]

    def by_name(self) -> dict[str, ModelVariable]:
        return {v.name: v for v in self.variables}


def _tag(entry) -> str:
    return next(iter(entry)) if isinstance(entry, dict) else str(entry)


def element_names(base: str, dims: tuple[int, ...]):
    """(name, 1-based index) of each scalar element of an array, row-major; (base, ()) for a scalar."""
    if not dims:
        yield base, ()
        return
    for index in itertools.product(*(range(1, n + 1) for n in dims)):
        yield f"{base}[{','.join(map(str, index))}]", index


def _scalar_type(var: dict) -> str:
    if not var["is_discrete_type"]:
        return "Real"
    start = str(var.get("start") or var.get("binding") or "")
    return "Boolean" if "Boolean" in start else "Integer"


def _probe_source(model: str, flat: dict, inputs: list[str], names: list[str]) -> str:
    """A model that binds the inputs to zero and copies each named parameter into a Real array."""
    lines = ["model FmuProbe", f"  {model} m;"]
    if not model.startswith(LIBRARY_NAME + "."):   # rumoca loads only the packages the probe names itself
        lines.insert(1, f"  import {LIBRARY_NAME};")
    for k, name in enumerate(names):
        var = flat[name]
        dims = var["dims"]
        shape = f"[{','.join(map(str, dims))}]" if dims else ""
        kind = _scalar_type(var)
        value = f"m.{name}"
        if kind == "Boolean":
            value = f"if m.{name} then 1 else 0" if not dims else f"{{if b then 1 else 0 for b in m.{name}}}"
        lines.append(f'  Real p{k}{shape}(each unit = "1") = {value};' if dims else f'  Real p{k}(unit = "1") = {value};')
    lines.append("  Real probeClock(start = 0, fixed = true);")
    lines.append("equation")
    lines.append("  der(probeClock) = 1;")
    for name in inputs:
        dims = flat[name]["dims"]
        lines.append(f"  m.{name} = {'zeros(' + ','.join(map(str, dims)) + ')' if dims else '0'};")
    lines.append("end FmuProbe;")
    return "\n".join(lines) + "\n"


def _evaluate(model: str, flat: dict, inputs: list[str], names: list[str]) -> dict[str, np.ndarray]:
    """rumoca's values of the named parameters (arrays row-major), by simulating a probe model."""
    with tempfile.TemporaryDirectory() as folder:
        probe = compile_source(_probe_source(model, flat, inputs, names), "FmuProbe", Path(folder))
        result = probe.simulate(t=(0.0, 1e-3), dt=1e-3)
    values = {}
    for k, name in enumerate(names):
        dims = tuple(flat[name]["dims"])
        values[name] = np.array([float(result[f"p{k}{suffix[len(name):]}"][0])
                                 for suffix, _ in element_names(name, dims)])
    return values


def model_variables(model_name: str) -> ModelVariables:
    """The FMU variables of a library model: parameters (with rumoca's values), inputs, outputs, states."""
    cls = find_class(model_name)
    model = load_model(cls.name)
    flat = model.to_dict("flat")["variables"]
    finals = model.to_dict("flat")["variable_final_flags"]
    state_bases = set(model.states.names)
    inputs = [n for n, v in flat.items() if _tag(v["causality"]) == "Input" and "." not in n]
    params = [n for n, v in flat.items()
              if _tag(v["variability"]) == "Parameter" and not v["is_protected"]]
    values = _evaluate(cls.name, flat, inputs, params)

    result = ModelVariables(cls.name)
    for name, var in flat.items():
        variability, causality = _tag(var["variability"]), _tag(var["causality"])
        if (var["is_protected"] and name not in state_bases) or variability == "Constant":
            continue     # a protected state stays: the integrator needs it (FMI lists every state)
        if variability == "Parameter":
            kind = "calculatedParameter" if finals.get(name) else "parameter"
        elif causality == "Input" and "." not in name:
            kind = "input"
        elif name in state_bases:
            kind = "state"
        elif causality == "Output" and "." not in name:
            kind = "output"
        else:
            kind = "local"
        dims = tuple(var["dims"])
        result.dims[name] = dims
        starts = values.get(name)
        elements = list(element_names(name, dims))
        for k, (element, index) in enumerate(elements):
            start = float(starts[k]) if starts is not None else _literal_start(var)
            result.variables.append(ModelVariable(
                element, name, index, kind, _scalar_type(var), var.get("unit"),
                var.get("description") or "", start))
        if kind == "state":      # the derivatives after the whole array, so both stay contiguous
            result.dims[f"der({name})"] = dims
            result.variables.extend(ModelVariable(
                f"der({element})", f"der({name})", index, "derivative", "Real",
                _derivative_unit(var.get("unit")), f"Time derivative of {element}", None, element)
                for element, index in elements)
    _assign_value_references(result)
    return result


def _literal_start(var: dict) -> float | None:
    start = var.get("start")
    if isinstance(start, dict) and "Literal" in start:
        value = start["Literal"]["value"]
        inner = next(iter(value.values()))
        return float(inner) if isinstance(inner, (int, float, bool)) else None
    return None


def _derivative_unit(unit: str | None) -> str | None:
    if not unit:
        return None
    if unit == "1":
        return "1/s"
    return f"{unit}2" if unit.endswith("/s") else f"{unit}/s"


def _assign_value_references(variables: ModelVariables) -> None:
    """Value references count from 0 separately for each FMI type, in declaration order."""
    counters = {"Real": 0, "Integer": 0, "Boolean": 0}
    for var in variables.variables:
        var.value_reference = counters[var.type]
        counters[var.type] += 1


_C_NAME = re.compile(r"[^A-Za-z0-9_]")


def c_identifier(base: str) -> str:
    """The C macro stem of a flattened name: dots become underscores, ``der(x.y)`` becomes ``der_x_y``."""
    return _C_NAME.sub("_", base.replace("der(", "der_").replace(")", "")).strip("_")


def render_header(variables: ModelVariables) -> str:
    """C header with the value references, array dimensions and start values of a model's variables."""
    lines = [f"/* Generated by fmu_build from rumoca's flattening of {variables.model}. Do not edit. */",
             "#ifndef MODEL_VARIABLES_H", "#define MODEL_VARIABLES_H", ""]
    counts = {t: sum(v.type == t for v in variables.variables) for t in ("Real", "Integer", "Boolean")}
    lines += [f"#define N_REALS {max(counts['Real'], 1)}", f"#define N_INTEGERS {max(counts['Integer'], 1)}",
              f"#define N_BOOLEANS {max(counts['Boolean'], 1)}"]
    states = variables.of_kind("state")
    lines.append(f"#define N_STATES {len(states)}")
    seen = set()
    for var in variables.variables:
        if var.base in seen:
            continue
        seen.add(var.base)
        stem = c_identifier(var.base)
        prefix = {"Real": "VR_", "Integer": "VI_", "Boolean": "VB_"}[var.type]
        lines.append(f"#define {prefix}{stem} {var.value_reference}")
        for axis, size in enumerate(variables.dims.get(var.base, ()), start=1):
            lines.append(f"#define DIM_{stem}_{axis} {size}")
    by_name = variables.by_name()
    state_vrs = ", ".join(str(v.value_reference) for v in states) or "0"
    derivative_vrs = ", ".join(str(by_name[f"der({v.name})"].value_reference) for v in states) or "0"
    lines += ["", f"static const unsigned int STATE_VR[] = {{{state_vrs}}};",
              f"static const unsigned int DERIVATIVE_VR[] = {{{derivative_vrs}}};", ""]
    for type_name, array in (("Real", "REAL"), ("Integer", "INTEGER"), ("Boolean", "BOOLEAN")):
        starts = [v.start if v.start is not None else 0.0 for v in variables.variables if v.type == type_name]
        body = ", ".join(repr(float(s)) for s in starts) or "0.0"
        lines.append(f"static const double START_{array}[] = {{{body}}};")
    lines += ["", "#endif", ""]
    return "\n".join(lines)
