"""Regenerate the reference MBM data set: K&C results, property files, masses, manoeuvre traces.

``generate(vehicle, out_dir)`` writes::

    out_dir/manifest.yaml          what produced the set: versions, data-file hashes, step, wall and
                                   thread CPU times
    out_dir/mbm/...                the importer's input (pybridge.reference.export)
    out_dir/traces/<test>.csv[.gz] manoeuvre traces, SI units in the header (pybridge.traces)
    out_dir/results/*.res          the same K&C tests and manoeuvres as Adams xrf result files with
                                   Adams/Car's request names (pybridge.reference.xrf_export), the
                                   input of ``pybridge mbm import``

Manoeuvres run in parallel worker processes (one Exudyn model each). The step steer's amplitude
(ISO 7401: the steady-state steering-wheel angle for 0.4 g at the test speed) comes from a
calibration ramp steer at the step steer's speed, run first (its trace is not part of the set: the
shipped ramp steer is at 80 km/h, the step steer at 100 km/h).
"""
from __future__ import annotations

import dataclasses
import datetime
import hashlib
import platform
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import exudyn
import numpy as np
import pandas as pd
import yaml
from tqdm import tqdm

from pybridge.reference.road import STEP, run_manoeuvre
from pybridge.reference.rig_dynamics import run_corner_force, run_four_post
from pybridge.reference.statics import leaf_offsets
from pybridge.reference.vehicle_data import REPO_DIR, load_vehicle
from pybridge.reference.xrf_export import kc_res_name, write_kc_res, write_trace_res
from pybridge.mbm.kc_results import read_kc_results
from pybridge.runinfo import git_commit
from pybridge.simulate.scenarios import SHIPPED_DIR as SCENARIO_DIR
from pybridge.simulate.scenarios import load_scenario
from pybridge.traces import write_trace
from pybridge.workers import ignore_interrupts
from pybridge.fileio import read_yaml

ROAD_TESTS = ("ramp_steer", "step_steer", "sine_sweep", "acceleration", "braking", "slalom",
              "double_lane_change", "random_steer")
RIG_TESTS = ("four_post_heave", "four_post_pitch", "corner_force_sweep_FL", "corner_force_sweep_RL")
TESTS = ROAD_TESTS + RIG_TESTS
NEED_DRIVELINE = ("acceleration", "braking")  # tests a data set without driveline.yaml cannot be used for
COMPRESS_ABOVE = 1_000_000  # bytes of CSV text above which a trace is gzip-compressed


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _input_name(path: Path) -> str:
    """An input file's name in the manifest: relative to the repository when inside it."""
    path = Path(path).resolve()
    return str(path.relative_to(REPO_DIR)) if path.is_relative_to(REPO_DIR) else str(path)


def steer_at_lateral_acceleration(ramp: pd.DataFrame, ay: float) -> float:
    """Steering-wheel angle (rad) at which a ramp steer first reached |ay| (m/s^2), interpolated."""
    reached = np.nonzero(np.abs(ramp["ay"].to_numpy()) >= ay)[0]
    if reached.size == 0 or reached[0] == 0:
        raise ValueError(f"the ramp steer never reached |ay| = {ay:.3f} m/s^2")
    i = reached[0]
    a0, a1 = abs(ramp["ay"].iloc[i - 1]), abs(ramp["ay"].iloc[i])
    d0, d1 = ramp["steering_wheel_angle"].iloc[i - 1], ramp["steering_wheel_angle"].iloc[i]
    return float(d0 + (ay - a0) * (d1 - d0) / (a1 - a0))


def calibration_ramp(step_scenario_name: str = "step_steer"):
    """The ramp-steer scenario at the step steer's initial speed, ending just above 0.4 g."""
    ramp, step = load_scenario("ramp_steer"), load_scenario(step_scenario_name)
    target = max(ref.argument for ref in step.references() if ref.name == "ramp_steer_at_ay")
    control = dataclasses.replace(ramp.speed_control, target=step.initial_speed)
    return dataclasses.replace(ramp, name="ramp_steer_calibration", initial_speed=step.initial_speed,
                               speed_control=control, end={"ay_above": 1.1 * target})


def run_test(vehicle: str, test: str, offsets: dict, references: dict, duration: float | None = None,
             h: float = STEP) -> tuple[str, pd.DataFrame, float]:
    """One test by name: (name, trace, wall time in s). Runs in a worker process."""
    data = load_vehicle(vehicle)
    if test in ROAD_TESTS:
        scenario = load_scenario(test)
        trace, run = run_manoeuvre(data, scenario, offsets=offsets, h=h, duration=duration,
                                   resolve=lambda name, value: references[name])
        return test, trace, run.wall_time
    if test.startswith("four_post"):
        trace, wall = run_four_post(data, load_scenario(test), offsets=offsets, h=h, duration=duration)
        return test, trace, wall
    corner = test.rsplit("_", 1)[1]
    trace, wall = run_corner_force(data, load_scenario("corner_force_sweep"), corner, offsets=offsets,
                                   h=h, duration=duration)
    return test, trace, wall


def timed_test(*args, **kwargs) -> tuple[str, pd.DataFrame, float, float]:
    """:func:`run_test` and the thread CPU time (s) it took in its worker."""
    start = time.thread_time()
    return (*run_test(*args, **kwargs), time.thread_time() - start)


