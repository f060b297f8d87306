"""Homotopy optimization (SLEKQ paper, Sec. 4, Eq. 3-6).

The model is run with a high-gain observer coupled to its equations of motion (Eq. 3),
``x' = f(x, p, t) + λ Γ e(t)``, where ``e`` is the error between the measured and the model states.
At λ = 1 the observer forces the model to track the measurement and smooths the objective; at λ = 0
the original model is recovered. :func:`homotopy_optimize` minimises the objective at each λ of a
decreasing sequence (1 -> 0), starting every stage from the optimum of the previous one, with a
local method inside each stage (Nelder-Mead, as the paper's ``fminsearch``, by default).

Parameters are normalised to ``u = (x - lo) / (hi - lo)`` in [0, 1] and the local method works on u
within the box. An evaluation that raises or returns a non-finite value costs ``penalty`` and a log
line; the optimization goes on. With ``record`` every evaluation (with its λ) is appended to a run
record (:class:`~pybridge.identify.record.RunRecord`); ``resume=True`` replays a killed run through
it (the run is deterministic, so it reaches the same state and evaluates only what the record lacks).

The SLEKQ corner problems that use it are in :mod:`pybridge.identify.slekq` (the paper's twin
experiment) and :mod:`pybridge.identify.corner` (the MBM's corner sweeps).
"""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from pybridge.identify.bounds import box, start_point
from pybridge.identify.record import RunRecord
from pybridge.identify.result import IdentificationResult

__all__ = ["DEFAULT_LAMBDAS", "DEFAULT_OPTIONS", "homotopy_optimize", "nelder_mead_schedule"]

log = logging.getLogger(__name__)

DEFAULT_LAMBDAS = (1.0, 0.8, 0.6, 0.4, 0.2, 0.0)
DEFAULT_OPTIONS = {
    # A per-stage option is a number or a sequence with one value per stage (per lambda).
    "maxfev": None,            # per stage: evaluations per local run; None: 200 per parameter
    "max_evaluations": None,   # evaluations over all stages; None: no limit beyond the stages' own
    "xatol": 1e-4,             # per stage, Nelder-Mead: simplex size in normalised units at convergence
    "fatol": 1e-12,            # per stage, Nelder-Mead: spread of the simplex's values at convergence
    "simplex_size": 0.1,       # per stage: edge of the initial simplex in normalised units
    "restarts": 0,             # per stage: fresh simplices from the stage's optimum, while they improve it
    "restart_rtol": 1e-3,      # a restart improving the fitness by less than this fraction ends the stage
    "adaptive": False,         # Nelder-Mead: dimension-dependent coefficients (Gao and Han)
    "penalty": 1e10,           # fitness of an evaluation that failed or gave a non-finite value
    "local_options": {},       # options passed to scipy.optimize.minimize for another local method
}
_PER_STAGE = ("maxfev", "xatol", "fatol", "simplex_size", "restarts")


class _BudgetSpent(Exception):
    """Raised inside the local method when ``max_evaluations`` is reached."""


class _Stage:
    """The objective of one stage (one λ) in normalised coordinates; keeps the stage's best point."""

    def __init__(self, run: _Run, lam: float, stage: int):
        self.run, self.lam, self.stage = run, lam, stage
        self.best_u: np.ndarray | None = None
        self.best_f = math.inf

    def __call__(self, u: np.ndarray) -> float:
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        fitness = self.run.evaluate(self.lam, self.stage, u)
        if fitness < self.best_f:
            self.best_f, self.best_u = fitness, u.copy()
        return fitness


