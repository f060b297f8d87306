"""Identification's evaluations on lanes: several candidate points of a VehicleProblem in one call.

``lane_objective(problem, output)`` is the objective an engine evaluates, a ``LaneObjective``: for one
point ``problem.evaluate`` (output ``result``), ``problem.fitness`` (``fitness``) or ``problem.index_errors``
(``indices``), and where the FMU's lane model builds (a native FMU with its lane C, gcc, libmvec, AVX2)
``batch(points)`` runs the points' manoeuvres LANES at a time (pybridge.simulate.lane_scenarios).
Each point's outcome is the scalar path's to round-off; a manoeuvre whose lane failed, or that an end
condition cut short of the objective's minimum span, runs again on the scalar path, which says why it
failed or checks for a divergence behind the end condition as it always does. Where lanes cannot be used
its ``lanes`` is 1 (every point on the scalar path); where lanes were asked for by number, a warning says why,
once per process (``auto`` falls back quietly; the run's result.yaml records the lanes used).
``$PYBRIDGE_LANES``: ``off``, ``4`` (AVX2), ``8`` (AVX-512) or ``auto`` (default: 8 where the CPU has
AVX-512, else 4 where it has AVX2); an 8-lane objective runs a chunk of 3-4 points at 4 lanes and
one point on the scalar path (``chunk_width``), its idle lanes filled with repeats (``padded``). Engines get the points through ``pybridge.identify.executor.map_batched``
(``Evaluations`` does it), which hands each worker a chunk. On the van (RK4 at 10 ms, thread CPU, load 3.8,
benchmarks/lane_chunk_cost.py, results/lane_chunk_cost_s38.json) a chunk of 8 points on 8 lanes costs 2.41 scalar
evaluations (lane run 1.93, Python 0.48), one of 5-6 points (3 or 2 repeats) 2.2-2.35, one of 3-4 on 4 lanes 1.45,
two points on the scalar path 2.05-2.11.
"""
from __future__ import annotations

import os
import warnings
from pathlib import Path

from pybridge.identify.executor import _call
from pybridge.identify.problem import VehicleProblem, _succeeded, native_build

__all__ = ["LANES_ENV", "LaneObjective", "StageFitness", "chunk_width", "lane_objective", "padded"]

LANES_ENV = "PYBRIDGE_LANES"
OUTPUTS = ("result", "fitness", "indices")
LANE_INTEGRATORS = ("RK4", "AB2")   # what pybridge/simulate/native/lane_runner.c steps
SCALAR_UP_TO = 1                   # a chunk of this many points or fewer is cheaper on the scalar path
_SESSIONS: dict[tuple, object] = {}     # one LaneSession per process, FMU and width
_WARNED: set[str] = set()


def _lane_session(fmu: Path, lanes: int):
    from pybridge.simulate.lanes import LaneSession

    key = (str(fmu), lanes)
    if key not in _SESSIONS:
        _SESSIONS[key] = LaneSession(fmu, lanes=lanes)
    return _SESSIONS[key]


class LaneObjective:
    """``problem``'s objective (``output``, under ``weights``) for one point, and ``batch`` for several on
    ``lanes`` lanes (1: lanes unavailable, ``batch`` evaluates point by point on the scalar path)."""

    def __init__(self, problem: VehicleProblem, output: str = "result", weights: dict | None = None, lanes: int = 4):
        if output not in OUTPUTS:
            raise ValueError(f"output = {output!r}; expected one of {', '.join(OUTPUTS)}")
        self.problem, self.output, self.weights, self.lanes = problem, output, weights, lanes

    def _shape(self, result):
        if self.output == "result":
            return result
        result = _succeeded(result)
        return result.value if self.output == "fitness" else \
            {f"{m}/{n}": s.error for (m, n), s in result.per_index.items()}

    def __call__(self, values: dict[str, float]):
        return self._shape(self.problem.evaluate(values, self.weights))

    def batch(self, items: list[dict[str, float]]) -> list:
        """The outcome of each point (its exception where it raised), the manoeuvres run on lanes."""
        return self.scored(items, self, lambda objective, traces: self._shape(objective.fitness(traces)))

    def scored(self, items: list[dict[str, float]], one, score) -> list:
        """Each point's outcome (its exception where it raised): ``one(values)`` point by point where the chunk
        is cheaper on the scalar path (``chunk_width``), else ``score(objective, traces)`` of its lane run."""
        if chunk_width(len(items), self.lanes) < 2:
            return [_call(one, values) for values in items]
        objective, traces = self.traces(items)
        return [_call(lambda t: score(objective, t), t) for t in traces]

    def traces(self, items: list[dict[str, float]]) -> tuple:
        """(the objective, each point's traces of its manoeuvres), run on lanes (``chunk_width`` of the points)."""
        from pybridge.simulate.lane_scenarios import run_scenario_lanes

        width = chunk_width(len(items), self.lanes)
        problem = self.problem
        session = _lane_session(problem.fmu, width)
        objective = problem.objective_for(self.weights)
        candidates = [problem.candidate(values) for values in items]
        traces: list[dict] = [{} for _ in items]
        probes: dict = {}    # the PI's feed-forward probes, shared by the manoeuvres of one initial speed
        for manoeuvre in objective.weights:
            scenario = problem._scenario(manoeuvre, objective)
            try:
                lane_traces = run_scenario_lanes(session, scenario, padded(candidates, width),
                                                 problem.resolve, probes)[:len(items)]
            except Exception:   # the scalar path raises it again, per point, in its own words
                lane_traces = [None] * len(items)
            span = problem.min_span(manoeuvre, objective)
            for k, trace in enumerate(lane_traces):
                stopped = None if trace is None else trace.attrs.get("stopped_at")
                if trace is None or (stopped is not None and scenario.end and stopped < span):
                    trace = problem.run_manoeuvre(manoeuvre, candidates[k], objective)
                traces[k][manoeuvre] = trace
        return objective, traces


