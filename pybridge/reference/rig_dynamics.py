"""Dynamic rig tests of the reference vehicle: four-post heave/pitch sweeps, swept-sine corner force.

Four-post: the vehicle stands on four posts that move as the scenario says, the contact-patch tyres
on them, the wheels free to roll: the contact patches take no fore-aft force from a brake, as on the
K&C corner rig (chassis held, patches free horizontally) where the SLEKQ corners are identified. A
holding brake (the road runs' regularised brake law as an explicit torque) chattered up to 2.5 kN m
at standstill; as an implicit damper at the law's standstill slope it locks the wheels, and the
tyres' fore-aft stiffness then moves the pitch resonance (MBM pitch FRF peak 1.9 -> 2.6 Hz), which no
four-post model of corners identified with free patches can follow. It starts from the static
equilibrium on the pads: the same coordinates, the tyres' slip states carrying the pads' horizontal
forces, the tyre loads applied before the integrator computes its initial accelerations.
Corner force (SLEKQ paper, Sec. 4): the ``kc`` setup (chassis held), the other wheel of the axle
held at design height, a vertical force F0 + 1 kN sin(phi(t)) at the tested wheel's contact patch.
"""
from __future__ import annotations

import time as clock

import numpy as np
import pandas as pd

from pybridge.reference.model import CORNERS, ReferenceVehicle
from pybridge.reference.road import (STEP, dynamic_settings, hold_tyres, load_tyres,
                                     run_dynamic, start_from)
from pybridge.reference.dual_tyre import corner_tyre
from pybridge.reference.statics import leaf_offsets, solve_static, static_equilibrium
from pybridge.reference.vehicle_data import VehicleData
from pybridge.simulate.scenarios import Scenario

DERIVATIVE_STEP = 1e-5  # s, central difference of the post displacement signals


def _sampler(rate: float):
    """A closure that says whether time t is due for a sample at ``rate``."""
    state = {"next": 0.0}

    def due(t: float) -> bool:
        if t + 1e-9 >= state["next"]:
            state["next"] += 1.0 / rate
            return True
        return False
    return due


def run_four_post(data: VehicleData, scenario: Scenario, *, offsets: dict | None = None, h: float = STEP,
                  duration: float | None = None) -> tuple[pd.DataFrame, float]:
    """Four-post sweep; returns the sampled outputs and the wall time (s).

    The posts are the road under each tyre (``road`` setup at standstill, wheels free to roll): the
    contact-patch tyre sees the post's height and vertical velocity.
    """
    offsets = leaf_offsets(data) if offsets is None else offsets
    static = static_equilibrium(data, offsets)
    vehicle = ReferenceVehicle(data, "road", leaf_offsets=offsets)
    start_from(vehicle, static.vehicle)
    posts = {c: scenario.signal(f"post_{c.lower()}") for c in CORNERS}
    tyres = {c: corner_tyre(data, c) for c in CORNERS}
    hold_tyres(tyres, static.vehicle)
    chassis = vehicle.bodies["chassis"]
    z0 = float(static.vehicle.position(chassis.index)[2])
    rows, due = [], _sampler(scenario.sample_rate)

    def pre_step(mbs, t):
        vehicle.commit_friction()   # the leaf pack's slip states after the last converged step
        forces = load_tyres(vehicle, tyres, {name: _height_and_rate(posts[name], t) for name in CORNERS})
        for tyre in tyres.values():
            tyre.advance(h)
        if due(t):
            rotation = vehicle.rotation(chassis.index)
            row = {"time": t, "heave": float(vehicle.position(chassis.index)[2]) - z0,
                   "pitch": -float(np.arcsin(np.clip(rotation[2, 0], -1, 1))),
                   "roll": float(np.arctan2(rotation[2, 1], rotation[2, 2]))}
            for name in CORNERS:
                row[f"post_{name.lower()}"] = float(posts[name](np.array([t]))[0])
                row[f"fz_{name.lower()}"] = forces[name].Fz
            rows.append(row)
        return True
    vehicle.mbs.SetPreStepUserFunction(pre_step)
    load_tyres(vehicle, tyres, {name: _height_and_rate(posts[name], 0.0) for name in CORNERS})  # standing at rest
    start = clock.perf_counter()
    run_dynamic(vehicle, dynamic_settings(scenario.duration if duration is None else duration, h))
    return pd.DataFrame(rows), clock.perf_counter() - start


def _height_and_rate(signal, t: float) -> np.ndarray:
    """Post height and its rate (central difference) at t."""
    z = signal(np.array([t, t - DERIVATIVE_STEP, t + DERIVATIVE_STEP]))
    return np.array([z[0], (z[2] - z[1]) / (2 * DERIVATIVE_STEP)])


def run_corner_force(data: VehicleData, scenario: Scenario, corner: str, *, offsets: dict | None = None,
                     h: float = STEP, duration: float | None = None) -> tuple[pd.DataFrame, float]:
    """Swept-sine vertical force on ``corner`` (e.g. 'FL'), chassis held; outputs and wall time (s)."""
    offsets = leaf_offsets(data) if offsets is None else offsets
    rig = ReferenceVehicle(data, "kc", leaf_offsets=offsets)
    tested = rig.corners[corner]
    rig.mbs.SetObjectParameter(tested.elements["pad"], "stiffness", [0.0, 0.0, 0.0])
    weight = corner_weight(data, corner)
    rig.mbs.SetLoadParameter(tested.elements["contact_force"], "loadVector", [0.0, 0.0, weight])
    solve_static(rig)
    rig.commit_friction()
    rig.set_initial_state(rig.state())
    force = scenario.signal("corner_force", lambda name, value: weight)
    load = tested.elements["contact_force"]
    z0 = float(rig.position(tested.wheel)[2])
    rows, due = [], _sampler(scenario.sample_rate)

    def pre_step(mbs, t):
        rig.commit_friction()
        f = float(force(np.array([t]))[0])
        mbs.SetLoadParameter(load, "loadVector", [0.0, 0.0, f])
        if due(t):
            rows.append({"time": t, "corner_force": f, "wheel_travel": float(rig.position(tested.wheel)[2]) - z0})
        return True
    rig.mbs.SetPreStepUserFunction(pre_step)
    start = clock.perf_counter()
    run_dynamic(rig, dynamic_settings(scenario.duration if duration is None else duration, h))
    return pd.DataFrame(rows), clock.perf_counter() - start


def corner_weight(data: VehicleData, corner: str) -> float:
    """Static vertical load of a corner (N): the data file's target corner load."""
    t = data["targets"]
    return float(t["corner_load_front"] if corner.startswith("F") else t["corner_load_rear"])
