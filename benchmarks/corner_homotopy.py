"""Homotopy where it should matter: the MBM corner problem and a harder twin, from random starts.

MBM problem: ``pybridge.identify.corner.CornerProblem`` (KCRig against the shipped MBM's corner-force
sweep of ``--corner``; ``--duration`` s of it). From ``--runs`` random starts, each parameter uniform
within ±50 % of its converted value (seeded), it runs homotopy (λ = 1, 0.8, ..., 0, Table 1 gains
scaled to the corner), plain Nelder-Mead (λ = 0) and pattern search (GPS 2N), each with
``--budget`` evaluations, and counts the runs whose Eq. 6 fitness is within 1 % of the best known
(the best over all runs and the converted start), with the median evaluations each needed to get
there (first evaluation within 1 %).

Harder twin: ``pybridge.identify.slekq.slekq_problem`` with the converted corner's spring, damper and
masses as the truth (on the rig's default vertical strut),
2 % noise on the measured travel and velocity, starts within ±80 % (bounds ±90 %).

Writes benchmarks/results/corner_homotopy.json. Run by hand (minutes per run on a shared machine):

    .venv/bin/python benchmarks/corner_homotopy.py [--runs 20] [--budget 300] [--duration 10] [--workers 2]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

_STATE: dict = {}


def _init(kind: str, settings: dict) -> None:
    from pybridge.identify.corner import CornerProblem
    from pybridge.identify.slekq import slekq_problem

    corner = CornerProblem(REPO / "scenarios" / "mbm" / "lcv35", settings["corner"], Path(settings["fmu"]),
                           duration=settings["duration"])
    _STATE.update(settings=settings, kind=kind)
    if kind == "mbm":
        _STATE["objective"], _STATE["bounds"], _STATE["centre"] = corner.at_lambda, corner.bounds, corner.start
        _STATE["scales"], _STATE["spread"] = corner.scales, 0.5
    else:
        base = {k: v for k, v in corner.conversion.data.items() if "[" not in k}   # strut: the rig's default
        twin = slekq_problem(settings["fmu"], base_data=base,
                             duration=settings["duration"], noise=0.02, bound_fraction=0.9, seed=settings["seed"])
        _STATE["objective"], _STATE["bounds"], _STATE["centre"] = twin.objective, twin.bounds, twin.truth
        _STATE["scales"], _STATE["spread"], _STATE["twin"] = twin.scales, 0.8, twin


def _start(index: int) -> dict:
    rng = np.random.default_rng([_STATE["settings"]["seed"], index])
    return {k: float(np.clip(v + _STATE["scales"][k] * rng.uniform(-_STATE["spread"], _STATE["spread"]),
                             *_STATE["bounds"][k])) for k, v in _STATE["centre"].items()}


def _run(task: tuple[str, int]) -> dict:
    from pybridge.identify.homotopy import DEFAULT_LAMBDAS, homotopy_optimize, nelder_mead_schedule
    from pybridge.identify.pattern_search import pattern_search

    method, index = task
    budget, x0 = _STATE["settings"]["budget"], _start(index)
    trail: list[tuple[int, float]] = []   # (evaluation number over all λ, value) of every λ = 0 evaluation
    count = [0]

    def at_lambda(p, lam):
        value = _STATE["objective"](p, lam)
        count[0] += 1
        if lam == 0.0:
            trail.append((count[0], value))
        return value

    start = time.perf_counter()
    if method == "pattern-search":
        result = pattern_search(lambda p: at_lambda(p, 0.0), _STATE["bounds"], x0, max_evaluations=budget,
                                min_mesh=1e-4, progress=False)
    else:
        lambdas = DEFAULT_LAMBDAS if method == "homotopy" else (0.0,)
        per_stage = max(11, budget // (3 * len(lambdas)))
        options = nelder_mead_schedule(len(lambdas), intermediate_maxfev=per_stage,
                                       final_maxfev=budget - (len(lambdas) - 1) * (per_stage + 1), final_restarts=1)
        result = homotopy_optimize(at_lambda, _STATE["bounds"], x0, lambdas=lambdas,
                                   options={**options, "max_evaluations": budget})
    return {"method": method, "run": index, "fitness": float(result.fitness), "evaluations": result.evaluations,
            "trail": trail, "wall_time_s": round(time.perf_counter() - start, 1)}


def _first_within(row: dict, level: float) -> int | None:
    """Evaluations (over all λ, homotopy stages included) until the run's first λ = 0 value <= level."""
    return next((n for n, v in row["trail"] if v <= level), None)


def _table(rows: list[dict], best: float) -> dict:
    out = {}
    for method in ("homotopy", "nelder-mead", "pattern-search"):
        mine = [r for r in rows if r["method"] == method]
        entry = {"runs": len(mine)}
        for percent in (1, 5, 10):
            hits = [n for n in (_first_within(r, (1 + percent / 100) * best) for r in mine) if n is not None]
            suffix = "" if percent == 1 else f"_within_{percent}_percent"
            entry["successes" + suffix] = len(hits)
            entry[f"median_evaluations_to_{percent}_percent"] = statistics.median(hits) if hits else None
        entry["median_fitness"] = statistics.median(r["fitness"] for r in mine) if mine else None
        out[method] = entry
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--budget", type=int, default=300)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of the 30 s sweep")
    parser.add_argument("--corner", default="FL")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--problems", nargs="+", default=["mbm", "twin"], choices=["mbm", "twin"])
    parser.add_argument("--out", type=Path, default=HERE / "results" / "corner_homotopy.json")
    args = parser.parse_args()

    from fmu_build import build_fmu

    fmu = build_fmu("VehicleRTM.QuarterCars.KCRig", backend="native", fmi_type="cs", integrator="rk4",
                    out_dir=REPO / "out" / "bench-corner")
    settings = {"corner": args.corner, "duration": args.duration, "budget": args.budget, "seed": args.seed,
                "fmu": str(fmu)}
    report = {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "settings": settings,
              "runs": args.runs, "problems": {}}
    for kind in args.problems:
        tasks = [(m, i) for i in range(args.runs) for m in ("homotopy", "nelder-mead", "pattern-search")]
        with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(kind, settings)) as pool:
            rows = list(pool.map(_run, tasks))
        _init(kind, settings)
        reference = _STATE["objective"](_STATE["centre"], 0.0)
        best = min([reference, *(r["fitness"] for r in rows)])
        report["problems"][kind] = {"best_known_fitness": best, "centre_fitness": reference,
                                    "table": _table(rows, best),
                                    "rows": [{k: v for k, v in r.items() if k != "trail"} for r in rows]}
        print(kind, json.dumps(report["problems"][kind]["table"], indent=1))
    args.out.write_text(json.dumps(report, indent=1))
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
