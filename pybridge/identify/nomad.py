"""NOMAD (MADS, the reference implementation; PyPI ``pynomadbbo``) as an identification engine.

NOMAD proposes points in the normalised box [0, 1]^N; they are evaluated through the project's
executor in blocks of ``BB_MAX_BLOCK_SIZE`` = the executor's workers (``block_size`` sets another), so
one block fills every worker. The workers wait while NOMAD computes its next points (its quadratic models
above all) and while a block's slower point finishes: on the van with 2 workers these take 60-66 % and
28-37 % of the workers' idle time (benchmarks/identify_pool.py). Blocks of 4 keep the workers busier
(busy share 0.91 of a plain pool's against 0.87) but change NOMAD's path: on the demo they reached the
same fitness within 1.2e-4 yet stopped on ``min_frame`` after 386 evaluations instead of 275
(results/identify_pool_blocks.json), so the default stays one point per worker. An objective on lanes
(pybridge.identify.lane_batch) gets blocks of workers x lanes, each worker's chunk on the lane model, and
``LANE_OPTIONS`` (2N poll directions, 3 speculative points: ``lane_options``) unless the user's lines set
them. A lane run costs the same whether it fills 5 lanes or 8, so the time to the stop follows the number of
blocks: on the demo (RK4 at 10 ms, 8 lanes, 400 evaluations) 42 blocks of 9-11 points with NOMAD's defaults,
30 blocks of 12-16 with LANE_OPTIONS (fitness 0.380731 against 0.380512; lanes off: 151 blocks of 2, stop on
min_frame after 288 evaluations at 0.380714; results/identify_lanes_blocks.json).
By default ``MEGA_SEARCH_POLL`` is on: NOMAD then merges its search points (quadratic model, speculative,
Nelder-Mead) into the poll's block instead of submitting them one at a time, which leaves a worker
idle (measured on a 4-parameter analytic problem with 2 workers: 84-88 % of blocks held one point
with NOMAD's defaults, 6-11 % with ``MEGA_SEARCH_POLL``, at similar best fitness after 100
evaluations).

Points are snapped to the grid of ``pybridge.identify.evaluations``, cached, counted against the
budget and appended to the run record like the pattern search's. NOMAD is deterministic given its
seed and the answers it gets, so ``resume=True`` re-runs it and answers every point the record holds
from the record: a killed run reaches the same state and only evaluates the points the record lacks.
A failed evaluation (an error, a failed or diverged manoeuvre, a non-finite fitness) is reported to
NOMAD as failed by its own mechanism (the callback answers 0/False for the point and gives it no
output), never as a value; a start point that fails stops the run before NOMAD starts
(``StartPointFailed``). NOMAD runs in a child process that only proposes points: the evaluations,
the record and Ctrl-C stay in this process, whatever NOMAD does with signals, and a NOMAD that
throws or dies (a signal) ends the run with ``OptimizerFailed`` and a record that resumes. The
``nomad_options`` lines are checked first (``pybridge.identify.nomad_options``).
"""
from __future__ import annotations

import faulthandler
import importlib.util
import logging
import math
import multiprocessing
import os
import signal
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from pybridge.identify.bounds import box, start_point
from pybridge.identify.evaluations import Evaluations, open_run, snap
from pybridge.identify.nomad_options import check_nomad_options
from pybridge.identify.result import IdentificationResult
from pybridge.workers import ignore_interrupts, worker_start

__all__ = ["LANE_OPTIONS", "OptimizerFailed", "lane_options", "nomad_search"]

log = logging.getLogger(__name__)

# With lanes a block of up to workers x lanes points costs about what a block of a few costs, so the time to the
# stop follows the number of blocks: on the demo (3.5 t van, 400 evaluations, 8 lanes) 42 blocks of 9-11 points
# with NOMAD's defaults, 30 blocks of 12-16 with these (benchmarks/identify_lanes.py, results/identify_lanes.json).
LANE_OPTIONS = ("DIRECTION_TYPE ORTHO 2N", "SPECULATIVE_SEARCH_MAX 3")


class OptimizerFailed(RuntimeError):
    """NOMAD stopped with an error of its own, or its process died (e.g. by a signal); the record keeps
    every evaluation made, so the run resumes."""


def _require_nomad() -> None:
    if importlib.util.find_spec("PyNomad") is None:
        raise ImportError("method 'nomad' needs NOMAD's Python interface; install it with "
                          "`pip install pynomadbbo`")


