"""An unscented Kalman filter whose sigma points are propagated and measured as one batch.

Van der Merwe's scaled sigma points (alpha, beta, kappa); additive process and measurement noise.
``predict(fx, Q)`` calls ``fx(sigmas)`` once with all 2n+1 points (rows) and expects the propagated
points back, then redraws the points from the prior (so the update sees the process noise too);
``update(z, hx, R)`` calls ``hx(sigmas)`` once with those and expects one measurement row per point.
The batch form is why the filter is written here rather than taken from filterpy (whose UKF calls
``fx`` and ``hx`` point by point): the observer propagates all points through one FMU instance in one
call per stage, and that call is the part that would move into C. The measurement vector may change
size from update to update (GPS speed at 50 Hz among 500 Hz sensors). On a linear system with
Gaussian noise the filter is the exact Kalman filter (tests/test_observer.py).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.linalg

__all__ = ["UnscentedKalmanFilter"]


class UnscentedKalmanFilter:
    """State ``x`` (n,), covariance ``P`` (n, n); ``sigmas``: the points of the last prior."""

    def __init__(self, x: np.ndarray, P: np.ndarray, *, alpha: float = 0.5, beta: float = 2.0, kappa: float = 0.0):
        self.x = np.array(x, dtype=float)
        self.P = np.array(P, dtype=float)
        n = len(self.x)
        self.lam = alpha ** 2 * (n + kappa) - n
        self.Wm = np.full(2 * n + 1, 0.5 / (n + self.lam))
        self.Wc = self.Wm.copy()
        self.Wm[0] = self.lam / (n + self.lam)
        self.Wc[0] = self.Wm[0] + 1.0 - alpha ** 2 + beta
        self.sigmas = self.sigma_points()

    def sigma_points(self) -> np.ndarray:
        """The 2n+1 points (rows) of the current x and P."""
        n = len(self.x)
        try:
            root = scipy.linalg.cholesky((n + self.lam) * self.P, lower=False)
        except np.linalg.LinAlgError:  # lost definiteness through round-off: symmetrise and add a floor
            P = 0.5 * (self.P + self.P.T) + 1e-12 * np.eye(n)
            root = scipy.linalg.cholesky((n + self.lam) * P, lower=False)
        return np.vstack([self.x, self.x + root, self.x - root])

    def predict(self, fx: Callable[[np.ndarray], np.ndarray], Q: np.ndarray) -> None:
        """Propagate the sigma points through ``fx`` (batch) and form the prior."""
        self.sigmas = np.asarray(fx(self.sigma_points()), dtype=float)
        self.x = self.Wm @ self.sigmas
        d = self.sigmas - self.x
        self.P = (d.T * self.Wc) @ d + Q
        self.sigmas = self.sigma_points()  # redrawn from the prior: the update sees Q too (exact when linear)

    def update(self, z: np.ndarray, hx: Callable[[np.ndarray], np.ndarray], R: np.ndarray,
               derived: np.ndarray | None = None) -> np.ndarray:
        """Correct with measurement ``z`` (m,) of noise covariance ``R``; returns the innovation.
        ``derived`` (points x k): functions of the state at the propagated points (e.g. model outputs);
        their corrected mean and covariance go to ``derived_mean`` and ``derived_cov`` (the same
        update as if they were states)."""
        Z = np.asarray(hx(self.sigmas), dtype=float)
        z_mean = self.Wm @ Z
        dz = Z - z_mean
        dx = self.sigmas - self.x
        S = (dz.T * self.Wc) @ dz + R
        C = (dx.T * self.Wc) @ dz
        K = scipy.linalg.solve(S, C.T, assume_a="pos").T
        innovation = np.asarray(z, dtype=float) - z_mean
        self.x = self.x + K @ innovation
        self.P = self.P - K @ S @ K.T
        if derived is not None:
            g_mean = self.Wm @ derived
            dg = derived - g_mean
            Kg = scipy.linalg.solve(S, ((dg.T * self.Wc) @ dz).T, assume_a="pos").T
            self.derived_mean = g_mean + Kg @ innovation
            self.derived_cov = (dg.T * self.Wc) @ dg - Kg @ S @ Kg.T
        return innovation