class _Run:
    """Evaluations of one homotopy run: physical <-> normalised, penalty, cache, record, budget."""

    def __init__(self, objective, names, lo, hi, penalty, budget, record):
        self.objective, self.names, self.lo, self.hi = objective, names, lo, hi
        self.penalty, self.budget, self.record = penalty, budget, record
        self.cache: dict[tuple, float] = {}
        self.recorded: dict[tuple, float] = {}
        if record is not None:
            for entry in record.entries:
                if "lambda" in entry and "u" in entry:
                    fitness = entry["fitness"]
                    self.recorded[(float(entry["lambda"]), tuple(float(v) for v in entry["u"]))] = \
                        fitness if math.isfinite(fitness) else penalty
        self.count = self.new = self.replayed = self.hits = self.failures = 0

    def physical(self, u) -> dict[str, float]:
        return {name: float(h if v == 1.0 else l + v * (h - l))
                for name, l, h, v in zip(self.names, self.lo, self.hi, u)}

    def evaluate(self, lam: float, stage: int, u: np.ndarray) -> float:
        key = (lam, tuple(u.tolist()))
        if key in self.cache:
            self.hits += 1
            return self.cache[key]
        if self.count >= self.budget:
            raise _BudgetSpent
        self.count += 1
        if key in self.recorded:
            self.replayed += 1
            self.cache[key] = self.recorded[key]
            return self.cache[key]
        x = self.physical(u)
        row = {"x": x, "u": list(key[1]), "lambda": lam, "stage": stage}
        try:
            fitness = float(self.objective(x, lam))
        except Exception as error:  # a failed simulation costs the penalty, the optimization goes on
            message = f"{type(error).__name__}: {error}"
            log.warning("homotopy stage %d (lambda = %g): evaluation at %s failed, scored %g: %s",
                        stage, lam, x, self.penalty, message)
            fitness, row = self.penalty, {**row, "fitness": None, "status": "error", "message": message}
            self.failures += 1
        else:
            if math.isfinite(fitness):
                row = {**row, "fitness": fitness, "status": "ok"}
            else:
                log.warning("homotopy stage %d (lambda = %g): evaluation at %s gave %s, scored %g",
                            stage, lam, x, fitness, self.penalty)
                fitness, row = self.penalty, {**row, "fitness": None, "status": "non-finite"}
                self.failures += 1
        self.new += 1
        self.cache[key] = fitness
        if self.record is not None:
            self.record.append([row])
        return fitness


def _initial_simplex(u0: np.ndarray, size: float) -> np.ndarray:
    """u0 and u0 + size·e_i, each edge turned inward where it would leave the unit box."""
    simplex = np.tile(u0, (len(u0) + 1, 1))
    for i in range(len(u0)):
        simplex[i + 1, i] += size if u0[i] + size <= 1.0 else -size
    return np.clip(simplex, 0.0, 1.0)


def _local_run(local, fun, u0: np.ndarray, stage: dict, opts: dict):
    """One local minimisation from u0 with the stage's options; returns (u, nit, message) or raises
    _BudgetSpent."""
    bounds = [(0.0, 1.0)] * len(u0)
    if callable(local):
        result = local(fun, u0.copy(), bounds, {**opts["local_options"], **stage})
    elif local.lower().replace("_", "-") == "nelder-mead":
        result = minimize(fun, u0, method="Nelder-Mead", bounds=bounds,
                          options={"maxfev": stage["maxfev"], "maxiter": stage["maxfev"], "xatol": stage["xatol"],
                                   "fatol": stage["fatol"], "adaptive": bool(opts["adaptive"]),
                                   "initial_simplex": _initial_simplex(u0, stage["simplex_size"])})
    else:
        result = minimize(fun, u0, method=local, bounds=bounds, options=dict(opts["local_options"]))
    return np.clip(np.asarray(result.x, dtype=float), 0.0, 1.0), int(getattr(result, "nit", 0) or 0), \
        str(getattr(result, "message", ""))


