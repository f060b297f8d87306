"""Local identifiability at an optimum: how well the data determine each parameter.

The fitness of Eq. 9-10 is f = sum_i c_i g(e_i) (c_i = w_i / (N M), g the correction of Eq. 10, e_i the
error of index i in %), and every e_i is the norm of a residual vector v_i (``pybridge.identify.residuals``:
a curve index's scaled sample-by-sample difference, a scalar index's signed error). f is a sum of norms,
not of squares: an RMSE index grows about linearly in a parameter once the difference exceeds the noise,
and a scalar index has a kink where candidate and reference meet. So the posterior exp(-f / 2 s^2) is not
Gaussian where few indices see a parameter (one index term a sqrt(e0^2 + (b d)^2) of height G = a e0 / 2 s^2
has a 95 % interval 1.48 times the Laplace one for G = 1.6, 1.25 for G = 3.2), and no quadratic model of f,
the exact Hessian included, gives its intervals.

What is linear in the parameters is each residual vector. The optimum u* (normalised parameters) and two
points along every axis (u* -+ h; at a bound u* -+ h, u* -+ 2h inwards): 2N + 1 evaluations through the
run's executor and a run record of their own (resumable), give v_i(u* + d) = v_i0 + J_i d (the slope of
the quadratic through the three points of each axis: the Gauss-Newton linearisation of the residuals). The
fitness of the linearised residuals

    f_lin(d) = sum_i c_i g(|v_i0 + J_i d|),   |v_i0 + J_i d|^2 = e_i0^2 + 2 b_i.d + d' G_i d

(b_i = J_i' v_i0, G_i = J_i' J_i) equals f at u*, keeps its norms, kinks and Eq. 10 exactly, and costs no
simulation. Its posterior exp(-(f_lin - f*) / 2 s^2), uniform over the box, with the residual variance
s^2 = f(u*) / (m - N) (m weighted indices; the same s^2 ``pybridge.identify.posterior`` samples f with), is
sampled with emcee (fixed seed, so a resumed analysis gives the same numbers): 95 % intervals are its
marginal percentiles, the covariance and correlation matrix its samples'. Where the RTM is near-linear over
the posterior width this is the posterior of the fitness; ``pybridge identify --posterior`` samples f itself.
An index that moves in steps (a peak time quantised to the trace's samples) is not linear: a step caught
between the probes is extrapolated as a slope (shipped van: the step steer's ay peak time narrows the front
link split's interval to half the posterior's).
The singular values and condition number are those of the Gauss-Newton curvature of f_lin at u* (sum_i
c_i g'(e_i0) / 2 e_i0 (G_i - b_i b_i' / e_i0^2), its square root). Flags, each with its reason: ``on
bound``; ``poorly determined`` (the 95 % interval spans more than ``POOR`` of the range: the data hardly
constrain it within the range); ``correlated`` (|r| > 0.9, naming the partner); ``compensating`` (a
quantity the MBM data state moved beyond the uncertainty the data set declares,
``pybridge.identify.declared``).
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pybridge.identify.bounds import box
from pybridge.identify.evaluations import Evaluations, snap
from pybridge.identify.executor import make_executor
from pybridge.identify.record import RunRecord

__all__ = ["CORRELATED", "POOR", "STEP", "Identifiability", "LinearisedFitness", "Scoring", "analyse",
           "probe_points", "record_name"]

STEP = 0.05          # finite-difference step, fraction of each parameter's range
CORRELATED = 0.9     # |r| above this: the data cannot separate the pair
POOR = 0.9           # a 95 % interval spanning more than this fraction of the range: poorly determined
_BOUND = 1e-3        # normalised distance to a bound that counts as on it: the standard preset's final mesh (min_mesh)
_WALKERS, _STEPS, _SEED = 128, 750, 0   # emcee on the linearised fitness (no simulations; 0.5 s CPU for N = 4)


@dataclass(frozen=True)
class Scoring:
    """How Eq. 9-10 turns the per-index errors e_i (%) into terms c_i g(e_i): c_i = w_i / (N M) per weighted
    index ('manoeuvre/index'), TP and PF."""
    coefficients: Mapping[str, float]
    tolerance: float
    penalty: float

    @classmethod
    def from_objective(cls, objective) -> Scoring:
        names, manoeuvres = objective.active
        scale = 1.0 / (len(names) * len(manoeuvres))
        return cls({f"{m}/{n}": w * scale for m, ws in objective.weights.items() for n, w in ws.items() if w > 0},
                   objective.tolerance_percent, objective.penalty_factor)

    def corrected(self, errors: np.ndarray) -> np.ndarray:
        """Eq. 10 on an array of errors (%)."""
        return errors + self.penalty * np.maximum(errors - self.tolerance, 0.0)

    def slope(self, errors: np.ndarray) -> np.ndarray:
        """d g / d e of Eq. 10 (1 within TP, 1 + PF beyond)."""
        return np.where(errors > self.tolerance, 1.0 + self.penalty, 1.0)


@dataclass(frozen=True)
class LinearisedFitness:
    """f_lin(d) of the module docstring: per weighted index c_i, e_i0, b_i (m, N) and G_i (m, N, N)."""
    scoring: Scoring
    c: np.ndarray
    e0: np.ndarray
    b: np.ndarray
    g: np.ndarray

    def __call__(self, d: np.ndarray) -> np.ndarray:
        """f_lin at each row of ``d`` (normalised offsets from the optimum)."""
        q = self.e0 ** 2 + 2 * d @ self.b.T + np.einsum("pn,inm,pm->pi", d, self.g, d)
        return self.scoring.corrected(np.sqrt(np.clip(q, 0.0, None))) @ self.c

    def curvature(self) -> np.ndarray:
        """The Gauss-Newton curvature (half the Hessian) of f_lin at d = 0; indices with e_i0 = 0 (a kink) left out."""
        seen = self.e0 > 0
        e, b, c = self.e0[seen], self.b[seen], self.c[seen] * self.scoring.slope(self.e0[seen])
        projected = self.g[seen] - np.einsum("in,im->inm", b, b) / (e ** 2)[:, None, None]
        return np.einsum("i,inm->nm", c / (2 * e), projected)


@dataclass
class Identifiability:
    """What the data determine at ``optimum``: the linearised fitness, intervals, correlations, flags."""
    names: list[str]
    optimum: dict[str, float]
    bounds: dict[str, tuple[float, float]]
    fitness: float
    model: LinearisedFitness
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
            "method": "linearised residuals at the optimum (2N + 1 points), their fitness sampled", "step": STEP,
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


def _slope(points: list[np.ndarray], values: list[np.ndarray], k: int) -> np.ndarray:
    """B of v(u* + d) = v0 + B d + C d^2 through the optimum and the two probes of axis k."""
    (pa, va), (pb, vb) = (points[1 + 2 * k], values[1 + 2 * k]), (points[2 + 2 * k], values[2 + 2 * k])
    a, b, centre = pa[k] - points[0][k], pb[k] - points[0][k], values[0]
    curvature = ((va - centre) / a - (vb - centre) / b) / (a - b)
    return (va - centre) / a - curvature * a


def linearise(points: list[np.ndarray], entries: list[dict], scoring: Scoring) -> LinearisedFitness:
    """The linearised fitness from the residual vectors of the record entries at ``points`` (optimum first).
    An index whose vector changes length between the points (a trace cut short) is taken as its error alone."""
    n = len(points[0])
    e0, b, g = [], [], []
    for key in scoring.coefficients:
        vectors = [np.asarray(e["residuals"][key], dtype=float) for e in entries]
        if len({len(v) for v in vectors}) > 1:
            vectors = [np.array([float(e["indices"][key])]) for e in entries]
        jacobian = np.stack([_slope(points, vectors, k) for k in range(n)], axis=1)
        e0.append(float(np.linalg.norm(vectors[0])))
        b.append(jacobian.T @ vectors[0])
        g.append(jacobian.T @ jacobian)
    return LinearisedFitness(scoring, np.array(list(scoring.coefficients.values())), np.array(e0),
                             np.array(b).reshape(-1, n), np.array(g).reshape(-1, n, n))


class _LogPosterior:
    def __init__(self, model: LinearisedFitness, u: np.ndarray, variance: float):
        self.model, self.u, self.variance = model, u, variance
        self.f0 = float(model(np.zeros((1, len(u))))[0])

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        inside = np.all((batch >= 0) & (batch <= 1), axis=1)
        result = np.full(len(batch), -np.inf)
        if inside.any():
            result[inside] = -(self.model(batch[inside] - self.u) - self.f0) / (2 * self.variance)
        return result


def sample_linearised(model: LinearisedFitness, u: np.ndarray, variance: float) -> np.ndarray:
    """Samples (normalised points) of exp(-(f_lin - f*) / 2 s^2) over the box, after burn-in and thinning."""
    import emcee

    n = len(u)
    walkers = max(_WALKERS, 4 * n)
    rng = np.random.default_rng(_SEED)
    start = np.abs(u + 0.01 * rng.standard_normal((walkers, n)))
    start = np.where(start > 1, 2 - start, start)              # mirrored into the box
    sampler = emcee.EnsembleSampler(walkers, n, _LogPosterior(model, u, variance), vectorize=True)
    sampler.random_state = np.random.RandomState(_SEED).get_state()
    sampler.run_mcmc(start, _STEPS, progress=False)
    tau = sampler.get_autocorr_time(tol=0)                    # an estimate: no length check, no warning
    tau = float(np.nanmax(tau)) if np.any(np.isfinite(tau)) else _STEPS / 50
    return sampler.get_chain(discard=min(_STEPS // 2, int(5 * tau)), thin=max(1, int(tau / 2)), flat=True)


def _flags(names, u, x, spans, correlation, declared, nominal) -> dict[str, list[dict]]:
    flags: dict[str, list[dict]] = {name: [] for name in names}
    for k, name in enumerate(names):
        side = "upper" if u[k] >= 1 - _BOUND else "lower" if u[k] <= _BOUND else None
        if side:
            wants = "more" if side == "upper" else "less"
            flags[name].append({"flag": "on bound", "reason": f"{name} ended on its {side} bound: the objective "
                                f"wants {wants} than the range allows; widen it only if the MBM data support it"})
        if spans[k] > POOR:
            flags[name].append({"flag": "poorly determined", "reason": f"the 95 % interval of {name} spans "
                                f"{100 * spans[k]:.0f} % of its range: the objective hardly changes with it"})
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


def _recorded(path: Path | None) -> list[tuple]:
    """The normalised points of another run record's evaluations (unreadable lines skipped)."""
    found: list[tuple] = []
    if path is None or not Path(path).is_file():
        return found
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("kind") == "evaluation" and entry.get("u") is not None:
            found.append(tuple(float(v) for v in entry["u"]))
    return found


