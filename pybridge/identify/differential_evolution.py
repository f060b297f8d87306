"""Differential evolution (SciPy's) and the LH-DOE screening that seeds it, as the LMS paper stages them.

``differential_evolution`` runs ``scipy.optimize.differential_evolution`` in the normalised box with the
project's executor as its ``workers`` map: SciPy hands the map a whole generation (popsize * N trial
points, ``updating='deferred'``), and the map evaluates them through ``Evaluations`` (snapped to the
grid, cached, counted against the budget, appended to the run record, spread over the executor's
workers), so every executor call fills the workers. SciPy's own wrapper of the objective, which it
passes to the map, is not called: the map evaluates the same objective itself. No polishing (it would
evaluate one point at a time outside the map). DE is deterministic given its seed and the answers it
gets, so ``resume=True`` re-runs it and the record answers every point it holds. A failed evaluation is
an infinite fitness, which DE's selection discards.

``lh_doe`` is the screening stage: a Latin-hypercube design over the box, evaluated through the same
machinery; its result's ``extra["population"]`` (the best points, physical) seeds a following
differential-evolution stage of the same parameters (``pybridge.identify.staged``).
"""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
from scipy.optimize import differential_evolution as scipy_de
from scipy.stats import qmc

from pybridge.identify.bounds import box, start_point
from pybridge.identify.evaluations import Evaluations, open_run, snap
from pybridge.identify.result import IdentificationResult

__all__ = ["differential_evolution", "lh_doe"]

log = logging.getLogger(__name__)


class _GenerationMap:
    """SciPy's ``workers``: ``map(func, points)`` -> fitness of each point through ``Evaluations``."""

    def __init__(self, evaluate: Evaluations, note: Callable[[list], None]):
        self.evaluate, self.note = evaluate, note

    def __call__(self, func, points):
        us = [snap(p) for p in points]
        values = [math.inf if v is None else v for v in self.evaluate(us)]
        self.note(list(zip(us, values)))
        return values


def _tracker(evaluate: Evaluations, bar, start: float):
    state = {"best_u": None, "best": math.inf, "history": []}

    def note(scored):
        for u, value in scored:
            if value < state["best"]:
                state["best_u"], state["best"] = u, value
        state["history"].append({"iteration": len(state["history"]), "evaluations": evaluate.count,
                                 "fitness": state["best"], "mesh": None, "time": time.monotonic() - start})
        bar.set_postfix(best=f"{state['best']:.5g}", refresh=False)
    return state, note


def differential_evolution(objective: Callable[[dict], float], bounds: Mapping[str, tuple[float, float]],
                           x0: Mapping[str, float] | None = None, *, max_evaluations: int | None = None,
                           popsize: int = 5, mutation: float | tuple = (0.5, 1.0), recombination: float = 0.7,
                           population: list[Mapping[str, float]] | None = None, tol: float = 0.0,
                           executor=None, record: str | Path | None = None, resume: bool = False, seed: int = 0,
                           progress: bool = True, description: Mapping | None = None) -> IdentificationResult:
    """Minimise ``objective(parameters)`` over ``bounds`` with SciPy's differential evolution (module doc).

    ``max_evaluations`` (distinct points, default 200 * N) sets the number of generations; ``popsize``,
    ``mutation``, ``recombination`` and ``tol`` are SciPy's; ``x0`` joins the first generation;
    ``population``: points (physical) that seed the first generation (e.g. an LH-DOE's best), the rest
    Latin hypercube. ``executor``, ``record``, ``resume``, ``seed``, ``progress`` and ``description`` are
    as for ``pattern_search``.
    """
    names, lo, hi = box(bounds)
    n = len(names)
    budget = 200 * n if max_evaluations is None else int(max_evaluations)
    size = max(5, popsize * n)
    if budget < size:
        raise ValueError(f"max_evaluations {budget} is less than one generation ({size} points: popsize {popsize} x "
                         f"{n} parameters, at least 5)")
    u0 = None if x0 is None else (start_point(x0, names, lo, hi) - lo) / (hi - lo)
    init = qmc.LatinHypercube(d=n, seed=seed).random(size)
    seeded = [(start_point(p, names, lo, hi) - lo) / (hi - lo) for p in (population or [])][:size]
    if seeded:
        init[:len(seeded)] = seeded
    problem = {"method": "differential-evolution",
               "bounds": {k: [float(a), float(b)] for k, a, b in zip(names, lo, hi)},
               "x0": None if u0 is None else [float(v) for v in u0], "init": [[float(v) for v in p] for p in init],
               "popsize": popsize, "mutation": mutation, "recombination": recombination, "tol": tol,
               "description": description}
    start = time.monotonic()
    with open_run(record, problem, seed=seed, resume=resume, executor=executor, budget=budget,
                  bounded=max_evaluations is not None, description="DE", progress=progress) as (
            run_record, executor, bar):
        evaluate = Evaluations(objective, names, lo, hi, executor, run_record, budget, bar)
        state, note = _tracker(evaluate, bar, start)
        outcome = scipy_de(_never_called, [(0.0, 1.0)] * n, init=init, x0=u0, maxiter=budget // size - 1,
                           popsize=popsize, mutation=mutation, recombination=recombination, tol=tol, seed=seed,
                           polish=False, updating="deferred", workers=_GenerationMap(evaluate, note))
    if state["best_u"] is None or not math.isfinite(state["best"]):
        raise RuntimeError("differential evolution evaluated no point successfully")
    log.info("DE stopped: %s; fitness %.6g after %d evaluations", outcome.message, state["best"], evaluate.count)
    return IdentificationResult(
        method="differential-evolution", parameters=evaluate.physical(state["best_u"]), fitness=state["best"],
        evaluations=evaluate.count, iterations=len(state["history"]), history=state["history"],
        stopped_because="max_evaluations reached" if evaluate.count >= budget else str(outcome.message),
        wall_time=time.monotonic() - start, record_path=None if record is None else Path(record),
        extra={"normalised": dict(zip(names, state["best_u"].tolist())), **evaluate.stats()})


