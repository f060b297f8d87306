"""The lane model against LFDM's 18-DoF model, per vehicle and simulated ms, side by side in one run.

LFDM (Chrono's low-fidelity vehicle models, github.com/uwsbel/low-fidelity-dynamic-models, MIT licence)
is read from a fetched copy (``--lfdm``: a git directory or a checkout), its 18-DoF model built here with
``g++ -O3`` and run by ``lfdm_harness.cpp``: its own step steer of demo_hmmwv_hi_step_18.cpp (throttle
0.5, steering 0.1 from 0.5 s, HMMWV data, half-implicit solver at 1 ms) for 20 s. Ours: the RTM's AB2
build through ``pybridge.simulate.lanes.LaneSession`` at ``--lanes`` (4 vehicles of the converted van,
each its own parameters, rtm_speed.py's 20 s step steer at 1 ms; where this machine builds 4 lanes in the
EVEX encoding of AVX-512 VL/DQ, the AVX2 encoding as well) and the same four through the scalar native
runner. Rounds alternate LFDM, lanes (each encoding), scalar; each figure is thread CPU (LFDM: its stepping loop;
ours: the whole call, initialisation and parameter setting included). With ``--check`` it also runs every
shipped full-vehicle manoeuvre with 4 sets (one diverging) through the lanes and the scalar runner and
records the largest relative difference of any output (max |lane - scalar| / max |scalar| per channel).

    ../.venv/bin/python lfdm_compare.py --lfdm /path/to/low-fidelity-dynamic-models [--rounds 7] [--check]
"""
from __future__ import annotations

import argparse
import copy
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from machine import write_record  # noqa: E402
from rtm_speed import step_steer_inputs  # noqa: E402

RTM = "VehicleRTM.Vehicles.RTM14DoF"
STOP, STEP = 20.0, 1e-3
VARY = {"chassis.Izz": 0.04, "chassis.cogHeight": 0.03, "frontTire.LMUY": -0.05, "chassis.steeringRatio": 0.02}


