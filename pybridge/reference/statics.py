"""Static solutions of the reference vehicle: leaf preload to design, equilibrium on the tyres.

The leaves are assembled straight at design position. Like an engineer preloading springs in
Adams/Car, ``leaf_offsets`` finds the free shape: with the chassis held at design and the target
corner loads applied at the contact patches, the leaf joints are made very stiff, their small
rotations read, and turned into rotational offsets of the real joints that carry those moments at
the design shape. ``static_equilibrium`` then lets the vehicle settle on its tyres under gravity.
"""
from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass

import exudyn as exu
import numpy as np

from pybridge.reference.model import LEAF_PRELOAD_STIFFENING, ReferenceVehicle
from pybridge.reference.vehicle_data import VehicleData


class StaticSolutionError(RuntimeError):
    """The static solver did not converge."""


def static_settings(tolerance: float = 1e-8) -> exu.SimulationSettings:
    """Quiet Newton settings for SolveStatic with a sparse linear solver."""
    settings = exu.SimulationSettings()
    settings.solution.file.write = False
    settings.show.statistics = False
    settings.show.computationTime = False
    settings.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    settings.staticSolver.verboseMode = 0
    settings.staticSolver.newton.relativeTolerance = tolerance
    settings.staticSolver.newton.absoluteTolerance = 1e-8
    settings.staticSolver.newton.maxIterations = 50
    return settings


def solve_static(vehicle: ReferenceVehicle, settings: exu.SimulationSettings | None = None) -> None:
    """Solve the static equilibrium from the vehicle's initial state; the result becomes current."""
    with contextlib.redirect_stdout(io.StringIO()):
        ok = vehicle.mbs.SolveStatic(settings or static_settings())
    if not ok:
        raise StaticSolutionError(f"static solution of the '{vehicle.setup}' setup did not converge")


def restart_from_current(vehicle: ReferenceVehicle) -> None:
    """Use the last solution as the start of the next solve (sweeps)."""
    vehicle.set_initial_state(vehicle.state())


def target_corner_loads(data: VehicleData) -> dict[str, float]:
    """Target vertical contact-patch load per corner (N)."""
    t = data["targets"]
    return {"FL": t["corner_load_front"], "FR": t["corner_load_front"],
            "RL": t["corner_load_rear"], "RR": t["corner_load_rear"]}


def _force_controlled_rig(data: VehicleData, **options) -> ReferenceVehicle:
    """K&C rig with the chassis held and the target corner loads applied at the contact patches
    (no inter-leaf friction: the preload is the frictionless pack's, so design is friction-free)."""
    rig = ReferenceVehicle(data, "kc", dissipation=False, **options)
    if rig.leaf_pack is not None:
        rig.leaf_pack.mu = 0.0
    for name, load in target_corner_loads(data).items():
        e = rig.corners[name].elements
        rig.mbs.SetObjectParameter(e["pad"], "stiffness", [0.0, 0.0, 0.0])
        rig.mbs.SetLoadParameter(e["contact_force"], "loadVector", [0.0, 0.0, load])
    solve_static(rig)
    return rig


def _design_travel(data: VehicleData, offsets: dict) -> np.ndarray:
    """Mean wheel travel (m) of the front and rear axle under the target loads with ``offsets``."""
    rig = _force_controlled_rig(data, leaf_offsets=offsets)
    travel = {c: float(rig.position(k.wheel)[2] - k.centre[2]) for c, k in rig.corners.items()}
    return np.array([travel["FL"] + travel["FR"], travel["RL"] + travel["RR"]]) / 2


def leaf_offsets(data: VehicleData) -> dict[str, tuple[float, float, float]]:
    """Rotational offsets of every leaf joint that put the design position in equilibrium.

    First the leaf moments at the design shape (stiff leaves, target loads); then one secant step
    per axle scales those offsets so the bushings' deflection under load is taken up too and the
    wheel centres sit at design height (within micrometres). Inter-leaf contacts of a multi-leaf pack
    get (initial slip, 0, normal preload): the slip is the tips' sliding at design, so no friction
    force is locked into the design position.
    """
    rig = _force_controlled_rig(data, stiff_leaves=True)
    base = {j.name: -LEAF_PRELOAD_STIFFENING * np.asarray(
        rig.mbs.GetObjectOutput(j.connector, exu.OutputVariableType.Rotation)) for j in rig.leaf_joints}
    if rig.leaf_pack is not None:
        base.update({n: np.asarray(v) for n, v in rig.leaf_pack.preloads().items()})  # inter-leaf contacts

    def scaled(scale):
        return {n: tuple(v * (scale[0] if n.startswith("front") else scale[1])) for n, v in base.items()}
    first, second = np.ones(2), np.full(2, 1.05)
    e1, e2 = _design_travel(data, scaled(first)), _design_travel(data, scaled(second))
    offsets = scaled(first - e1 * (second - first) / (e2 - e1))
    if rig.leaf_pack is not None:   # the pack settles at design with no friction locked in
        settled = _force_controlled_rig(data, leaf_offsets=offsets).leaf_pack
        offsets.update({c.name: (float(settled.displacement(c)[0]), 0.0, c.preload) for c in settled.contacts})
    return offsets


@dataclass
class StaticResult:
    """Static equilibrium on the tyres."""
    corner_loads: dict[str, float]       # N, vertical contact-patch force
    ride_heights: dict[str, float]       # m, chassis reference points above the ground, front/rear
    wheel_centre_heights: dict[str, float]
    vehicle: ReferenceVehicle            # solved, current state = equilibrium


def pad_force(vehicle: ReferenceVehicle, corner: str) -> np.ndarray:
    """Force of the tyre pads (two for dual tyres) on the wheel (global), from the pads' deformation."""
    e = vehicle.corners[corner].elements
    return -sum(np.asarray(vehicle.mbs.GetObjectOutput(pad, exu.OutputVariableType.Force)) for pad in e["pads"])


def static_equilibrium(data: VehicleData, offsets: dict | None = None, loads=None) -> StaticResult:
    """The vehicle standing on its tyres (vertical stiffness, tread stiffness) under gravity.

    ``loads``: a callable that adds further loads to the pads vehicle before the solve (e.g. those of
    straight running at speed, ``pybridge.reference.road.running_loads``).
    """
    offsets = leaf_offsets(data) if offsets is None else offsets
    vehicle = ReferenceVehicle(data, "pads", leaf_offsets=offsets)
    if loads is not None:
        loads(vehicle)
        vehicle.mbs.Assemble()
    solve_static(vehicle)
    chassis = vehicle.bodies["chassis"]
    heights = {}
    for axle in ("front", "rear"):
        point = data.hardpoint(axle, "ride_height_point")
        heights[axle] = float(vehicle.position(chassis.index, point - chassis.cg)[2])
    return StaticResult(
        corner_loads={c: float(pad_force(vehicle, c)[2]) for c in vehicle.corners},
        ride_heights=heights,
        wheel_centre_heights={c: float(vehicle.position(k.wheel)[2]) for c, k in vehicle.corners.items()},
        vehicle=vehicle)
