"""Local identifiability at an optimum: how well the data determine each parameter.

The fitness of Eq. 9-10 is a sum of terms t_i = c_i e'_i (c_i = w_i / (N M), e'_i the corrected error
of index i), so it is the squared norm of the residual vector rho with rho_i^2 = t_i. The terms are
evaluated at the optimum u* (normalised parameters) and at u* -+ h along every axis (at a bound, at
u* - h and u* - 2h inwards): 2N + 1 points through the run's executor and a run record of their own,
and a point the identification's record already holds is taken from it. Along axis k the three
values fix t_i(u* + d) = t_i + B d + C d^2. A scalar index (a gain, an overshoot, a response time) has
a sign, that of candidate - reference (``signs`` in the record entry), and its residual is the signed
rho_i = sign_i sqrt(t_i), whose derivative along axis k comes from the same three points (the central
difference (rho(u* + h) - rho(u* - h)) / 2h between the probes; t_i grows with |candidate - reference|,
not its square, so this rho_i is not linear in u either, but on the twin van below it measured closer to
the posterior than the curvature rule). A curve index (trace RMSE) has no sign
(nor has a record written before signs were), and its row is taken from the curvature

    J_ik = sign(B_ik) * sqrt(max(C_ik, 0))

which is exactly d rho_i / d u_k for a signed residual linear in u (t = rho^2), and which stays right
at an index's own minimum, where the slope of sqrt(t_i) vanishes (an RMSE index over noise has one
there). J^T J is then the Gauss-Newton half of the fitness's Hessian, and with the residual variance
s^2 = f(u*) / (m - N) (m weighted indices)

    covariance (normalised) = s^2 (J^T J)^-1,   interval = u* -+ t_0.975,m-N * sd

reported in physical units with the correlation matrix, the singular values of J and its condition
number. Flags, each with its reason: ``on bound``; ``poorly determined`` (the 95 % interval is wider
than the range); ``correlated`` (|r| > 0.9, naming the partner); ``compensating`` (a quantity the MBM
data state moved beyond the uncertainty the data set declares, ``pybridge.identify.declared``).

The intervals are as good as the quadratic model at the probe distance h: a curve index that grows
about linearly in a parameter (an RMSE far above the noise) gives a curvature of slope / h, so the interval
comes out near sqrt(posterior width x h) instead of the width (twin van, 1 % noise: posterior /
Gauss-Newton half-width 0.98 for the CoG height, whose step-steer gains are signed, but 1.47 for the
torque gain, seen by the acceleration traces only). ``pybridge identify --posterior`` samples the
fitness itself.
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy import stats

from pybridge.evaluate.objective import corrected_error
from pybridge.identify.bounds import box
from pybridge.identify.evaluations import Evaluations, snap
from pybridge.identify.executor import make_executor
from pybridge.identify.record import RunRecord

__all__ = ["CORRELATED", "STEP", "Identifiability", "Scoring", "analyse", "probe_points", "record_name"]

STEP = 0.05          # finite-difference step, fraction of each parameter's range
CORRELATED = 0.9     # |r| above this: the data cannot separate the pair
_BOUND = 1e-3        # normalised distance to a bound that counts as on it: the standard preset's final mesh (min_mesh)
_FLOOR = 1e-12       # eigenvalues of J^T J below this fraction of the largest count as zero


@dataclass(frozen=True)
class Scoring:
    """How Eq. 9-10 turns the per-index errors e_i (%) of a record entry into terms t_i: c_i = w_i / (N M)
    per weighted index ('manoeuvre/index'), TP and PF."""
    coefficients: Mapping[str, float]
    tolerance: float
    penalty: float

    @classmethod
    def from_objective(cls, objective) -> Scoring:
        names, manoeuvres = objective.active
        scale = 1.0 / (len(names) * len(manoeuvres))
        return cls({f"{m}/{n}": w * scale for m, ws in objective.weights.items() for n, w in ws.items() if w > 0},
                   objective.tolerance_percent, objective.penalty_factor)

    def terms(self, indices: Mapping[str, float]) -> np.ndarray:
        """t_i of the weighted indices, in the order of ``coefficients``."""
        return np.array([c * corrected_error(float(indices[k]), self.tolerance, self.penalty)
                         for k, c in self.coefficients.items()])

    def signs(self, signs: Mapping[str, float] | None) -> np.ndarray:
        """The sign of each weighted index in the order of ``coefficients``; NaN where the record has none
        (a curve index, or a record written before signs were)."""
        signs = signs or {}
        return np.array([float(signs[k]) if signs.get(k) is not None else math.nan for k in self.coefficients])


@dataclass
class Identifiability:
    """What the data determine at ``optimum``: the Jacobian of the residuals, intervals, correlations, flags."""
    names: list[str]
    optimum: dict[str, float]
    bounds: dict[str, tuple[float, float]]
    fitness: float
    jacobian: np.ndarray
    singular_values: np.ndarray
    residual_variance: float
    dof: int
    covariance: np.ndarray          # normalised units
    intervals: dict[str, tuple[float, float]]
    correlation: np.ndarray
    flags: dict[str, list[dict]] = field(default_factory=dict)
    evaluations: int = 0

    @property
    def condition(self) -> float:
        s = self.singular_values
        return float(s[0] / s[-1]) if s[-1] > 0 else math.inf

    def half_width(self, name: str) -> float:
        low, high = self.intervals[name]
        return (high - low) / 2

    def summary(self) -> dict:
        """Plain numbers for result.yaml."""
        def number(v):
            return float(v) if math.isfinite(v) else None
        return {
            "method": "Gauss-Newton at the optimum (2N + 1 points)", "step": STEP,
            "evaluations": self.evaluations, "fitness": float(self.fitness), "residual_variance":
            float(self.residual_variance), "degrees_of_freedom": self.dof,
            "singular_values": [float(s) for s in self.singular_values], "condition_number": number(self.condition),
            "parameters": {n: {"value": self.optimum[n], "lower_95": number(self.intervals[n][0]),
                               "upper_95": number(self.intervals[n][1]),
                               "flags": self.flags.get(n, [])} for n in self.names},
            "correlation": {a: {b: round(float(self.correlation[i, j]), 4) for j, b in enumerate(self.names)}
                            for i, a in enumerate(self.names)}}


def probe_points(u: np.ndarray, step: float = STEP) -> list[np.ndarray]:
    """The optimum and two points along every axis (u -+ h, or inwards u -+ h, u -+ 2h at a bound)."""
    points = [snap(u)]
    for k, value in enumerate(u):
        if value + step > 1.0:
            offsets = (-step, -2 * step)
        elif value - step < 0.0:
            offsets = (step, 2 * step)
        else:
            offsets = (step, -step)
        for d in offsets:
            p = np.array(u, dtype=float)
            p[k] = value + d
            points.append(snap(p))
    return points


def _quadratic(points: list[np.ndarray], values: list[np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray]:
    """(B, C) of v(u* + d) = v0 + B d + C d^2 through the optimum and the two probes of axis k."""
    (pa, va), (pb, vb) = (points[1 + 2 * k], values[1 + 2 * k]), (points[2 + 2 * k], values[2 + 2 * k])
    a, b, centre = pa[k] - points[0][k], pb[k] - points[0][k], values[0]
    curvature = ((va - centre) / a - (vb - centre) / b) / (a - b)
    return (va - centre) / a - curvature * a, curvature


def _jacobian(u: np.ndarray, points: list[np.ndarray], terms: list[np.ndarray],
              signs: list[np.ndarray]) -> np.ndarray:
    """J_ik from the terms (and signs) at the optimum and the two probes of each axis (module docstring)."""
    signed = np.all(np.isfinite(signs), axis=0)
    rho = [np.where(signed, np.nan_to_num(s) * np.sqrt(np.clip(t, 0.0, None)), 0.0) for s, t in zip(signs, terms)]
    jacobian = np.zeros((len(terms[0]), len(u)))
    for k in range(len(u)):
        slope, curvature = _quadratic(points, terms, k)
        unsigned = np.where(slope < 0, -1.0, 1.0) * np.sqrt(np.clip(curvature, 0.0, None))
        jacobian[:, k] = np.where(signed, _quadratic(points, rho, k)[0], unsigned)
    return jacobian


def _covariance(jacobian: np.ndarray, variance: float) -> np.ndarray:
    """s^2 (J^T J)^-1, with directions the data do not see (eigenvalue ~ 0) given a huge variance."""
    values, vectors = np.linalg.eigh(jacobian.T @ jacobian)
    floor = _FLOOR * max(values.max(initial=0.0), 1e-300)
    return variance * (vectors / np.maximum(values, floor)) @ vectors.T


def _flags(names, u, x, half, correlation, declared, nominal) -> dict[str, list[dict]]:
    flags: dict[str, list[dict]] = {name: [] for name in names}
    for k, name in enumerate(names):
        side = "upper" if u[k] >= 1 - _BOUND else "lower" if u[k] <= _BOUND else None
        if side:
            wants = "more" if side == "upper" else "less"
            flags[name].append({"flag": "on bound", "reason": f"{name} ended on its {side} bound: the objective "
                                f"wants {wants} than the range allows; widen it only if the MBM data support it"})
        if 2 * half[k] > 1.0:
            flags[name].append({"flag": "poorly determined", "reason": f"the 95 % interval of {name} is wider than "
                                "its range: the objective hardly changes with it"})
        for j, other in enumerate(names):
            if j != k and abs(correlation[k, j]) > CORRELATED:
                flags[name].append({"flag": "correlated", "partner": other, "r": round(float(correlation[k, j]), 3),
                                    "reason": f"{name} and {other} trade against each other (r = "
                                              f"{correlation[k, j]:+.2f}): the data cannot separate them"})
        if name in declared and nominal is not None:
            allowed, source = declared[name]
            moved = x[name] - nominal[name]
            if abs(moved) > allowed:
                flags[name].append({"flag": "compensating", "reason": (
                    f"{name} moved {moved:+.4g} from the value the MBM data state ({nominal[name]:.4g}), beyond the "
                    f"uncertainty the data set declares (-+{allowed:.4g}, {source}): it compensates model error "
                    "rather than being identified")})
    return flags


def _recorded(path: Path | None) -> dict[tuple, dict]:
    """Evaluations with per-index errors of another run record keyed by their normalised point (unreadable
    lines skipped)."""
    found: dict[tuple, dict] = {}
    if path is None or not Path(path).is_file():
        return found
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("kind") == "evaluation" and entry.get("u") is not None and entry.get("indices"):
            found[tuple(float(v) for v in entry["u"])] = entry
    return found


def _entries(points, evaluate, names, lo, hi, executor, record: Path, known: dict) -> tuple[list, int]:
    """Record entries of ``points``: from ``known`` (another record), else evaluated through the analysis's
    own record at ``record`` (resumable: a point it holds is not evaluated again)."""
    problem = {"method": "identifiability", "points": [[float(v) for v in p] for p in points],
               "bounds": {n: [float(a), float(b)] for n, a, b in zip(names, lo, hi)}}
    keys = [tuple(p.tolist()) for p in points]
    missing = [p for p, key in zip(points, keys) if key not in known]
    own = RunRecord.open(record, problem, seed=None)
    try:
        run = Evaluations(evaluate, names, lo, hi, executor, own, len(missing), _NoBar())
        if missing:
            run(missing)
        entries = [known[key] if key in known else own.lookup(key) for key in keys]
        return entries, run.new
    finally:
        own.close()


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass


def record_name(optimum: Mapping[str, float], step: float = STEP) -> str:
    """The analysis's record file name for ``optimum`` (another optimum gets another file; nothing is lost)."""
    key = json.dumps({"optimum": {k: float(v) for k, v in sorted(optimum.items())}, "step": step})
    return f"identifiability-{hashlib.sha256(key.encode()).hexdigest()[:10]}.jsonl"


