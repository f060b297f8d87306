"""What every identification engine shares: normalised points, the evaluation cache, the run record,
the budget and the progress bar.

Parameters are normalised to u = (x - lo) / (hi - lo) in [0, 1] and points are snapped to a grid of
2⁻⁴⁵ so that cache and record keys are exact. ``Evaluations`` evaluates batches of points through an
executor, answers points it has seen from its cache and points a resumed run's record holds from the
record (without evaluating them again), and counts distinct points against the budget. An objective with
lanes (pybridge.identify.lane_batch) gets each batch's new points in chunks, several per call.
"""
from __future__ import annotations

import logging
import math
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from tqdm import tqdm

from pybridge.identify.executor import make_executor, map_batched
from pybridge.identify.record import RunRecord

__all__ = ["GRID", "Evaluations", "StartPointFailed", "open_run", "snap"]

GRID = 2.0 ** -45
_SIMULATION_FAILURES = {"EvaluationFailed", "SimulationDiverged"}  # exceptions that say why a simulation failed
log = logging.getLogger(__name__)


def snap(u) -> np.ndarray:
    """``u`` clipped to [0, 1] and rounded to the grid."""
    return np.round(np.clip(np.asarray(u, dtype=float), 0.0, 1.0) / GRID) * GRID


def _score(outcome) -> tuple[float, dict]:
    """Fitness and record fields of one objective outcome: a number, an object with ``value`` (and
    ``per_index`` and ``failed``, as ``pybridge.evaluate.objective.FitnessResult``), or the exception it
    raised. A failed evaluation (an exception, failed manoeuvres, a non-finite value) scores inf, the
    optimizers' failed point, with status ``failed`` (a simulation that failed or diverged) or ``error``.
    ``indices`` holds each index's error, ``signs`` the sign of candidate - reference of the scalar ones,
    ``residuals`` (when the outcome has them) each index's residual vector."""
    failed = getattr(outcome, "failed", None)
    if failed and not isinstance(outcome, BaseException):
        message = "; ".join(f"{m}: {why}" for m, why in failed.items())
        log.warning("evaluation failed: %s", message)
        return math.inf, {"fitness": None, "status": "failed", "message": message}
    if not isinstance(outcome, BaseException):
        try:
            fitness = float(getattr(outcome, "value", outcome))
        except (TypeError, ValueError) as error:
            outcome = error
    if isinstance(outcome, BaseException):
        simulation = type(outcome).__name__ in _SIMULATION_FAILURES
        message = str(outcome) if simulation else f"{type(outcome).__name__}: {outcome}"
        log.warning("evaluation failed: %s", message)
        return math.inf, {"fitness": None, "status": "failed" if simulation else "error", "message": message}
    row = {"fitness": fitness, "status": "ok" if math.isfinite(fitness) else "non-finite"}
    indices = getattr(outcome, "per_index", None)
    if indices:
        keys = {k: "/".join(k) if isinstance(k, tuple) else str(k) for k in indices}
        row["indices"] = {keys[k]: float(getattr(s, "error", s)) for k, s in indices.items()}
        signs = {keys[k]: s.sign for k, s in indices.items() if getattr(s, "sign", None) is not None}
        if signs:
            row["signs"] = signs
    residuals = getattr(outcome, "residuals", None)   # pybridge.identify.residuals: each index's vector
    if residuals:
        row["residuals"] = residuals
    return (fitness if math.isfinite(fitness) else math.inf), row


class StartPointFailed(RuntimeError):
    """The start point of an optimization failed to evaluate; the message gives the cause. Raised
    before the optimizer runs on (no optimizer can start from a point it cannot compare)."""


