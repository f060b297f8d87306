"""Fitness-evaluation speed of the RTM: the shipped lateral and longitudinal full-vehicle scenarios
(ramp steer, step steer, sine sweep, acceleration, braking) on the native RTM14DoF CS FMU through fmpy.

1. One process, one reused FMUSession: wall time per scenario (median of --repeats) at the default
   communication step (the sample period) and at 1 ms, and how far the two traces differ.
2. ScenarioRunner with 1 and 2 worker processes: scenario runs per second and fitness evaluations
   (all five scenarios) per second over --rounds rounds, after one warm-up round.

Every run fills the FMU's full default parameter set (5556 values), as an optimiser's evaluation
would. Writes benchmarks/results/fitness_speed.json. Run by hand:

    .venv/bin/python benchmarks/fitness_speed.py [--rounds 6] [--repeats 3]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import fmpy
import numpy as np
from machine import cpu_name

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from fmu_build import build_fmu  # noqa: E402
from pybridge.fmu import FMUSession  # noqa: E402
from pybridge.manoeuvres import ManifestReferences, ScenarioRunner, run_scenario  # noqa: E402
from pybridge.scenarios import load_scenario  # noqa: E402

MODEL = "VehicleRTM.Vehicles.RTM14DoF"
SCENARIOS = ("ramp_steer", "step_steer", "sine_sweep", "acceleration", "braking")
LATERAL = ("ay", "yaw_rate", "roll", "sideslip")


def timed(function, repeats: int):
    """(median wall time in s, last result) of ``repeats`` calls."""
    walls, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        walls.append(time.perf_counter() - start)
    return statistics.median(walls), result


def per_scenario(fmu: Path, params, resolve, repeats: int) -> dict:
    rows = {}
    with FMUSession(fmu) as session:
        for name in SCENARIOS:
            scenario = load_scenario(name)
            wall, trace = timed(lambda: run_scenario(session, scenario, params, resolve), repeats)
            wall_1ms, fine = timed(lambda: run_scenario(session, scenario, params, resolve, step=1e-3), repeats)
            n = min(len(trace), len(fine))
            nrmse = {c: float(np.sqrt(np.mean((trace[c][:n] - fine[c][:n]) ** 2)) / np.ptp(fine[c][:n]))
                     for c in trace.columns if c in LATERAL + ("ax",)}
            simulated = float(trace["time"].iloc[-1])
            rows[name] = {
                "simulated_s": simulated, "stopped_by_end_condition": trace.attrs["stopped_at"] is not None,
                "step_s": 1 / scenario.sample_rate, "wall_s": round(wall, 4), "real_time_factor": round(simulated / wall, 1),
                "wall_s_step_1ms": round(wall_1ms, 4), "speedup_vs_1ms": round(wall_1ms / wall, 2),
                "vs_1ms_max_speed_difference_kmh": round(float((trace["speed"][:n] - fine["speed"][:n]).abs().max()) * 3.6, 4),
                "vs_1ms_nrmse_percent": {c: round(100 * e, 4) for c, e in nrmse.items()}}
    return rows


def pool_rate(fmu: Path, params, resolve, workers: int, rounds: int) -> dict:
    start = time.perf_counter()
    with ScenarioRunner(fmu, workers=workers) as runner:
        warm = runner.run([(params, name) for name in SCENARIOS], resolve=resolve)
        warm_wall = time.perf_counter() - start
        jobs = [(params, name) for _ in range(rounds) for name in SCENARIOS]
        start = time.perf_counter()
        results = runner.run(jobs, resolve=resolve)
        wall = time.perf_counter() - start
    failures = [str(r) for r in warm + results if isinstance(r, Exception)]
    if failures:
        raise RuntimeError(f"fitness_speed: {len(failures)} failed runs, e.g. {failures[0]}")
    return {"workers": workers, "runs": len(jobs), "wall_s": round(wall, 3),
            "scenario_runs_per_s": round(len(jobs) / wall, 2), "fitness_evaluations_per_s": round(rounds / wall, 3),
            "first_round_incl_pool_start_s": round(warm_wall, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=6, help="timed rounds of the five scenarios per pool size")
    parser.add_argument("--repeats", type=int, default=3, help="runs per scenario for the per-scenario median")
    args = parser.parse_args()
    resolve = ManifestReferences(HERE.parent / "scenarios" / "mbm" / "lcv35")
    with tempfile.TemporaryDirectory(prefix="fitness-speed-") as folder:
        fmu = build_fmu(MODEL, backend="native", fmi_type="cs", out_dir=folder)
        with FMUSession(fmu) as session:
            params = session.defaults()
        scenarios = per_scenario(fmu, params, resolve, args.repeats)
        pools = [pool_rate(fmu, params, resolve, workers, args.rounds) for workers in (1, 2)]
    result = {
        "benchmark": "RTM14DoF native CS FMU via fmpy: ramp steer, step steer, sine sweep, acceleration, braking; "
                     "PI speed control, end conditions, full default parameter set filled per run",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpu": cpu_name(), "cpus": os.cpu_count(), "python": platform.python_version(),
                    "fmpy": fmpy.__version__},
        "parameters_filled_per_run": len(params.scalars) + sum(t.size for t in params.tables.values()),
        "scenarios": scenarios,
        "one_fitness_evaluation_wall_s": round(sum(s["wall_s"] for s in scenarios.values()), 3),
        "pools": pools,
        "speedup_2_workers": round(pools[1]["scenario_runs_per_s"] / pools[0]["scenario_runs_per_s"], 2),
    }
    out = HERE / "results" / "fitness_speed.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    for name, s in scenarios.items():
        print(f"{name:13s} {s['simulated_s']:5.1f} s simulated in {s['wall_s']:.3f} s wall ({s['real_time_factor']:6.1f}x "
              f"real time, step {1e3 * s['step_s']:g} ms; 1 ms step: {s['wall_s_step_1ms']:.3f} s)")
    print(f"one fitness evaluation (all five, one process): {result['one_fitness_evaluation_wall_s']:.2f} s")
    for p in pools:
        print(f"{p['workers']} worker(s): {p['scenario_runs_per_s']:.1f} scenario runs/s, "
              f"{p['fitness_evaluations_per_s']:.2f} fitness evaluations/s ({p['runs']} runs in {p['wall_s']:.1f} s)")
    print(f"2 workers / 1 worker: {result['speedup_2_workers']:.2f}x  -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
