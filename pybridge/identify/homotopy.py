"""Homotopy optimization (SLEKQ paper, Sec. 4, Eq. 3-6) and the paper's quarter-car identification.

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

:func:`slekq_problem` is the paper's identification of the SLEKQ corner on the kinematics and
compliance rig (``VehicleRTM.QuarterCars.KCRig``): body fixed, vertical force
``F_Z = F0 + 1 kN sin(φ(t))`` at the contact patch with a linear chirp 0 -> 6 Hz, the "measurement"
being the rig with the true parameters (λ = 0), the candidate being the rig with the observer
coupling of Eq. 5 on the measured travel, velocity and acceleration, and the objective Eq. 6.
"""
from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from pybridge.identify.bounds import box, start_point
from pybridge.identify.record import RunRecord
from pybridge.identify.result import IdentificationResult

__all__ = ["DEFAULT_LAMBDAS", "DEFAULT_OPTIONS", "PAPER_NAMES", "SLEKQ_PARAMETERS", "TABLE1_GAINS",
           "SLEKQProblem", "homotopy_optimize", "nelder_mead_schedule", "slekq_problem", "suv_corner_data"]

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

    run_record = None
    if record is not None:
        problem = {"method": "homotopy", "x0": [float(v) for v in u], "lambdas": lambdas,
                   "bounds": {k: [float(l), float(h)] for k, l, h in zip(names, lo, hi)},
                   "local": local if isinstance(local, str) else getattr(local, "__name__", "callable"),
                   "options": {k: list(v) if isinstance(v, (tuple, list)) else v
                               for k, v in opts.items() if k != "local_options"},
                   "local_options": dict(opts["local_options"]), "description": description}
        run_record = RunRecord.open(record, problem)
        if len(run_record) and not resume:
            run_record.close()
            raise FileExistsError(f"{record} already holds {len(run_record)} evaluations; "
                                  "continue it with --resume (resume=True in Python), or use a new run folder")
    elif resume:
        raise ValueError("resume=True needs the record to resume from")

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


# ---------------------------------------------------------------------------------------------------
# The SLEKQ identification on the K&C rig (paper Sec. 4-5)
# ---------------------------------------------------------------------------------------------------

#: The paper's parameter names and the KCRig FMU's. k0 is the spring force at the free length; with the
#: free length computed from the design load (the paper's choice) it is not identifiable (see
#: :func:`slekq_problem`), so it is not among :data:`SLEKQ_PARAMETERS`.
PAPER_NAMES = {"m_unsp": "data.mUnsprung", "k0": "data.k0", "k1": "data.k1", "k2": "data.k2", "k3": "data.k3",
               "d1": "data.d1", "d2": "data.d2", "d3": "data.d3", "d4": "data.d4", "d5": "data.d5",
               "d6": "data.d6"}
#: The identified parameters (FMU names): unsprung mass, spring k1..k3 (Eq. 2), damper d1..d6 (Eq. 1).
SLEKQ_PARAMETERS = ("data.mUnsprung", "data.k1", "data.k2", "data.k3", "data.d1", "data.d2", "data.d3",
                    "data.d4", "data.d5", "data.d6")
#: Homotopy coupling gains (G_I, G_P, G_D) of the paper's Table 1.
TABLE1_GAINS = {"front": (0.1, 2.0, 1.0), "rear": (0.5, 1.5, 0.8)}
_SPRING = ("data.k0", "data.k1", "data.k2", "data.k3")
_EXAMPLE = "VehicleRTM.Examples.KCSweptSine"


@functools.lru_cache(maxsize=None)
def _example_rig_data(example: str) -> tuple[tuple[str, float], ...]:
    from fmu_build.variables import model_variables

    return tuple((v.name[len("rig."):], float(v.start)) for v in model_variables(example).variables
                 if v.name.startswith("rig.data.") and v.kind == "parameter" and v.start is not None)


def suv_corner_data(example: str = _EXAMPLE) -> dict[str, float]:
    """Every ``data.*`` parameter of the KCRig as the swept-sine example sets it (the SUV front corner,
    ``VehicleRTM.Data.SUV.Front``), read from the Modelica library."""
    data = dict(_example_rig_data(example))
    if "data.mUnsprung" not in data:
        raise ValueError(f"{example}: no rig.data.* parameters found; expected a KCRig instance 'rig'")
    return data