def build_lfdm(lfdm: Path, work: Path) -> tuple[Path, list[str]]:
    """LFDM's 18-DoF sources from the fetched copy into ``work``, compiled with the harness."""
    tree = work / "lfdm"
    tree.mkdir()
    folders = ["wheeled_vehicle_models/18dof", "wheeled_vehicle_models/utils", "wheeled_vehicle_models/third_party"]
    if (lfdm / "HEAD").is_file() and not (lfdm / "wheeled_vehicle_models").is_dir():
        archive = subprocess.run(["git", "--git-dir", str(lfdm), "archive", "HEAD", *folders], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    else:
        for folder in folders:
            subprocess.run(["cp", "-r", str(lfdm / folder), str(tree / folder.split("/")[-1])], check=True)
        (tree / "wheeled_vehicle_models").mkdir()
        for folder in folders:
            (tree / folder.split("/")[-1]).rename(tree / folder)
    root = tree / "wheeled_vehicle_models"
    exe = work / "lfdm_harness"
    subprocess.run(["g++", "-O3", "-std=c++17", f"-I{root / '18dof'}", f"-I{root / 'utils'}",
                    f"-I{root / 'third_party'}", "-o", str(exe), str(HERE / "lfdm_harness.cpp"),
                    str(root / "18dof" / "dof18.cpp"), str(root / "18dof" / "dof18_halfImplicit.cpp"),
                    str(root / "utils" / "utils.cpp")], check=True)
    data = root / "18dof" / "data" / "json" / "HMMWV"
    return exe, [str(data / "vehicle.json"), str(data / "tmeasy.json")]


def lfdm_round(exe: Path, args: list[str]) -> float:
    """LFDM's thread CPU per simulated ms (median of 3 runs in one process)."""
    lines = subprocess.run([str(exe), *args, "3"], check=True, capture_output=True, text=True).stdout.split("\n")
    per_ms = [float(line.split()[0]) / int(line.split()[1]) for line in lines if line.strip()]
    return statistics.median(per_ms)


def van_sets(params, n: int, diverging: int | None = None) -> list:
    """``n`` variations of the converted van (VARY), the ``diverging`` one with front tyres 1e4 times stiffer vertically (the wheel hop mode far outside AB2's
    stability at 1 ms)."""
    sets = []
    for k in range(n):
        p = copy.deepcopy(params)
        for name, factor in VARY.items():
            p.scalars[name] = params.scalars[name] * (1 + factor * (k - n // 2))
        if k == diverging:
            p.scalars["frontTire.VERTICAL_STIFFNESS"] = 1e4 * params.scalars["frontTire.VERTICAL_STIFFNESS"]
        sets.append(p)
    return sets


def _step_steer():
    times = np.arange(round(STOP / STEP) + 1) * STEP
    signals = step_steer_inputs(STOP, STEP)
    names = [n for n in signals.dtype.names if n != "time"]
    return times, names, np.column_stack([signals[n] for n in names]), ["ay", "yawRate"]


def lane_cpu(lanes, sets) -> float:
    """Thread CPU per vehicle and simulated ms of rtm_speed.py's 20 s step steer through a LaneSession."""
    times, names, table, outputs = _step_steer()
    start = time.thread_time()
    results = lanes.run(sets, times, names, table, outputs)
    cpu = time.thread_time() - start
    assert all(r.failed is None for r in results), [r.failed for r in results]
    return cpu / (len(sets) * (len(times) - 1))


def scalar_cpu(session, sets) -> float:
    """The same through the scalar native runner, one set after the other."""
    times, names, table, outputs = _step_steer()
    start = time.thread_time()
    for params in sets:
        session.apply(params)
        session.run_points(times, names, table, outputs)
    return (time.thread_time() - start) / (len(sets) * (len(times) - 1))


def lane_sessions(fmu: Path, lanes: int) -> dict:
    """The lane session at ``lanes`` as this machine builds it and, where that is the EVEX encoding of 4
    lanes (AVX-512 VL/DQ), the AVX2 encoding too (what a processor without AVX-512 runs)."""
    import pybridge.simulate.lanes as lane_module

    sessions = {"lanes": lane_module.LaneSession(fmu, lanes=lanes)}
    if lanes == 4 and lane_module._flags_key(4) != lane_module.FLAGS + lane_module.TARGETS[4]:
        machine = lane_module.cpu_flags
        lane_module.cpu_flags = lambda: machine() - {"avx512f"}
        try:
            sessions["lanes_avx2"] = lane_module.LaneSession(fmu, lanes=lanes)
        finally:
            lane_module.cpu_flags = machine
    return sessions


class Capture:
    """Wraps FMUSession.run_points: the arguments of the last call (a scenario's run) are kept."""

    def __init__(self, session):
        self.session, self.call, self.original = session, None, session.run_points
        session.run_points = self

    def __call__(self, *args, **kwargs):
        self.call = (args, kwargs)
        return self.original(*args, **kwargs)


def check_manoeuvres(fmu: Path, params, lanes, only=()) -> dict:
    """Every shipped full-vehicle manoeuvre: 4 sets (one diverging) through the lanes and the scalar runner."""
    from rtm_accuracy import DATA_SET, manoeuvres

    from pybridge.simulate.fmu import FMUSession, FMUSessionError
    from pybridge.simulate.manoeuvres import INITIAL_SPEED, ManifestReferences, run_scenario
    from pybridge.simulate.scenarios import load_scenario

    resolve = ManifestReferences(DATA_SET / "manifest.yaml")
    out = {}
    for path in [p for p in manoeuvres() if not only or p.stem in only]:
        scenario = load_scenario(path)
        with FMUSession(fmu) as session:
            capture = Capture(session)
            run_scenario(session, scenario, params, resolve)
            (times, inputs, table, names), kwargs = capture.call
            sets = van_sets(params, 4, diverging=1)
            for p in sets:
                p.scalars[INITIAL_SPEED] = scenario.initial_speed
            results = lanes.run(sets, times, inputs, table, names, **kwargs)
            per_set, failures = [], []
            for k, (p, result) in enumerate(zip(sets, results)):
                session.apply(p)
                try:
                    rows = capture.original(times, inputs, table, names, **kwargs)[0]
                except FMUSessionError as error:
                    failures.append((k, result.failed, str(error).split(": fmi2DoStep:")[0][-60:]))
                    per_set.append(None)
                    continue
                assert result.failed is None and rows.shape == result.rows.shape, (path.stem, k, result.failed)
                scale = np.maximum(np.max(np.abs(rows), axis=0), 1e-300)
                per_set.append(float(np.max(np.abs(result.rows - rows) / scale)))
            worst = max(d for d in per_set if d is not None)
            out[path.stem] = {"worst_relative_difference": worst, "per_set": per_set, "outputs": len(names), "points": len(times),
                              "diverged": failures, "scalar_steps": [r.scalar_steps for r in results]}
            print(f"{path.stem}: worst {worst:.2e} over {len(names)} outputs (per set {per_set}); "
                  f"diverged {failures}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lfdm", type=Path, required=True, help="fetched copy of low-fidelity-dynamic-models")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--lanes", type=int, default=4, choices=[1, 4, 8])
    parser.add_argument("--vehicles", type=int, default=4, help="parameter sets per call (default 4)")
    parser.add_argument("--check", action="store_true", help="also the lane-by-lane check on every manoeuvre")
    parser.add_argument("--only", nargs="*", default=(), help="--check: these manoeuvres only")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "lfdm_compare.json")
    args = parser.parse_args(argv)

    from fmu_build.build import build_fmu
    from pybridge.convert import convert_mbm
    from pybridge.simulate.fmu import FMUSession
    from rtm_accuracy import DATA_SET

    work = Path(tempfile.mkdtemp(prefix="lfdm-compare-"))
    exe, lfdm_args = build_lfdm(args.lfdm, work)
    fmu = build_fmu(RTM, backend="native", fmi_type="cs", out_dir=work / "ab2", integrator="ab2")
    params = convert_mbm(DATA_SET / "mbm", fmu=fmu)
    sets = van_sets(params, args.vehicles)
    for p in sets:
        p.scalars["initialSpeed"] = 80 / 3.6       # rtm_speed.c's start speed
    loads, rounds = [os.getloadavg()[0]], []
    sessions = lane_sessions(fmu, args.lanes)
    with FMUSession(fmu) as session:
        for lanes in sessions.values():         # warm-up: libraries loaded, caches filled
            lane_cpu(lanes, sets)
        scalar_cpu(session, sets)
        for k in range(args.rounds):
            row = {"lfdm_us": lfdm_round(exe, lfdm_args) * 1e6}
            row.update({f"{name}_us": lane_cpu(lanes, sets) * 1e6 for name, lanes in sessions.items()})
            row["scalar_us"] = scalar_cpu(session, sets) * 1e6
            rounds.append(row)
            loads.append(os.getloadavg()[0])
            print(f"round {k + 1}: " + ", ".join(f"{key[:-3]} {value:.3f}" for key, value in row.items())
                  + f" us per vehicle and simulated ms (load {loads[-1]:.1f})")
        check = check_manoeuvres(fmu, params, sessions["lanes"], args.only) if args.check else None
    flags = {name: lanes.flags for name, lanes in sessions.items()}
    for lanes in sessions.values():
        lanes.close()
    median = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
    ratio = statistics.median(r["lanes_us"] / r["lfdm_us"] for r in rounds)
    ratio_avx2 = statistics.median(r["lanes_avx2_us"] / r["lfdm_us"] for r in rounds) if "lanes_avx2" in flags else None
    print(f"medians: {median}; lanes / LFDM per round, median {ratio:.3f} (bar: <= 1)"
          + (f"; the AVX2 encoding {ratio_avx2:.3f}" if ratio_avx2 else ""))
    write_record(args.out, "lfdm_compare", lanes=args.lanes, flags=flags, rounds=rounds, medians_us=median,
                 lanes_over_lfdm=ratio, lanes_avx2_over_lfdm=ratio_avx2, lanes_over_scalar=statistics.median(r["lanes_us"] / r["scalar_us"]
                                                                            for r in rounds),
                 bar_met=ratio <= 1.0, load=loads, check=check,
                 lfdm={"source": "github.com/uwsbel/low-fidelity-dynamic-models", "licence": "MIT",
                       "model": "18dof, HMMWV JSON, half-implicit, 1 ms, demo_hmmwv_hi_step_18 inputs, 20 s",
                       "build": "g++ -O3 -std=c++17"},
                 ours={"model": RTM, "integrator": "ab2", "step": STEP, "vehicles_per_call": len(sets),
                       "manoeuvre": "rtm_speed.py step steer, 20 s", "parameters": "converted lcv35, VARY"})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
