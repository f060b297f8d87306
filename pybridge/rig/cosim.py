"""Closed-loop co-simulation of an SSP system (vehicle FMU + ADAS-function FMUs) on libcosim.

:func:`cosimulate` loads the ``.ssp`` into libcosim (the Open Simulation Platform's engine, through
``libcosimpy``), which instantiates every component, applies its ``.ssv`` and runs the fixed-step
algorithm: all components step from t to t + h in parallel, then every connection copies an output
to an input (Jacobi coupling, one communication step of delay in every connection). Every output of
every component is recorded as ``component.variable`` at every communication point from t = 0 (a
libcosim time-series observer, read once at the end: no Python per step). With ``real_time``
libcosim paces the steps to the wall clock; it runs in chunks of ``REAL_TIME_CHUNK`` (100 ms) per
call, and a chunk that took longer on the wall clock than its simulated time plus one step is an
*overrun*; the largest such lag is reported too. The first chunk, which holds the components'
initialization, is not counted (a rig initializes before its clock starts).

:func:`python_master` runs the same system with fmpy in one Python loop, the reference to check the
engine against: ``coupling="jacobi"`` is libcosim's scheme; with ``"gauss-seidel"`` the controllers
take the plant's (the SSD's first component's) new outputs first and the plant then takes the
controllers' answers, so a controller's direct feed-through acts within the step (the monolithic
loop: no coupling delay, inputs held over a step as in any sampled controller).
"""
from __future__ import annotations

import contextlib
from ctypes import POINTER, c_double, c_int, c_int64, c_size_t, c_uint32
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from lxml import etree

from pybridge.rig.cosim_log import last_error, loading_log
from pybridge.limits import COSIM_VALUES
from pybridge.parameters import ParameterSet
from pybridge.rig.ssp import SSC, SSD, SSD_FILE, SSPError, read_ssv
from pybridge.rig.ssp_archive import inside, unpack_ssp
from pybridge.rig.ssp_checks import Wire, check_step, check_wires, internal_step

__all__ = ["CosimResult", "System", "cosimulate", "python_master", "read_system"]

REAL_TIME_CHUNK = 0.1   # s: in real-time mode libcosim runs this much per call (overruns are counted per chunk)


@dataclass
class System:
    """What an SSD describes: components (name -> FMU path, parameter set or None) and connections."""

    name: str
    fmus: dict[str, Path]
    parameters: dict[str, ParameterSet | None]
    connections: list[tuple[str, str, str, str]]
    units: dict[str, str] = field(default_factory=dict)   # component.connector -> unit
    outputs: dict[str, list[str]] = field(default_factory=dict)
    stop_time: float | None = None
    step: float | None = None


@dataclass
class CosimResult:
    """Trace (``time`` + ``component.output`` columns, SI) and how the run went."""

    trace: pd.DataFrame
    units: dict[str, str]
    wall_time: float
    step: float
    real_time: bool = False
    overruns: int = 0
    max_lag: float = 0.0
    real_time_factor: float = float("nan")


@contextlib.contextmanager
def _unpacked(ssp: Path):
    """The archive unpacked into a temporary folder, its FMUs checked and repacked (pybridge.rig.ssp_archive)."""
    with tempfile.TemporaryDirectory(prefix="ssp-run-") as folder:
        root = Path(folder).resolve()
        unpack_ssp(ssp, root)
        yield root


def _fmu_units(fmu: Path) -> dict[str, str | None]:
    """The unit of every variable of ``fmu`` (its own, or its declared type's)."""
    with zipfile.ZipFile(fmu) as archive:
        root = etree.fromstring(archive.read("modelDescription.xml"),
                                etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True))
    types = {t.get("name"): t.find("Real").get("unit") for t in root.iterfind("TypeDefinitions/SimpleType")
             if t.find("Real") is not None}
    units = {}
    for var in root.iterfind("ModelVariables/ScalarVariable"):
        real = var.find("Real")
        if real is not None:
            units[var.get("name")] = real.get("unit") or types.get(real.get("declaredType"))
    return units


def _number(element, attribute: str, where: str, required: bool = False) -> float | None:
    text = element.get(attribute)
    if text is None and not required:
        return None
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = float("nan")
    if not np.isfinite(value) or value <= 0:
        raise SSPError(f"{where}:{element.sourceline}: {etree.QName(element).localname} {attribute}: {text!r}; "
                       "expected a number of seconds > 0")
    return value