def _never_called(u):
    raise AssertionError("the workers map evaluates the generation itself")


def lh_doe(objective: Callable[[dict], float], bounds: Mapping[str, tuple[float, float]],
           x0: Mapping[str, float] | None = None, *, max_evaluations: int | None = None, keep: int | None = None,
           executor=None, record: str | Path | None = None, resume: bool = False, seed: int = 0,
           progress: bool = True, description: Mapping | None = None) -> IdentificationResult:
    """LH-DOE screening (LMS paper): ``max_evaluations`` (default 10 * N) Latin-hypercube points over the box,
    plus ``x0``; the best point is the result, the best ``keep`` (default 5 * N) are ``extra["population"]``."""
    names, lo, hi = box(bounds)
    n = len(names)
    budget = 10 * n if max_evaluations is None else int(max_evaluations)
    if budget < 1:
        raise ValueError("max_evaluations must be >= 1")
    points = [snap(p) for p in qmc.LatinHypercube(d=n, seed=seed).random(budget)]
    if x0 is not None:
        points = [snap((start_point(x0, names, lo, hi) - lo) / (hi - lo))] + points[:budget - 1]
    problem = {"method": "lh-doe", "bounds": {k: [float(a), float(b)] for k, a, b in zip(names, lo, hi)},
               "points": budget, "description": description}
    start = time.monotonic()
    with open_run(record, problem, seed=seed, resume=resume, executor=executor, budget=budget, bounded=True,
                  description="LH-DOE", progress=progress) as (run_record, executor, bar):
        evaluate = Evaluations(objective, names, lo, hi, executor, run_record, budget, bar)
        values = [math.inf if v is None else v for v in evaluate(points)]
    order = np.argsort(values, kind="stable")
    if not math.isfinite(values[order[0]]):
        raise RuntimeError("LH-DOE evaluated no point successfully")
    best = points[order[0]]
    population = [evaluate.physical(points[i]) for i in order[:keep or 5 * n] if math.isfinite(values[i])]
    return IdentificationResult(
        method="lh-doe", parameters=evaluate.physical(best), fitness=float(values[order[0]]),
        evaluations=evaluate.count, iterations=1,
        history=[{"iteration": 0, "evaluations": evaluate.count, "fitness": float(values[order[0]]), "mesh": None,
                  "time": time.monotonic() - start}],
        stopped_because="design evaluated", wall_time=time.monotonic() - start,
        record_path=None if record is None else Path(record),
        extra={"population": population, "normalised": dict(zip(names, best.tolist())), **evaluate.stats()})
