"""Checked box bounds and start points shared by the optimizers."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def box(bounds: Mapping[str, tuple[float, float]]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(names, lower, upper) of ``bounds``; at least one parameter, finite lower < upper for each."""
    names = list(bounds)
    lo = np.array([float(bounds[k][0]) for k in names])
    hi = np.array([float(bounds[k][1]) for k in names])
    if not names or not np.all(np.isfinite(lo) & np.isfinite(hi)) or not np.all(hi > lo):
        raise ValueError(f"bounds need at least one parameter with finite low < high for each (lo < hi): "
                         f"{dict(bounds)}")
    return names, lo, hi


def start_point(x0: Mapping[str, float], names: list[str], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``x0`` as an array in the order of ``names``; exactly those parameters, inside the box."""
    missing = [k for k in names if k not in x0]
    if missing or set(x0) - set(names):
        raise ValueError(f"x0 must give exactly the parameters of bounds; missing {missing}, "
                         f"unknown {sorted(set(x0) - set(names))}")
    x = np.array([float(x0[k]) for k in names])
    outside = [k for k, v, low, high in zip(names, x, lo, hi) if not low <= v <= high]
    if outside:
        raise ValueError(f"x0 lies outside the bounds for {outside}")
    return x
