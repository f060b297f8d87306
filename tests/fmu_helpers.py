"""Helpers shared by the FMU tests: session-wide native builds, input replay through fmpy, NRMSE.

Replaying a reference simulation into a Co-Simulation FMU: fmpy 0.3.32's ``simulate_fmu(input=...)``
holds each input constant over a communication step (and its ``set_input_derivatives`` option only
works with exactly nine continuous inputs), so the inputs lag by one step, which alone costs 1-6 %
NRMSE on signals with direct feed-through (tyre forces, wheel accelerations). :func:`replay` drives
the FMU through fmpy's FMU2Slave instead and gives it the first derivatives of the inputs
(fmi2SetRealInputDerivatives, canInterpolateInputs = true), i.e. the same piecewise-linear input
trajectory the reference had between its samples.
"""
from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

BUILD_TIMES: dict[tuple[str, str, str], float] = {}    # (backend, model, fmi_type) -> seconds


@pytest.fixture(scope="session")
def fmu_cache(tmp_path_factory) -> Path:
    """A build cache private to this test run (so the run's first build of a model is cold), shared by
    its xdist workers: a model is compiled once per run, not once per worker."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent                     # the run's folder, above the workers' own
    cache = root / "fmu-cache"
    cache.mkdir(exist_ok=True)
    return cache


def write_package(root: Path, package: str, classes: dict[str, str]) -> Path:
    """A Modelica package ``package`` under ``root`` (a --modelica-path directory) holding ``classes``
    (class name -> its source, without the ``within`` clause), in that order; returns ``root``."""
    folder = root / package
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.mo").write_text(f"within;\npackage {package}\nend {package};\n")
    (folder / "package.order").write_text("".join(f"{name}\n" for name in classes))
    for name, source in classes.items():
        (folder / f"{name}.mo").write_text(f"within {package};\n{source}")
    return root


@contextlib.contextmanager
def _one_builder_at_a_time(cache: Path, model: str, fmi_type: str):
    """Workers that need the same build wait for the first, which then serves them from the cache."""
    with open(cache / f".{model}.{fmi_type}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _session_builder(backend: str, fmu_cache: Path, out: Path):
    from fmu_build import build_fmu

    built: dict[tuple[str, str], Path] = {}

    def _build(model: str, fmi_type: str = "me_cs") -> Path:
        key = (model, fmi_type)
        if key not in built:
            with _one_builder_at_a_time(fmu_cache, model, fmi_type):
                start = time.perf_counter()
                built[key] = build_fmu(model, backend=backend, fmi_type=fmi_type, out_dir=out / fmi_type,
                                       cache_dir=fmu_cache)
                BUILD_TIMES[(backend, *key)] = time.perf_counter() - start
        return built[key]

    return _build


@pytest.fixture(scope="session")
def native_fmu(fmu_cache, tmp_path_factory):
    """``native_fmu(model, fmi_type="me_cs")``: path of a native FMU built once per session."""
    return _session_builder("native", fmu_cache, tmp_path_factory.mktemp("fmus"))



@pytest.fixture(scope="session")
def rtm_fmu(native_fmu) -> Path:
    """The native RTM14DoF FMU (ME + CS) of this test session."""
    return native_fmu("VehicleRTM.Vehicles.RTM14DoF")


@pytest.fixture(scope="module")
def session(rtm_fmu):
    """One open ``FMUSession`` of the RTM14DoF FMU per test module."""
    from pybridge.simulate.fmu import FMUSession

    with FMUSession(rtm_fmu) as opened:
        yield opened


def nrmse(reference: np.ndarray, values: np.ndarray, floor: float = 1e-9) -> float:
    """RMS of the difference over the range (max - min) of the reference; the plain RMS when the range
    is below ``floor`` (a channel that stays at zero, such as the roll of a symmetric heave test)."""
    reference = np.asarray(reference, dtype=float)
    values = np.asarray(values, dtype=float)
    rms = float(np.sqrt(np.mean((values - reference) ** 2)))
    span = float(np.ptp(reference))
    return rms / span if span > floor else rms


def replay(fmu: Path, signals: np.ndarray | None, outputs: list[str], *, times: np.ndarray | None = None,
           start_values: dict | None = None, interpolate: bool = True) -> dict[str, np.ndarray]:
    """Co-simulate ``fmu`` with fmpy and return the ``outputs`` at the sample times.

    ``signals`` is the structured array fmpy's ``simulate_fmu(input=...)`` takes (a ``time`` field and
    one field per input); the communication points are its samples (or ``times`` when there are no
    inputs). With ``interpolate`` the FMU gets the slope of each input over the coming step.
    """
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    description = read_model_description(fmu)
    variables = {v.name: v for v in description.modelVariables}
    t = np.asarray(signals["time"] if signals is not None else times, dtype=float)
    inputs = [n for n in (signals.dtype.names if signals is not None else ()) if n != "time"]
    folder = extract(fmu)
    try:
        slave = FMU2Slave(guid=description.guid, unzipDirectory=folder,
                          modelIdentifier=description.coSimulation.modelIdentifier, instanceName="replay")
        slave.instantiate()
        slave.setupExperiment(startTime=float(t[0]))
        for name, value in (start_values or {}).items():
            var = variables[name]
            if var.type == "Real":
                slave.setReal([var.valueReference], [float(value)])
            elif var.type == "Boolean":
                slave.setBoolean([var.valueReference], [bool(value)])
            else:
                slave.setInteger([var.valueReference], [int(value)])
        in_vrs = [variables[n].valueReference for n in inputs]
        table = np.array([signals[n] for n in inputs], dtype=float) if inputs else np.zeros((0, len(t)))
        if in_vrs:   # the initialization sees the inputs at the start time, as the reference's did
            slave.setReal(in_vrs, list(table[:, 0]))
        slave.enterInitializationMode()
        slave.exitInitializationMode()
        out_vrs = [variables[n].valueReference for n in outputs]
        result = np.empty((len(t), len(outputs)))
        for k in range(len(t)):
            if in_vrs:
                slave.setReal(in_vrs, list(table[:, k]))
            result[k] = slave.getReal(out_vrs)
            if k == len(t) - 1:
                break
            h = float(t[k + 1] - t[k])
            if in_vrs and interpolate:
                slave.setRealInputDerivatives(in_vrs, [1] * len(in_vrs), list((table[:, k + 1] - table[:, k]) / h))
            slave.doStep(currentCommunicationPoint=float(t[k]), communicationStepSize=h)
        slave.terminate()
        slave.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {name: result[:, j] for j, name in enumerate(outputs)}


def input_signals(result, prefix: str, names: list[str]) -> np.ndarray:
    """fmpy's input structured array from a rumoca result: fields ``names`` from channels prefix+name."""
    t = np.asarray(result.time, dtype=float)
    signals = np.zeros(len(t), dtype=[("time", float)] + [(n, float) for n in names])
    signals["time"] = t
    for name in names:
        signals[name] = np.asarray(result[prefix + name], dtype=float)
    return signals


@functools.lru_cache(maxsize=None)
def rumoca_vehicle_example(name: str):
    """rumoca's simulation of a vehicle example, once per test process, with rumoca's explicit
    adaptive solver: the RTM's tyre slip couples the body rates into fast tyre and wheel modes, on
    which rumoca's default implicit solver spends ~9x longer (StepSteer: 149 s against 17 s CPU)
    for the same 1 % cross-check."""
    import rumoca

    from fmu_build.modelica import simulate_example

    return simulate_example(f"VehicleRTM.Examples.{name}", config=rumoca.SimConfig(solver="rk-like"))
