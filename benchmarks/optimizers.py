"""Every identification method at equal budget on the van (the corrected model), several seeds.

The problem is the one `pybridge demo` poses: the parameter set of a demo run folder (its uncertain
parameters with the ranges the sensitivity analysis narrowed, RUN/params_nominal), its FMU, the MBM
data set scenarios/mbm/lcv35 and the default objective. Seed 0 starts at the nominal values (the
demo's start); seed s > 0 starts at a point drawn uniformly within ±``--start-spread`` of each
parameter's half-range around the nominal value (numpy generator seeded with s), the same point for
every method, and is also NOMAD's seed. Each method runs with 2 worker processes and
``--evaluations`` distinct points per seed. Runs keep their run
records in ``--work`` (resume: a re-run replays them), and every simulation is shared through a cache
of exact points (``--work``/cache.jsonl), so a point two runs ask for is simulated once (the start
point, and NOMAD seeds whose trajectories coincide); each run still counts it against its budget.

Writes benchmarks/results/optimizers.json: per method and seed the best fitness after 50/100/200/400
evaluations (null beyond the budget), the evaluations to reach the common target (the best fitness
any run reached + 1 %; null if not reached), the medians, and the default method with the reason.

    .venv/bin/python benchmarks/optimizers.py --run out/demo [--evaluations 100] [--seeds 0 1 2]

A pattern search without a Latin hypercube step is deterministic for a given start, so its spread over
seeds is the spread over start points; NOMAD's also includes its own random directions. Differential
evolution (SciPy's, popsize 5: 20 points a generation for 4 parameters) puts the start point into its
first generation, the rest a Latin hypercube of its seed.
"""
from __future__ import annotations

import argparse
import json
import numpy as np
import statistics
import sys
import time
from pathlib import Path

from machine import cpu_name

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

METHODS = {
    "pattern_search_gps2n": {"engine": "pattern_search", "options": {"poll": "gps2n", "min_mesh": 1e-6}},
    "pattern_search_gps2n_model": {"engine": "pattern_search", "options": {
        "poll": "gps2n", "min_mesh": 1e-6, "model_search": True}},
    "pattern_search_gps2n_chunked_model": {"engine": "pattern_search", "options": {
        "poll": "gps2n", "min_mesh": 1e-6, "chunked_poll": True, "model_search": True}},
    "nomad": {"engine": "nomad", "options": {}},
    "differential_evolution": {"engine": "differential_evolution", "options": {"popsize": 5}},
}
DETERMINISTIC = {"pattern_search"}
CHECKPOINTS = (50, 100, 200, 400)
DEFAULT_METHODS = ("pattern_search_gps2n", "pattern_search_gps2n_model", "nomad", "differential_evolution")


def start_for_seed(nominal: dict, bounds: dict, seed: int, spread: float) -> dict:
    """Seed 0: the nominal start; else uniform within ±spread of each half-range around nominal, clipped."""
    if seed == 0:
        return dict(nominal)
    rng = np.random.default_rng(seed)
    start = {}
    for name, value in nominal.items():
        low, high = bounds[name]
        half = 0.5 * (high - low)
        start[name] = float(np.clip(value + spread * half * rng.uniform(-1.0, 1.0), low, high))
    return start


class CachingExecutor:
    """An executor that answers points simulated before (by any run) from a JSON Lines cache."""

    def __init__(self, inner, path: Path):
        self.inner, self.path, self.workers = inner, path, inner.workers
        self.values = {}
        if path.exists():
            for line in path.read_text().splitlines():
                entry = json.loads(line)
                self.values[self._key(entry["x"])] = entry["fitness"]
        self.simulated = 0

    @staticmethod
    def _key(x: dict) -> str:
        return json.dumps(x, sort_keys=True)

    def map(self, fn, items) -> list:
        items = list(items)
        missing = [x for x in items if self._key(x) not in self.values]
        if missing:
            outcomes = self.inner.map(fn, missing)
            with open(self.path, "a") as file:
                for x, outcome in zip(missing, outcomes):
                    value = None if isinstance(outcome, BaseException) else float(outcome)
                    self.values[self._key(x)] = value
                    file.write(json.dumps({"x": x, "fitness": value}) + "\n")
            self.simulated += len(missing)
        return [float("inf") if self.values[self._key(x)] is None else self.values[self._key(x)] for x in items]


def best_after(record: Path) -> list[float]:
    """Best fitness so far after each evaluation of a run record."""
    best, curve = float("inf"), []
    for line in record.read_text().splitlines()[1:]:
        fitness = json.loads(line)["fitness"]
        best = min(best, float("inf") if fitness is None else fitness)
        curve.append(best)
    return curve


