"""Fill an FMI 2.0 Co-Simulation FMU with a :class:`ParameterSet` and simulate it, without re-unpacking.

``FMUSession(path)`` reads the model description, unpacks the FMU once into a temporary folder and
instantiates one slave. ``apply(params)`` resets the slave (fmi2Reset: back to the FMU's start values)
and sets every value of the set while the slave is instantiated, as FMI 2.0 requires for fixed
parameters; a table ``name`` of shape (n,) or (n, m) fills the FMU variables ``name[i]`` / ``name[i,j]``
(1-based, row-major). ``simulate`` initializes, steps at a fixed communication step and returns a
DataFrame; a later ``simulate`` starts again from a reset slave with the last applied values. Value
references are resolved once per set layout, and each apply is one fmi2SetReal call (plus one
fmi2SetInteger / fmi2SetBoolean call when the set has Integer or Boolean parameters).
"""
from __future__ import annotations

import collections
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from ctypes import POINTER, c_double, c_int, c_uint
from pathlib import Path

import numpy as np
import pandas as pd
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (FMU2Slave, calloc, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                       fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, free)

from fmu_build.errors import BuildError
from fmu_build.inspect import extract_fmu
from pybridge.simulate import native_runner
from pybridge.simulate.native_runner import EndCheck, NativeRunnerError, SpeedControl
from pybridge.fileio import once_per_file
from pybridge.parameters import ParameterSet

__all__ = ["FMUArchiveError", "FMUSession", "FMUSessionError", "ParameterMismatchError", "native_selected"]

_ELEMENT = re.compile(r"^(?P<base>.+)\[(?P<index>\d+(?:,\d+)*)\]$")
_DESCRIPTIONS: dict[tuple, tuple] = {}   # per process: _described's answer per FMU file (path, size, mtime)
_SETTABLE_TYPES = {"Real": (np.float64, c_double), "Integer": (np.int32, c_int), "Boolean": (np.int32, c_int)}


class FMUSessionError(RuntimeError):
    """An FMU that cannot be opened, a failed FMI call, or a misuse of the session."""


class FMUArchiveError(FMUSessionError, ValueError):
    """An FMU archive that is refused before unpacking (unsafe entry, damaged, beyond a size limit)."""


class ParameterMismatchError(FMUSessionError, ValueError):
    """A parameter set that does not fit the FMU; ``differences`` lists every mismatch."""

    def __init__(self, message: str, differences: list[str]):
        super().__init__(message)
        self.differences = differences


