"""Pattern search over bounded parameters: GPS (2N or N+1 positive basis) and MADS.

Parameters are normalised to u = (x - lo) / (hi - lo) in [0, 1]. Each iteration polls the incumbent
at u + Δm·d for the directions d of a positive spanning set, projected onto the box (so an optimum on
a bound is reached exactly). A poll that improves the fitness moves the incumbent and multiplies the
poll size by ``expansion`` (at most 1); a poll that does not multiplies it by ``contraction``.

- ``gps2n``: d = ±e_i;  ``gpsnp1``: d = e_i and -(1, ..., 1);  the mesh size Δm is the poll size Δp.
- ``mads``: 2N directions ±columns of a random orthogonal matrix (a new one each iteration, from the
  seeded RNG), scaled to poll size Δp in the max-norm and rounded onto the mesh of size Δm = Δp²
  (so Δm starts at ``initial_mesh`` and Δp at its square root).
- Near a bound (within Δp) the coordinate directions ±e_i join the poll, so that the poll set
  conforms to the box and the N+1 basis and MADS do not stall on an active bound.

The search stops when Δm < ``min_mesh``, after ``max_evaluations`` distinct points or ``max_time``
seconds. After a successful poll the next poll also tries one more step the same way (``speculative``,
as NOMAD does). ``model_search`` first tries the minimiser of a quadratic fitted to the evaluations
already made (``pybridge.identify.quadratic``), rounded onto the mesh; ``chunked_poll`` orders the poll
by the last successful step and evaluates it ``workers`` points at a time, stopping at the first chunk
that improves (else every poll is one batch for the executor). Without ``chunked_poll``, a complete poll takes the best improving point,
an opportunistic one the first improving point in poll order, so the result does not depend on the
number of workers. Points are snapped to a grid of 2⁻⁴⁵ so that cache keys are exact; no point is
evaluated twice. With a ``record`` every evaluation is appended to a run record, and ``resume=True``
replays a killed run through it: the run is deterministic given the seed, so it reaches the same
state and only evaluates the points the record lacks.
"""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from pybridge.identify.bounds import box, start_point
from pybridge.identify.evaluations import GRID, Evaluations, open_run
from pybridge.identify.evaluations import snap as _snap
from pybridge.identify.quadratic import model_point
from pybridge.identify.result import IdentificationResult

__all__ = ["GRID", "POLLS", "pattern_search"]

POLLS = ("gps2n", "gpsnp1", "mads")
MODEL_REFINEMENT = 64  # the model step lands on a lattice this much finer than the poll mesh
log = logging.getLogger(__name__)


def _directions(poll: str, u: np.ndarray, poll_size: float, mesh: float, rng: np.random.Generator) -> np.ndarray:
    """Poll directions (rows) in units of the mesh size; within ``poll_size`` of a bound the coordinate
    directions ±e_i are added, so the poll set conforms to the box (it then spans its tangent cone)."""
    n, steps = len(u), round(poll_size / mesh)
    if poll == "gps2n":
        rows = np.vstack([np.eye(n), -np.eye(n)])
    elif poll == "gpsnp1":
        rows = np.vstack([np.eye(n), -np.ones((1, n))])
    else:
        q, r = np.linalg.qr(rng.standard_normal((n, n)))
        rows = (q * np.sign(np.diag(r))).T
        rows = np.vstack([rows, -rows])
        rows = np.round(rows / np.abs(rows).max(axis=1, keepdims=True) * steps)
    if poll != "gps2n" and (np.any(u < poll_size) or np.any(u > 1.0 - poll_size)):
        rows = np.vstack([rows, np.eye(n) * steps, -np.eye(n) * steps])
    return rows


def _latin_hypercube(count: int, n: int, rng: np.random.Generator) -> np.ndarray:
    strata = np.array([rng.permutation(count) for _ in range(n)]).T
    return (strata + rng.random((count, n))) / count


