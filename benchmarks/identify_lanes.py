"""The demo's identification step with lanes on and off, side by side: evaluations/s, step time, fitness.

The problem is the demo's (benchmarks/identify_pool.py's ``_problem``: native RTM CS FMU, RK4 at the chosen
identification step, `scenarios/mbm/lcv35` converted, the uncertain parameters narrowed by the demo's Morris
sensitivity). Each round runs the demo's identification step, ``identify_vehicle`` with the standard preset
(NOMAD, 2 workers, the identifiability analysis after it) into a fresh run folder, once with
``lanes="off"`` (today's path: one vehicle per call, NOMAD blocks of 2) and once with ``lanes`` on and NOMAD
blocks of ``--block`` points (default 16 = workers x 8 lanes; each worker's chunk on the lane model), in
alternating order. Per side: the step's
wall time, NOMAD's wall time and evaluations (evaluations/s = new evaluations / NOMAD's wall), the main
thread's CPU and the CPU of the child processes (workers, NOMAD), the fitness reached. Then the fitness of
points the lanes run evaluated is compared with the scalar path at the same points (``--check`` points
spread over its record). ``--staged``: a staged run of two stages on each side instead (``staged``). Run by
hand (about 10 minutes on 2 cores):

    nice -n 10 .venv/bin/python benchmarks/identify_lanes.py [--rounds 3] [--lanes 8] [--check 24]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from machine import write_record

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def staged(problem) -> list:
    """Two stages over the problem's uncertain parameters (``--staged``): the first half of them against the
    objective's first two manoeuvres, then all of them against every manoeuvre."""
    from pybridge.identify.staged import Stage

    names, weights = sorted(problem.bounds), problem.objective.weights
    first = {manoeuvre: dict(ws) for manoeuvre, ws in list(weights.items())[:2]}
    return [Stage("first", names[:max(1, len(names) // 2)], first), Stage("all", names, {})]


def _step(problem, settings, lanes: str, folder: Path, block: int | None, stages=None) -> tuple[dict, Path]:
    """One identification step as the demo runs it (with ``stages``: staged); its figures and its run folder."""
    from pybridge.identify.vehicle import SearchOptions, identify_vehicle

    run_dir = folder / f"run-{lanes}-{time.monotonic_ns()}"
    extra = {"block_size": block} if block and lanes != "off" else {}
    options = SearchOptions(**{**settings["pattern_search"], "extra": extra})
    load = os.getloadavg()[0]
    wall, cpu, children = time.monotonic(), time.thread_time(), _children_cpu()
    result = identify_vehicle(problem.params, problem.reference_dir, problem.fmu, run_dir, options=options,
                              workers=2, progress=False, lanes=lanes, stages=stages)
    wall, cpu, children = time.monotonic() - wall, time.thread_time() - cpu, _children_cpu() - children
    parts = [s["result"].extra for s in result.extra["stages"]] if stages else [result.extra]
    new, batches = sum(p["new_evaluations"] for p in parts), sum(p["batches"] for p in parts)
    return {"lanes": lanes, "load_1min": load, "step_wall_s": round(wall, 3), "main_thread_cpu_s": round(cpu, 3),
            "children_cpu_s": round(children, 3), "evaluations": result.evaluations,
            "new_evaluations": new, "nomad_wall_s": round(result.wall_time, 3),
            "evaluations_per_s": round(new / result.wall_time, 3),
            "blocks": batches, "mean_block": round(new / max(1, batches), 2),
            "stopped_because": result.stopped_because, "fitness": result.fitness}, run_dir


def _check(problem, run_dir: Path, count: int) -> dict:
    """The scalar path's fitness at ``count`` points of a lanes run's record against the record's."""
    entries = [json.loads(line) for line in (run_dir / "record.jsonl").read_text().splitlines()[1:]]
    entries = [e for e in entries if e.get("fitness") is not None]
    chosen = entries[::max(1, len(entries) // count)][:count]
    with ProcessPoolExecutor(2) as pool:
        values = [r.value for r in pool.map(problem.evaluate, [e["x"] for e in chosen])]
    differences = [abs(e["fitness"] - v) / abs(v) for e, v in zip(chosen, values)]
    return {"points": len(chosen), "worst_relative_fitness_difference": max(differences),
            "failed_on_one_side": sum((e["fitness"] is None) != (v is None) for e, v in zip(chosen, values))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lanes", default="auto", help="the lanes side: auto, 4 or 8")
    parser.add_argument("--block", type=int, default=16, help="NOMAD's block size on the lanes side (0: its default, "
                        "one point per worker); the lanes-off side keeps the default")
    parser.add_argument("--check", type=int, default=24, help="points of the last lanes run checked on the scalar path")
    parser.add_argument("--staged", action="store_true", help="a staged run (two stages, see staged()) on each side")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "identify_lanes.json")
    args = parser.parse_args()
    from identify_pool import _problem

    folder = Path(tempfile.mkdtemp(prefix="identify_lanes-"))
    problem, settings = _problem(REPO / "out" / "identify_lanes")
    from pybridge.identify.lane_batch import lane_objective
    lane_objective(problem, lanes=args.lanes)   # the lane libraries compiled into the build cache before round 1
    rounds, run_dir = [], None
    for number in range(args.rounds):
        order = ["off", args.lanes] if number % 2 == 0 else [args.lanes, "off"]
        sides = {}
        for lanes in order:
            sides["off" if lanes == "off" else "on"], last = _step(problem, settings, lanes, folder, args.block,
                                                                   staged(problem) if args.staged else None)
            run_dir = last if lanes != "off" else run_dir
        rounds.append({"round": number, "order": f"{order[0]} first", **sides,
                       "rate_ratio": round(sides["on"]["evaluations_per_s"] / sides["off"]["evaluations_per_s"], 4),
                       "step_time_ratio": round(sides["off"]["step_wall_s"] / sides["on"]["step_wall_s"], 4)})
        print(json.dumps(rounds[-1]), flush=True)
    check = None if args.staged else _check(problem, run_dir, args.check)
    print(json.dumps(check), flush=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    summary = {"median_rate_ratio": statistics.median([r["rate_ratio"] for r in rounds]),
               "median_step_time_ratio": statistics.median([r["step_time_ratio"] for r in rounds]),
               "rate_ratios": [r["rate_ratio"] for r in rounds],
               "step_time_ratios": [r["step_time_ratio"] for r in rounds],
               "fitness_check": check, "load_1min": [r[s]["load_1min"] for r in rounds for s in ("off", "on")]}
    write_record(args.out, "identify_lanes", commit=commit, workers=2, lanes=args.lanes, block_on_lanes_side=args.block, staged=args.staged,
                 parameters=sorted(problem.bounds), internal_step_s=problem.internal_step, summary=summary,
                 rounds=rounds, load_end=os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
