"""The demo's identification step, lanes off and on, on this tree and on a baseline tree, side by side.

benchmarks/identify_lanes.py compares lanes off and on within one commit; this one adds the same two sides run
on another checkout of the project (``--baseline``, e.g. ``git archive <commit> | tar -x -C DIR``), so a change's
effect on each side is measured in the same run. The problem is identify_pool.py's ``_problem`` (the demo's:
native RTM RK4 build, ``scenarios/mbm/lcv35`` converted, the parameters the Morris step keeps), built once here
and pickled; every step runs in its own interpreter (the baseline's with its tree first on ``sys.path``), which
chooses the internal step before the clock starts (the demo's sensitivity step has chosen it), then times
``identify_vehicle`` with the standard preset (NOMAD, 2 workers, the analysis after it) into a fresh run folder,
lanes on with NOMAD blocks of 16. The four sides alternate in order round by round. Per side: step wall, NOMAD
wall, evaluations, stop reason, fitness, the run's CPU (main thread + children), the 1-minute load. Run by hand:

    nice -n 5 .venv/bin/python benchmarks/identify_lanes_ab.py --baseline DIR [--rounds 3]
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _one_step(tree: str, problem_file: str, lanes: str, folder: str) -> None:
    """In a fresh interpreter: one identification step on ``tree``'s pybridge; its figures as one JSON line."""
    sys.path.insert(0, tree)
    import pybridge
    from pybridge.identify.vehicle import SearchOptions, identify_vehicle

    if Path(pybridge.__file__).resolve().parent.parent != Path(tree).resolve():
        raise RuntimeError(f"pybridge was imported from {pybridge.__file__}, expected {tree}")

    with open(problem_file, "rb") as handle:
        problem, settings = pickle.load(handle)
    problem.choose_step()
    extra = {"block_size": 16} if lanes != "off" else {}
    options = SearchOptions(**{**settings["pattern_search"], "extra": extra})
    load = os.getloadavg()[0]
    wall, cpu, before = time.monotonic(), time.thread_time(), os.times()
    result = identify_vehicle(problem.params, problem.reference_dir, problem.fmu, Path(folder) / "run",
                              options=options, workers=2, progress=False, lanes=lanes)
    after = os.times()
    children = after.children_user + after.children_system - before.children_user - before.children_system
    print(json.dumps({"load_1min": load, "step_wall_s": round(time.monotonic() - wall, 3),
                      "main_thread_cpu_s": round(time.thread_time() - cpu, 3), "children_cpu_s": round(children, 3),
                      "nomad_wall_s": round(result.wall_time, 3), "evaluations": result.evaluations,
                      "blocks": result.extra["batches"], "stopped_because": result.stopped_because,
                      "fitness": result.fitness}))


def _side(tree: Path, problem_file: Path, lanes: str) -> dict:
    folder = tempfile.mkdtemp(prefix="identify_lanes_ab-")
    code = f"import sys; sys.path.insert(0, {str(HERE)!r}); from identify_lanes_ab import _one_step; " \
           f"_one_step({str(tree)!r}, {str(problem_file)!r}, {lanes!r}, {folder!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(tree))
    if done.returncode != 0:
        raise RuntimeError(f"{tree} lanes {lanes}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, required=True, help="another checkout of the project")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "identify_lanes_ab.json")
    args = parser.parse_args()
    from machine import write_record   # (not at the top: it imports this tree's pybridge, and _one_step must not)

    if not (args.baseline / "pybridge" / "__init__.py").is_file():
        parser.error(f"--baseline {args.baseline}: no pybridge/__init__.py there; expected a checkout of the project")
    sys.path.insert(0, str(REPO))
    from identify_pool import _problem

    problem_file = Path(tempfile.mkdtemp(prefix="identify_lanes_ab-")) / "problem.pkl"
    problem_file.write_bytes(pickle.dumps(_problem(REPO / "out" / "identify_lanes")))
    sides = [("new", REPO, "off"), ("new", REPO, "auto"), ("baseline", args.baseline.resolve(), "off"),
             ("baseline", args.baseline.resolve(), "auto")]
    rounds = []
    for number in range(args.rounds):
        order = sides[number % 4:] + sides[:number % 4]
        found = {f"{code} {'off' if lanes == 'off' else 'on'}": _side(tree, problem_file, lanes)
                 for code, tree, lanes in order}
        found = dict(sorted(found.items()))
        ratios = {f"{code} step off/on": round(found[f"{code} off"]["step_wall_s"] / found[f"{code} on"]["step_wall_s"], 4)
                  for code in ("new", "baseline")}
        ratios.update({f"step baseline/new {s}": round(found[f"baseline {s}"]["step_wall_s"] /
                                                       found[f"new {s}"]["step_wall_s"], 4) for s in ("off", "on")})
        rounds.append({"round": number, "order": [f"{c} {l}" for c, _, l in order], **found, **ratios})
        print(json.dumps(rounds[-1]), flush=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    summary = {key: statistics.median([r[key] for r in rounds]) for key in rounds[0] if "/" in key}
    write_record(args.out, "identify_lanes_ab", commit=commit, baseline=str(args.baseline), workers=2,
                 summary={"medians": summary, "load_1min": [r[s]["load_1min"] for r in rounds for s in
                                                            ("new off", "new on", "baseline off", "baseline on")]},
                 rounds=rounds, load_end=os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
