"""NOMAD (MADS, the reference implementation; PyPI ``pynomadbbo``) as an identification engine.

NOMAD proposes points in the normalised box [0, 1]^N; they are evaluated through the project's
executor in blocks of ``BB_MAX_BLOCK_SIZE`` = the executor's workers, so one block fills every worker.
By default ``MEGA_SEARCH_POLL`` is on: NOMAD then merges its search points (quadratic model, speculative,
Nelder-Mead) into the poll's block instead of submitting them one at a time, which leaves a worker
idle (measured on a 4-parameter analytic problem with 2 workers: 84-88 % of blocks held one point
with NOMAD's defaults, 6-11 % with ``MEGA_SEARCH_POLL``, at similar best fitness after 100
evaluations).

Points are snapped to the grid of ``pybridge.identify.evaluations``, cached, counted against the
budget and appended to the run record like the pattern search's. NOMAD is deterministic given its
seed and the answers it gets, so ``resume=True`` re-runs it and answers every point the record holds
from the record: a killed run reaches the same state and only evaluates the points the record lacks.
A failed evaluation (an error or a non-finite fitness) is reported to NOMAD as a failed evaluation.
"""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from pybridge.identify.bounds import box, start_point
from pybridge.identify.evaluations import Evaluations, open_run, snap
from pybridge.identify.result import IdentificationResult

__all__ = ["nomad_search"]

log = logging.getLogger(__name__)


def _import_nomad():
    try:
        import PyNomad
    except ImportError as error:
        raise ImportError("method 'nomad' needs NOMAD's Python interface; install it with "
                          "`pip install pynomadbbo`") from error
    return PyNomad


class _Blackbox:
    """NOMAD's block callback: evaluates a block through ``Evaluations`` and keeps the incumbent. An
    exception (e.g. Ctrl-C) is kept and every later block is answered as failed without evaluating,
    so NOMAD ends quickly and the exception is raised again after it returns."""

    def __init__(self, evaluate: Evaluations, note):
        self.evaluate, self.note = evaluate, note
        self.best_u, self.best = None, math.inf
        self.error: BaseException | None = None

    def __call__(self, block) -> list[bool] | int:
        if not hasattr(block, "get_x"):  # BB_MAX_BLOCK_SIZE 1: NOMAD passes one point, wants 1 or 0
            return int(self._points([block])[0])
        return self._points([block.get_x(k) for k in range(block.size())])

    def _points(self, points) -> list[bool]:
        size = len(points)
        if self.error is not None:
            return [False] * size
        try:
            us = [snap([p.get_coord(i) for i in range(p.size())]) for p in points]
            values = self.evaluate(us)
            ok = []
            for point, u, value in zip(points, us, values):
                good = value is not None and math.isfinite(value)
                if good:
                    point.setBBO(repr(float(value)).encode("ascii"))
                    if value < self.best:
                        self.best_u, self.best = u, value
                ok.append(good)
            self.note()
            return ok
        except BaseException as error:  # NOMAD would only print it; re-raised after optimize returns
            self.error = error
            return [False] * size