def _poll(evaluate, points: list[np.ndarray], fitness: float, chunked: bool) -> tuple[list, list[int]]:
    """Fitness of the poll points (``None``: not evaluated) and the indices of those better than
    ``fitness``; ``chunked`` evaluates them in chunks of the executor's workers up to the first
    chunk that holds a better point."""
    if not chunked:
        values = evaluate(points)
    else:
        width = max(1, getattr(evaluate.executor, "workers", 1))
        values = []
        for begin in range(0, len(points), width):
            values += evaluate(points[begin:begin + width])
            if any(v is not None and v < fitness for v in values):
                break
        values += [None] * (len(points) - len(values))
    return values, [i for i, v in enumerate(values) if v is not None and v < fitness]


def _check_options(poll: str, search, expansion: float, contraction: float, initial_mesh: float,
                   min_mesh: float) -> None:
    """ValueError naming the first option of :func:`pattern_search` out of its range."""
    if poll not in POLLS:
        raise ValueError(f"poll must be one of {POLLS}, got {poll!r}")
    if not (expansion >= 1.0 and 0.0 < contraction < 1.0 and 0.0 < initial_mesh <= 1.0):
        raise ValueError("need expansion >= 1, 0 < contraction < 1 and 0 < initial_mesh <= 1")
    if min_mesh < 1024 * GRID:
        raise ValueError(f"min_mesh must be >= {1024 * GRID:.3g} (points are snapped to a grid of {GRID:.3g})")
    if not (search is None or search == "lhs" or (isinstance(search, int) and search > 0)):
        raise ValueError(f"search must be None, 'lhs' or a positive number of points, got {search!r}")


def _stop_reason(mesh_below_min: bool, budget_spent: bool, time_up: bool) -> str:
    """Why the search stops now ('' to go on), the first of mesh, evaluations, time."""
    if mesh_below_min:
        return "mesh size below min_mesh"
    if budget_spent:
        return "max_evaluations reached"
    return "max_time reached" if time_up else ""


def _first_points(u: np.ndarray, mesh: float, search, rng: np.random.Generator) -> list[np.ndarray]:
    """The start point, then (``search``) a Latin hypercube of points snapped to the mesh around it."""
    points = [u]
    if search is not None:
        count = 10 * len(u) if search == "lhs" else search
        for p in _latin_hypercube(count, len(u), rng):
            points.append(_snap(u + mesh * np.round((p - u) / mesh)))
    return points


def _limits(max_evaluations: int | None, max_time: float | None, n: int) -> tuple[int, float]:
    """(evaluation budget, time limit in s) of the run; ValueError for a budget below 1 or a time that is
    not a number of seconds > 0."""
    budget = 2000 * n if max_evaluations is None else int(max_evaluations)
    if budget < 1:
        raise ValueError("max_evaluations must be >= 1")
    if max_time is not None and not (isinstance(max_time, (int, float)) and math.isfinite(max_time) and max_time > 0):
        raise ValueError(f"max_time must be a number of seconds > 0, got {max_time!r}")
    return budget, math.inf if max_time is None else float(max_time)


