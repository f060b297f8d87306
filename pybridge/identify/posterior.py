"""The posterior of the identified parameters: MCMC with emcee on the fitness seen as a likelihood.

The log-likelihood is -f / (2 s^2), f the fitness of Eq. 9-10 and s^2 = f(u*) / (m - N) the residual
variance the identifiability step estimated from the data (``pybridge.identify.identifiability``, whose
intervals sample its linearised residuals' fitness with the same s^2); the prior is uniform over the box.
emcee's affine-invariant ensemble moves half the walkers at a time:
the log-probability is vectorised, so each half (walkers / 2 points) is one batch through
``Evaluations`` (snapped, cached, recorded, spread over the executor's workers). emcee is deterministic
given its random state and the answers it gets, so ``resume=True`` re-runs it from the seed and the run
record answers every point it holds. Convergence is checked by the integrated autocorrelation time
(the chain should be more than ``TAU_FACTOR`` times longer) and the mean acceptance fraction.

Cost on the shipped van (today's demo optimum, 4 parameters, 16 walkers x 300 steps, 2 workers, load 8-9,
AMD EPYC): 3402 evaluations (proposals outside the box cost none) in 27 min (5.5 min at load 2-3);
autocorrelation time 34 steps and acceptance 0.50, so 300 steps are 9 autocorrelation times, short of the
50 for trusted tails. The marginals against the identifiability's intervals (linearised residuals):
CoG height 0.861-0.909 m (0.856-0.906, half-width ratio 0.97), torque gain 0.980-1.183 (0.999-1.181, 1.12),
rear link split 0.407-0.596 (0.405-0.593, 1.01), front link split 0.402-0.579 (0.401-0.496, 1.86: the
step steer's ay peak time moves in steps of one 10 ms sample, 0.73 %, and its probes along the front
split caught one step, which the linearisation extrapolates; the fitness itself stays flat there).
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pybridge.identify.bounds import box, start_point
from pybridge.identify.evaluations import Evaluations, open_run, snap

__all__ = ["ACCEPTANCE", "TAU_FACTOR", "Posterior", "sample_posterior"]

TAU_FACTOR = 50               # chain length over the autocorrelation time for a converged chain (emcee's advice)
ACCEPTANCE = (0.1, 0.8)       # plausible mean acceptance fractions of the stretch move (high in few dimensions)


def _import_emcee():
    try:
        import emcee
    except ImportError as error:
        raise ImportError("--posterior needs emcee; install it with `pip install emcee`") from error
    return emcee


@dataclass
class Posterior:
    """Samples (physical, after burn-in and thinning), the whole chain, and how far to trust them."""
    names: list[str]
    chain: np.ndarray               # (steps, walkers, N), physical
    log_prob: np.ndarray            # (steps, walkers)
    samples: np.ndarray             # (samples, N), physical
    autocorrelation_time: float     # steps, the largest over the parameters
    acceptance_fraction: float
    evaluations: int
    wall_time: float

    @property
    def intervals(self) -> dict[str, tuple[float, float]]:
        """Marginal 95 % intervals (2.5 and 97.5 percentiles)."""
        return {n: (float(np.percentile(self.samples[:, k], 2.5)), float(np.percentile(self.samples[:, k], 97.5)))
                for k, n in enumerate(self.names)}

    @property
    def convergence(self) -> str:
        steps = self.chain.shape[0]
        problems = []
        if not steps > TAU_FACTOR * self.autocorrelation_time:
            problems.append(f"the chain ({steps} steps) is shorter than {TAU_FACTOR} autocorrelation times "
                            f"({self.autocorrelation_time:.3g} steps): run longer before trusting the tails")
        if not ACCEPTANCE[0] <= self.acceptance_fraction <= ACCEPTANCE[1]:
            problems.append(f"the acceptance fraction {self.acceptance_fraction:.2f} is outside {ACCEPTANCE}")
        return "; ".join(problems) or "converged (chain > 50 autocorrelation times, acceptance in range)"

    def summary(self) -> dict:
        return {"sampler": "emcee (affine-invariant stretch move)", "walkers": int(self.chain.shape[1]),
                "steps": int(self.chain.shape[0]), "evaluations": self.evaluations,
                "minutes": round(self.wall_time / 60, 2), "autocorrelation_time": float(self.autocorrelation_time),
                "acceptance_fraction": float(self.acceptance_fraction), "convergence": self.convergence,
                "parameters": {n: {"median": float(np.median(self.samples[:, k])), "lower_95": lo, "upper_95": hi}
                               for k, (n, (lo, hi)) in enumerate(self.intervals.items())}}


class _LogProbability:
    """Vectorised log-probability of a batch of normalised points."""

    def __init__(self, evaluate: Evaluations, variance: float):
        self.evaluate, self.variance = evaluate, variance

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        inside = np.all((batch >= 0) & (batch <= 1), axis=1)
        result = np.full(len(batch), -np.inf)
        points = [snap(p) for p in batch[inside]]
        if points:
            values = [math.inf if v is None else v for v in self.evaluate(points)]
            result[inside] = -np.asarray(values) / (2 * self.variance)
        return result


def _autocorrelation(sampler) -> float:
    tau = sampler.get_autocorr_time(quiet=True)
    return float(np.nanmax(tau)) if np.any(np.isfinite(tau)) else math.inf


def sample_posterior(objective: Callable[[dict], object], bounds: Mapping[str, tuple[float, float]],
                     optimum: Mapping[str, float], variance: float, *, walkers: int | None = None,
                     steps: int = 300, spread: float = 0.01, executor=None, record: str | Path | None = None,
                     resume: bool = False, seed: int = 0, progress: bool = True) -> Posterior:
    """Sample the posterior around ``optimum`` (module docstring). ``variance``: s^2 of the residuals;
    ``walkers`` (default max(8, 4N), even); ``steps`` per walker; ``spread``: the walkers start in a ball of
    this fraction of each range around the optimum. ``executor``, ``record``, ``resume``, ``seed`` and
    ``progress`` are as for the optimizers. Costs walkers * (steps + 1) evaluations at most."""
    emcee = _import_emcee()
    names, lo, hi = box(bounds)
    n = len(names)
    walkers = walkers or max(8, 4 * n)
    if walkers < 2 * n or walkers % 2:
        raise ValueError(f"walkers must be even and at least 2 x {n} parameters, got {walkers}")
    if not (math.isfinite(variance) and variance > 0):
        raise ValueError(f"the residual variance must be a finite number > 0, got {variance!r}")
    u0 = (start_point(optimum, names, lo, hi) - lo) / (hi - lo)
    rng = np.random.default_rng(seed)
    start_points = np.clip(u0 + spread * rng.standard_normal((walkers, n)), 0.0, 1.0)
    budget = walkers * (steps + 1)
    problem = {"method": "emcee", "bounds": {k: [float(a), float(b)] for k, a, b in zip(names, lo, hi)},
               "optimum": [float(v) for v in u0], "variance": float(variance), "walkers": walkers, "steps": steps,
               "spread": spread}
    start = time.monotonic()
    with open_run(record, problem, seed=seed, resume=resume, executor=executor, budget=budget, bounded=True,
                  description="posterior", progress=progress) as (run_record, executor, bar):
        evaluate = Evaluations(objective, names, lo, hi, executor, run_record, budget, bar)
        sampler = emcee.EnsembleSampler(walkers, n, _LogProbability(evaluate, variance), vectorize=True)
        sampler.random_state = np.random.RandomState(seed).get_state()
        sampler.run_mcmc(start_points, steps, progress=False)
    tau = _autocorrelation(sampler)
    discard = min(steps // 2, int(2 * tau)) if math.isfinite(tau) else steps // 2
    thin = max(1, int(tau / 2)) if math.isfinite(tau) else 1
    scale = lambda u: lo + u * (hi - lo)  # noqa: E731
    return Posterior(names, scale(sampler.get_chain()), sampler.get_log_prob(),
                     scale(sampler.get_chain(discard=discard, thin=thin, flat=True)), tau,
                     float(np.mean(sampler.acceptance_fraction)), evaluate.count, time.monotonic() - start)
