"""Fitness-evaluation speed of the van: the native manoeuvre runner against the fmpy loop, side by side.

One evaluation is ``VehicleProblem.evaluate`` of the converted LCV 3.5 t (scenarios/mbm/lcv35) on the
native RTM14DoF CS FMU: every manoeuvre of the default objective (ramp steer, sine sweep, step steer,
acceleration, braking; PI speed driver, end conditions), the parameter set filled per run, the
indices and the fitness computed. Each candidate differs (chassis.Izz varied), as in a search.

1. One process: thread CPU time and wall per evaluation, runner and fmpy alternating, and the largest
   relative difference of any index between the two paths (they must agree to 1e-9).
2. A process pool of 1 and 2 workers evaluating batches of candidates, the two paths alternating
   round by round (which goes first alternates too): evaluations per second (wall) and the workers'
   thread CPU time per evaluation.
3. Per manoeuvre: thread CPU time of one run on each path, simulated time, communication steps; and
   one native run at a 1 ms communication step (CPU, NRMSE of the default-step trace against it).

The load average is recorded before and after: compare only the ratios of one run. Writes
benchmarks/results/fitness_speed.json. Run by hand:

    .venv/bin/python benchmarks/fitness_speed.py [--rounds 3] [--batch 4]
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
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import fmpy
import numpy as np
from machine import cpu_name

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from fmu_build import build_fmu  # noqa: E402
from pybridge.convert import convert_mbm  # noqa: E402
from pybridge.simulate.fmu import FMUSession  # noqa: E402
from pybridge.identify.problem import VehicleProblem  # noqa: E402
from pybridge.simulate.manoeuvres import ManifestReferences, run_scenario  # noqa: E402
from pybridge.simulate.native_runner import RUNNER_ENV  # noqa: E402
from pybridge.simulate.scenarios import load_scenario  # noqa: E402

MODEL = "VehicleRTM.Vehicles.RTM14DoF"
DATASET = HERE.parent / "scenarios" / "mbm" / "lcv35"
RUNNERS = ("native", "fmpy")
LATERAL = ("ax", "ay", "yaw_rate", "roll", "sideslip", "pitch")
VARIED = "chassis.Izz"


def candidates(problem: VehicleProblem, count: int, offset: int = 0) -> list[dict]:
    """``count`` candidates around the nominal values, each with its own chassis.Izz."""
    nominal = problem.nominal
    return [{**nominal, VARIED: nominal[VARIED] * (1 + 0.002 * (offset + k))} for k in range(count)]


def evaluate(problem: VehicleProblem, values: dict, runner: str) -> tuple[float, float, dict]:
    """(thread CPU s, wall s, {index: error}) of one evaluation through ``runner``."""
    os.environ[RUNNER_ENV] = runner
    cpu, wall = time.thread_time(), time.perf_counter()
    result = problem.evaluate(values)
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    if result.failed:
        raise RuntimeError(f"fitness_speed: {runner}: failed manoeuvres {result.failed}")
    return cpu, wall, {f"{m}/{n}": s.error for (m, n), s in result.per_index.items()} | {"fitness": result.value}


def serial(problem: VehicleProblem, rounds: int) -> dict:
    times = {r: {"cpu": [], "wall": []} for r in RUNNERS}
    worst = 0.0
    for k, values in enumerate(candidates(problem, rounds)):
        scores = {}
        for runner in RUNNERS if k % 2 == 0 else RUNNERS[::-1]:
            cpu, wall, scores[runner] = evaluate(problem, values, runner)
            times[runner]["cpu"].append(cpu)
            times[runner]["wall"].append(wall)
        for name, value in scores["fmpy"].items():
            worst = max(worst, abs(scores["native"][name] - value) / max(abs(value), 1e-300))
    result = {r: {"cpu_s_per_evaluation": round(statistics.median(t["cpu"]), 4),
                  "wall_s_per_evaluation": round(statistics.median(t["wall"]), 4)} for r, t in times.items()}
    result["cpu_ratio_fmpy_over_native"] = round(result["fmpy"]["cpu_s_per_evaluation"]
                                                 / result["native"]["cpu_s_per_evaluation"], 3)
    result["max_relative_index_difference"] = worst
    return result


def pool(problem: VehicleProblem, workers: int, rounds: int, batch: int) -> dict:
    """Evaluations per second of ``workers`` processes, the two paths alternating round by round."""
    rates = {r: [] for r in RUNNERS}
    cpu = {r: [] for r in RUNNERS}
    with ProcessPoolExecutor(workers) as executor:
        for runner in RUNNERS:   # warm-up: every worker opens its FMU session and loads the runner
            list(executor.map(evaluate, [problem] * workers, candidates(problem, workers), [runner] * workers))
        for k in range(rounds):
            for runner in RUNNERS if k % 2 == 0 else RUNNERS[::-1]:
                start = time.perf_counter()
                done = list(executor.map(evaluate, [problem] * batch, candidates(problem, batch, k * batch),
                                         [runner] * batch))
                rates[runner].append(batch / (time.perf_counter() - start))
                cpu[runner] += [c for c, _, _ in done]
    result = {r: {"evaluations_per_s": round(statistics.median(rates[r]), 3),
                  "evaluations_per_s_rounds": [round(x, 3) for x in rates[r]],
                  "worker_cpu_s_per_evaluation": round(statistics.median(cpu[r]), 4)} for r in RUNNERS}
    result["ratio_native_over_fmpy"] = round(result["native"]["evaluations_per_s"]
                                             / result["fmpy"]["evaluations_per_s"], 3)
    return {"workers": workers, "evaluations_per_round": batch, "rounds": rounds, **result}


def per_manoeuvre(problem: VehicleProblem, repeats: int) -> dict:
    resolve = ManifestReferences(DATASET / "manifest.yaml")
    rows = {}
    with FMUSession(problem.fmu) as session:
        for name in problem.objective.weights:
            rows[name] = manoeuvre_times(session, load_scenario(name), problem.params, resolve, repeats)
    return rows


def manoeuvre_times(session: FMUSession, scenario, params, resolve, repeats: int) -> dict:
    """Thread CPU time of one run of ``scenario`` on each path (median, alternating)."""
    cpu = {r: [] for r in RUNNERS}
    for k in range(repeats):
        for runner in RUNNERS if k % 2 == 0 else RUNNERS[::-1]:
            start = time.thread_time()
            trace = run_scenario(session, scenario, params, resolve, runner=runner)
            cpu[runner].append(time.thread_time() - start)
    start = time.thread_time()
    fine = run_scenario(session, scenario, params, resolve, step=1e-3, runner="native")
    cpu_1ms = time.thread_time() - start
    n = min(len(trace), len(fine))
    nrmse = {c: round(100 * float(np.sqrt(np.mean((trace[c][:n] - fine[c][:n]) ** 2)) / np.ptp(fine[c][:n])), 4)
             for c in trace.columns if c in LATERAL}
    simulated = float(trace["time"].iloc[-1])
    return {"simulated_s": simulated, "communication_steps": round(simulated * scenario.sample_rate),
            "stopped_by_end_condition": trace.attrs["stopped_at"] is not None,
            **{f"cpu_s_{r}": round(statistics.median(c), 4) for r, c in cpu.items()},
            "cpu_ratio_fmpy_over_native": round(statistics.median(cpu["fmpy"]) / statistics.median(cpu["native"]), 3),
            "native_cpu_s_step_1ms": round(cpu_1ms, 4),
            "vs_1ms_max_speed_difference_kmh": round(float((trace["speed"][:n] - fine["speed"][:n]).abs().max()) * 3.6,
                                                     4),
            "vs_1ms_nrmse_percent": nrmse}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per measurement")
    parser.add_argument("--batch", type=int, default=4, help="evaluations per pool round")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="fitness-speed-") as folder:
        fmu = build_fmu(MODEL, backend="native", fmi_type="cs", out_dir=folder)
        params = convert_mbm(DATASET / "mbm", fmu=fmu)
        params.uncertain = {}
        params.mark_uncertain(VARIED, 0.2)
        problem = VehicleProblem(params, DATASET, fmu)
        one = serial(problem, args.rounds)
        manoeuvres = per_manoeuvre(problem, args.rounds)
        pools = [pool(problem, workers, args.rounds, args.batch) for workers in (1, 2)]
    result = {
        "benchmark": "van fitness (VehicleProblem.evaluate, lcv35, default objective: ramp steer, sine sweep, step "
                     "steer, acceleration, braking) on the native RTM14DoF CS FMU: native manoeuvre runner vs fmpy "
                     "loop, alternating in one run",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpu": cpu_name(), "cpus": os.cpu_count(), "python": platform.python_version(),
                    "fmpy": fmpy.__version__},
        "load_average_before_after": [round(x, 2) for x in (*load_before, *os.getloadavg())],
        "parameters_filled_per_run": len(params.scalars) + sum(t.size for t in params.tables.values()),
        "one_process": one, "manoeuvres": manoeuvres, "pools": pools,
        "communication_steps_per_evaluation": sum(m["communication_steps"] for m in manoeuvres.values()),
    }
    out = HERE / "results" / "fitness_speed.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    report(result, out)
    return 0


def report(result: dict, out: Path) -> None:
    one = result["one_process"]
    print(f"load average before/after: {result['load_average_before_after']}")
    for name, m in result["manoeuvres"].items():
        print(f"{name:13s} {m['simulated_s']:5.1f} s simulated: CPU {m['cpu_s_native']:.3f} s native, "
              f"{m['cpu_s_fmpy']:.3f} s fmpy ({m['cpu_ratio_fmpy_over_native']:.2f}x); 1 ms step "
              f"{m['native_cpu_s_step_1ms']:.3f} s, NRMSE % {m['vs_1ms_nrmse_percent']}")
    print(f"one evaluation, one process: CPU {one['native']['cpu_s_per_evaluation']:.3f} s native, "
          f"{one['fmpy']['cpu_s_per_evaluation']:.3f} s fmpy ({one['cpu_ratio_fmpy_over_native']:.2f}x); "
          f"largest relative index difference {one['max_relative_index_difference']:.2e}")
    for p in result["pools"]:
        print(f"{p['workers']} worker(s): {p['native']['evaluations_per_s']:.2f} evaluations/s native, "
              f"{p['fmpy']['evaluations_per_s']:.2f}/s fmpy ({p['ratio_native_over_fmpy']:.2f}x)")
    print(f"-> {out}")


if __name__ == "__main__":
    sys.exit(main())
