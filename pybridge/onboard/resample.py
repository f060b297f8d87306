"""Sampled sensor channels onto the RTM's fixed step: held (the latest sample) or interpolated.

``resample(times, values, grid, method)`` gives a channel sampled at ``times`` on ``grid`` (s):

- ``hold``: the latest sample at or before each grid time, as a real-time loop reads the newest
  value its sensor bus has delivered (a 500 Hz step at t = 1.000 s is seen from the 1 ms step at
  1.000 s on; a 50 Hz GPS speed stays flat for 20 steps). Before the first sample: the first value.
- ``linear``: straight lines between the samples, end values held (offline replay of smooth channels).

``sample_rate(times)`` is the channel's rate from its median sample interval, and
``check_rate(times, declared, where)`` refuses a channel whose rate is not the declared one
(one line naming ``where``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["METHODS", "RateError", "check_rate", "resample", "sample_rate"]

METHODS = ("hold", "linear")
RATE_TOLERANCE = 0.01  # relative difference allowed between the declared and the measured rate
_EPS = 1e-9  # s: a sample stamped within this of a grid time counts as at that time


class RateError(ValueError):
    """A channel sampled at another rate than declared, or an unknown resampling method."""


def resample(times: np.ndarray, values: np.ndarray, grid: np.ndarray, method: str = "linear") -> np.ndarray:
    """``values`` sampled at increasing ``times`` on ``grid``, held or linear (see the module docstring)."""
    times, values, grid = (np.asarray(a, float) for a in (times, values, grid))
    if method == "linear":
        return np.interp(grid, times, values)
    if method != "hold":
        raise RateError(f"resampling method {method!r}: expected one of {', '.join(METHODS)}")
    index = np.searchsorted(times, grid + _EPS, side="right") - 1
    return values[np.clip(index, 0, len(values) - 1)]


def sample_rate(times: np.ndarray) -> float:
    """The rate (Hz) of samples at ``times`` from their median interval."""
    steps = np.diff(np.asarray(times, float))
    return 1.0 / float(np.median(steps)) if steps.size else 0.0


def check_rate(times: np.ndarray, declared: float, where: str) -> float:
    """The measured rate of ``times``; RateError naming ``where`` when it is not ``declared`` (Hz) within 1 %."""
    measured = sample_rate(times)
    if not measured or abs(measured - declared) > RATE_TOLERANCE * declared:
        interval = 1e3 / measured if measured else 0.0
        raise RateError(f"{where}: sampled at {measured:.6g} Hz (median interval {interval:.4g} ms); "
                        f"the map declares rate {declared:g} Hz")
    return measured