def _stage_options(opts: dict, n: int, count: int) -> list[dict]:
    """The per-stage options (maxfev, xatol, fatol, simplex_size, restarts) of each of ``count`` stages."""
    stages = [{} for _ in range(count)]
    for name in _PER_STAGE:
        value = opts[name]
        if name == "maxfev" and value is None:
            value = 200 * n
        values = [value] * count if np.isscalar(value) else list(value)
        if len(values) != count:
            raise ValueError(f"options[{name!r}]: one value or one per stage ({count}), got {len(values)}")
        for stage, v in zip(stages, values):
            stage[name] = int(v) if name in ("maxfev", "restarts") else float(v)
    for stage in stages:
        if stage["maxfev"] < n + 1 or stage["restarts"] < 0 or not 0.0 < stage["simplex_size"] <= 1.0 \
                or stage["xatol"] < 0 or stage["fatol"] < 0:
            raise ValueError(f"stage options {stage}: need maxfev >= {n + 1}, restarts >= 0, "
                             "0 < simplex_size <= 1, xatol >= 0 and fatol >= 0")
    return stages


def nelder_mead_schedule(stages: int, *, intermediate_maxfev: int = 150, final_maxfev: int = 3000,
                         final_restarts: int = 3, intermediate_xatol: float = 1e-3, final_xatol: float = 1e-5,
                         intermediate_fatol: float = 1e-9, final_fatol: float = 1e-16,
                         adaptive: bool = True) -> dict:
    """Options for ``stages`` stages: the coupled stages (all but the last) only lead the way, with a
    small budget and loose tolerances; the last (λ = 0) converges tightly, with restarts. With one
    stage it is the plain Nelder-Mead of the last stage."""
    if stages < 1:
        raise ValueError(f"stages must be >= 1, got {stages}")
    k = stages - 1
    return {"maxfev": [intermediate_maxfev] * k + [final_maxfev], "restarts": [0] * k + [final_restarts],
            "xatol": [intermediate_xatol] * k + [final_xatol], "fatol": [intermediate_fatol] * k + [final_fatol],
            "adaptive": adaptive}


def _open_record(record: str | Path | None, problem: dict, resume: bool) -> RunRecord | None:
    """The run record at ``record`` with ``problem`` as its header (None without a path); a record that
    already holds evaluations is continued only with ``resume``."""
    if record is None:
        if resume:
            raise ValueError("resume=True needs the record to resume from")
        return None
    run_record = RunRecord.open(record, problem)
    if len(run_record) and not resume:
        run_record.close()
        raise FileExistsError(f"{record} already holds {len(run_record)} evaluations; "
                              "continue it with --resume (resume=True in Python), or use a new run folder")
    return run_record


