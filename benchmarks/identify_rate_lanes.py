"""`pybridge identify` with lanes against a plain process pool of scalar evaluations, same run.

The demo's identification problem on the shipped van (benchmarks/identify_pool.py's ``_problem``: RK4
native FMU at the chosen step, the converted set narrowed by the demo's Morris step, the standard
objective). Each round, in alternating order:

- ``identify``: NOMAD (standard preset) on the lane objective (pybridge.identify.lane_batch, lanes
  ``auto``), a fresh 2-worker executor, ``--evaluations`` evaluations;
- ``pool``: a fresh ``ProcessPoolExecutor(2)`` mapping the scalar ``problem.evaluate`` over the very points
  that round's NOMAD run evaluated (read back from its record).

Reported: evaluations/s (wall) of each side, their ratio (issue 33's bar: >= 0.9), the main process's
thread CPU, and the worst relative fitness difference between the sides on the same points.

    .venv/bin/python benchmarks/identify_rate_lanes.py [--evaluations 120] [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from identify_pool import _median, _problem
from machine import write_record

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _identify(problem, settings, evaluations: int, folder: Path) -> tuple[dict, list]:
    from pybridge.identify.executor import make_executor
    from pybridge.identify.lane_batch import lane_objective
    from pybridge.identify.vehicle import SearchOptions

    options = SearchOptions(**{**settings["pattern_search"], "max_evaluations": evaluations})
    record = folder / f"record-{time.monotonic_ns()}.jsonl"
    start, cpu = time.monotonic(), time.thread_time()
    with make_executor(workers=2) as executor:
        objective = lane_objective(problem)
        options.engine(objective, problem.bounds, problem.nominal, **options.keywords(), executor=executor,
                       record=record, progress=False)
    wall, cpu = time.monotonic() - start, time.thread_time() - cpu
    entries = [json.loads(line) for line in record.read_text().splitlines()[1:]]
    entries = [e for e in entries if e.get("kind") == "evaluation"]
    return {"evaluations": len(entries), "wall_s": round(wall, 3), "main_thread_cpu_s": round(cpu, 3),
            "evaluations_per_s": round(len(entries) / wall, 4), "lanes": objective.lanes}, entries


def _pool(problem, points: list[dict]) -> tuple[dict, list]:
    start, cpu = time.monotonic(), time.thread_time()
    with ProcessPoolExecutor(2) as pool:
        values = [r.value for r in pool.map(problem.evaluate, points)]
    wall, cpu = time.monotonic() - start, time.thread_time() - cpu
    return {"evaluations": len(points), "wall_s": round(wall, 3), "main_thread_cpu_s": round(cpu, 3),
            "evaluations_per_s": round(len(points) / wall, 4)}, values


def _round(problem, settings, evaluations: int, folder: Path, number: int, last: list) -> dict:
    load = os.getloadavg()[0]
    if number % 2 and last:
        pool, values = _pool(problem, last)
        identify, entries = _identify(problem, settings, evaluations, folder)
    else:
        identify, entries = _identify(problem, settings, evaluations, folder)
        pool, values = _pool(problem, [e["x"] for e in entries])
    same = not last or last == [e["x"] for e in entries]
    last[:] = [e["x"] for e in entries]
    worst = max((abs(a - b) / max(abs(b), 1e-300) for a, b in zip([e["fitness"] for e in entries], values)
                 if a is not None and b is not None), default=None)
    return {"round": number, "order": "pool first" if number % 2 and same else "identify first", "load_1min": load,
            "identify": identify, "pool": pool,
            "rate_ratio": round(identify["evaluations_per_s"] / pool["evaluations_per_s"], 4),
            "same_points_as_last_round": same, "worst_relative_fitness_difference": worst}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluations", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "identify_rate_lanes.json")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="identify_rate_lanes-"))
    problem, settings = _problem(REPO / "out" / "identify_pool")
    from pybridge.identify.lane_batch import lane_objective

    lane_objective(problem)          # the lane libraries compiled into the build cache before round 1
    rounds, last = [], []
    for number in range(args.rounds):
        rounds.append(_round(problem, settings, args.evaluations, folder, number, last))
        print(json.dumps(rounds[-1]), flush=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    write_record(args.out, "identify_rate_lanes", commit=commit, workers=2, parameters=sorted(problem.bounds),
                 evaluations_per_round=args.evaluations, internal_step_s=problem.internal_step,
                 median_rate_ratio=_median([r["rate_ratio"] for r in rounds]), rounds=rounds,
                 load_end=os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