def nomad_search(objective: Callable[[dict], float], bounds: Mapping[str, tuple[float, float]],
                 x0: Mapping[str, float] | None = None, *, max_evaluations: int | None = None,
                 max_time: float | None = None, min_frame: float | None = None, fill_blocks: bool = True,
                 nomad_options: Sequence[str] = (),
                 executor=None, record: str | Path | None = None, resume: bool = False, seed: int = 0,
                 progress: bool = True, description: Mapping | None = None) -> IdentificationResult:
    """Minimise ``objective(parameters)`` over the box ``bounds`` with NOMAD (see the module).

    ``x0`` defaults to the centre of the box; ``max_evaluations`` (distinct points) defaults to 2000·N;
    ``max_time`` is NOMAD's MAX_TIME in s; ``min_frame`` stops when NOMAD's frame (its poll size) is below
    this fraction of every parameter's range (MIN_FRAME_SIZE in the normalised box), as the pattern
    search's ``min_mesh`` does; ``fill_blocks`` turns on MEGA_SEARCH_POLL; ``nomad_options``
    are further NOMAD parameter lines (e.g. ``"DIRECTION_TYPE ORTHO 2N"``); ``executor``, ``record``,
    ``resume``, ``seed``, ``progress`` and ``description`` are as for ``pattern_search``.
    """
    nomad = _import_nomad()
    names, lo, hi = box(bounds)
    n = len(names)
    u0 = np.full(n, 0.5) if x0 is None else (start_point(x0, names, lo, hi) - lo) / (hi - lo)
    budget = 2000 * n if max_evaluations is None else int(max_evaluations)
    if budget < 1:
        raise ValueError("max_evaluations must be >= 1")
    if min_frame is not None and not 0 < min_frame < 1:
        raise ValueError(f"min_frame must be a fraction of the range in (0, 1), got {min_frame!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer for NOMAD, got {seed!r}")
    options = [str(line) for line in nomad_options]
    problem = {"method": "nomad", "x0": [float(v) for v in u0],
               "bounds": {k: [float(l), float(h)] for k, l, h in zip(names, lo, hi)},
               "fill_blocks": bool(fill_blocks), "min_frame": min_frame, "nomad_options": options,
               "description": description}
    start = time.monotonic()
    with open_run(record, problem, seed=seed, resume=resume, executor=executor, budget=budget,
                  bounded=max_evaluations is not None, description="NOMAD", progress=progress) as (
            run_record, executor, bar):
        evaluate = Evaluations(objective, names, lo, hi, executor, run_record, budget, bar)
        history = []

        def note():
            history.append({"iteration": len(history), "evaluations": evaluate.count, "fitness": blackbox.best,
                            "mesh": None, "time": time.monotonic() - start})
            bar.set_postfix(best=f"{blackbox.best:.5g}", refresh=False)

        blackbox = _Blackbox(evaluate, note)
        parameters = ["BB_OUTPUT_TYPE OBJ", f"MAX_BB_EVAL {budget}", f"BB_MAX_BLOCK_SIZE {executor.workers}",
                      "DISPLAY_DEGREE 0", f"SEED {seed}", "NB_THREADS_PARALLEL_EVAL 1"]
        if fill_blocks:
            parameters.append("MEGA_SEARCH_POLL true")
        if max_time is not None:
            parameters.append(f"MAX_TIME {max(1, math.ceil(max_time))}")
        if min_frame is not None:
            parameters.append(f"MIN_FRAME_SIZE * {float(min_frame)!r}")
        nomad.setSeed(seed)
        outcome = nomad.optimize(blackbox, [float(v) for v in snap(u0)], [0.0] * n, [1.0] * n,
                                 parameters + options)
    if blackbox.error is not None:
        raise blackbox.error
    if blackbox.best_u is None:
        raise RuntimeError(f"NOMAD evaluated no point successfully ({outcome.get('stop_reason', '')})")
    stopped = ("max_evaluations reached" if evaluate.count >= budget
               else "frame size below min_frame" if "Min frame size" in outcome.get("stop_reason", "")
               else outcome.get("stop_reason", ""))
    log.info("NOMAD stopped: %s; fitness %.6g after %d evaluations", stopped, blackbox.best, evaluate.count)
    return IdentificationResult(
        method="nomad", parameters=evaluate.physical(blackbox.best_u), fitness=blackbox.best,
        evaluations=evaluate.count, iterations=len(history), history=history, stopped_because=stopped,
        wall_time=time.monotonic() - start, record_path=None if record is None else Path(record),
        extra={"normalised": dict(zip(names, blackbox.best_u.tolist())), "nomad_stop_reason":
               outcome.get("stop_reason", ""), **evaluate.stats()})