def trace_path(out_dir: Path, test: str, trace: pd.DataFrame, compress_above: int = COMPRESS_ABOVE) -> Path:
    size = trace.memory_usage(index=False).sum() * 2  # CSV text is about twice the binary size
    return Path(out_dir) / "traces" / (f"{test}.csv.gz" if size > compress_above else f"{test}.csv")


def _previous_manifest(out_dir: Path, manifest: dict) -> dict | None:
    """The folder's manifest if it was made from the same vehicle and inputs, else None."""
    path = out_dir / "manifest.yaml"
    if not path.is_file():
        return None
    previous = read_yaml(path, ValueError)
    if not isinstance(previous, dict):
        return None
    same = previous.get("vehicle") == manifest["vehicle"] and previous.get("inputs") == manifest["inputs"]
    return previous if same else None


def generate(vehicle: str, out_dir: str | Path, *, tests: tuple[str, ...] = TESTS, workers: int = 2,
             export: bool = True, progress: bool = True, compress_above: int = COMPRESS_ABOVE) -> dict:
    """Regenerate the data set of ``vehicle`` into ``out_dir``; returns the manifest. Traces of more
    than ``compress_above`` bytes of CSV text are gzip-compressed (0: every trace)."""
    out_dir = Path(out_dir)
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        raise ValueError(f"unknown tests {unknown}; available: {', '.join(TESTS)}")
    data = load_vehicle(vehicle)
    refused = [t for t in tests if t in NEED_DRIVELINE and "driveline" in data.omitted]
    if refused:
        raise ValueError(f"{data.source}: data_set_omits: the data set has no driveline.yaml, so its "
                         f"{', '.join(refused)} could not be used; leave them out of the tests")
    offsets = leaf_offsets(data)
    (out_dir / "traces").mkdir(parents=True, exist_ok=True)
    manifest = {
        "format": "vehiclertm-mbm-dataset 1", "vehicle": data.name,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "generator": "pybridge mbm generate (pybridge.reference)", "git_commit": git_commit(),
        "exudyn": exudyn.__version__, "python": platform.python_version(), "machine": platform.machine(),
        "step": STEP, "integrator": "generalized-alpha, spectral radius 0.8, fixed step",
        "inputs": {_input_name(path): sha256(path) for path in
                   [data.source, data.tyre_file, *sorted(SCENARIO_DIR.glob("*.yaml"))]},
        "references": {}, "traces": {},
    }
    previous = _previous_manifest(out_dir, manifest)
    if previous:  # same inputs: a partial run updates the set instead of replacing its record
        manifest["references"], manifest["traces"] = previous["references"], previous["traces"]
        manifest["mbm_files"] = previous.get("mbm_files", [])
    if export:
        from pybridge.reference.export import export_mbm
        wall, cpu = time.perf_counter(), time.thread_time()
        written = export_mbm(data, out_dir / "mbm")
        manifest["mbm_export"] = {"wall_time": round(time.perf_counter() - wall, 1), "cpu_time": round(time.thread_time() - cpu, 1)}
        manifest["mbm_files"] = sorted(str(Path(p).relative_to(out_dir)) for p in written.values())
        for csv in sorted((out_dir / "mbm" / "kc").glob("*.csv")):  # the K&C tests as Adams/Car writes them
            results = read_kc_results(csv)
            write_kc_res(results, out_dir / "results" / kc_res_name(data.name, results), data.name)
    references = {}
    todo = list(tests)
    bar = tqdm(total=len(todo), desc=f"{vehicle} manoeuvres", unit="test", disable=not progress)

    def record(test, trace, wall, cpu):
        path = trace_path(out_dir, test, trace, compress_above)
        for stale in (out_dir / "traces").glob(f"{test}.csv*"):
            stale.unlink()  # an older trace of this test, perhaps with the other compression
        write_trace(trace, path, {"manoeuvre": test, "source": f"reference MBM {data.name}, Exudyn {exudyn.__version__}",
                                  "step": f"{STEP} s"})
        write_trace_res(trace, out_dir / "results" / f"{data.name}_{test}.res", test, data.name)
        manifest["traces"][test] = {"file": str(path.relative_to(out_dir)), "rows": len(trace),
                                    "simulated": float(trace["time"].iloc[-1]), "wall_time": round(wall, 1),
                                    "cpu_time": round(cpu, 1),
                                    "sha256": sha256(path)}
        bar.update(1)
    if "step_steer" in todo:
        calibration = calibration_ramp()
        ramp, run = run_manoeuvre(data, calibration, offsets=offsets)
        for ref in load_scenario("step_steer").references():
            references[ref.name] = steer_at_lateral_acceleration(ramp, ref.argument)
            manifest["references"][ref.name] = {
                "ay [m/s^2]": float(ref.argument), "speed [m/s]": float(calibration.initial_speed),
                "steering_wheel_angle [rad]": references[ref.name],
                "from": f"ramp steer at the step steer's speed, 5 deg/s ({run.wall_time:.1f} s wall)"}
    with ProcessPoolExecutor(max_workers=max(1, workers), initializer=ignore_interrupts) as pool:
        futures = [pool.submit(timed_test, vehicle, t, offsets, references) for t in todo]
        for future in as_completed(futures):
            record(*future.result())
    bar.close()
    manifest["traces"] = dict(sorted(manifest["traces"].items()))
    manifest["result_files"] = sorted(str(p.relative_to(out_dir)) for p in (out_dir / "results").glob("*.res"))
    (out_dir / "manifest.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    return manifest