def analyse(evaluate: Callable, bounds: Mapping[str, tuple[float, float]], optimum: Mapping[str, float],
            scoring: Scoring, *, record: str | Path, executor=None, known_record: str | Path | None = None,
            nominal: Mapping[str, float] | None = None, declared: Mapping[str, tuple[float, str]] | None = None,
            step: float = STEP) -> Identifiability:
    """Local identifiability of ``optimum`` (module docstring).

    ``evaluate(values)`` returns an object with ``value`` and ``per_index`` (a ``FitnessResult``) and must
    pickle for a process executor; ``record``: this analysis's run record (resumed when it exists);
    ``known_record``: the identification's record, whose points are reused; ``declared``: parameter ->
    (allowed change from ``nominal``, where the data set declares it) for the compensating flag.
    """
    names, lo, hi = box(bounds)
    u = np.array([(float(optimum[n]) - a) / (b - a) for n, a, b in zip(names, lo, hi)])
    known = _recorded(known_record)
    u = np.array(_nearest_recorded(snap(u), known))
    points = probe_points(u, step)
    own = executor if executor is not None else make_executor(1)
    try:
        entries, new = _entries(points, evaluate, names, lo, hi, own, Path(record), known)
    finally:
        if executor is None:
            own.close()
    failed = [(p, e) for p, e in zip(points, entries) if e is None or e.get("status") != "ok"]
    if failed:
        point, entry = failed[0]
        where = {n: round(float(a + v * (b - a)), 6) for n, a, b, v in zip(names, lo, hi, point)}
        raise RuntimeError(f"identifiability: the evaluation at {where} failed "
                           f"({(entry or {}).get('message', (entry or {}).get('status', 'not evaluated'))})")
    terms = [scoring.terms(e["indices"]) for e in entries]
    jacobian = _jacobian(u, points, terms, [scoring.signs(e.get("signs")) for e in entries])
    fitness = float(terms[0].sum())
    dof = max(1, len(terms[0]) - len(names))
    variance = fitness / dof
    covariance = _covariance(jacobian, variance)
    sd = np.sqrt(np.diag(covariance))
    correlation = covariance / np.outer(sd, sd)
    half = stats.t.ppf(0.975, dof) * sd
    x = {n: float(a + v * (b - a)) for n, a, b, v in zip(names, lo, hi, u)}
    intervals = {n: (x[n] - h * (b - a), x[n] + h * (b - a)) for n, h, a, b in zip(names, half, lo, hi)}
    return Identifiability(names, x, {n: (float(a), float(b)) for n, a, b in zip(names, lo, hi)}, fitness,
                           jacobian, np.linalg.svd(jacobian, compute_uv=False), variance, dof, covariance,
                           intervals, correlation, _flags(names, u, x, half, correlation, declared or {}, nominal),
                           new)


def _nearest_recorded(u: np.ndarray, known: dict[tuple, dict]) -> tuple:
    """``u`` itself, or the recorded point within 1e-9 of it (the optimum as the record wrote it)."""
    key = tuple(u.tolist())
    if key in known:
        return key
    close = [k for k in known if len(k) == len(key) and max(abs(a - b) for a, b in zip(k, key)) < 1e-9]
    return close[0] if close else key