class Evaluations:
    """Evaluates batches of normalised points with a cache, the run record and a budget.

    ``batches`` lists the number of new (not cached, not replayed) points of every executor call, so
    an engine can report how well it filled the workers. With ``sync_later`` the record is written at
    once but fsync'd by the engine (``record.sync()``) after it has used the values.
    """

    def __init__(self, objective, names, lo, hi, executor, record, budget, bar):
        self.objective, self.names, self.lo, self.hi = objective, names, lo, hi
        self.executor, self.record, self.budget, self.bar = executor, record, budget, bar
        self.cache: dict[tuple, float] = {}
        self.failures: dict[tuple, str] = {}  # why each failed point failed
        self.count = self.new = self.replayed = self.hits = 0
        self.batches: list[int] = []
        self.sync_later = False

    def physical(self, u) -> dict[str, float]:
        return {name: float(h if v == 1.0 else l + v * (h - l))
                for name, l, h, v in zip(self.names, self.lo, self.hi, u)}

    def __call__(self, points: list[np.ndarray]) -> list[float | None]:
        """Fitness of each point; ``None`` for a point left out because the budget is spent."""
        values: list[float | None] = [None] * len(points)
        pending: dict[tuple, list[int]] = {}
        for i, u in enumerate(points):
            key = tuple(u.tolist())
            if key in self.cache or key in pending:
                self.hits += 1
                if key in self.cache:
                    values[i] = self.cache[key]
                else:
                    pending[key].append(i)
            elif self.count < self.budget:
                self.count += 1
                entry = self.record.lookup(key) if self.record is not None else None
                if entry is None:
                    pending[key] = [i]
                else:
                    self.cache[key] = values[i] = entry["fitness"]
                    if not math.isfinite(entry["fitness"]):
                        self.failures[key] = entry.get("message") or entry.get("status", "failed")
                    self.replayed += 1
                    self.bar.update()
        if pending:
            keys = list(pending)
            outcomes = map_batched(self.executor, self.objective, [self.physical(k) for k in keys])
            rows = []
            for key, outcome in zip(keys, outcomes):
                fitness, row = _score(outcome)
                self.cache[key] = fitness
                if not math.isfinite(fitness):
                    self.failures[key] = row.get("message") or row["status"]
                for i in pending[key]:
                    values[i] = fitness
                rows.append({"x": self.physical(key), "u": list(key), **row})
            if self.record is not None:
                self.record.append(rows, sync=not self.sync_later)
            self.new += len(keys)
            self.batches.append(len(keys))
            self.bar.update(len(keys))
        return values

    def check_start(self, u) -> float:
        """The fitness of the start point ``u`` (evaluated now unless known); StartPointFailed naming
        the point and the cause when it failed."""
        key = tuple(snap(u).tolist())
        value = self([np.asarray(key)])[0]
        if value is None or not math.isfinite(value):
            why = self.failures.get(key, "no evaluation left in the budget")
            raise StartPointFailed(f"the start point {self.physical(key)} failed, so no optimizer starts: {why}")
        return value

    def stats(self) -> dict:
        """Counts for a result's ``extra``: new, replayed, cache hits, and the executor calls that held
        fewer new points than there are workers."""
        workers = getattr(self.executor, "workers", 1)
        return {"new_evaluations": self.new, "replayed": self.replayed, "cache_hits": self.hits,
                "batches": len(self.batches), "workers": workers,
                "underfilled_batches": sum(b < workers for b in self.batches)}


@contextmanager
def open_run(record: str | Path | None, problem: dict, *, seed, resume: bool, executor, budget: int,
             bounded: bool, description: str, progress: bool):
    """The run record (``None`` without ``record``), the executor (inline if ``None``, closed at the
    end) and the progress bar of one identification run, as a tuple; a record that already holds
    evaluations needs ``resume``."""
    if resume and record is None:
        raise ValueError("resume=True needs the record to resume from")
    run_record = None
    if record is not None:
        run_record = RunRecord.open(record, problem, seed=seed)
        if len(run_record) and not resume:
            run_record.close()
            raise FileExistsError(f"{record} already holds {len(run_record)} evaluations; "
                                  "continue it with --resume (resume=True in Python), or use a new run folder")
    own_executor = executor is None
    executor = make_executor(1) if own_executor else executor
    bar = tqdm(total=budget if bounded else None, disable=not progress, unit="eval", desc=description)
    try:
        yield run_record, executor, bar
    finally:
        bar.close()
        if run_record is not None:
            run_record.close()
        if own_executor:
            executor.close()
