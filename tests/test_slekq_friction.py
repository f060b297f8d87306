"""Strut friction of a SLEKQ corner (``CornerData.fFriction``, Dahl law) on the K&C rig: a slow sine force
gives a force-travel loop whose width at mid travel is twice the friction force (the strut is vertical, so
the wheel sees the strut force), and no friction at all with the default fFriction = 0."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


G = 9.81
DAMPER = {f"data.d{i}": 300.0 for i in (1, 3, 4, 6)}   # light damping: the loop is mostly friction


def _loop_width(session, friction: float) -> tuple[float, float]:
    """(FZ on the way up - FZ on the way down at mid travel, the largest |Ffriction|) in the second period
    of a 0.1 Hz, ±2 kN sine force about the static load."""
    from pybridge.parameters import ParameterSet

    t = np.arange(0.0, 20.0 + 1e-9, 0.005)
    static = (450 + 45) * G                      # CornerData defaults: mSprung 450 kg, mUnsprung 45 kg
    force = static + 2000.0 * np.sin(2 * np.pi * 0.1 * t)
    frame = pd.DataFrame({"time": t, "FZ": force, "lambda": 0.0, "GI": 0.0, "GP": 0.0, "GD": 0.0,
                          "zRef": 0.0, "vRef": 0.0, "aRef": 0.0})
    params = ParameterSet(model="VehicleRTM.QuarterCars.KCRig",
                          scalars={**DAMPER, "data.fFriction": friction, "data.xFriction": 5e-4})
    session.apply(params)
    run = session.simulate(frame, stop_time=float(t[-1]), step=0.005, outputs=["z", "corner.Ffriction"])
    second = run["time"].to_numpy() >= 10.0
    z, f = run["z"].to_numpy()[second], np.interp(run["time"].to_numpy()[second], t, force)
    middle = 0.5 * (z.max() + z.min())
    above = z > middle
    up = np.flatnonzero(~above[:-1] & above[1:])[0]        # travel rising through mid: bump, loading
    down = np.flatnonzero(above[:-1] & ~above[1:])[0]
    at = lambda i: np.interp(middle, sorted(z[i:i + 2]), f[i:i + 2] if z[i] < z[i + 1] else f[i:i + 2][::-1])  # noqa: E731
    return float(at(up) - at(down)), float(np.abs(run["corner.Ffriction"]).max())


def test_strut_friction_loop_has_the_parameters_width(native_fmu):
    from pybridge.simulate.fmu import FMUSession

    with FMUSession(native_fmu("VehicleRTM.QuarterCars.KCRig", "cs"), instance_name="friction") as session:
        width_0, peak_0 = _loop_width(session, 0.0)
        width, peak = _loop_width(session, 250.0)
    assert peak_0 == 0.0                              # the default carries no friction force at all
    assert peak == pytest.approx(250.0, rel=1e-3)     # sliding: the full Coulomb force
    # bump needs the friction force more, rebound less: the loop widens by twice the force
    assert width - width_0 == pytest.approx(500.0, rel=0.02)
    assert abs(width_0) < 40.0                        # light damping only (2 d v at mid travel ~ 25 N)