def _wire(c, result: System, where: str) -> Wire:
    """A connection of the SSD as pybridge.rig.ssp_checks checks it."""
    wire = (c.get("startElement"), c.get("startConnector"), c.get("endElement"), c.get("endConnector"))
    for element, connector in (wire[:2], wire[2:]):
        if f"{element}.{connector}" not in result.units:
            raise SSPError(f"{where}:{c.sourceline}: connection {wire[0]}.{wire[1]} -> {wire[2]}.{wire[3]}: "
                           f"{element}.{connector} is not a connector of a component ({', '.join(result.fmus)})")
    linear = c.find(f"{{{SSC}}}LinearTransformation")
    factor = offset = None
    if linear is not None:
        try:
            factor, offset = float(linear.get("factor", "1")), float(linear.get("offset", "0"))
        except ValueError:
            factor = float("nan")
        if not (np.isfinite(factor) and np.isfinite(offset)):
            raise SSPError(f"{where}:{linear.sourceline}: ssc:LinearTransformation: factor {linear.get('factor')!r}, "
                           f"offset {linear.get('offset')!r}; expected finite numbers")
    return Wire(*wire, result.units[f"{wire[0]}.{wire[1]}"], result.units[f"{wire[2]}.{wire[3]}"],
                f"{where}:{c.sourceline}", factor, offset or 0.0, c.get("suppressUnitConversion") in ("true", "1"))


def read_system(folder: Path, label: str = "") -> System:
    """The :class:`System` of an unpacked SSP folder (its ``SystemStructure.ssd``), checked as
    pybridge.rig.ssp_checks says (one writer per input, units)."""
    path = folder / SSD_FILE
    where = f"{label or folder}!{SSD_FILE}"
    try:
        root = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True)).getroot()
    except (OSError, etree.XMLSyntaxError) as error:
        raise SSPError(f"{where}: cannot read ({error})") from None
    system = root.find(f"{{{SSD}}}System")
    if root.tag != f"{{{SSD}}}SystemStructureDescription" or system is None:
        raise SSPError(f"{where}: expected ssd:SystemStructureDescription with an ssd:System")
    result = System(system.get("name"), {}, {}, [])
    for component in system.iterfind(f"{{{SSD}}}Elements/{{{SSD}}}Component"):
        name = component.get("name")
        place = f"{where}:{component.sourceline}"
        fmu = inside(folder, component.get("source"), place, f"component {name}")
        result.fmus[name] = fmu
        result.outputs[name] = []
        fmu_units = None
        for connector in component.iterfind(f"{{{SSD}}}Connectors/{{{SSD}}}Connector"):
            real = connector.find(f"{{{SSC}}}Real")
            unit = real.get("unit") if real is not None else "1"
            if real is not None and unit is None:
                fmu_units = fmu_units if fmu_units is not None else _fmu_units(fmu)
                unit = fmu_units.get(connector.get("name"))
            result.units[f"{name}.{connector.get('name')}"] = unit or "1"
            if connector.get("kind") == "output" and real is not None:
                result.outputs[name].append(connector.get("name"))
        bindings = list(component.iterfind(f"{{{SSD}}}ParameterBindings/{{{SSD}}}ParameterBinding"))
        result.parameters[name] = read_ssv(inside(folder, bindings[0].get("source"), f"{where}:{bindings[0].sourceline}",
                                                  f"parameter binding of component {name}")) if bindings else None
    wires = [_wire(c, result, where) for c in system.iterfind(f"{{{SSD}}}Connections/{{{SSD}}}Connection")]
    check_wires(wires)
    result.connections = [(w.start, w.start_connector, w.end, w.end_connector) for w in wires]
    experiment = root.find(f"{{{SSD}}}DefaultExperiment")
    if experiment is not None:
        result.stop_time = _number(experiment, "stopTime", where)
    algorithm = root.find(".//{http://opensimulationplatform.com/SSP/OSPAnnotations}FixedStepAlgorithm")
    if algorithm is not None:
        result.step = _number(algorithm, "baseStepSize", where, required=True)
    return result


def _steps(stop: float, step: float, where: str, channels: int = 1) -> int:
    if not (np.isfinite(stop) and np.isfinite(step) and stop > 0 and step > 0):
        raise SSPError(f"{where}: stop time {stop:g} s and step {step:g} s: expected finite times > 0 s")
    count = round(stop / step)
    if count < 1 or abs(count * step - stop) > 1e-9 * stop:
        raise SSPError(f"{where}: stop time {stop:g} s must be a positive multiple of the step {step:g} s")
    if count * max(channels, 1) > COSIM_VALUES.value():
        raise SSPError(f"{where}: {stop:g} s at a step of {step:g} s is {count} steps of {channels} outputs, more "
                       f"than {COSIM_VALUES.describe()}")
    return count


