"""N parameter sets of one native FMU through one manoeuvre in one C call, LANES vehicles per evaluation.

The lane library is compiled from the FMU's own ``sources/`` (the FMI wrapper, the scalar model and the
lane model that fmu_build writes beside it, see fmu_build.codegen.lanes) with ``native/lane_runner.c``,
glibc's vector math (libmvec, in libc6 since glibc 2.35) and ``-ffp-contract=off`` into the FMU build cache
(keyed by the sources, the flags and the runner). LANES is chosen at build time for this machine (8 with
AVX-512, 4 with AVX2, else 1); ``lanes=4`` asks for AVX2. libmvec comes with the C library (its static
archive is not position-independent, so it is linked dynamically); the FMU itself stays scalar and
self-contained: the lane library is a separate file used only here.

The FMU is an AB2 or RK4 build (the lane runner repeats its integrator's step). ``LaneSession(fmu).run(param_sets,
times, inputs, table, outputs, ..., holds=...)`` mirrors
``FMUSession.run_points`` for every set: one ``LaneResult`` per set, its rows equal to the scalar runner's
to round-off, or the failed FMI call of that set (a diverging set stops alone).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import tempfile
from ctypes import POINTER, Structure, c_char_p, c_double, c_int, c_size_t, c_uint, c_void_p
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pybridge.simulate.fmu import FMUSession
from pybridge.simulate.native_runner import SPEED_CONTROL, EndCheck, NativeRunnerError, SpeedControl

__all__ = ["LaneResult", "LaneSession", "lane_library"]

RUNNER = Path(__file__).resolve().parent / "native" / "lane_runner.c"
# -fno-semantic-interposition: the runner's calls into the scalar model (model_discrete_update every step and
# lane, the wrapper's functions) bind in the library, no PLT, inlinable (the same arithmetic)
FLAGS = ["-O3", "-fno-math-errno", "-ffp-contract=off", "-fno-semantic-interposition", "-fPIC", "-shared",
         "-std=gnu11", "-w"]
TARGETS = {None: ["-march=native"], 8: ["-mavx512f", "-mavx2", "-mfma"], 4: ["-mavx2", "-mfma"], 1: []}
# 4 lanes on a processor with AVX-512 VL and DQ: the same 256-bit vectors in the EVEX encoding, so the model
# has 32 vector registers and mask registers instead of 16 (0.91x the time of the AVX2 encoding on Zen 4)
EVEX_4 = ["-mavx512f", "-mavx512vl", "-mavx512dq", "-mprefer-vector-width=256", "-DLANES=4"]
FAILED_CALLS = {1: "fmi2SetupExperiment", 2: "fmi2EnterInitializationMode", 3: "fmi2ExitInitializationMode",
                4: "fmi2DoStep", 5: "fmi2SetReal"}

_P_UINT, _P_DOUBLE, _P_SIZE, _P_INT = POINTER(c_uint), POINTER(c_double), POINTER(c_size_t), POINTER(c_int)


class _LaneRun(Structure):
    _fields_ = [("n_vehicles", c_size_t), ("vehicles", POINTER(c_void_p)), ("count", c_size_t),
                ("times", _P_DOUBLE), ("start_time", c_double), ("stop_time", c_double),
                ("n_inputs", c_size_t), ("input_vrs", _P_UINT), ("inputs", _P_DOUBLE),
                ("n_outputs", c_size_t), ("output_vrs", _P_UINT), ("outputs", _P_DOUBLE),
                ("rows_capacity", c_size_t), ("record_every", c_size_t),
                ("speed_control", c_int), ("speed_vr", c_uint), ("throttle_column", c_size_t),
                ("brake_column", c_size_t), ("initial_speed", c_double), ("target", c_double), ("kp", c_double),
                ("ki", c_double), ("brake_gain", c_double), ("hold", c_double), ("h", c_double),
                ("targets", _P_DOUBLE), ("n_watched", c_size_t), ("watched_vrs", _P_UINT),
                ("n_conditions", c_size_t), ("condition_channel", _P_SIZE), ("condition_below", _P_INT),
                ("condition_threshold", _P_DOUBLE), ("check_every", c_size_t), ("duration", c_double),
                ("rows", _P_SIZE), ("last_point", _P_SIZE), ("stopped", _P_INT), ("failed_call", _P_INT),
                ("status", _P_INT), ("scalar_steps", _P_SIZE), ("holds", _P_DOUBLE)]


@dataclass
class LaneResult:
    """One parameter set's run: output rows as FMUSession.run_points gives them, the time an end condition
    stopped it (else None), the failed FMI call and time (else None), and the steps its scalar instance
    made (events, restarts)."""
    rows: np.ndarray
    stopped_at: float | None
    failed: str | None
    scalar_steps: int


def cpu_flags() -> set[str]:
    """The instruction set extensions this machine's /proc/cpuinfo lists (none where it has no such file)."""
    cpu = Path("/proc/cpuinfo")
    return set(cpu.read_text().split()) if cpu.is_file() else set()