@dataclass
class SLEKQProblem:
    """The SLEKQ identification: ``objective(parameters, λ)``, ``bounds`` and ``truth`` (FMU names).

    ``scales`` is the size each parameter's error is measured against (its true value, or for a zero
    true value the size given by :func:`slekq_problem`); ``reference`` holds the measurement (time,
    z, v, a at the communication points). Unpacks as ``objective, bounds, truth = problem``.
    """

    objective: Callable[[dict, float], float]
    bounds: dict[str, tuple[float, float]]
    truth: dict[str, float]
    scales: dict[str, float]
    reference: pd.DataFrame
    settings: dict = field(default_factory=dict)
    terms: Callable[[dict, float], dict] | None = None
    session: object = None

    def __iter__(self):
        return iter((self.objective, self.bounds, self.truth))

    def relative_errors(self, parameters: Mapping[str, float]) -> dict[str, float]:
        """|identified - true| / scale for each identified parameter."""
        return {k: abs(float(parameters[k]) - self.truth[k]) / self.scales[k] for k in self.bounds}

    def recovered(self, parameters: Mapping[str, float], tolerance: float = 0.02) -> bool:
        """Every identified parameter within ``tolerance`` (relative to its scale) of the truth."""
        return max(self.relative_errors(parameters).values()) <= tolerance

    def initial_guess(self, rng: np.random.Generator, spread: float = 0.5) -> dict[str, float]:
        """A random guess, each parameter uniform within ±``spread`` (relative to its scale) of the truth."""
        return {k: self.truth[k] + self.scales[k] * float(rng.uniform(-spread, spread)) for k in self.bounds}

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _spring_scale(name: str, values: Mapping[str, float], compression: float) -> float | None:
    """Size of a spring coefficient k_i whose true value is zero: the smallest |k_j|·ΔL0^(j-i) over the
    non-zero coefficients, i.e. the k_i giving, at the static compression ΔL0, the force of the
    smallest non-zero term of the polynomial."""
    i = _SPRING.index(name)
    sizes = [abs(values[k]) * compression ** (j - i) for j, k in enumerate(_SPRING) if j != i and values.get(k)]
    return min(sizes) if sizes and compression > 0 else None


