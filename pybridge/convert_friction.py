"""Spring friction of an axle (a multi-leaf pack's inter-leaf friction) as the K&C parallel-travel test shows it.

A K&C travel sweep starts at design and runs to full bump, then from design again to full rebound.
With friction in the spring the wheel load jumps at design between the two branches: loading (bump)
carries the friction force on top of the elastic force, unloading (rebound) below it. The jump is
twice the friction force at the wheel: it is the hysteresis loop's width at design.

``spring_friction(test)`` fits a straight line to each branch within ``HALF_RANGE`` of design and
returns half the difference of the two at design (N, at the wheel centre, left wheel).
:func:`elastic_load` takes it off the K&C wheel load (loading in bump, unloading in rebound), so the
maps are the elastic spring. On a multi-leaf rear (:func:`carried`) the conversion puts the friction in
the RTM's map-based spring (``StiffnessMaps.friction``, Dahl law) and in the SLEKQ corner's strut
(``CornerData.fFriction``); elsewhere it reports the value in ``metadata["derived"]`` only.
"""
from __future__ import annotations

import numpy as np

from pybridge.mbm.dataset import ConversionError
from pybridge.mbm.kc_results import KCResults

__all__ = ["HALF_RANGE", "carried", "elastic_load", "friction_entry", "spring_friction"]

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


def carried(axle: str, rear: str) -> bool:
    """Whether the conversion carries the spring friction: the rear axle of a multi-leaf variant."""
    return axle == "rear" and rear == "multileaf"


def elastic_load(z: np.ndarray, load: np.ndarray, friction: float) -> np.ndarray:
    """The wheel load without the friction: load - friction·sign(z); at design (z = 0, where a test's row may
    sit on either branch) the value between its neighbours."""
    z, load = np.asarray(z, float), np.asarray(load, float)
    if friction <= 0:
        return load
    design = np.abs(z) <= 1e-9
    out = load - friction * np.where(design, 0.0, np.sign(z))
    order = np.argsort(z[~design])
    out[design] = np.interp(0.0, z[~design][order], out[~design][order])
    return out


def friction_entry(test: KCResults, in_rtm: bool = False) -> dict:
    """The derived-quantity entry of a converted set: value, unit, origin, and whether the RTM carries it."""
    where = ("in the RTM as StiffnessMaps.friction, the stiffness maps without it" if in_rtm else
             "not in the RTM (no multi-leaf pack here), the stiffness map keeps the K&C loads as measured")
    return {"value": round(spring_friction(test), 1), "unit": "N",
            "origin": f"kc/{test.path.name}: half the jump of wheel_load_left at design between the bump and the "
                      f"rebound branch (straight lines over {HALF_RANGE * 1e3:g} mm each side); {where}"}