def _flags_key(lanes: int | None) -> list[str]:
    if lanes not in TARGETS:
        raise NativeRunnerError(f"lanes = {lanes!r}: expected one of 1, 4, 8 or None (this machine's widest)")
    if lanes == 4 and {"avx512f", "avx512vl", "avx512dq"} <= cpu_flags():
        return FLAGS + TARGETS[4] + EVEX_4
    return FLAGS + TARGETS[lanes]


def lane_library(sources: Path, model_identifier: str, lanes: int | None = None) -> ctypes.CDLL:
    """The lane library of an FMU's unpacked ``sources`` folder, compiled into the build cache on first use."""
    from fmu_build.build import default_cache_dir
    from fmu_build.native_backend import compiler

    lane_c = sources / f"{model_identifier}_lanes.c"
    if not lane_c.is_file():
        raise NativeRunnerError(f"{sources.parent}: the FMU has no lane model (sources/{lane_c.name}); "
                                "build it with fmu_build's native backend")
    flags = _flags_key(lanes)
    digest = hashlib.sha256(RUNNER.read_bytes() + SPEED_CONTROL.read_bytes() + " ".join(flags).encode())
    for path in sorted(sources.iterdir()):
        digest.update(path.name.encode() + path.read_bytes())
    folder = default_cache_dir() / "lanes"
    target = folder / f"lanes-{digest.hexdigest()[:16]}.so"
    if not target.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
        os.close(handle)
        command = [compiler(), *flags, f"-I{sources}", f'-DMODEL_SOURCE="{model_identifier}.c"',
                   f'-DLANE_SOURCE="{lane_c.name}"', "-o", tmp, str(RUNNER), "-lm"]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=900)
            if done.returncode != 0:
                raise NativeRunnerError(f"{RUNNER.name}: the lane library did not compile: "
                                        f"{done.stderr.strip()[-1500:]} (libmvec: glibc 2.35 or later)")
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    try:
        library = ctypes.CDLL(str(target))
    except OSError as error:     # e.g. an FMU whose lane C a fmu_build before libmvec wrote (SLEEF's names)
        raise NativeRunnerError(f"{sources.parent}: the lane library does not load ({error}); rebuild the FMU "
                                "with this fmu_build") from None
    library.lane_run.argtypes = [POINTER(_LaneRun)]
    library.lane_count.restype = c_int
    library.fmi2Instantiate.restype = c_void_p
    library.fmi2Instantiate.argtypes = [c_char_p, c_int, c_char_p, c_char_p, c_void_p, c_int, c_int]
    library.fmi2FreeInstance.argtypes = [c_void_p]
    library.fmi2Reset.argtypes = [c_void_p]
    for kind in ("Real", "Integer", "Boolean"):
        getattr(library, f"fmi2Set{kind}").argtypes = [c_void_p, _P_UINT, c_size_t, c_void_p]
    return library


