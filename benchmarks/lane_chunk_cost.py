"""What a chunk of identification points costs on lanes, and where the time goes: C or Python.

The problem is the demo's identification (benchmarks/identify_pool.py's ``_problem``: RTM RK4 build, lcv35,
the parameters left by the Morris step, the chosen internal step). In this one process, alternating rounds, the
thread CPU of: one scalar evaluation (``LaneObjective.__call__``), and ``LaneObjective.batch`` of m = 2..8 points at
8 lanes and m = 2..4 at 4 lanes, each split into the lane library's ``lane_run`` calls (C), the objective's scoring
(``Objective.fitness``), the traces' channels (``manoeuvres._channels``) and the candidates
(``VehicleProblem.candidate``); the rest is the Python around them (parameter values, run set-up). Reported as
median milliseconds and as scalar evaluations per chunk (``chunk_width`` in pybridge.identify.lane_batch uses
these). Run by hand (about 2 minutes on 2 cores):

    nice -n 5 .venv/bin/python benchmarks/lane_chunk_cost.py [--rounds 5]
"""
from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from machine import write_record

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


class _Timed:
    """``fn`` whose thread CPU is added to ``spent[label]`` at each call."""

    def __init__(self, fn, label: str, spent: dict):
        self.fn, self.label, self.spent = fn, label, spent

    def __call__(self, *args, **kwargs):
        start = time.thread_time()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.spent[self.label] += time.thread_time() - start

    def __get__(self, instance, owner):   # as a method: bind like the function it wraps
        return self if instance is None else lambda *a, **k: self(instance, *a, **k)


def _instrument(problem, sessions, spent: dict) -> None:
    from pybridge.identify.problem import VehicleProblem
    from pybridge.simulate import lane_scenarios, manoeuvres

    for session in sessions:
        session.library.lane_run = _Timed(session.library.lane_run, "C lane_run", spent)
    objective_class = type(problem.objective_for(None))
    objective_class.fitness = _Timed(objective_class.fitness, "fitness", spent)
    VehicleProblem.candidate = _Timed(VehicleProblem.candidate, "candidate", spent)
    manoeuvres._channels = _Timed(manoeuvres._channels, "channels", spent)
    lane_scenarios._channels = _Timed(lane_scenarios._channels, "channels", spent)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "lane_chunk_cost.json")
    args = parser.parse_args()
    from identify_pool import _problem

    from pybridge.identify.lane_batch import _lane_session, lane_objective

    problem, _ = _problem(REPO / "out" / "identify_lanes")
    wide, narrow = lane_objective(problem, "fitness", lanes="8"), lane_objective(problem, "fitness", lanes="4")
    if wide.lanes != 8 or narrow.lanes != 4:
        print(f"needs 8 and 4 lanes here (AVX-512), got {wide.lanes} and {narrow.lanes}")
        return 1
    spent: dict = collections.defaultdict(float)
    _instrument(problem, [_lane_session(problem.fmu, 8), _lane_session(problem.fmu, 4)], spent)
    rng = np.random.default_rng(0)
    points = [{n: float(rng.uniform(lo, hi)) for n, (lo, hi) in sorted(problem.bounds.items())} for _ in range(8)]
    cases = {"scalar x1": lambda: wide(points[0]),
             **{f"8 lanes x{m}": (lambda m=m: wide.batch(points[:m])) for m in (2, 3, 4, 5, 6, 8)},
             **{f"4 lanes x{m}": (lambda m=m: narrow.batch(points[:m])) for m in (2, 3, 4)}}
    for case in cases.values():   # warm: lane libraries loaded, references read
        case()
    totals, parts = collections.defaultdict(list), collections.defaultdict(lambda: collections.defaultdict(list))
    loads = []
    for number in range(args.rounds):
        loads.append(os.getloadavg()[0])
        for name in (list(cases) if number % 2 == 0 else list(cases)[::-1]):
            spent.clear()
            start = time.thread_time()
            cases[name]()
            totals[name].append(time.thread_time() - start)
            for label, seconds in spent.items():
                parts[name][label].append(seconds)
    scalar = float(np.median(totals["scalar x1"]))
    table = {}
    for name in cases:
        total = float(np.median(totals[name]))
        split = {label: round(1e3 * float(np.median(v)), 1) for label, v in parts[name].items()}
        table[name] = {"cpu_ms": round(1e3 * total, 1), "scalar_evaluations": round(total / scalar, 2), "split_ms": split}
        print(f"{name:13s} {1e3 * total:7.1f} ms  {total / scalar:5.2f} scalar evaluations  {split}", flush=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    write_record(args.out, "lane_chunk_cost", commit=commit, rounds=args.rounds, internal_step_s=problem.internal_step,
                 load_1min=loads, load_end=os.getloadavg(), cases=table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