def choose_default(methods: dict) -> dict:
    """The method with the lowest median evaluations to the target among those whose every seed
    reached it; on a tie, or if none did, the deterministic pattern search."""
    ranked = sorted((m["median_evaluations_to_target"], not m["deterministic"], name)
                    for name, m in methods.items() if m["median_evaluations_to_target"] is not None)
    if not ranked:
        return {"method": "pattern_search_gps2n", "why": "no method reached the target on every seed"}
    median, _, name = ranked[0]
    return {"method": name, "why": f"lowest median evaluations to the target ({median:g}) of the methods "
                                   "whose every seed reached it (ties go to the deterministic pattern search)"}


def main() -> int:
    from pybridge.identify import make_executor, nomad_search, pattern_search
    from pybridge.identify.differential_evolution import differential_evolution
    from pybridge.identify.problem import VehicleProblem
    from pybridge.parameters import read_parameter_set

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, required=True, help="a pybridge demo run folder (params_nominal, FMU)")
    parser.add_argument("--evaluations", type=int, default=400)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--methods", nargs="+", default=list(DEFAULT_METHODS), choices=list(METHODS))
    parser.add_argument("--start-spread", type=float, default=0.5,
                        help="seeds > 0 start within ±this fraction of each half-range around nominal")
    parser.add_argument("--work", type=Path, default=REPO / "out" / "optimizers")
    parser.add_argument("--note", default="", help="why the run was reduced, and what the full one would take")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    params = read_parameter_set(args.run / "params_nominal")
    fmu = next(args.run.glob("*.fmu"))
    problem = VehicleProblem(params, REPO / "scenarios" / "mbm" / "lcv35", fmu)
    engines = {"pattern_search": pattern_search, "nomad": nomad_search, "differential_evolution": differential_evolution}
    curves: dict[str, dict[int, list[float]]] = {}
    start = time.perf_counter()
    with make_executor(2) as processes:
        executor = CachingExecutor(processes, args.work / "cache.jsonl")
        for name in args.methods:
            method = METHODS[name]
            for seed in args.seeds:
                record = args.work / f"{name}-seed{seed}-{args.evaluations}.jsonl"
                x0 = start_for_seed(problem.nominal, problem.bounds, seed, args.start_spread)
                engines[method["engine"]](problem.fitness, problem.bounds, x0, **method["options"],
                                          max_evaluations=args.evaluations, executor=executor, record=record,
                                          resume=True, seed=seed, progress=False)
                curves.setdefault(name, {})[seed] = best_after(record)
                print(f"{name} seed {seed}: {curves[name][seed][-1]:.6g} after {len(curves[name][seed])}", flush=True)
    target = min(c[-1] for runs in curves.values() for c in runs.values()) * 1.01

    def reached(curve):
        return next((i + 1 for i, v in enumerate(curve) if v <= target), None)

    methods = {}
    for name, runs in curves.items():
        per_seed = {str(seed): {"best_after": {str(k): (c[k - 1] if k <= len(c) else None) for k in CHECKPOINTS},
                                "evaluations_to_target": reached(c)} for seed, c in runs.items()}
        to_target = [reached(c) for c in runs.values()]
        methods[name] = {"options": METHODS[name]["options"], "deterministic": METHODS[name]["engine"] in DETERMINISTIC,
                         "seeds": per_seed,
                         "median_evaluations_to_target": (statistics.median(to_target) if None not in to_target
                                                          else None),
                         "seeds_reaching_target": sum(t is not None for t in to_target)}
    result = {
        "benchmark": "identification methods at equal budget on the van (benchmarks/optimizers.py)",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"), "cpu": cpu_name(), "workers": 2,
        "problem": {"parameters": problem.bounds, "nominal": problem.nominal, "fmu": fmu.name,
                    "starts": {str(s): start_for_seed(problem.nominal, problem.bounds, s, args.start_spread)
                               for s in args.seeds}, "start_spread": args.start_spread,
                    "start_fitness": {str(s): curves[next(iter(curves))][s][0] for s in args.seeds}},
        "budget": {"evaluations": args.evaluations, "seeds": args.seeds,
                   "reduced": args.evaluations < 400 or len(args.seeds) < 3, "note": args.note},
        "target": target, "methods": methods,
        "simulations": {"this_invocation": executor.simulated, "in_the_cache": len(executor.values)},
        "wall_s_this_invocation": round(time.perf_counter() - start, 1),
    }
    result["default"] = choose_default(methods)
    out = HERE / "results" / "optimizers.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({"target": target, **{n: (m["median_evaluations_to_target"], m["seeds_reaching_target"])
                                           for n, m in methods.items()}}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