def _nomad_process(conn, parent: int, output, x0: list, lower: list, upper: list, parameters: list,
                   seed: int) -> None:
    """The child process NOMAD runs in: each block NOMAD asks for goes to the parent as coordinates, and
    the answers (a fitness, or None for a failed evaluation) come back; NOMAD is told a failure by its
    own mechanism, the callback's 0/False for that point. Sends ("done", stop reason) or ("error", text)."""
    worker_start(parent, ignore_interrupts)   # dies with the parent, leaves Ctrl-C to it
    os.dup2(output.fileno(), 1)   # what NOMAD prints goes to the parent's message, not the terminal
    os.dup2(output.fileno(), 2)
    faulthandler.disable()        # a crash of NOMAD is the parent's one line, not a Python stack dump
    try:
        import PyNomad

        def blackbox(block):
            single = not hasattr(block, "get_x")  # BB_MAX_BLOCK_SIZE 1: one point, answered 1 or 0
            points = [block] if single else [block.get_x(k) for k in range(block.size())]
            conn.send(("block", [[p.get_coord(i) for i in range(p.size())] for p in points]))
            answers = conn.recv()
            for point, value in zip(points, answers):
                if value is not None:
                    point.setBBO(repr(float(value)).encode("ascii"))
            ok = [value is not None for value in answers]
            return int(ok[0]) if single else ok

        PyNomad.setSeed(seed)
        outcome = PyNomad.optimize(blackbox, x0, lower, upper, parameters)
        conn.send(("done", str(outcome.get("stop_reason", ""))))
    except BaseException as error:  # NOMAD's own exceptions: one line for the parent
        conn.send(("error", f"{type(error).__name__}: {error}"))
    finally:
        conn.close()


class _Blackbox:
    """The parent's side: evaluates a block of NOMAD's points through ``Evaluations`` and keeps the
    incumbent; a failed point is answered None."""

    def __init__(self, evaluate: Evaluations, note):
        self.evaluate, self.note = evaluate, note
        self.best_u, self.best = None, math.inf

    def __call__(self, coordinates: list[list[float]]) -> list[float | None]:
        us = [snap(c) for c in coordinates]
        values = self.evaluate(us)
        answers = []
        for u, value in zip(us, values):
            good = value is not None and math.isfinite(value)
            if good and value < self.best:
                self.best_u, self.best = u, value
            answers.append(float(value) if good else None)
        self.note()
        return answers

    def answered(self) -> None:
        """NOMAD has the block's answers: fsync its record lines while NOMAD computes the next points."""
        if self.evaluate.record is not None:
            self.evaluate.record.sync()


def _died(process, output) -> str:
    process.join(5)
    code = process.exitcode
    said = [line.strip() for line in _printed(output).splitlines() if line.strip()]
    last = f" after printing: {said[-1]}" if said else ""
    if code is not None and code < 0:
        return f"NOMAD's process was ended by {signal.Signals(-code).name}{last}"
    return f"NOMAD's process ended without an answer (exit code {code}){last}"


def _printed(output) -> str:
    output.seek(0)
    return output.read()[-4000:].decode("utf-8", "replace")


def _not_set_by(lines: Sequence[str], options: Sequence[str]) -> list[str]:
    """Those of the NOMAD parameter ``lines`` whose parameter none of ``options`` sets."""
    given = {line.split()[0].upper() for line in options if line.split()}
    return [line for line in lines if line.split()[0].upper() not in given]


def lane_options(options: Sequence[str]) -> list[str]:
    """The NOMAD lines that fill blocks of workers x lanes (those of ``LANE_OPTIONS`` the user's ``options`` do
    not set): 2N poll directions and 3 speculative points put 12-16 points in an iteration instead of 9-11."""
    return _not_set_by(LANE_OPTIONS, options)


def _run_nomad(blackbox: _Blackbox, x0: list, n: int, parameters: list[str], seed: int) -> str:
    """NOMAD in a child process (its crashes and its signal handling stay there), driven from here: the
    stop reason; OptimizerFailed when NOMAD failed or died. Ctrl-C here stops the child too."""
    context = multiprocessing.get_context("fork")
    mine, theirs = context.Pipe()
    with tempfile.TemporaryFile() as output:
        process = context.Process(target=_nomad_process, daemon=True, name="nomad",
                                  args=(theirs, os.getpid(), output, x0, [0.0] * n, [1.0] * n, parameters, seed))
        process.start()
        theirs.close()
        try:
            while True:
                try:
                    kind, payload = mine.recv()
                except (EOFError, ConnectionError):
                    raise OptimizerFailed(_died(process, output)) from None
                if kind == "block":
                    mine.send(blackbox(payload))
                    blackbox.answered()
                elif kind == "done":
                    return payload
                else:
                    raise OptimizerFailed(f"NOMAD failed: {payload}")
        finally:
            mine.close()
            if process.is_alive():
                process.kill()
            process.join()