def _entries(points, evaluate, names, lo, hi, executor, record: Path) -> tuple[list, int]:
    """Record entries of ``points``, evaluated through the analysis's own record at ``record`` (resumable: a
    point it holds is not evaluated again)."""
    problem = {"method": "identifiability", "points": [[float(v) for v in p] for p in points],
               "bounds": {n: [float(a), float(b)] for n, a, b in zip(names, lo, hi)}}
    own = RunRecord.open(record, problem, seed=None)
    try:
        run = Evaluations(evaluate, names, lo, hi, executor, own, len(points), _NoBar())
        run(points)
        return [own.lookup(tuple(p.tolist())) for p in points], run.new
    finally:
        own.close()


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass


def record_name(optimum: Mapping[str, float], step: float = STEP) -> str:
    """The analysis's record file name for ``optimum`` (another optimum gets another file; nothing is lost)."""
    key = json.dumps({"optimum": {k: float(v) for k, v in sorted(optimum.items())}, "step": step,
                      "residuals": "vectors"})
    return f"identifiability-{hashlib.sha256(key.encode()).hexdigest()[:10]}.jsonl"


def _checked(points, entries, names, lo, hi) -> None:
    """RuntimeError naming the first point whose evaluation failed or gave no residual vectors."""
    for point, entry in zip(points, entries):
        where = {n: round(float(a + v * (b - a)), 6) for n, a, b, v in zip(names, lo, hi, point)}
        if entry is None or entry.get("status") != "ok":
            why = (entry or {}).get("message", (entry or {}).get("status", "not evaluated"))
            raise RuntimeError(f"identifiability: the evaluation at {where} failed ({why})")
        if not entry.get("residuals"):
            raise RuntimeError(f"identifiability: the evaluation at {where} gave no residual vectors; expected an "
                               "evaluate that returns them (pybridge.identify.residuals.IndexResiduals)")