class LaneSession:
    """One native FMU, its lane library and scalar instances for the parameter sets of each run."""

    def __init__(self, fmu: str | Path, lanes: int | None = None):
        self.session = FMUSession(fmu, instance_name="lanes")
        try:
            identifier = self.session.description.coSimulation.modelIdentifier
            self.library = lane_library(self.session._folder / "sources", identifier, lanes)
        except NativeRunnerError as error:     # named by the FMU, not by its unpacked copy
            self.session.close()
            raise NativeRunnerError(str(error).replace(str(self.session._folder), str(self.session.path))) from None
        except BaseException:
            self.session.close()
            raise
        self.lanes = self.library.lane_count()
        self.flags = _flags_key(lanes)      # what the lane library was compiled with
        self._instances: list[int] = []

    def __enter__(self) -> LaneSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for instance in self._instances:
            self.library.fmi2FreeInstance(instance)
        self._instances = []
        self.session.close()

    def _instance(self, k: int, params) -> int:
        while len(self._instances) <= k:
            guid = self.session.description.guid.encode()
            handle = self.library.fmi2Instantiate(f"lane{len(self._instances)}".encode(), 1, guid, b"", None, 0, 0)
            if not handle:
                raise NativeRunnerError(f"{self.session.path}: the lane library refused an instance")
            self._instances.append(handle)
        handle = self._instances[k]
        self.library.fmi2Reset(handle)
        differences, applied = self.session._values(params)
        if differences:
            raise ValueError(f"parameter set {k}: does not fit the FMU {self.session.path}: {'; '.join(differences)}")
        for kind, vrs, values in applied:
            vrs = np.ascontiguousarray(vrs, dtype=np.uint32)
            values = np.ascontiguousarray(values)
            if getattr(self.library, f"fmi2Set{kind}")(handle, vrs.ctypes.data_as(_P_UINT), len(vrs),
                                                     values.ctypes.data_as(c_void_p)) > 1:
                raise ValueError(f"parameter set {k}: fmi2Set{kind} refused its values")
        return handle

    def run(self, param_sets: list, times: np.ndarray, inputs: list[str], table: np.ndarray, outputs: list[str], *,
            record_every: int = 1, speed: SpeedControl | None = None, end: EndCheck | None = None,
            stop_time: float | None = None, holds=None) -> list[LaneResult]:
        """FMUSession.run_points for every parameter set of ``param_sets``, LANES at a time in lockstep;
        ``holds``: the PI's feed-forward of each set (else ``speed.hold`` for all)."""
        s = self.session
        handles = (c_void_p * len(param_sets))(*(self._instance(k, p) for k, p in enumerate(param_sets)))
        in_vrs = np.ascontiguousarray(s._real_vrs(s._real_names(inputs, "inputs", causality="input")), dtype=np.uint32)
        out_vrs = np.ascontiguousarray(s._real_vrs(s._real_names(outputs, "outputs")), dtype=np.uint32)
        times = np.ascontiguousarray(times, dtype=float)
        count, n = len(times) - 1, len(param_sets)
        table = np.ascontiguousarray(table, dtype=float).reshape(len(times), len(in_vrs))
        capacity = count // record_every + 2
        out = np.zeros((n, capacity, len(out_vrs)))
        rows, last, steps = (np.zeros(n, dtype=np.uintp) for _ in range(3))
        stopped, failed, status = (np.zeros(n, dtype=np.int32) for _ in range(3))
        keep = [in_vrs, out_vrs, times, table]
        run = _LaneRun(n_vehicles=n, vehicles=handles, count=count, times=times.ctypes.data_as(_P_DOUBLE),
                       start_time=times[0], stop_time=times[-1] if stop_time is None else stop_time,
                       n_inputs=len(in_vrs), input_vrs=in_vrs.ctypes.data_as(_P_UINT),
                       inputs=table.ctypes.data_as(_P_DOUBLE), n_outputs=len(out_vrs),
                       output_vrs=out_vrs.ctypes.data_as(_P_UINT), outputs=out.ctypes.data_as(_P_DOUBLE),
                       rows_capacity=capacity, record_every=record_every, check_every=1,
                       rows=rows.ctypes.data_as(_P_SIZE), last_point=last.ctypes.data_as(_P_SIZE),
                       stopped=stopped.ctypes.data_as(_P_INT), failed_call=failed.ctypes.data_as(_P_INT),
                       status=status.ctypes.data_as(_P_INT), scalar_steps=steps.ctypes.data_as(_P_SIZE))
        if speed is not None:
            run.speed_control = 1
            run.speed_vr = int(s._real_vrs(s._real_names([speed.speed], "speed"))[0])
            run.throttle_column, run.brake_column = speed.throttle_column, speed.brake_column
            for name in ("initial_speed", "target", "kp", "ki", "brake_gain", "hold"):
                setattr(run, name, getattr(speed, name))
            run.h = speed.step
            if holds is not None:
                holds = np.ascontiguousarray(holds, dtype=float).reshape(n)
                keep.append(holds)
                run.holds = holds.ctypes.data_as(_P_DOUBLE)
            if speed.targets is not None:
                targets = np.ascontiguousarray(speed.targets, dtype=float)
                keep.append(targets)
                run.targets = targets.ctypes.data_as(_P_DOUBLE)
        if end is not None:
            watched = np.ascontiguousarray(s._real_vrs(s._real_names(end.watched, "end conditions")), dtype=np.uint32)
            channel = np.array([c[0] for c in end.conditions], dtype=np.uintp)
            below = np.array([int(c[1]) for c in end.conditions], dtype=np.int32)
            threshold = np.array([c[2] for c in end.conditions], dtype=float)
            keep += [watched, channel, below, threshold]
            run.n_watched, run.watched_vrs = len(watched), watched.ctypes.data_as(_P_UINT)
            run.n_conditions, run.condition_channel = len(channel), channel.ctypes.data_as(_P_SIZE)
            run.condition_below, run.condition_threshold = below.ctypes.data_as(_P_INT), \
                threshold.ctypes.data_as(_P_DOUBLE)
            run.check_every, run.duration = end.every, end.duration
        self.library.lane_run(ctypes.byref(run))
        results = []
        for k in range(n):
            failure = None
            if failed[k]:    # fmi2DoStep: the time the failed step started, as FMUSession.run_points says it
                when = times[last[k] - 1] if failed[k] == 4 and last[k] > 0 else times[last[k]]
                failure = f"{FAILED_CALLS.get(int(failed[k]), 'an FMI call')} at t = {when:g} s failed"
            results.append(LaneResult(out[k, :rows[k]].copy(), float(times[last[k]]) if stopped[k] else None,
                                      failure, int(steps[k])))
        return results
