"""Quadratic-model search step: a full quadratic fitted by least squares to the evaluations already
made near the incumbent, minimised over the trust box (incumbent ± poll size, inside [0, 1]^N)."""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize

__all__ = ["model_point"]


def _features(z: np.ndarray) -> np.ndarray:
    """1, z_i and z_i z_j (i <= j) for each row of ``z``."""
    n = z.shape[1]
    i, j = np.triu_indices(n)
    return np.hstack([np.ones((len(z), 1)), z, z[:, i] * z[:, j]])


def model_point(cache: dict[tuple, float], u: np.ndarray, size: float) -> np.ndarray | None:
    """The minimiser of the quadratic through the cached points nearest to ``u`` (in units of
    ``size``), within ``u ± size`` and the unit box; ``None`` with too few finite points to fit."""
    n = len(u)
    terms = (n + 1) * (n + 2) // 2
    points = np.array([k for k, v in cache.items() if math.isfinite(v)])
    if len(points) < terms + 1:
        return None
    values = np.array([cache[tuple(p)] for p in points])
    z = (points - u) / size
    nearest = np.argsort(np.abs(z).max(axis=1))[:2 * terms]
    z, values = z[nearest], values[nearest]
    coefficients, _, rank, _ = np.linalg.lstsq(_features(z), values, rcond=None)
    if rank < terms:
        return None
    g = coefficients[1:n + 1]
    h = np.zeros((n, n))  # Hessian of the model c + g·z + Σ_{i<=j} q_ij z_i z_j
    h[np.triu_indices(n)] = coefficients[n + 1:]
    h = h + h.T
    lower = np.maximum(-1.0, -u / size)
    higher = np.minimum(1.0, (1.0 - u) / size)
    best = minimize(lambda x: g @ x + 0.5 * x @ h @ x, np.zeros(n), jac=lambda x: g + h @ x,
                    bounds=list(zip(lower, higher)), method="L-BFGS-B")
    return u + size * best.x