def analyse(evaluate: Callable, bounds: Mapping[str, tuple[float, float]], optimum: Mapping[str, float],
            scoring: Scoring, *, record: str | Path, executor=None, known_record: str | Path | None = None,
            nominal: Mapping[str, float] | None = None, declared: Mapping[str, tuple[float, str]] | None = None,
            step: float = STEP) -> Identifiability:
    """Local identifiability of ``optimum`` (module docstring).

    ``evaluate(values)`` returns an object with ``value``, ``per_index`` and ``residuals`` (a
    ``pybridge.identify.residuals.ResidualResult``) and must pickle for a process executor; ``record``: this
    analysis's run record (resumed when it exists); ``known_record``: the identification's record, whose
    point nearest the optimum is taken as the optimum; ``declared``: parameter -> (allowed change from
    ``nominal``, where the data set declares it) for the compensating flag.
    """
    names, lo, hi = box(bounds)
    u = np.array([(float(optimum[n]) - a) / (b - a) for n, a, b in zip(names, lo, hi)])
    u = np.array(_nearest_recorded(snap(u), _recorded(known_record)))
    points = probe_points(u, step)
    own = executor if executor is not None else make_executor(1)
    try:
        entries, new = _entries(points, evaluate, names, lo, hi, own, Path(record))
    finally:
        if executor is None:
            own.close()
    _checked(points, entries, names, lo, hi)
    model = linearise(points, entries, scoring)
    fitness = float(entries[0]["fitness"])
    dof = max(1, len(scoring.coefficients) - len(names))
    variance = fitness / dof
    samples = sample_linearised(model, u, variance)
    covariance = np.atleast_2d(np.cov(samples, rowvar=False))
    sd = np.sqrt(np.diag(covariance))
    correlation = covariance / np.outer(sd, sd)
    low, high = np.percentile(samples, [2.5, 97.5], axis=0)
    x = {n: float(a + v * (b - a)) for n, a, b, v in zip(names, lo, hi, u)}
    intervals = {n: (float(a + l * (b - a)), float(a + h * (b - a))) for n, a, b, l, h in zip(names, lo, hi, low, high)}
    singular = np.sqrt(np.clip(np.linalg.eigvalsh(model.curvature())[::-1], 0.0, None))
    return Identifiability(names, x, {n: (float(a), float(b)) for n, a, b in zip(names, lo, hi)}, fitness, model,
                           singular, variance, dof, covariance, intervals, correlation,
                           _flags(names, u, x, high - low, correlation, declared or {}, nominal), new)


def _nearest_recorded(u: np.ndarray, known: list[tuple]) -> tuple:
    """``u`` itself, or the recorded point within 1e-9 of it (the optimum as the record wrote it)."""
    key = tuple(u.tolist())
    close = [k for k in known if len(k) == len(key) and max(abs(a - b) for a, b in zip(k, key)) < 1e-9]
    return close[0] if close else key