def nomad_search(objective: Callable[[dict], float], bounds: Mapping[str, tuple[float, float]],
                 x0: Mapping[str, float] | None = None, *, max_evaluations: int | None = None,
                 max_time: float | None = None, min_frame: float | None = None, fill_blocks: bool = True,
                 block_size: int | None = None, nomad_options: Sequence[str] = (),
                 executor=None, record: str | Path | None = None, resume: bool = False, seed: int = 0,
                 progress: bool = True, description: Mapping | None = None) -> IdentificationResult:
    """Minimise ``objective(parameters)`` over the box ``bounds`` with NOMAD (see the module).

    ``x0`` defaults to the centre of the box; ``max_evaluations`` (distinct points) defaults to 2000·N;
    ``max_time`` is NOMAD's MAX_TIME in s; ``min_frame`` stops when NOMAD's frame (its poll size) is below
    this fraction of every parameter's range (MIN_FRAME_SIZE in the normalised box), as the pattern
    search's ``min_mesh`` does; ``fill_blocks`` turns on MEGA_SEARCH_POLL; ``block_size`` is the
    number of points NOMAD hands over at once (default: the executor's workers, times the objective's
    ``lanes`` when it evaluates several points per call, pybridge.identify.lane_batch); ``nomad_options``
    are further NOMAD parameter lines (e.g. ``"DIRECTION_TYPE ORTHO 2N"``); ``executor``, ``record``,
    ``resume``, ``seed``, ``progress`` and ``description`` are as for ``pattern_search``.
    """
    _require_nomad()
    names, lo, hi = box(bounds)
    n = len(names)
    u0 = np.full(n, 0.5) if x0 is None else (start_point(x0, names, lo, hi) - lo) / (hi - lo)
    budget = 2000 * n if max_evaluations is None else int(max_evaluations)
    if budget < 1:
        raise ValueError("max_evaluations must be >= 1")
    if min_frame is not None and not 0 < min_frame < 1:
        raise ValueError(f"min_frame must be a fraction of the range in (0, 1), got {min_frame!r}")
    if max_time is not None and not (isinstance(max_time, (int, float)) and math.isfinite(max_time) and max_time > 0):
        raise ValueError(f"max_time must be a number of seconds > 0, got {max_time!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer for NOMAD, got {seed!r}")
    if block_size is not None and (isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1):
        raise ValueError(f"block_size must be a whole number >= 1, got {block_size!r}")
    options = check_nomad_options(nomad_options)
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
        parameters = ["BB_OUTPUT_TYPE OBJ", f"MAX_BB_EVAL {budget}", f"BB_MAX_BLOCK_SIZE {block_size or executor.workers * getattr(objective, 'lanes', 1)}",
                      "DISPLAY_DEGREE 0", f"SEED {seed}", "NB_THREADS_PARALLEL_EVAL 1"]
        if fill_blocks:
            parameters.append("MEGA_SEARCH_POLL true")
        added = lane_options(options) if fill_blocks and getattr(objective, "lanes", 1) > 1 else []
        # on one parameter NOMAD 4's default poll (ORTHO N+1 QUAD) dies after a failed point (SIGSEGV,
        # "ArrayOfDouble: Array is not defined"; tests/test_nomad.py); ORTHO 2N polls the same two directions
        if n == 1:
            parameters += _not_set_by(["DIRECTION_TYPE ORTHO 2N"], [*added, *options])
        if max_time is not None:
            parameters.append(f"MAX_TIME {max(1, math.ceil(max_time))}")
        if min_frame is not None:
            parameters.append(f"MIN_FRAME_SIZE * {float(min_frame)!r}")
        blackbox.best = evaluate.check_start(u0)
        blackbox.best_u = snap(u0)
        evaluate.sync_later = True   # from here NOMAD's turns cover the fsyncs (_Blackbox.answered)
        stop_reason = _run_nomad(blackbox, [float(v) for v in snap(u0)], n, parameters + added + options, seed)
    stopped = ("max_evaluations reached" if evaluate.count >= budget
               else "frame size below min_frame" if "Min frame size" in stop_reason else stop_reason)
    log.info("NOMAD stopped: %s; fitness %.6g after %d evaluations", stopped, blackbox.best, evaluate.count)
    return IdentificationResult(
        method="nomad", parameters=evaluate.physical(blackbox.best_u), fitness=blackbox.best,
        evaluations=evaluate.count, iterations=len(history), history=history, stopped_because=stopped,
        wall_time=time.monotonic() - start, record_path=None if record is None else Path(record),
        extra={"normalised": dict(zip(names, blackbox.best_u.tolist())), "nomad_stop_reason": stop_reason,
               "lane_options": added,
               **evaluate.stats()})