def cosimulate(ssp: str | Path, stop: float | None = None, step: float | None = None, *, real_time: bool = False,
               progress: Callable[[float], None] | None = None, log_level: str = "error") -> CosimResult:
    """Run the system of ``ssp`` on libcosim to ``stop`` s (default: the SSD's stopTime) at ``step`` s
    (default: the SSD's fixed-step annotation, else 1 ms); ``progress(t)`` after every step;
    ``log_level``: libcosim's (pybridge.rig.cosim_log.LEVELS)."""
    from libcosimpy.CosimEnums import CosimVariableCausality, CosimVariableType
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimObserver import CosimObserver

    ssp = Path(ssp)
    with _unpacked(ssp) as folder:
        system = read_system(folder, str(ssp))
        step = step or system.step or 1e-3
        stop = stop or system.stop_time
        if stop is None:
            raise SSPError(f"{ssp}: no stop time: give --stop or a DefaultExperiment stopTime in the SSD")
        count = _steps(stop, step, str(ssp), sum(map(len, system.outputs.values())))
        check_step(step, {name: internal_step(fmu, system.parameters[name].scalars if system.parameters[name] else None)
                          for name, fmu in system.fmus.items()}, str(ssp))
        with loading_log(log_level) as log:
            try:
                execution = CosimExecution.from_ssp_file(str(folder), step_size=round(step * 1e9))
            except AssertionError:
                execution, log.failed = None, True
        if execution is None:
            raise SSPError(f"{ssp}: libcosim could not load the system: {log.cause()}")
        observer = CosimObserver.create_time_series(buffer_size=count + 1)
        execution.add_observer(observer)
        columns, series = [], []
        for info in execution.slave_infos():
            name = info.name.decode()
            for v in execution.slave_variables(info.index):
                if v.causality == CosimVariableCausality.OUTPUT.value and v.type == CosimVariableType.REAL.value:
                    observer.start_time_series(info.index, v.reference, CosimVariableType.REAL)
                    columns.append(f"{name}.{v.name.decode()}")
                    series.append((info.index, v.reference))
        # libcosim runs a chunk per call (simulate_until; in real-time mode it paces the steps of a chunk
        # to the wall clock): REAL_TIME_CHUNK when paced, else about 1 % of the run, for the progress
        every = max(1, round((REAL_TIME_CHUNK if real_time else stop / 100) / step))
        if real_time:
            execution.real_time_simulation_enabled(True)
        chunks = -(-count // every)
        lags = np.zeros(chunks)
        start = time.perf_counter()
        for j in range(chunks):
            k = min((j + 1) * every, count)
            begun = time.perf_counter()
            if not execution.simulate_until(round(k * step * 1e9)):
                raise RuntimeError(f"{ssp}: libcosim failed before t = {k * step:g} s: {last_error() or execution.status()}")
            lags[j] = (time.perf_counter() - begun) - (k - j * every) * step
            if progress:
                progress(k * step)
        wall = time.perf_counter() - start
        times, first = _real_samples(observer, *series[0], count + 1)
        rows = np.column_stack([first] + [_real_samples(observer, *where, count + 1)[1] for where in series[1:]])
        units = {c: system.units.get(c, "1") for c in columns}
    trace = pd.DataFrame(np.column_stack([times, rows]), columns=["time", *columns])
    return CosimResult(trace, {"time": "s", **units}, wall, step, real_time,
                       overruns=int(np.sum(lags[1:] > step)) if real_time else 0,
                       max_lag=float(lags[1:].max(initial=0.0)) if real_time else 0.0, real_time_factor=stop / wall)


def _real_samples(observer, slave: int, reference: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(times in s, values) of steps 0 .. count - 1 of a Real observed by a time-series observer. Calls
    libcosimc directly: libcosimpy's wrapper trims its result by counting step numbers equal to 0, which
    drops a sample when the series starts at step 0."""
    from libcosimpy._internal import libcosimc, wrap_function
    from libcosimpy.CosimObserver import CosimObserver

    values, steps, times = (c_double * count)(), (c_int64 * count)(), (c_int64 * count)()
    get = wrap_function(lib=libcosimc(), funcname="cosim_observer_slave_get_real_samples", restype=c_int64,
                        argtypes=[POINTER(CosimObserver), c_int, c_uint32, c_int64, c_size_t, c_double * count,
                                  c_int64 * count, c_int64 * count])
    got = get(observer.ptr(), slave, reference, 0, count, values, steps, times)
    if got != count or list(steps[:2]) != [0, 1][:count]:
        raise RuntimeError(f"libcosim returned {got} samples of slave {slave} variable {reference}, expected {count} "
                           "from step 0")
    return np.array(times[:], dtype=float) * 1e-9, np.array(values[:])


def python_master(ssp: str | Path, stop: float, step: float, coupling: str = "gauss-seidel") -> pd.DataFrame:
    """The system of ``ssp`` stepped by fmpy in one Python loop (see the module doc); same columns as
    :func:`cosimulate` for the components' Real outputs."""
    from fmpy import read_model_description
    from fmpy.fmi2 import FMU2Slave

    from fmu_build.inspect import extract_fmu

    if coupling not in ("jacobi", "gauss-seidel"):
        raise ValueError(f"coupling '{coupling}'; expected jacobi or gauss-seidel")
    ssp = Path(ssp)
    with _unpacked(ssp) as folder:
        system = read_system(folder, str(ssp))
        count = _steps(stop, step, str(ssp))
        slaves, refs = {}, {}
        try:
            for name, fmu in system.fmus.items():
                description = read_model_description(str(fmu))
                unzipped = extract_fmu(fmu, folder / "unzipped" / name)
                slave = FMU2Slave(guid=description.guid, unzipDirectory=str(unzipped),
                                  modelIdentifier=description.coSimulation.modelIdentifier, instanceName=name)
                slave.instantiate()
                refs[name] = {v.name: (v.valueReference, v.type) for v in description.modelVariables}
                _apply(slave, refs[name], system.parameters[name])
                slave.setupExperiment(startTime=0.0)
                slave.enterInitializationMode()
                slaves[name] = slave
            order = _evaluation_order(system)
            wires = [(refs[a][x][0], b, refs[b][y][0], a) for a, x, b, y in system.connections]
            outputs = [(n, refs[n][o][0]) for n in system.fmus for o in system.outputs[n]]

            def transfer(targets=None):
                """Outputs to the inputs of ``targets`` (all at once: every output read before any is set)."""
                chosen = [w for w in wires if targets is None or w[1] in targets]
                values = [slaves[source].getReal([source_vr]) for source_vr, _, _, source in chosen]
                for (_, target, target_vr, _), value in zip(chosen, values):
                    slaves[target].setReal([target_vr], value)

            for name in order:   # initial values through the connections, in data-flow order
                transfer({name})
            for slave in slaves.values():
                slave.exitInitializationMode()
            for name in order:
                transfer({name})
            rows = np.empty((count + 1, len(outputs)))
            rows[0] = [slaves[n].getReal([vr])[0] for n, vr in outputs]
            for k in range(count):
                for slave in slaves.values():
                    slave.doStep(currentCommunicationPoint=k * step, communicationStepSize=step)
                rows[k + 1] = [slaves[n].getReal([vr])[0] for n, vr in outputs]   # as libcosim observes them
                if coupling == "jacobi":
                    transfer()
                else:
                    for name in order:
                        transfer({name})
        finally:
            for slave in slaves.values():
                with contextlib.suppress(Exception):
                    slave.terminate()
                    slave.freeInstance()
    columns = [f"{n}.{o}" for n in system.fmus for o in system.outputs[n]]
    return pd.DataFrame(np.column_stack([step * np.arange(count + 1), rows]), columns=["time", *columns])


def _apply(slave, refs: dict, params: ParameterSet | None) -> None:
    if params is None:
        return
    values = dict(params.scalars)
    for name, table in params.tables.items():
        values.update({f"{name}[{','.join(str(i + 1) for i in index)}]": table[index]
                       for index in np.ndindex(table.shape)})
    for name, value in values.items():
        vr, kind = refs[name]
        if kind == "Real":
            slave.setReal([vr], [float(value)])
        elif kind == "Integer":
            slave.setInteger([vr], [int(value)])
        else:
            slave.setBoolean([vr], [bool(value)])


def _evaluation_order(system: System) -> list[str]:
    """The order in which components take their inputs: the first component of the SSD (the plant, e.g.
    the vehicle) last, so that the controllers have seen its new outputs and their feed-through acts
    within the step."""
    names = list(system.fmus)
    return names[1:] + names[:1]