class StageFitness:
    """``run_stages``' evaluate_fitness on lanes: a stage's fitness (its weights, its manoeuvres) for one point
    as ``VehicleProblem.stage_fitness`` gives it, and ``batch`` of several run ``lanes`` wide."""

    def __init__(self, problem: VehicleProblem, lanes: int):
        self.problem, self.lanes = problem, lanes

    def __call__(self, values: dict[str, float], stage) -> float:
        return self.problem.stage_fitness(values, stage)

    def batch(self, items: list[dict[str, float]], stage) -> list:
        return LaneObjective(self.problem, "fitness", stage.weights or None, self.lanes).batch(items)


def chunk_width(points: int, lanes: int) -> int:
    """The lane width a chunk of ``points`` runs at on a ``lanes``-wide objective (1: the scalar path). A lane run
    costs its full width whatever lanes it fills (van, RK4 at 10 ms, thread CPU, load 1.0: 8 lanes 1.9 and
    4 lanes 1.2 scalar evaluations of C, plus 0.06 of Python per point), so one point goes the scalar way,
    2-4 points of an 8-lane objective run at 4 lanes (2 points: 1.45 against 2.05-2.11 scalar evaluations)."""
    if points <= SCALAR_UP_TO or lanes < 2:
        return 1
    return 4 if lanes == 8 and points <= 4 else lanes


def padded(candidates: list, width: int) -> list:
    """``candidates`` repeated up to a whole number of lane groups of ``width``: a group with idle lanes cost more
    than a full one (van, 8 lanes, thread CPU: 5-7 points 347-363 ms of lane run, 8 points 255 ms, the same 5
    with 3 repeated 255 ms); the repeats' traces are dropped."""
    return candidates + [candidates[k % len(candidates)] for k in range(-len(candidates) % width)]


def _integrator(fmu: Path) -> str | None:
    """The integrator a native FMU's VendorAnnotations name (None: not a native build, or unreadable)."""
    build = native_build(fmu)
    return None if build is None else build.get("integrator")


def _width(choice: str) -> int | None:
    if choice == "auto":
        from pybridge.simulate.lanes import cpu_flags

        flags = cpu_flags()
        return 8 if "avx512f" in flags else 4 if "avx2" in flags else None
    if choice in ("4", "8"):
        return int(choice)
    raise ValueError(f"${LANES_ENV} = {choice!r}: expected off, auto, 4 or 8")


def _say_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def lane_objective(problem: VehicleProblem, output: str = "result", weights: dict | None = None,
                   lanes: str | int | None = None):
    """The objective of ``problem`` for an engine: a LaneObjective where lanes work here, else the scalar one
    (saying why once). ``lanes``: off, auto, 4 or 8 (default $PYBRIDGE_LANES, else auto)."""
    from pybridge.simulate.fmu import FMUSessionError
    from pybridge.simulate.native_runner import NativeRunnerError

    choice = str(lanes if lanes is not None else os.environ.get(LANES_ENV) or "auto").lower()
    if choice == "off":
        return LaneObjective(problem, output, weights, lanes=1)
    width = _width(choice)
    say = _say_once if choice != "auto" else (lambda message: None)   # auto falls back quietly (result.yaml: lanes)
    if width is None:
        say("lanes: this CPU has no AVX2; identification evaluates one vehicle per call")
        return LaneObjective(problem, output, weights, lanes=1)
    integrator = _integrator(problem.fmu)
    if integrator not in LANE_INTEGRATORS:
        say(f"lanes: {problem.fmu.name} is {'an ' + integrator + ' build' if integrator else 'not a native build'}"
                  f"; the lane runner steps {' and '.join(LANE_INTEGRATORS)} builds (fmu-build --integrator rk4), "
                  "so identification evaluates one vehicle per call")
        return LaneObjective(problem, output, weights, lanes=1)
    try:
        _lane_session(problem.fmu, width)    # compiles the lane library into the build cache once
        if width == 8:
            _lane_session(problem.fmu, 4)    # and the 4-lane one that chunks of 3-4 points run on
    except (NativeRunnerError, FMUSessionError, OSError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        say(f"lanes unavailable, identification evaluates one vehicle per call: {first}")
        return LaneObjective(problem, output, weights, lanes=1)
    return LaneObjective(problem, output, weights, width)