def pattern_search(objective: Callable[[dict], float], bounds: Mapping[str, tuple[float, float]],
                   x0: Mapping[str, float] | None = None, *, poll: str = "gps2n", complete_poll: bool = False,
                   search: str | int | None = None, speculative: bool = True, model_search: bool = False,
                   chunked_poll: bool = False, expansion: float = 2.0,
                   contraction: float = 0.5, initial_mesh: float = 0.25, min_mesh: float = 1e-6,
                   max_evaluations: int | None = None, max_time: float | None = None, executor=None,
                   record: str | Path | None = None, resume: bool = False, seed: int = 0,
                   progress: bool = True, description: Mapping | None = None) -> IdentificationResult:
    """Minimise ``objective(parameters)`` over the box ``bounds`` by pattern search (see the module).

    ``x0`` defaults to the centre of the box; ``search="lhs"`` (10·N points) or an integer adds a Latin
    hypercube of points on the mesh to the first evaluation; ``speculative`` puts, after a successful
    poll, the point one more such step on first in the next poll; ``model_search`` puts the minimiser of a
    quadratic model of the cached evaluations (``pybridge.identify.quadratic``, within the poll size)
    first; ``chunked_poll`` orders an opportunistic poll by the last successful direction and evaluates
    it in chunks of the executor's workers, stopping after the first chunk that improves; ``max_evaluations`` defaults to 2000·N;
    ``executor`` (see ``make_executor``) defaults to inline evaluation; ``record`` is a run-record path,
    whose header holds the problem (bounds, x0, options, ``description`` of the objective) and seed.
    """
    names, lo, hi = box(bounds)
    n = len(names)
    _check_options(poll, search, expansion, contraction, initial_mesh, min_mesh)
    if x0 is None:
        u0 = np.full(n, 0.5)
    else:
        u0 = (start_point(x0, names, lo, hi) - lo) / (hi - lo)
    budget, time_limit = _limits(max_evaluations, max_time, n)

    problem = {"method": "pattern_search", "x0": [float(v) for v in u0],
               "bounds": {k: [float(l), float(h)] for k, l, h in zip(names, lo, hi)},
               "poll": poll, "complete_poll": bool(complete_poll), "search": search,
               "speculative": bool(speculative), "expansion": float(expansion),
               "contraction": float(contraction), "initial_mesh": float(initial_mesh), "description": description}
    # only when on, so that records written before these options existed still resume
    problem.update({k: True for k, on in (("model_search", model_search), ("chunked_poll", chunked_poll)) if on})
    start = time.monotonic()
    with open_run(record, problem, seed=seed, resume=resume, executor=executor, budget=budget,
                  bounded=max_evaluations is not None, description=f"pattern search ({poll})",
                  progress=progress) as (run_record, executor, bar):
        rng = np.random.default_rng(seed)
        evaluate = Evaluations(objective, names, lo, hi, executor, run_record, budget, bar)
        mads = poll == "mads"
        size = math.sqrt(initial_mesh) if mads else initial_mesh
        mesh = size * size if mads else size
        u = _snap(u0)
        evaluate.check_start(u)
        points = _first_points(u, mesh, search, rng)
        values = evaluate(points)
        best = min((i for i, v in enumerate(values) if v is not None), key=lambda i: values[i])
        u, fitness = points[best], values[best]
        iteration = 0
        last_step = None
        history = []

        def note():
            history.append({"iteration": iteration, "evaluations": evaluate.count, "fitness": fitness,
                            "mesh": mesh, "poll_size": size, "time": time.monotonic() - start})
            bar.set_postfix(best=f"{fitness:.5g}", mesh=f"{mesh:.2g}", refresh=False)

        note()
        while True:
            stopped = _stop_reason(mesh < min_mesh, evaluate.count >= budget, time.monotonic() - start >= time_limit)
            if stopped:
                break
            directions = _directions(poll, u, size, mesh, rng)
            if chunked_poll and last_step is not None:
                directions = directions[np.argsort(-(directions @ last_step) / np.linalg.norm(directions, axis=1),
                                                   kind="stable")]
            points = [_snap(u + mesh * d) for d in directions]
            if speculative and last_step is not None:
                points.insert(0, _snap(u + last_step))
            if model_search:
                target = model_point(evaluate.cache, u, size)
                if target is not None:
                    fine = mesh / MODEL_REFINEMENT
                    points.insert(0, _snap(u + fine * np.round((target - u) / fine)))
            values, better = _poll(evaluate, points, fitness, chunked_poll and not complete_poll)
            if better:
                best = min(better, key=lambda i: values[i]) if complete_poll else better[0]
                last_step = points[best] - u
                u, fitness = points[best], values[best]
                size = min(size * expansion, 1.0)
            else:
                last_step = None
                if None not in values:
                    size *= contraction
            mesh = size * size if mads else size
            iteration += 1
            note()
    log.info("pattern search (%s) stopped: %s; fitness %.6g after %d evaluations",
             poll, stopped, fitness, evaluate.count)
    return IdentificationResult(
        method="pattern_search", parameters=evaluate.physical(u), fitness=fitness,
        evaluations=evaluate.count, iterations=iteration, history=history, stopped_because=stopped,
        wall_time=time.monotonic() - start, record_path=None if record is None else Path(record),
        extra={"poll": poll, "complete_poll": bool(complete_poll), "normalised": dict(zip(names, u.tolist())),
               "mesh": mesh, "poll_size": size, **evaluate.stats()})
