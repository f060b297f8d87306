"""The in-process manoeuvre runner: a whole fixed-step run of an FMI 2.0 CS FMU in one C call.

``pybridge/simulate/native/manoeuvre_runner.c`` is compiled on first use with the machine's C compiler ($CC,
else gcc) into the FMU build cache (``runner/manoeuvre_runner-<source hash>.so``, written under a
temporary name and renamed into place) and loaded with ctypes. It gets the fmi2* function pointers
of the FMU fmpy has loaded and the instance, so the FMU binary stays a standard one (native or
OpenModelica), and runs the input table, the PI speed driver and the end conditions with no Python
per communication step.

Which path runs: the ``runner`` argument of ``FMUSession.simulate`` / ``run_scenario``, else the
environment variable ``PYBRIDGE_RUNNER``: ``native`` (the runner; an error when it cannot be built),
``fmpy`` (the Python loop through fmpy, the cross-check), or unset / ``auto`` (the runner, and the
fmpy loop with one warning when no C compiler works).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import tempfile
import warnings
from ctypes import POINTER, Structure, c_double, c_int, c_size_t, c_uint, c_void_p
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["RUNNER_ENV", "RUNNERS", "EndCheck", "NativeRunnerError", "SpeedControl", "library", "use_native"]

RUNNER_ENV = "PYBRIDGE_RUNNER"
RUNNERS = ("auto", "native", "fmpy")
SOURCE = Path(__file__).resolve().parent / "native" / "manoeuvre_runner.c"
SPEED_CONTROL = SOURCE.with_name("speed_control.h")     # included by both runners
FLAGS = ["-O2", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math"]  # doubles as Python's
FMI_FUNCTIONS = ("fmi2SetupExperiment", "fmi2EnterInitializationMode", "fmi2ExitInitializationMode",
                 "fmi2SetReal", "fmi2GetReal", "fmi2DoStep")


class NativeRunnerError(RuntimeError):
    """The runner cannot be built or loaded (no C compiler, a failed compilation), or a bad runner name."""


@dataclass(frozen=True)
class SpeedControl:
    """The PI speed driver of a run: SpeedController's gains, its feed-forward ``hold`` (for t > 0),
    the speed at k = 0, the FMU variable it reads, the input columns it writes and its step h (s);
    ``targets``: the target speed at every point (a recorded speed profile), else None (``target``)."""
    target: float
    kp: float
    ki: float
    brake_gain: float
    hold: float
    initial_speed: float
    speed: str
    throttle_column: int
    brake_column: int
    step: float
    targets: np.ndarray | None = None


@dataclass(frozen=True)
class EndCheck:
    """End conditions read from ``watched`` FMU variables at 0 < k < count, k % every == 0:
    ``conditions`` are (index into watched, below, threshold): value < threshold when ``below``,
    else |value| > threshold; a run also ends at t >= duration (Scenario.end_reached)."""
    watched: tuple[str, ...]
    conditions: tuple[tuple[int, bool, float], ...]
    every: int
    duration: float


class _Fmi(Structure):
    _fields_ = [(name, c_void_p) for name in ("setup_experiment", "enter_initialization", "exit_initialization",
                                              "set_real", "get_real", "do_step", "component")]


_P_UINT, _P_DOUBLE, _P_SIZE, _P_INT = POINTER(c_uint), POINTER(c_double), POINTER(c_size_t), POINTER(c_int)


class _Run(Structure):
    _fields_ = [("count", c_size_t), ("times", _P_DOUBLE), ("start_time", c_double), ("stop_time", c_double),
                ("n_inputs", c_size_t), ("input_vrs", _P_UINT), ("inputs", _P_DOUBLE), ("input_row", _P_DOUBLE),
                ("n_outputs", c_size_t), ("output_vrs", _P_UINT), ("outputs", _P_DOUBLE),
                ("record_every", c_size_t),
                ("speed_control", c_int), ("speed_vr", c_uint), ("throttle_column", c_size_t),
                ("brake_column", c_size_t), ("initial_speed", c_double), ("target", c_double), ("kp", c_double),
                ("ki", c_double), ("brake_gain", c_double), ("hold", c_double), ("h", c_double),
                ("targets", _P_DOUBLE),
                ("n_watched", c_size_t), ("watched_vrs", _P_UINT), ("n_conditions", c_size_t),
                ("condition_channel", _P_SIZE), ("condition_below", _P_INT), ("condition_threshold", _P_DOUBLE),
                ("watched_values", _P_DOUBLE), ("check_every", c_size_t), ("duration", c_double),
                ("rows", c_size_t), ("last_point", c_size_t), ("stopped", c_int), ("failed_call", c_int),
                ("failed_item", c_size_t), ("status", c_int)]


_library: ctypes.CDLL | None = None
_unavailable: str | None = None


def library() -> ctypes.CDLL:
    """The compiled runner, built into the cache on first use; NativeRunnerError when it cannot be."""
    global _library, _unavailable
    if _library is None:
        if _unavailable is not None:
            raise NativeRunnerError(_unavailable)
        try:
            _library = ctypes.CDLL(str(_compiled()))
        except (NativeRunnerError, OSError) as error:
            _unavailable = f"the native manoeuvre runner is unavailable: {error}"
            raise NativeRunnerError(_unavailable) from None
        _library.run_manoeuvre.argtypes = [POINTER(_Fmi), POINTER(_Run)]
        _library.run_manoeuvre.restype = c_int
    return _library


def use_native(runner: str | None = None) -> bool:
    """True when a run goes through the native runner: ``runner``, else $PYBRIDGE_RUNNER, else auto."""
    choice = runner if runner is not None else (os.environ.get(RUNNER_ENV) or "auto")
    if choice not in RUNNERS:
        where = "runner" if runner is not None else f"${RUNNER_ENV}"
        raise NativeRunnerError(f"{where} = {choice!r}: unknown runner; expected one of {', '.join(RUNNERS)}")
    if choice == "fmpy":
        return False
    if choice == "native":
        library()
        return True
    try:
        library()
    except NativeRunnerError as error:
        warnings.warn(f"{error}; using the fmpy loop (set {RUNNER_ENV}=fmpy to silence this)", RuntimeWarning,
                      stacklevel=3)
        return False
    return True


def _compiled() -> Path:
    """Path of the shared library for the current source, compiling it when the cache lacks it."""
    from fmu_build.build import default_cache_dir
    from fmu_build.errors import BuildError
    from fmu_build.native_backend import compiler

    source = SOURCE.read_bytes() + SPEED_CONTROL.read_bytes()
    key = hashlib.sha256(source + " ".join(FLAGS).encode()).hexdigest()[:16]
    folder = default_cache_dir() / "runner"
    target = folder / f"manoeuvre_runner-{key}.so"
    if target.is_file():
        return target
    try:
        cc = compiler()
    except BuildError as error:
        raise NativeRunnerError(str(error)) from None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
        os.close(handle)
    except OSError as error:
        raise NativeRunnerError(f"{folder}: cannot write the runner's build cache ({error})") from None
    try:
        done = subprocess.run([cc, *FLAGS, "-o", tmp, str(SOURCE), "-lm"], capture_output=True, text=True,
                              timeout=120)
        if done.returncode != 0:
            raise NativeRunnerError(f"{cc} could not compile {SOURCE}: {done.stderr.strip()[-2000:]}")
        os.replace(tmp, target)
    except (OSError, subprocess.SubprocessError) as error:
        raise NativeRunnerError(f"{cc} could not compile {SOURCE} ({error})") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def fmi_functions(slave) -> _Fmi:
    """The runner's view of an instantiated fmpy FMU2Slave: the addresses of the fmi2* functions of the
    library fmpy loaded (its ctypes function objects) and the instance."""
    return _Fmi(*(ctypes.cast(getattr(slave.dll, name), c_void_p).value for name in FMI_FUNCTIONS), slave.component)


def _uints(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.uint32)


def run(fmi: _Fmi, times: np.ndarray, input_vrs: np.ndarray, inputs: np.ndarray, output_vrs: np.ndarray, *,
        stop_time: float, record_every: int = 1, speed: SpeedControl | None = None, speed_vr: int = 0,
        end: EndCheck | None = None, watched_vrs: np.ndarray | None = None) -> tuple[np.ndarray, int, bool, _Run]:
    """Run the points ``times`` (inputs row k at point k; ``stop_time`` for fmi2SetupExperiment); returns
    (output rows, last point reached, stopped by an end condition, the C run record whose failed_call /
    status / failed_item tell a failed FMI call)."""
    count = len(times) - 1
    times = np.ascontiguousarray(times, dtype=float)
    inputs = np.ascontiguousarray(inputs, dtype=float).reshape(len(times), len(input_vrs))
    input_vrs, output_vrs = _uints(input_vrs), _uints(output_vrs)
    row = np.zeros(max(len(input_vrs), 1))
    outputs = np.empty((count // record_every + 2, len(output_vrs)))
    record = _Run(count=count, times=times.ctypes.data_as(_P_DOUBLE), start_time=times[0], stop_time=stop_time,
                  n_inputs=len(input_vrs), input_vrs=input_vrs.ctypes.data_as(_P_UINT),
                  inputs=inputs.ctypes.data_as(_P_DOUBLE), input_row=row.ctypes.data_as(_P_DOUBLE),
                  n_outputs=len(output_vrs), output_vrs=output_vrs.ctypes.data_as(_P_UINT),
                  outputs=outputs.ctypes.data_as(_P_DOUBLE), record_every=record_every, check_every=1)
    if speed is not None:
        record.speed_control, record.speed_vr = 1, speed_vr
        record.throttle_column, record.brake_column = speed.throttle_column, speed.brake_column
        for name in ("initial_speed", "target", "kp", "ki", "brake_gain", "hold"):
            setattr(record, name, getattr(speed, name))
        record.h = speed.step
        if speed.targets is not None:
            targets = np.ascontiguousarray(speed.targets, dtype=float)
            if len(targets) != count + 1:
                raise ValueError(f"speed.targets: {len(targets)} values for {count + 1} points")
            record.targets = targets.ctypes.data_as(_P_DOUBLE)  # `targets` lives until the run returns
    if end is not None:
        channel = np.array([c[0] for c in end.conditions], dtype=np.uintp)
        below = np.array([int(c[1]) for c in end.conditions], dtype=np.int32)
        threshold = np.array([c[2] for c in end.conditions], dtype=float)
        values = np.zeros(len(end.watched))
        watched_vrs = _uints(watched_vrs)
        record.n_watched, record.watched_vrs = len(watched_vrs), watched_vrs.ctypes.data_as(_P_UINT)
        record.n_conditions, record.condition_channel = len(channel), channel.ctypes.data_as(_P_SIZE)
        record.condition_below, record.condition_threshold = below.ctypes.data_as(_P_INT), \
            threshold.ctypes.data_as(_P_DOUBLE)
        record.watched_values, record.check_every, record.duration = values.ctypes.data_as(_P_DOUBLE), end.every, \
            end.duration
    library().run_manoeuvre(ctypes.byref(fmi), ctypes.byref(record))
    return outputs[:record.rows], record.last_point, bool(record.stopped), record
