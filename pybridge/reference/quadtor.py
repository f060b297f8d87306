"""The QuadTor front of the reference vehicle: torsion bars on the lower arms and a separate anti-roll bar.

The wishbones, uprights, wheels, tie rods, dampers and stops are the ones :class:`ReferenceVehicle`
builds for every front (the QuadTor's upper arms sit on bushings, ``front.bushings.upper_arm``). This
module adds what the QuadTor has instead of the QuadLeaf's transverse leaf:

- per side a **longitudinal torsion bar** from ``torsion_bar_anchor`` (chassis cross member) to the
  lower arm's pivot axis (the bar must lie on it): a rotational spring between chassis and lower arm
  about the bar axis, ``front.torsion_bar.torsional_stiffness`` (N m/rad). Its wind-up at design (the
  preload that carries the static load) is an offset solved by ``statics.leaf_offsets`` like the
  leaves' (the bar is registered as a preloadable joint named ``front_torsion_bar_<L|R>``).
- an **anti-roll bar** as the rear one (``ReferenceVehicle._anti_roll_bar``): two arms on chassis
  bearings (``anti_roll_pivot``, axis y) coupled by the bar's torsional stiffness, each arm end joined
  to its lower arm by a rigid drop link (``anti_roll_arm_end`` to ``anti_roll_link_lower``).
"""
from __future__ import annotations

import exudyn as exu
import numpy as np

from pybridge.reference.model import LEAF_PRELOAD_STIFFENING, SIDES, LeafJoint
from pybridge.reference.vehicle_data import VehicleData, VehicleDataError

AXIS_TOLERANCE = 1e-3  # m, distance of the torsion bar's anchor from the lower arm's pivot axis


def bar_axis(data: VehicleData, side: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(point, unit direction) of a torsion bar: from its anchor towards the lower arm, on the arm's axis."""
    front, rear = data.hardpoint("front", "lower_arm_front", side), data.hardpoint("front", "lower_arm_rear", side)
    anchor = data.hardpoint("front", "torsion_bar_anchor", side)
    axis = (front - rear) / np.linalg.norm(front - rear)
    off_axis = np.linalg.norm(np.cross(anchor - rear, axis))
    if off_axis > AXIS_TOLERANCE:
        raise VehicleDataError(f"{data.source}: front.hardpoints.torsion_bar_anchor: {off_axis * 1e3:.1f} mm off the lower "
                         f"arm's pivot axis (lower_arm_front-lower_arm_rear); expected a bar on that axis")
    return rear, axis if np.dot(rear - anchor, axis) > 0 else -axis


def joint_frame(axis: np.ndarray) -> np.ndarray:
    """Rotation matrix whose first column is ``axis`` (global frame to the bar's frame, transposed)."""
    helper = np.array([0.0, 0.0, 1.0]) if abs(axis[2]) < 0.9 else np.array([0.0, 1.0, 0.0])
    second = np.cross(helper, axis)
    second /= np.linalg.norm(second)
    return np.column_stack([axis, second, np.cross(axis, second)])


def build_quadtor_springs(vehicle, chassis: int, arms: dict) -> None:
    """Torsion bars and the anti-roll bar of the QuadTor front (``arms``: side -> lower arm body)."""
    for s, side in SIDES.items():
        vehicle.corners[f"F{s}"].elements["torsion_bar"] = _torsion_bar(vehicle, chassis, arms[side], s, side)
    vehicle.front_anti_roll_bar = vehicle._anti_roll_bar("front", chassis, arms)


def _torsion_bar(vehicle, chassis: int, arm: int, s: str, side: int) -> int:
    """Rotational spring chassis-lower arm about the bar axis, preloadable as a leaf joint."""
    point, axis = bar_axis(vehicle.data, side)
    stiffness = float(vehicle.data["front"]["torsion_bar"]["torsional_stiffness"])
    name = f"front_torsion_bar_{s}"
    k = stiffness * (LEAF_PRELOAD_STIFFENING if vehicle.stiff_leaves else 1.0)
    offset = [0.0, 0.0, 0.0, *vehicle.leaf_offsets.get(name, (0.0, 0.0, 0.0))]
    matrix = np.diag([0.0, 0.0, 0.0, k, 0.0, 0.0])
    damping = np.diag([0.0, 0.0, 0.0, 1e-3 * k if vehicle.dissipation else 0.0, 0.0, 0.0])
    index = vehicle.mbs.CreateRigidBodySpringDamper(
        itemNumbers=[chassis, arm], localPosition0=vehicle._local(chassis, point), localPosition1=vehicle._local(arm, point),
        stiffness=matrix, damping=damping, offset=offset, rotationMatrixJoint=joint_frame(axis),
        useGlobalFrame=False, useIntrinsicFormulation=False, show=False)
    vehicle.leaf_joints.append(LeafJoint(name, int(index), np.array([stiffness, 0.0, 0.0]), (chassis, arm)))
    vehicle._rbsd_potential("torsion_bars", index, matrix, np.array(offset))
    return int(index)


def torsion_bar_moment(vehicle, corner: str) -> np.ndarray:
    """Moment (global vector, N m) of a corner's torsion bar on its lower arm."""
    mbs, e = vehicle.mbs, vehicle.corners[corner].elements
    bar = e["torsion_bar"]
    rotation = np.asarray(mbs.GetObjectOutput(bar, exu.OutputVariableType.Rotation))[0]
    offset = np.asarray(mbs.GetObjectParameter(bar, "offset"))[3]
    stiffness = np.asarray(mbs.GetObjectParameter(bar, "stiffness"))[3, 3]
    axis = vehicle.rotation(vehicle.bodies["chassis"].index) @ bar_axis(vehicle.data, vehicle.corners[corner].side)[1]
    return -stiffness * (rotation - offset) * axis


def equivalent_spring_force(vehicle, corner: str, point: np.ndarray) -> float:
    """The torsion bar's moment as a vertical force at ``point`` on the lower arm (N, + pushes the arm down).

    F with r x (0, 0, -F) . u = M . u, r from the bar axis to the point, u the axis: the force that
    does the same work as the bar over a small rotation of the arm.
    """
    side = vehicle.corners[corner].side
    origin, axis = bar_axis(vehicle.data, side)
    chassis = vehicle.bodies["chassis"]
    rot = vehicle.rotation(chassis.index)
    u = rot @ axis
    r = np.asarray(point) - vehicle.position(chassis.index, origin - chassis.cg)
    lever = float(np.dot(np.cross(r, [0.0, 0.0, -1.0]), u))
    return float(np.dot(torsion_bar_moment(vehicle, corner), u)) / lever
