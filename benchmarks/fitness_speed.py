"""Fitness-evaluation speed of the van: the new path (native manoeuvre runner, the identification's FMU
and internal step) against the old one (the fmpy loop on an FMU of your choice, e.g. main's RK4 build at
its 1 ms step), side by side.

One evaluation is ``VehicleProblem.evaluate`` of the converted LCV 3.5 t (scenarios/mbm/lcv35): every
manoeuvre of the default objective (ramp steer, sine sweep, step steer, acceleration, braking; PI speed
driver, end conditions), the parameter set filled per run, the indices and the fitness computed. Each
candidate differs (chassis.Izz varied), as in a search. Paths:

- ``new``: this tree's FMU built with ``IDENTIFICATION_INTEGRATOR`` (RK4), at the internal step
  ``VehicleProblem`` chooses for it (``IDENTIFICATION_STEPS``), through the native runner;
- ``new_fmpy``: the same FMU and step through the fmpy loop (the cross-check: indices equal to 1e-9);
- ``old``: ``--against FMU`` (default: the new FMU) at its own step through the fmpy loop.

1. One process: thread CPU time and wall per evaluation, the paths alternating, and the largest relative
   difference of any index between ``new`` and ``new_fmpy`` (they must agree to 1e-9).
2. A process pool of 1 and 2 workers evaluating batches of candidates, ``new`` and ``old`` alternating
   round by round (which goes first alternates too): evaluations per second (wall) and the workers'
   thread CPU time per evaluation.
3. Per manoeuvre: thread CPU time of one run on each path, simulated time, communication steps; and
   one native run at a 1 ms communication step (CPU, NRMSE of the default-step trace against it).

The load average is recorded before and after: compare only the ratios of one run. Writes
benchmarks/results/fitness_speed.json. Run by hand:

    .venv/bin/python benchmarks/fitness_speed.py [--rounds 3] [--batch 4] [--against OLD.fmu]
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
from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR, VehicleProblem  # noqa: E402
from pybridge.simulate.manoeuvres import ManifestReferences, run_scenario  # noqa: E402
from pybridge.simulate.native_runner import RUNNER_ENV  # noqa: E402
from pybridge.simulate.scenarios import load_scenario  # noqa: E402

MODEL = "VehicleRTM.Vehicles.RTM14DoF"
DATASET = HERE.parent / "scenarios" / "mbm" / "lcv35"
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


def serial(paths: dict, rounds: int) -> dict:
    """Per path: median thread CPU and wall per evaluation; the largest index difference new vs new_fmpy."""
    times = {p: {"cpu": [], "wall": []} for p in paths}
    worst = 0.0
    order = list(paths)
    for k, values in enumerate(candidates(paths["new"][0], rounds)):
        scores = {}
        for name in order if k % 2 == 0 else order[::-1]:
            problem, runner = paths[name]
            cpu, wall, scores[name] = evaluate(problem, values, runner)
            times[name]["cpu"].append(cpu)
            times[name]["wall"].append(wall)
        for index, value in scores["new_fmpy"].items():
            worst = max(worst, abs(scores["new"][index] - value) / max(abs(value), 1e-300))
    result = {p: {"cpu_s_per_evaluation": round(statistics.median(t["cpu"]), 4),
                  "wall_s_per_evaluation": round(statistics.median(t["wall"]), 4)} for p, t in times.items()}
    result["cpu_ratio_old_over_new"] = round(result["old"]["cpu_s_per_evaluation"]
                                             / result["new"]["cpu_s_per_evaluation"], 3)
    result["max_relative_index_difference_new_vs_new_fmpy"] = worst
    return result


def pool(paths: dict, workers: int, rounds: int, batch: int) -> dict:
    """Evaluations per second of ``workers`` processes, new and old alternating round by round."""
    compared = ("new", "old")
    rates = {p: [] for p in compared}
    cpu = {p: [] for p in compared}
    with ProcessPoolExecutor(workers) as executor:
        for name in compared:   # warm-up: every worker opens its FMU session and loads the runner
            problem, runner = paths[name]
            list(executor.map(evaluate, [problem] * workers, candidates(problem, workers), [runner] * workers))
        for k in range(rounds):
            for name in compared if k % 2 == 0 else compared[::-1]:
                problem, runner = paths[name]
                start = time.perf_counter()
                done = list(executor.map(evaluate, [problem] * batch, candidates(problem, batch, k * batch),
                                         [runner] * batch))
                rates[name].append(batch / (time.perf_counter() - start))
                cpu[name] += [c for c, _, _ in done]
    result = {p: {"evaluations_per_s": round(statistics.median(rates[p]), 3),
                  "evaluations_per_s_rounds": [round(x, 3) for x in rates[p]],
                  "worker_cpu_s_per_evaluation": round(statistics.median(cpu[p]), 4)} for p in compared}
    result["ratio_new_over_old"] = round(result["new"]["evaluations_per_s"] / result["old"]["evaluations_per_s"], 3)
    return {"workers": workers, "evaluations_per_round": batch, "rounds": rounds, **result}


def per_manoeuvre(paths: dict, repeats: int) -> dict:
    resolve = ManifestReferences(DATASET / "manifest.yaml")
    rows = {}
    sessions = {name: FMUSession(problem.fmu) for name, (problem, _) in paths.items()}
    try:
        for name in paths["new"][0].objective.weights:
            scenario = load_scenario(name)
            rows[name] = manoeuvre_times({p: (sessions[p], paths[p][0].candidate({}), paths[p][1]) for p in paths},
                                         scenario, resolve, repeats)
    finally:
        for session in sessions.values():
            session.close()
    return rows


def manoeuvre_times(runs: dict, scenario, resolve, repeats: int) -> dict:
    """Thread CPU time of one run of ``scenario`` on each path (median, alternating)."""
    cpu = {p: [] for p in runs}
    order = list(runs)
    traces = {}
    for k in range(repeats):
        for name in order if k % 2 == 0 else order[::-1]:
            session, params, runner = runs[name]
            start = time.thread_time()
            traces[name] = run_scenario(session, scenario, params, resolve, runner=runner)
            cpu[name].append(time.thread_time() - start)
    session, params, _ = runs["new"]
    start = time.thread_time()
    fine = run_scenario(session, scenario, params, resolve, step=1e-3, runner="native")
    cpu_1ms = time.thread_time() - start
    trace = traces["new"]
    n = min(len(trace), len(fine))
    nrmse = {c: round(100 * float(np.sqrt(np.mean((trace[c][:n] - fine[c][:n]) ** 2)) / np.ptp(fine[c][:n])), 4)
             for c in trace.columns if c in LATERAL}
    simulated = float(trace["time"].iloc[-1])
    return {"simulated_s": simulated, "communication_steps": round(simulated * scenario.sample_rate),
            "stopped_by_end_condition": trace.attrs["stopped_at"] is not None,
            **{f"cpu_s_{p}": round(statistics.median(c), 4) for p, c in cpu.items()},
            "cpu_ratio_old_over_new": round(statistics.median(cpu["old"]) / statistics.median(cpu["new"]), 3),
            "new_cpu_s_communication_step_1ms": round(cpu_1ms, 4),
            "new_vs_1ms_communication_step_nrmse_percent": nrmse}


def problems(folder: str, against: Path | None) -> dict:
    """The paths: name -> (VehicleProblem, runner)."""
    fmu = build_fmu(MODEL, backend="native", fmi_type="cs", out_dir=folder, integrator=IDENTIFICATION_INTEGRATOR)
    params = convert_mbm(DATASET / "mbm", fmu=fmu)
    params.uncertain = {}
    params.mark_uncertain(VARIED, 0.2)
    new = VehicleProblem(params, DATASET, fmu)
    old = VehicleProblem(params, DATASET, against) if against else VehicleProblem(params, DATASET, fmu,
                                                                                   internal_step=new.internal_step)
    return {"new": (new, "native"), "new_fmpy": (new, "fmpy"), "old": (old, "fmpy")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per measurement")
    parser.add_argument("--batch", type=int, default=4, help="evaluations per pool round")
    parser.add_argument("--against", type=Path, help="the old path's FMU, run through the fmpy loop at its own "
                                                     "internal step (default: the new FMU)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="fitness-speed-") as folder:
        paths = problems(folder, args.against)
        one = serial(paths, args.rounds)
        manoeuvres = per_manoeuvre(paths, args.rounds)
        pools = [pool(paths, workers, args.rounds, args.batch) for workers in (1, 2)]
    new, old = paths["new"][0], paths["old"][0]
    result = {
        "benchmark": "van fitness (VehicleProblem.evaluate, lcv35, default objective: ramp steer, sine sweep, step "
                     "steer, acceleration, braking): new path (native runner, identification FMU and step) vs old "
                     "path (fmpy loop), alternating in one run",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpu": cpu_name(), "cpus": os.cpu_count(), "python": platform.python_version(),
                    "fmpy": fmpy.__version__},
        "load_average_before_after": [round(x, 2) for x in (*load_before, *os.getloadavg())],
        "paths": {"new": {"fmu": f"{MODEL}, this tree, --integrator {IDENTIFICATION_INTEGRATOR}",
                          "internal_step_s": new.internal_step, "runner": "native"},
                  "old": {"fmu": str(args.against or "the new FMU"), "internal_step_s": old.internal_step or
                          "the FMU's default", "runner": "fmpy"}},
        "parameters_filled_per_run": len(new.params.scalars) + sum(t.size for t in new.params.tables.values()),
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
    print(f"paths: {result['paths']}")
    for name, m in result["manoeuvres"].items():
        print(f"{name:13s} {m['simulated_s']:5.1f} s simulated: CPU new {m['cpu_s_new']:.3f} s, new via fmpy "
              f"{m['cpu_s_new_fmpy']:.3f} s, old {m['cpu_s_old']:.3f} s ({m['cpu_ratio_old_over_new']:.2f}x)")
    print(f"one evaluation, one process: CPU new {one['new']['cpu_s_per_evaluation']:.3f} s, old "
          f"{one['old']['cpu_s_per_evaluation']:.3f} s ({one['cpu_ratio_old_over_new']:.2f}x); largest relative "
          f"index difference runner vs fmpy {one['max_relative_index_difference_new_vs_new_fmpy']:.2e}")
    for p in result["pools"]:
        print(f"{p['workers']} worker(s): {p['new']['evaluations_per_s']:.2f} evaluations/s new, "
              f"{p['old']['evaluations_per_s']:.2f}/s old ({p['ratio_new_over_old']:.2f}x)")
    print(f"-> {out}")


if __name__ == "__main__":
    sys.exit(main())
