"""Spring friction of an axle (a multi-leaf pack's inter-leaf friction) as the K&C parallel-travel test shows it.

A K&C travel sweep starts at design and runs to full bump, then from design again to full rebound.
With friction in the spring the wheel load jumps at design between the two branches: loading (bump)
carries the friction force on top of the elastic force, unloading (rebound) below it. The jump is
twice the friction force at the wheel: it is the hysteresis loop's width at design.

``spring_friction(test)`` fits a straight line to each branch within ``HALF_RANGE`` of design and
returns half the difference of the two at design (N, at the wheel centre, left wheel). The RTM's
map-based spring has no friction state: the conversion reports the value in
``metadata["derived"]`` and leaves it out; the stiffness map keeps the K&C wheel load as measured
(bump side loading, rebound side unloading).
"""
from __future__ import annotations

import numpy as np

from pybridge.mbm.dataset import ConversionError
from pybridge.mbm.kc_results import KCResults

__all__ = ["HALF_RANGE", "friction_entry", "spring_friction"]

HALF_RANGE = 0.025   # m of wheel travel on each side of design for the branch fits


def spring_friction(test: KCResults) -> float:
    """Friction force (N) at the left wheel: half the jump of wheel_load_left at design between the branches."""
    z = test.data["wheel_travel_left"].to_numpy()
    load = test.data["wheel_load_left"].to_numpy()
    ends = []
    for branch in (z > 1e-9, z < -1e-9):
        near = branch & (np.abs(z) <= HALF_RANGE + 1e-9)
        if near.sum() < 2:
            raise ConversionError(f"{test.path}: {near.sum()} points within {HALF_RANGE * 1e3:g} mm on one side of "
                                  "design — expected at least 2 on each side for the spring friction")
        ends.append(np.polynomial.Polynomial.fit(z[near], load[near], 1)(0.0))
    return float(ends[0] - ends[1]) / 2


def friction_entry(test: KCResults) -> dict:
    """The derived-quantity entry of a converted set: value, unit, origin, and that the RTM leaves it out."""
    return {"value": round(spring_friction(test), 1), "unit": "N",
            "origin": f"kc/{test.path.name}: half the jump of wheel_load_left at design between the bump and the "
                      f"rebound branch (straight lines over {HALF_RANGE * 1e3:g} mm each side); not in the RTM: its "
                      "map-based spring has no friction, the stiffness map keeps the K&C loads as measured"}