def homotopy_optimize(objective_at_lambda: Callable[[dict, float], float],
                      bounds: Mapping[str, tuple[float, float]], x0: Mapping[str, float],
                      lambdas: Sequence[float] = DEFAULT_LAMBDAS, local: str | Callable = "nelder-mead",
                      options: Mapping | None = None, *, callback: Callable[[dict], bool | None] | None = None,
                      record: str | Path | None = None, resume: bool = False,
                      description: Mapping | None = None) -> IdentificationResult:
    """Minimise ``objective_at_lambda(parameters, λ)`` by homotopy: stage k minimises it at
    ``lambdas[k]`` starting from the optimum of stage k - 1 (stage 0 from ``x0``).

    ``bounds`` maps every parameter to (low, high); ``x0`` gives every parameter inside them.
    ``lambdas`` is the coupling sequence (conventionally decreasing from 1 to 0; ``(0.0,)`` is the
    plain local method). ``local`` is ``"nelder-mead"`` (scipy, in the normalised box, with the
    initial simplex of ``options["simplex_size"]``), another ``scipy.optimize.minimize`` method name
    (given ``options["local_options"]``), or a callable ``local(fun, u0, bounds, options) -> result``
    with ``result.x``. ``options`` overrides :data:`DEFAULT_OPTIONS`. ``callback(stage_info)`` is
    called after each stage with its history row; returning True stops the run. ``record`` is a run
    record path, its header holding the problem (bounds, x0, λ, options, ``description``).

    Returns an :class:`IdentificationResult` (method ``"homotopy"``): the optimum of the last stage,
    its fitness (at the last λ), one history row per stage (``iteration``, ``evaluations``,
    ``fitness``, ``mesh`` (None: a simplex method has no mesh), ``time``, ``stage``, ``lambda``,
    ``parameters``, ``stage_evaluations``, ``stage_iterations``, ``message``).
    """
    names, lo, hi = box(bounds)
    n = len(names)
    x = start_point(x0, names, lo, hi)
    lambdas = [float(v) for v in lambdas]
    if not lambdas or not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in lambdas):
        raise ValueError(f"lambdas must be a non-empty sequence of values in [0, 1], got {lambdas}")
    unknown = set(options or {}) - set(DEFAULT_OPTIONS)
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)}; known: {sorted(DEFAULT_OPTIONS)}")
    opts = {**DEFAULT_OPTIONS, **(options or {})}
    stages = _stage_options(opts, n, len(lambdas))
    budget = math.inf if opts["max_evaluations"] is None else int(opts["max_evaluations"])
    if budget < 1:
        raise ValueError("max_evaluations must be >= 1")
    if not (isinstance(local, str) or callable(local)):
        raise ValueError(f"local must be a scipy.optimize.minimize method name or a callable, got {local!r}")
    u = (x - lo) / (hi - lo)

    problem = {"method": "homotopy", "x0": [float(v) for v in u], "lambdas": lambdas,
               "bounds": {k: [float(l), float(h)] for k, l, h in zip(names, lo, hi)},
               "local": local if isinstance(local, str) else getattr(local, "__name__", "callable"),
               "options": {k: list(v) if isinstance(v, (tuple, list)) else v
                           for k, v in opts.items() if k != "local_options"},
               "local_options": dict(opts["local_options"]), "description": description}
    run_record = _open_record(record, problem, resume)
    run = _Run(objective_at_lambda, names, lo, hi, float(opts["penalty"]), budget, run_record)
    start = time.monotonic()
    history: list[dict] = []
    iterations = 0
    fitness = math.inf
    stopped = f"all {len(lambdas)} stages done (last lambda = {lambdas[-1]:g})"
    try:
        for k, lam in enumerate(lambdas):
            stage = _Stage(run, lam, k)
            before = run.count
            stage_iterations, messages = 0, []
            try:
                stage(u)  # the starting point's fitness at this stage's lambda
                for attempt in range(stages[k]["restarts"] + 1):
                    start_f = stage.best_f
                    _, nit, message = _local_run(local, stage, stage.best_u, stages[k], opts)
                    stage_iterations += nit
                    messages.append(message)
                    if stage.best_f >= start_f * (1.0 - float(opts["restart_rtol"])) and attempt > 0:
                        break
            except _BudgetSpent:
                stopped = f"max_evaluations ({opts['max_evaluations']}) reached in stage {k} (lambda = {lam:g})"
            if stage.best_u is not None:
                u, fitness = stage.best_u, stage.best_f
            iterations += stage_iterations
            row = {"iteration": iterations, "evaluations": run.count, "fitness": fitness, "mesh": None,
                   "time": time.monotonic() - start, "stage": k, "lambda": lam, "parameters": run.physical(u),
                   "stage_evaluations": run.count - before, "stage_iterations": stage_iterations,
                   "message": "; ".join(messages)}
            history.append(row)
            log.info("homotopy stage %d (lambda = %g): fitness %.6g after %d evaluations",
                     k, lam, fitness, row["stage_evaluations"])
            if stopped.startswith("max_evaluations"):
                break
            if callback is not None and callback(dict(row)):
                stopped = f"callback asked to stop after stage {k} (lambda = {lam:g})"
                break
    finally:
        if run_record is not None:
            run_record.close()
    return IdentificationResult(
        method="homotopy", parameters=run.physical(u), fitness=fitness, evaluations=run.count,
        iterations=iterations, history=history, stopped_because=stopped, wall_time=time.monotonic() - start,
        record_path=None if record is None else Path(record),
        extra={"lambdas": lambdas, "stage_fitness": [row["fitness"] for row in history],
               "normalised": dict(zip(names, u.tolist())),
               "local": local if isinstance(local, str) else getattr(local, "__name__", "callable"),
               "new_evaluations": run.new, "replayed": run.replayed, "cache_hits": run.hits,
               "failures": run.failures})