def slekq_problem(fmu_path: str | Path, truth: Mapping[str, float] | None = None, duration: float = 30.0,
                  step: float = 0.005, *, parameters: Sequence[str] = SLEKQ_PARAMETERS,
                  gains: Sequence[float] = TABLE1_GAINS["front"], weights: Sequence[float] = (1.0, 1.0, 1.0),
                  bound_fraction: float = 0.6, force_amplitude: float = 1000.0, f_start: float = 0.0,
                  f_end: float = 6.0, scales: Mapping[str, float] | None = None) -> SLEKQProblem:
    """The paper's identification of a SLEKQ corner from the K&C swept-sine vertical force test.

    ``fmu_path`` is a Co-Simulation FMU of ``VehicleRTM.QuarterCars.KCRig``. ``truth`` overrides
    entries of the true corner data (FMU names ``data.*`` or the paper's names of
    :data:`PAPER_NAMES`); by default it is the SUV front corner of ``Examples.KCSweptSine``.

    Test: ``F_Z(t) = F0 + force_amplitude·sin(φ(t))`` with F0 the corner weight
    ((mSprung + mUnsprung)·g of the truth) and a linear chirp from ``f_start`` to ``f_end`` over
    ``duration`` seconds, φ = 2π(f_start·t + (f_end - f_start)·t²/(2·duration)). The force is held over
    each communication ``step``; the FMU integrates with RK4 at ``step/2``.

    Measurement: the rig with the true parameters and λ = 0, run at ``step/2`` (the force still held
    over ``step``, so its samples at the communication points are exactly those of a candidate run).
    Candidate: the rig with the parameters under identification and the coupling of Eq. 5 (inputs
    λ, ``gains`` = (G_I, G_P, G_D), reference z, dz/dt, d²z/dt² of the measurement). The reference
    inputs held over a step are the measurement at its middle, so that at the true parameters the
    coupled candidate reproduces the measurement to second order in the step (λ = 0: exactly).

    Objective (Eq. 6): ``J = Σ w_i ∫(e_i)² / ∫(ref_i)²`` over travel, velocity and acceleration, the
    weights normalised by the measurement's own energy. The accelerations compared are the mean
    accelerations over each step, (v[k+1] - v[k])/step, of measurement and candidate: the FMU's output
    ``a`` at a communication point feeds through the coupling inputs just set for the coming step.

    Identified ``parameters``: the unsprung mass, k1..k3 and d1..d6 (:data:`SLEKQ_PARAMETERS`). k0 is
    left out: with the free length computed so that z = 0 is the static equilibrium (as in the paper),
    a change of k0 is undone by k1, k2 and the free length (four coefficients, three observable
    ones: force, slope and curvature at the equilibrium, with k3). Bounds are the truth ±
    ``bound_fraction`` of each parameter's scale (|true value|; for a spring coefficient whose true
    value is zero, see ``_spring_scale``; ``scales`` overrides).
    """
    from pybridge.fmu import FMUSession
    from pybridge.parameters import ParameterSet

    if not (duration > 0 and step > 0 and math.isclose(duration / step, round(duration / step), abs_tol=1e-9)):
        raise ValueError(f"duration ({duration}) must be a positive multiple of step ({step})")
    if len(gains) != 3 or len(weights) != 3:
        raise ValueError("gains are (G_I, G_P, G_D) and weights (w1, w2, w3): three numbers each")
    if not 0 < bound_fraction < 1:
        raise ValueError(f"bound_fraction must be in (0, 1), got {bound_fraction}")
    data = suv_corner_data()
    for name, value in (truth or {}).items():
        key = PAPER_NAMES.get(name, name)
        if key not in data:
            raise ValueError(f"truth: unknown parameter {name!r}; expected one of {sorted(data)} or "
                             f"{sorted(PAPER_NAMES)}")
        data[key] = float(value)
    names = [PAPER_NAMES.get(p, p) for p in parameters]
    unknown = [p for p in names if p not in data]
    if unknown or not names:
        raise ValueError(f"parameters {unknown or names} are not corner data of the KCRig; expected some of "
                         f"{sorted(data)}")

    session = FMUSession(fmu_path, instance_name="slekq")
    try:
        g = float(session.variables["g"].start)
        base = ParameterSet(model=session.model_name, scalars={**data, "fixedStepSize": step / 2})
        count = round(duration / step)
        t = step * np.arange(count + 1)
        phase = 2 * np.pi * (f_start * t + (f_end - f_start) * t ** 2 / (2 * duration))
        f0 = (data["data.mSprung"] + data["data.mUnsprung"]) * g
        force = f0 + force_amplitude * np.sin(phase)
        half = step / 2 * np.arange(2 * count + 1)
        session.apply(base)
        measured = session.simulate(pd.DataFrame({"time": half, "FZ": np.repeat(force, 2)[:len(half)]}),
                                    stop_time=duration, step=step / 2, outputs=["z", "v", "a", "corner.dL"])
        samples = measured[["z", "v", "a"]].to_numpy()
        if not np.isfinite(samples).all():
            raise ValueError("the measurement run with the true parameters diverged")
        ref = samples[0::2]
        middle = np.vstack([samples[1::2], samples[-1:]])
        ref_acc = np.diff(ref[:, 1]) / step
        energy = np.array([np.mean(ref[:, 0] ** 2), np.mean(ref[:, 1] ** 2), np.mean(ref_acc ** 2)])
        compression = float(measured["corner.dL"].iloc[0])

        given_scales = {PAPER_NAMES.get(k, k): float(v) for k, v in (scales or {}).items()}
        scale = {}
        for name in names:
            given = given_scales.get(name)
            value = given if given is not None else abs(data[name]) if data[name] else \
                _spring_scale(name, data, compression) if name in _SPRING else None
            if not value or not value > 0:
                raise ValueError(f"{name}: true value 0 and no scale to measure it against; give scales[{name!r}]")
            scale[name] = float(value)
        bounds = {k: (data[k] - bound_fraction * scale[k], data[k] + bound_fraction * scale[k]) for k in names}

        frames: dict[float, pd.DataFrame] = {}

        def inputs(lam: float) -> pd.DataFrame:
            if lam not in frames:
                frames[lam] = pd.DataFrame({
                    "time": t, "FZ": force, "lambda": lam, "GI": float(gains[0]), "GP": float(gains[1]),
                    "GD": float(gains[2]), "zRef": middle[:, 0], "vRef": middle[:, 1], "aRef": middle[:, 2]})
            return frames[lam]

        def terms(params: Mapping[str, float], lam: float) -> dict[str, float]:
            """The three normalised terms of Eq. 6 (travel, velocity, acceleration) before weighting."""
            session.apply(base.with_values({PAPER_NAMES.get(k, k): v for k, v in params.items()}))
            run = session.simulate(inputs(float(lam)), stop_time=duration, step=step, outputs=["z", "v"])
            z, v = run["z"].to_numpy(), run["v"].to_numpy()
            return {"z": float(np.mean((z - ref[:, 0]) ** 2) / energy[0]),
                    "v": float(np.mean((v - ref[:, 1]) ** 2) / energy[1]),
                    "a": float(np.mean((np.diff(v) / step - ref_acc) ** 2) / energy[2])}

        def objective(params: Mapping[str, float], lam: float) -> float:
            parts = terms(params, lam)
            return float(weights[0] * parts["z"] + weights[1] * parts["v"] + weights[2] * parts["a"])

        reference = pd.DataFrame({"time": t, "z": ref[:, 0], "v": ref[:, 1], "a": ref[:, 2], "FZ": force})
        settings = {"fmu": str(fmu_path), "duration": duration, "step": step, "internal_step": step / 2,
                    "gains": [float(v) for v in gains], "weights": [float(v) for v in weights],
                    "F0": f0, "force_amplitude": force_amplitude, "f_start": f_start, "f_end": f_end,
                    "static_compression": compression, "bound_fraction": bound_fraction,
                    "energy": {"z": energy[0], "v": energy[1], "a": energy[2]}}
        return SLEKQProblem(objective=objective, bounds=bounds, truth={k: data[k] for k in names}, scales=scale,
                            reference=reference, settings=settings, terms=terms, session=session)
    except Exception:
        session.close()
        raise