class FMUSession:
    """One unpacked FMU and one Co-Simulation instance of it; use as a context manager."""

    def __init__(self, fmu: str | Path, instance_name: str = "session"):
        self.path = Path(fmu)
        self.state = "opening"
        self._slave = None
        self._folder = Path(tempfile.mkdtemp(prefix="fmu-session-"))
        try:  # the archive checks (paths, sizes) come before anything reads from the archive
            extract_fmu(self.path, self._folder)
        except BuildError as error:  # unsafe, damaged or too large: bad input, said by the archive check
            self.close()
            raise FMUArchiveError(str(error)) from None
        try:
            self.description, self.variables, self.arrays, self._sources = _described(self.path, self._folder)
        except Exception as error:
            self.close()
            raise FMUSessionError(f"{self.path}: cannot read the FMU's modelDescription.xml ({error})") from None
        if self.description.coSimulation is None:
            self.close()
            raise FMUSessionError(f"{self.path}: the FMU has no Co-Simulation interface; expected an FMI 2.0 CS FMU")
        self.model_name = self.description.modelName
        self._messages: collections.deque[str] = collections.deque(maxlen=20)
        self._plans: dict = {}
        self._applied: list[tuple] = []
        try:
            self._slave = FMU2Slave(guid=self.description.guid, unzipDirectory=str(self._folder),
                                    modelIdentifier=self.description.coSimulation.modelIdentifier,
                                    instanceName=instance_name)
            self._callbacks = self._logging_callbacks()
            self._slave.instantiate(callbacks=self._callbacks)
        except Exception as error:
            self.close()
            raise FMUSessionError(f"{self.path}: cannot load and instantiate the FMU ({error})") from None
        self.state = "instantiated"

    # ---- life cycle ------------------------------------------------------------------------------

    def __enter__(self) -> FMUSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Free the instance and delete the unpacked FMU (safe to call twice)."""
        if self._slave is not None and getattr(self._slave, "component", None) is not None:
            try:
                if self.state == "initialized":
                    self._slave.terminate()
                self._slave.freeInstance()
            except FMICallException:
                pass
        self._slave = None
        self.state = "closed"
        shutil.rmtree(self._folder, ignore_errors=True)

    def reset(self) -> None:
        """fmi2Reset: back to the FMU's own start values (forgets the applied parameter set)."""
        self._reset()
        self._applied = []

    # ---- parameters ------------------------------------------------------------------------------

    def check(self, params: ParameterSet) -> list[str]:
        """Every difference between the parameter set and the FMU's parameters (empty when it fits)."""
        return self._values(params)[0]

    def apply(self, params: ParameterSet) -> None:
        """Reset the instance and set every value of ``params``; refuses a set that does not fit."""
        applied = self.planned_values(params)
        self._reset()
        self._set_all(applied)
        self._applied = applied

    def planned_values(self, params: ParameterSet) -> list[tuple]:
        """[(kind, value references, values)] that ``apply`` sets (for another instance of the same FMU,
        e.g. a Model-Exchange one); refuses a set that does not fit."""
        differences, applied = self._values(params)
        if differences:
            raise ParameterMismatchError(
                f"{params.source or f'parameter set for {params.model}'}: does not fit the FMU {self.path} "
                f"({len(differences)} difference(s)): {'; '.join(differences)}", differences)
        return applied

    def defaults(self) -> ParameterSet:
        """The FMU's parameters at their start values (arrays of Real parameters as tables).

        Every parameter is in it, also those bound to another parameter in the model (e.g.
        ``frontAxle.data.*`` = ``frontAxleData.*``): a set that names both pins the bound one.
        """
        result = ParameterSet(model=self.model_name, metadata={"source": str(self.path), "tool": "FMUSession.defaults"})
        in_tables = set()
        for base, (shape, names) in self.arrays.items():
            elements = [self.variables[n] for n in names.ravel()]
            if all(v.causality == "parameter" and v.type == "Real" for v in elements):
                result.tables[base] = np.array([float(v.start) for v in elements]).reshape(shape)
                in_tables.update(names.ravel())
                if elements[0].unit:
                    result.units[base] = elements[0].unit
        for name, var in self.variables.items():
            if var.causality == "parameter" and var.type in _SETTABLE_TYPES and name not in in_tables:
                result.scalars[name] = 1.0 if var.start == "true" else 0.0 if var.start == "false" else float(var.start)
                if var.unit:
                    result.units[name] = var.unit
        return result

    def initialized_parameters(self) -> dict[str, float]:
        """Every parameter's value after initialization with the applied set: what the model runs with,
        parameters bound to others (aliases, expression bindings) included. Leaves the slave initialized."""
        self._reset()
        self._set_all(self._applied)
        self._call("fmi2SetupExperiment", self._slave.setupExperiment, startTime=0.0)
        self._call("fmi2EnterInitializationMode", self._slave.enterInitializationMode)
        self._call("fmi2ExitInitializationMode", self._slave.exitInitializationMode)
        self.state = "initialized"
        return {name: self._get_one(name) for name, var in self.variables.items()
                if var.causality == "parameter" and var.type in _SETTABLE_TYPES}

    # ---- simulation and values ---------------------------------------------------------------------

    def simulate(self, inputs: Callable[[float], Mapping[str, float]] | pd.DataFrame | None = None,
                 stop_time: float = 1.0, step: float = 1e-3, outputs: Iterable[str] | None = None, *,
                 start_time: float = 0.0, runner: str | None = None, record_every: int = 1) -> pd.DataFrame:
        """Co-simulate from ``start_time`` to ``stop_time`` at the fixed communication ``step``.

        ``inputs``: a callable ``t -> {input name: value}`` called at every communication point (it may
        call :meth:`get`), or a DataFrame with a ``time`` column (else its index) and one column per
        input, interpolated linearly (end values held). ``outputs``: names of Real variables (an array
        name gives all its elements); default the FMU's outputs. Returns ``time`` + one column each.
        ``runner``: ``native``, ``fmpy`` or ``auto`` (default: $PYBRIDGE_RUNNER, else auto): a DataFrame or
        no inputs run in one call of the native manoeuvre runner (:mod:`pybridge.simulate.native_runner`), a
        callable always through the fmpy loop. ``record_every``: the outputs are read at every
        ``record_every``-th point and the last one only (NaN at the others), as the native runner records: an
        output read after new inputs evaluates the model there, which a step then starts from exactly (else
        a native multistep FMU starts it from its input Jacobian).
        """
        self._require_open()
        count = round((stop_time - start_time) / step) if step > 0 else 0
        if count < 1 or not np.isclose(start_time + count * step, stop_time, rtol=0, atol=1e-9 * max(1.0, stop_time)):
            raise FMUSessionError(f"simulate: stop_time - start_time = {stop_time - start_time} must be a positive "
                                  f"multiple of step = {step}")
        times = start_time + step * np.arange(count + 1)
        columns = self._real_names(outputs if outputs is not None else
                                   [n for n, v in self.variables.items() if v.causality == "output"], "outputs")
        recorded = np.zeros(len(times), dtype=bool)
        recorded[::record_every] = recorded[-1] = True
        if not callable(inputs) and native_selected(runner):
            in_names, table = self._input_table(inputs, times)
            rows = np.full((len(times), len(columns)), np.nan)
            rows[recorded] = self.run_points(times, in_names, table, columns, record_every=record_every,
                                             stop_time=stop_time)[0]
        else:
            in_names, in_values = self._input_source(inputs, times)
            rows = self._fmpy_loop(times, self._real_vrs(self._real_names(in_names, "inputs", causality="input")),
                                   in_values, self._real_vrs(columns), stop_time, recorded)
        return pd.DataFrame(np.column_stack([times, rows]), columns=["time", *columns])

    def run_points(self, times: np.ndarray, inputs: list[str], table: np.ndarray, outputs: list[str], *,
                   record_every: int = 1, speed: SpeedControl | None = None, end: EndCheck | None = None,
                   stop_time: float | None = None) -> tuple[np.ndarray, float | None]:
        """Run the communication points ``times`` in one call of the native runner: ``table`` row k gives
        the ``inputs`` at point k, the optional PI ``speed`` driver overrides its two columns, the
        optional ``end`` conditions stop the run; ``stop_time`` (default the last point) goes to
        fmi2SetupExperiment. Returns (the ``outputs`` at every ``record_every``-th
        point and at the last one, as rows; the time an end condition stopped the run, else None)."""
        self._require_open()
        in_vrs = self._real_vrs(self._real_names(inputs, "inputs", causality="input"))
        out_vrs = self._real_vrs(self._real_names(outputs, "outputs"))
        if self.state != "instantiated":
            self._reset()
            self._set_all(self._applied)
        speed_vr = self._real_vrs(self._real_names([speed.speed], "speed"))[0] if speed else 0
        watched = self._real_vrs(self._real_names(end.watched, "end conditions")) if end else None
        fmi = native_runner.fmi_functions(self._slave)
        self.state = "running"
        rows, last, stopped, record = native_runner.run(
            fmi, times, in_vrs, table, out_vrs, stop_time=times[-1] if stop_time is None else stop_time,
            record_every=record_every, speed=speed, speed_vr=speed_vr, end=end, watched_vrs=watched)
        if record.failed_call:
            self._native_failure(record, times, speed, end)
        self.state = "initialized"
        return rows, float(times[last]) if stopped else None

    def _native_failure(self, record, times: np.ndarray, speed: SpeedControl | None, end: EndCheck | None) -> None:
        """The FMUSessionError the fmpy loop gives for the FMI call the native runner saw fail."""
        k = record.last_point
        what, function = {
            1: ("fmi2SetupExperiment", "fmi2SetupExperiment"),
            2: ("fmi2EnterInitializationMode", "fmi2EnterInitializationMode"),
            3: ("fmi2ExitInitializationMode", "fmi2ExitInitializationMode"),
            4: (f"fmi2DoStep at t = {times[k - 1]:g} s", "fmi2DoStep"),
            5: ("fmi2SetReal", "fmi2SetReal"),
            6: (f"fmi2GetReal at t = {times[k]:g} s", "fmi2GetReal"),
            7: (f"fmi2GetReal of {speed.speed if speed else ''}", "fmi2GetReal"),
            8: (f"fmi2GetReal of {end.watched[record.failed_item] if end else ''}", "fmi2GetReal"),
        }[record.failed_call]
        self._fail(what, FMICallException(function=function, status=record.status))

    def _fmpy_loop(self, times: np.ndarray, in_vrs: np.ndarray, in_values: Callable[[int, float], list[float]],
                   out_vrs: np.ndarray, stop_time: float, recorded: np.ndarray) -> np.ndarray:
        """The communication points through fmpy, one Python iteration each; the outputs as rows (read at
        the ``recorded`` points only, NaN at the others)."""
        if self.state != "instantiated":
            self._reset()
            self._set_all(self._applied)
        rows = np.full((len(times), len(out_vrs)), np.nan)
        self._call("fmi2SetupExperiment", self._slave.setupExperiment, startTime=times[0], stopTime=stop_time)
        for k, t in enumerate(times):
            if k:
                self._call(f"fmi2DoStep at t = {times[k - 1]:g} s", self._slave.fmi2DoStep, self._slave.component,
                           times[k - 1], t - times[k - 1], 1)
            if len(in_vrs):
                self._set("Real", in_vrs, np.asarray(in_values(k, t), dtype=float))
            if not k:
                self._call("fmi2EnterInitializationMode", self._slave.enterInitializationMode)
                self._call("fmi2ExitInitializationMode", self._slave.exitInitializationMode)
                self.state = "initialized"
            if recorded[k]:
                self._call(f"fmi2GetReal at t = {t:g} s", self._slave.fmi2GetReal, self._slave.component,
                           out_vrs.ctypes.data_as(POINTER(c_uint)), len(out_vrs),
                           rows[k].ctypes.data_as(POINTER(c_double)))
        return rows

    def get(self, names: str | Iterable[str]) -> dict[str, float | np.ndarray]:
        """Current values by name (an array name gives its array). Calculated parameters such as
        ``totalMass`` hold their start values until the instance is initialized (``simulate``)."""
        self._require_open()
        result = {}
        for name in [names] if isinstance(names, str) else names:
            if name in self.arrays:
                shape, elements = self.arrays[name]
                result[name] = np.array([self._get_one(n) for n in elements.ravel()]).reshape(shape)
            elif name in self.variables:
                result[name] = self._get_one(name)
            else:
                raise FMUSessionError(f"get: '{name}' is not a variable of {self.path}")
        return result

    # ---- internals -------------------------------------------------------------------------------

    def _plan(self, params: ParameterSet) -> tuple[list[str], list[tuple]]:
        """:meth:`_make_plan` for the set's layout, cached."""
        key = (params.model, tuple(params.scalars), tuple(params.tables), tuple([t.shape for t in params.tables.values()]))
        if key not in self._plans:
            self._plans[key] = self._make_plan(params)
        return self._plans[key]

    def _make_plan(self, params: ParameterSet) -> tuple[list[str], list[tuple]]:
        """Differences, and per settable type (kind, positions in the set's value vector, value references,
        checks). The value vector is the scalars then every table row-major. A value for a
        ``calculatedParameter`` (e.g. an OpenModelica FMU's table bound to another parameter) goes to the
        one parameter it is computed from when the FMU's model structure names exactly one; otherwise it
        is a check: it must equal what the FMU computes (its start value), else a difference naming the
        parameters to set instead."""
        differences = []
        if params.model != self.model_name:
            differences.append(f"model: the set is for {params.model}, the FMU is {self.model_name}")
        entries: list[tuple[int, str, object]] = []     # (position in the value vector, element name, FMU variable)
        for position, name in enumerate(params.scalars):
            var = self.variables.get(name)
            if var is None:
                differences.append(f"{name}: a scalar in the set, an array of shape {self.arrays[name][0]} in the FMU"
                                   if name in self.arrays else f"{name}: unknown name, not a variable of the FMU")
            else:
                entries.append((position, name, var))
        position = len(params.scalars)
        for name, table in params.tables.items():
            size = int(np.size(table))
            if name not in self.arrays:
                differences.append(f"{name}: a table of shape {np.shape(table)} in the set, a scalar in the FMU"
                                   if name in self.variables else f"{name}: unknown name, not an array of the FMU")
            elif np.shape(table) != self.arrays[name][0]:
                differences.append(f"{name}: table of shape {np.shape(table)} in the set, the FMU's grid is "
                                   f"{self.arrays[name][0]}")
            else:
                entries += [(position + k, element, self.variables[element])
                            for k, element in enumerate(self.arrays[name][1].ravel())]
            position += size
        given = {name: p for p, name, _ in entries}
        targets = {kind: ([], []) for kind in _SETTABLE_TYPES}
        checks = []
        problems: dict[str, set[str]] = collections.defaultdict(set)
        for p, name, var in entries:
            base = _ELEMENT.sub(r"\g<base>", name) if name not in params.scalars else name
            kind = var.type if name in params.scalars else "Real"
            if var.causality == "calculatedParameter" and var.type == kind:
                sources = self._sources.get(name, [])
                source = sources[0] if len(sources) == 1 else None
                if source is not None and _not_settable(source, kind) is None:
                    if source.name in given:     # both in the set: the source is set, the two must agree
                        checks.append((p, ("position", given[source.name]), name, [source.name]))
                    else:
                        targets[kind][0].append(p)
                        targets[kind][1].append(source.valueReference)
                else:
                    checks.append((p, ("value", float(var.start) if var.start is not None else np.nan), name,
                                   [s.name for s in sources]))
            elif (problem := _not_settable(var, kind)) is not None:
                problems[base].add(problem)
            else:
                targets[kind][0].append(p)
                targets[kind][1].append(var.valueReference)
        differences += [f"{base}: {'elements are ' if base in params.tables else ''}{'; '.join(sorted(found))}"
                        for base, found in problems.items()]
        groups = [(kind, np.array(where, dtype=np.intp), np.array(vrs, dtype=np.uint32),
                   [c for c in checks if kind == "Real"])
                  for kind, (where, vrs) in targets.items() if where or (kind == "Real" and checks)]
        return differences, groups

    def _values(self, params: ParameterSet) -> tuple[list[str], list[tuple]]:
        """(differences, [(kind, value references, values)]): the plan's differences plus values that
        are not finite, fractional for an Integer or neither 0 nor 1 for a Boolean parameter, and values
        for calculated parameters that differ from what the FMU computes."""
        differences, groups = self._plan(params)
        differences = list(differences)
        vector = np.concatenate([np.fromiter(params.scalars.values(), dtype=float, count=len(params.scalars)),
                                 *params.tables.values()], axis=None)
        applied = []
        for kind, where, vrs, checks in groups:
            values = vector[where]
            bad = ~np.isfinite(values)
            if kind == "Integer":
                bad |= values != np.round(values)
            elif kind == "Boolean":
                bad |= (values != 0) & (values != 1)
            if bad.any():
                expected = {"Real": "a finite number", "Integer": "a whole number", "Boolean": "0 or 1"}[kind]
                article = "an" if kind == "Integer" else "a"
                names = _element_names(params)
                differences += [f"{names[where[k]]}: {values[k]} for {article} {kind} parameter; expected {expected}"
                                for k in np.flatnonzero(bad)]
            for p, (how, reference), name, sources in checks:
                wanted = vector[reference] if how == "position" else reference
                if not np.isclose(vector[p], wanted, rtol=1e-9, atol=1e-12):
                    origin = (f"computed from {', '.join(sources[:6])}{' ...' if len(sources) > 6 else ''}"
                              if sources else "computed inside the FMU")
                    differences.append(f"{name}: {vector[p]:g} in the set, but the FMU computes it "
                                       f"(calculatedParameter, {origin}; it is {wanted:g}): set those instead, or "
                                       "declare it an independent parameter in the Modelica model")
            if len(vrs):
                applied.append((kind, vrs, values.astype(_SETTABLE_TYPES[kind][0])))
        return differences, applied

    def _set(self, kind: str, vrs: np.ndarray, values: np.ndarray) -> None:
        setter = getattr(self._slave, f"fmi2Set{kind}")
        self._call(f"fmi2Set{kind}", setter, self._slave.component, vrs.ctypes.data_as(POINTER(c_uint)), len(vrs),
                   values.ctypes.data_as(POINTER(_SETTABLE_TYPES[kind][1])))

    def _set_all(self, applied: list[tuple]) -> None:
        for kind, vrs, values in applied:
            self._set(kind, vrs, values)

    def _reset(self) -> None:
        self._require_open()
        self._call("fmi2Reset", self._slave.reset)
        self.state = "instantiated"

    def _get_one(self, name: str) -> float:
        var = self.variables[name]
        getter = {"Real": self._slave.getReal, "Integer": self._slave.getInteger,
                  "Boolean": self._slave.getBoolean}.get(var.type)
        if getter is None:
            raise FMUSessionError(f"get: '{name}' is a {var.type} variable; expected Real, Integer or Boolean")
        return float(self._call(f"fmi2Get{var.type} of {name}", getter, [var.valueReference])[0])

    def _real_names(self, names: Iterable[str], what: str, causality: str | None = None) -> list[str]:
        expanded, problems = [], []
        for name in names:
            elements = list(self.arrays[name][1].ravel()) if name in self.arrays else [name]
            for element in elements:
                var = self.variables.get(element)
                if var is None or var.type != "Real" or (causality and var.causality != causality):
                    problems.append(element)
                expanded.append(element)
        if problems:
            expected = "Real " + (f"{causality}s" if causality else "variables")
            choices = [n for n, v in self.variables.items() if v.causality == (causality or "output")]
            raise FMUSessionError(f"simulate: {what} {problems} are not {expected} of {self.path}; "
                                  f"e.g. {choices[:12]}")
        return expanded

    def _real_vrs(self, names: list[str]) -> np.ndarray:
        return np.array([self.variables[n].valueReference for n in names], dtype=np.uint32)

    def _input_table(self, inputs: pd.DataFrame | None, times: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Input names and their values at every point (rows), from a DataFrame interpolated at ``times``."""
        if inputs is None:
            return [], np.zeros((len(times), 0))
        if not isinstance(inputs, pd.DataFrame):
            raise FMUSessionError(f"simulate: inputs must be a callable t -> {{name: value}}, a DataFrame or None, "
                                  f"got {type(inputs).__name__}")
        frame = inputs.set_index("time") if "time" in inputs.columns else inputs
        t_in = frame.index.to_numpy(dtype=float)
        values = frame.to_numpy(dtype=float)
        if len(t_in) == 0 or np.any(np.diff(t_in) < 0) or not np.isfinite(values).all() or not np.isfinite(t_in).all():
            raise FMUSessionError("simulate: the inputs DataFrame needs finite values and non-decreasing, "
                                  "finite times (a 'time' column or the index)")
        table = np.column_stack([np.interp(times, t_in, values[:, j]) for j in range(values.shape[1])])
        return [str(c) for c in frame.columns], table.reshape(len(times), values.shape[1])

    def _input_source(self, inputs, times: np.ndarray) -> tuple[list[str], Callable[[int, float], list[float]]]:
        if not callable(inputs):
            names, table = self._input_table(inputs, times)
            return names, lambda k, t: table[k]
        first = dict(inputs(float(times[0])))
        names = list(first)

        def values_at(k: int, t: float) -> list[float]:
            given = inputs(float(t)) if k else first
            missing = [n for n in names if n not in given]
            if missing:
                raise FMUSessionError(f"simulate: inputs({t:g}) gave no value for {missing}; it must give "
                                      f"the inputs it gave at the start, {names}")
            return [given[n] for n in names]
        return names, values_at

    def _call(self, what: str, function, *args, **kwargs):
        try:
            return function(*args, **kwargs)
        except FMICallException as error:
            self._fail(what, error)

    def _fail(self, what: str, error: FMICallException):
        """Raise the FMUSessionError of a failed FMI call, with the FMU's logged messages."""
        self.state = "failed"
        log = "; ".join(self._messages)
        self._messages.clear()
        raise FMUSessionError(f"{self.path}: {what} failed ({error})" + (f": {log}" if log else "")) from None

    def _require_open(self) -> None:
        if self._slave is None:
            raise FMUSessionError(f"{self.path}: the session is closed")

    def _logging_callbacks(self) -> fmi2CallbackFunctions:
        """Callbacks whose logger keeps the FMU's last messages for error reports. Not fmpy's logger
        proxy: it holds one logger per process, so a second session would take this one's messages.
        Printf arguments are not expanded (the native FMUs pass formatted text, '%' doubled)."""
        def log(env, instance, status, category, message):
            self._messages.append(message.decode("utf-8", errors="replace").replace("%%", "%"))

        callbacks = fmi2CallbackFunctions()
        callbacks.logger = fmi2CallbackLoggerTYPE(log)
        callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        return callbacks


def native_selected(runner: str | None) -> bool:
    """native_runner.use_native, its errors (an unknown runner name, no compiler) as FMUSessionError."""
    try:
        return native_runner.use_native(runner)
    except NativeRunnerError as error:
        raise FMUSessionError(str(error)) from None


def _element_names(params: ParameterSet) -> list[str]:
    """The name of every value of the set's value vector (scalars, then table elements row-major)."""
    return [*params.scalars] + [f"{n}[{','.join(str(j + 1) for j in i)}]"
                                for n, t in params.tables.items() for i in np.ndindex(np.shape(t))]


def _not_settable(var, kind: str | None = None) -> str | None:
    """Why an FMU variable cannot take a value from a parameter set (None if it can)."""
    if var.causality != "parameter":
        return f"causality '{var.causality}' in the FMU, not a parameter"
    if var.type not in _SETTABLE_TYPES or (kind and var.type != kind):
        return f"type {var.type} in the FMU; expected {kind or 'Real, Integer or Boolean'}"
    return None


def _described(fmu: Path, folder: Path) -> tuple:
    """(model description, variables by name, array variables, calculated parameters' sources) of the FMU unpacked
    in ``folder``; read once per process for an FMU file unchanged since (``fileio.once_per_file``): an
    identification opens the same FMU for its scalar and lane sessions, and parsing takes 0.2 s on the van."""
    def read() -> tuple:
        description = read_model_description(str(folder))
        variables = {v.name: v for v in description.modelVariables}
        return (description, variables, _array_variables(variables),
                {u.variable.name: list(u.dependencies or []) for u in description.initialUnknowns
                 if u.variable.causality == "calculatedParameter"})
    return once_per_file(_DESCRIPTIONS, fmu, read)


def _array_variables(variables: Mapping) -> dict[str, tuple[tuple[int, ...], np.ndarray]]:
    """Array name -> (shape, element names in row-major order), from the names ``a[i]`` / ``a[i,j]``."""
    indices = collections.defaultdict(dict)
    for name in variables:
        match = _ELEMENT.match(name)
        if match:
            indices[match["base"]][tuple(int(i) for i in match["index"].split(","))] = name
    arrays = {}
    for base, elements in indices.items():
        if len({len(index) for index in elements}) != 1:
            continue
        shape = tuple(max(index[d] for index in elements) for d in range(len(next(iter(elements)))))
        if len(elements) == int(np.prod(shape)):
            grid = np.empty(shape, dtype=object)
            for index, name in elements.items():
                grid[tuple(i - 1 for i in index)] = name
            arrays[base] = (shape, grid)
    return arrays
