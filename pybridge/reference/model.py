"""The reference multibody LCV on Exudyn: rigid bodies, joints, bushings, leaf springs, force elements.

Redundant coordinates with algebraic constraints, as Adams/Car: every part is a rigid body (Euler
parameters), joined by ideal joints (revolute, spherical, prismatic, distance) and by bushings
(6-component spring-dampers). Closed kinematic loops: wishbone-upright-tie rod-rack-chassis at the
front, leaf-axle-leaf and shackle chains at the rear.

- Front (per side): lower arm on two chassis bushings, upper arm on a revolute joint, upright on two
  ball joints, wheel on a revolute joint, tie rod (distance constraint) to the rack (prismatic joint,
  column stiffness to the steering input). A transverse leaf spring of eight rigid segments with
  bending joints spans the axle: pinned to the chassis at two bushings, its ends bear on the lower arms
  through bushings, so it is the spring in parallel travel and an anti-roll bar in opposite travel.
  The QuadTor front (``front.type: quadtor``, ``pybridge.reference.quadtor``) has its upper arms on
  bushings, a longitudinal torsion bar on each lower arm and a separate anti-roll bar instead.
- Rear: solid axle clamped to two longitudinal leaf springs (seven segments each; front eye bushing,
  rear end on a shackle link), an anti-roll bar of two arms on chassis bearings coupled by a torsion
  spring, with drop links (distance constraints) to the axle.
- Dampers, bump and rebound stops: nonlinear spring-damper elements along their axes.

Setups: ``road`` (Magic Formula tyres at the contact patches, forces set each step by
``pybridge.reference.road``), ``pads`` (the tyres replaced by their vertical stiffness and a
horizontal tread stiffness at the contact points: static equilibrium, four-post rig), ``kc``
(chassis held, wheels locked, a vertical actuator and applied forces at each contact patch).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import exudyn as exu
import numpy as np
from exudyn.itemInterface import MarkerBodyPosition, ObjectConnectorCartesianSpringDamper
from exudyn.utilities import RigidBodyInertia

from pybridge.reference.dual_tyre import dual_spacing
from pybridge.reference.vehicle_data import VehicleData, mirror, mirror_inertia
from pybridge.mbm.tir import read_tir

SETUPS = ("road", "pads", "kc")
SIDES = {"L": 1, "R": -1}
CORNERS = ("FL", "FR", "RL", "RR")
PAD_STIFFNESS = 1.0e9          # N/m of the K&C rig's vertical actuators (displacement control)
LEAF_PRELOAD_STIFFENING = 1.0e4  # stiffness factor of the leaf joints during the preload pass


def interp_extrapolated(x: float, xp: np.ndarray, fp: np.ndarray) -> float:
    """Piecewise-linear interpolation, extrapolated linearly with the end slopes."""
    if x < xp[0]:
        return fp[0] + (x - xp[0]) * (fp[1] - fp[0]) / (xp[1] - xp[0])
    if x > xp[-1]:
        return fp[-1] + (x - xp[-1]) * (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
    return float(np.interp(x, xp, fp))


@dataclass
class BodyRecord:
    """A body of the assembled model, for the mass table and the outputs."""
    index: int
    mass: float
    cg: np.ndarray
    inertia: np.ndarray
    body_class: str
    axle: str
    side: str
    part: str  # the data file's body this one belongs to (leaf segments share their leaf)


@dataclass
class LeafJoint:
    """A bending joint of a leaf spring: rotational spring about the joint's point."""
    name: str
    connector: int
    stiffness: np.ndarray  # rotational stiffness [x, y, z] in N m/rad
    bodies: tuple[int, int]


@dataclass
class Corner:
    """Items of one corner: wheel, the body carrying it, and its force/measure elements."""
    name: str
    side: int
    wheel: int
    carrier: int          # upright (front) or axle (rear)
    centre: np.ndarray    # design wheel-centre position
    elements: dict = field(default_factory=dict)


class ReferenceVehicle:
    """The multibody model of ``data`` in one of the SETUPS (see the module docstring).

    ``leaf_offsets`` maps leaf-joint names to rotational offsets (rad) that preload the leaves so the
    design position carries the target corner loads (``pybridge.reference.statics``).
    ``dissipation=False`` switches every damper and bushing damping off (energy checks).
    ``speed`` (m/s) and ``spin`` (rad/s per corner) are the initial forward speed and wheel spins.
    ``hold_chassis=False`` frees the chassis in the ``kc`` setup (free oscillation on the pads).
    """

    def __init__(self, data: VehicleData, setup: str = "road", *, dissipation: bool = True,
                 leaf_offsets: dict | None = None, stiff_leaves: bool = False, speed: float = 0.0,
                 spin: dict | None = None, hold_chassis: bool = True):
        if setup not in SETUPS:
            raise ValueError(f"setup '{setup}' is not one of {SETUPS}")
        self.data, self.setup, self.dissipation = data, setup, dissipation
        self.leaf_offsets = leaf_offsets or {}
        self.stiff_leaves = stiff_leaves
        self.stiff_factor = LEAF_PRELOAD_STIFFENING
        self.leaf_pack = None      # pybridge.reference.multileaf.LeafPack when rear.type is multileaf
        self.speed = speed
        self.spin = spin or {}   # initial wheel spin speeds (rad/s) per corner
        self.hold_chassis = hold_chassis
        self.tir = read_tir(data.tyre_file).flat()
        self.system = exu.SystemContainer()
        self.mbs = self.system.AddSystem()
        self.ground = self.mbs.CreateGround()
        self.bodies: dict[str, BodyRecord] = {}
        self.leaf_joints: list[LeafJoint] = []
        self.corners: dict[str, Corner] = {}
        self.potentials: list = []   # (kind, callable) giving each conservative element's stored energy (J)
        self.rack_target = 0.0     # m, set by the driver / rig
        self._build()
        self.mbs.Assemble()

    # --- building blocks -------------------------------------------------------------------
    def _body(self, key: str, part: str, mass: float, cg, inertia, side: str = "centre", spin: float = 0.0) -> int:
        spec = self.data.bodies[part]
        index = self.mbs.CreateRigidBody(
            referencePosition=list(cg), inertia=RigidBodyInertia(mass, inertia),
            gravity=[0.0, 0.0, -self.data.gravity], initialVelocity=[self.speed, 0.0, 0.0],
            initialAngularVelocity=[0.0, spin, 0.0])
        self.bodies[key] = BodyRecord(int(index), mass, np.array(cg, float), inertia,
                                      spec.body_class, spec.axle, side, part)
        return index

    def _part(self, key: str, part: str, side: int = 1, spin: float = 0.0) -> int:
        spec = self.data.bodies[part]
        label = "centre" if spec.cg[1] == 0 else ("left" if side > 0 else "right")
        return self._body(key, part, spec.mass, mirror(spec.cg, side), mirror_inertia(spec.inertia, side), label, spin)

    def _cg(self, body: int) -> np.ndarray:
        if int(body) == int(self.ground):
            return np.zeros(3)
        return next(b.cg for b in self.bodies.values() if b.index == int(body))

    def _local(self, body: int, point) -> list:
        return list(np.asarray(point, float) - self._cg(body))

    def _bushing(self, b0: int, b1: int, point, spec: dict) -> int:
        """Bushing: translational (and optional rotational) stiffness and damping in the frame of b0.

        Not Exudyn's intrinsic (mid-frame, SE(3) logarithm) formulation: under a leaf's preload of
        about 9 kN that formulation couples the preload into the rotation and softened the wheel rate
        by 8 %; a rubber bushing's stiffness lives in the frame of the part it is pressed into.
        """
        rotational = spec.get("rotational_stiffness", [0.0] * 3)
        stiffness = np.diag([*spec["stiffness"], *rotational])
        damping = np.diag([*(spec["damping"] if self.dissipation else [0.0] * 3), 0.0, 0.0, 0.0])
        index = self.mbs.CreateRigidBodySpringDamper(
            itemNumbers=[b0, b1], localPosition0=self._local(b0, point), localPosition1=self._local(b1, point),
            stiffness=stiffness, damping=damping, useIntrinsicFormulation=False)
        self._rbsd_potential("bushings", index, stiffness, np.zeros(6))
        return index

    def _leaf_joint(self, name: str, b0: int, b1: int, point, stiffness) -> None:
        """Spherical joint plus rotational spring (bending/in-plane/twist) between two leaf segments.

        The spring acts on the relative rotation angles in the frame of the first segment
        (non-intrinsic): torque = K (angles - offset), the gradient of 1/2 (angles - offset)' K (...)
        for the single-axis bending that dominates; the intrinsic mid-frame variant couples an offset
        about one axis into torques about the others.
        """
        k = np.array(stiffness, float) * (LEAF_PRELOAD_STIFFENING if self.stiff_leaves else 1.0)
        offset = [0.0, 0.0, 0.0, *self.leaf_offsets.get(name, (0.0, 0.0, 0.0))]
        damping = np.diag([0, 0, 0, *(1e-3 * k if self.dissipation else np.zeros(3))])
        self.mbs.CreateSphericalJoint(itemNumbers=[b0, b1], position=list(point), show=False)
        index = self.mbs.CreateRigidBodySpringDamper(
            itemNumbers=[b0, b1], localPosition0=self._local(b0, point), localPosition1=self._local(b1, point),
            stiffness=np.diag([0, 0, 0, *k]), damping=damping, offset=offset, useIntrinsicFormulation=False)
        self.leaf_joints.append(LeafJoint(name, int(index), np.array(stiffness, float), (b0, b1)))
        self._rbsd_potential("leaves", index, np.diag([0, 0, 0, *k]), np.array(offset))

    def _line_element(self, b0: int, b1: int, p0, p1, force) -> int:
        """A force element along the line p0-p1; ``force(deltaL, deltaL_t)`` is + in tension."""
        def user_force(mbs, t, item, delta, delta_t, stiffness, damping, preload):
            return force(delta, delta_t)
        return self.mbs.CreateSpringDamper(
            itemNumbers=[b0, b1], localPosition0=self._local(b0, p0), localPosition1=self._local(b1, p1),
            referenceLength=float(np.linalg.norm(np.subtract(p1, p0))), springForceUserFunction=user_force)

    def _damper_and_stops(self, axle: str, lower: int, side: int) -> dict:
        """Damper, rebound stop (on the damper length) and bump stop of one corner."""
        d = self.data
        p = {k: d.hardpoint(axle, k, side) for k in ("damper_lower", "damper_upper", "bump_stop_lower", "bump_stop_upper")}
        v, f = d.curve(axle, "damper", "velocity", "force")
        rb_x, rb_f = d.curve(axle, "rebound_stop", "deflection", "force")
        bs_x, bs_f = d.curve(axle, "bump_stop", "deflection", "force")
        rb_gap, bs_gap = d[axle]["rebound_stop"]["clearance"], d[axle]["bump_stop"]["clearance"]
        dissipative = self.dissipation

        def damper(delta, rate):
            tension = interp_extrapolated(rate, v, f) if dissipative else 0.0
            if delta > rb_gap:
                tension += interp_extrapolated(delta - rb_gap, rb_x, rb_f)
            return tension

        def bump_stop(delta, rate):
            squeeze = -delta - bs_gap
            return -interp_extrapolated(squeeze, bs_x, bs_f) if squeeze > 0 else 0.0

        c = self.bodies["chassis"].index
        elements = {"damper": self._line_element(lower, c, p["damper_lower"], p["damper_upper"], damper),
                    "bump_stop": self._line_element(lower, c, p["bump_stop_lower"], p["bump_stop_upper"], bump_stop)}
        self.potentials.append(("stops", lambda: stop_energy(self._stretch(elements["damper"]) - rb_gap, rb_x, rb_f)))
        self.potentials.append(("stops", lambda: stop_energy(-self._stretch(elements["bump_stop"]) - bs_gap, bs_x, bs_f)))
        return elements

    def _wheel(self, corner: str, part: str, carrier: int, centre, side: int) -> int:
        wheel = self._part(f"{part}_{corner[1]}", part, side, self.spin.get(corner, 0.0))
        if self.setup == "kc":
            self.mbs.CreateGenericJoint(itemNumbers=[carrier, wheel], position=list(centre), show=False)
        else:
            self.mbs.CreateRevoluteJoint(itemNumbers=[carrier, wheel], position=list(centre), axis=[0, 1, 0], show=False)
        self.corners[corner] = Corner(corner, side, wheel, carrier, np.array(centre, float))
        return wheel

    # --- assembly ------------------------------------------------------------------------
    def _build(self) -> None:
        d = self.data
        chassis = self._part("chassis", "chassis")
        if self.setup == "kc" and self.hold_chassis:
            self.mbs.CreateGenericJoint(itemNumbers=[self.ground, chassis], position=list(self._cg(chassis)), show=False)
        self._front_axle(chassis)
        self._rear_axle(chassis)
        for corner in self.corners.values():
            self._contact(corner)
        if self.setup == "road":
            aero = d["aerodynamics"]
            self.aero_load = self.mbs.CreateForce(itemNumber=chassis, localPosition=[0.0, 0.0, aero["centre_height"] - self._cg(chassis)[2]])

    def _front_axle(self, chassis: int) -> None:
        d = self.data
        rack = self._part("steering_rack", "steering_rack")
        self.mbs.CreatePrismaticJoint(itemNumbers=[chassis, rack], position=list(self._cg(rack)), axis=[0, 1, 0], show=False)
        steer = d["steering"]
        anchor = self._cg(rack) + np.array([0.0, 1.0, 0.0])
        k_col, c_col = steer["column_stiffness"], steer["column_damping"] if self.dissipation else 0.0
        self.column = self._line_element(rack, chassis, self._cg(rack), anchor,
                                         lambda delta, rate: k_col * (delta - self.rack_target) + c_col * rate)
        self.potentials.append(("steering", lambda: 0.5 * k_col * (self._stretch(self.column) - self.rack_target) ** 2))
        fb = d["front"]["bushings"]
        arms = {}
        for s, side in SIDES.items():
            hp = lambda name: d.hardpoint("front", name, side)  # noqa: E731
            lower = self._part(f"front_lower_arm_{s}", "front_lower_arm", side)
            upper = self._part(f"front_upper_arm_{s}", "front_upper_arm", side)
            upright = self._part(f"front_upright_{s}", "front_upright", side)
            for pivot in ("lower_arm_front", "lower_arm_rear"):
                self._bushing(chassis, lower, hp(pivot), fb["lower_arm"])
            if d.front_type == "quadtor":  # upper arm on bushings too
                for pivot in ("upper_arm_front", "upper_arm_rear"):
                    self._bushing(chassis, upper, hp(pivot), fb["upper_arm"])
            else:
                axis = hp("upper_arm_rear") - hp("upper_arm_front")
                self.mbs.CreateRevoluteJoint(itemNumbers=[chassis, upper], position=list(0.5 * (hp("upper_arm_rear") + hp("upper_arm_front"))),
                                             axis=list(axis / np.linalg.norm(axis)), show=False)
            self.mbs.CreateSphericalJoint(itemNumbers=[lower, upright], position=list(hp("lower_ball_joint")), show=False)
            self.mbs.CreateSphericalJoint(itemNumbers=[upper, upright], position=list(hp("upper_ball_joint")), show=False)
            self.mbs.CreateDistanceConstraint(itemNumbers=[rack, upright], localPosition0=self._local(rack, hp("tie_rod_inner")),
                                              localPosition1=self._local(upright, hp("tie_rod_outer")), show=False)
            self._wheel(f"F{s}", "front_wheel", upright, hp("wheel_centre"), side)
            self.corners[f"F{s}"].elements.update(self._damper_and_stops("front", lower, side))
            self.corners[f"F{s}"].elements["lower_arm"] = lower
            arms[side] = lower
        if d.front_type == "quadtor":
            from pybridge.reference.quadtor import build_quadtor_springs  # imports this module
            build_quadtor_springs(self, chassis, arms)
        else:
            self._transverse_leaf(chassis, arms)

    def _transverse_leaf(self, chassis: int, arms: dict) -> None:
        d = self.data
        spec = d["front"]["transverse_leaf"]
        end, mount = d.hardpoint("front", "leaf_end"), d.hardpoint("front", "leaf_mount")
        inner = sorted(float(y) for y in spec["joints_y"])
        bounds = [-end[1], *[-y for y in reversed(inner)], 0.0, *inner, end[1]]
        k_bend = transverse_leaf_joint_stiffness(bounds, mount[1], spec["end_rate"])
        k = [k_bend, k_bend * spec["twist_to_vertical_bending"], k_bend * spec["lateral_to_vertical_bending"]]
        segments = self._segments("front_leaf", "front_leaf", bounds, axis=1, anchor=end, side_of=lambda y: "left" if y > 0 else "right")
        for i, y in enumerate(bounds[1:-1]):
            self._leaf_joint(f"front_leaf_{i + 1}", segments[i], segments[i + 1], [end[0], y, end[2]], k)
        bush = d["front"]["bushings"]
        for side in (1, -1):
            mount_segment = segments[bounds.index(side * mount[1]) - (1 if side > 0 else 0)]
            self._bushing(chassis, mount_segment, mirror(mount, side), bush["leaf_mount"])
            self._bushing(arms[side], segments[-1] if side > 0 else segments[0], mirror(end, side), bush["leaf_end"])

    def _segments(self, part: str, prefix: str, bounds: list, axis: int, anchor, side_of, share: float = 1.0) -> list[int]:
        """Rigid segments of a leaf between ``bounds`` along ``axis`` (slender rods), keys prefix_1..;
        the leaf has ``share`` of the part's mass (a leaf of a multi-leaf pack)."""
        spec = self.data.bodies[part]
        length = bounds[-1] - bounds[0]
        segments = []
        for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            mass = share * spec.mass * (b - a) / length
            cg = np.array(anchor, float)
            cg[axis] = 0.5 * (a + b)
            rod = mass * (b - a) ** 2 / 12.0  # bounds may decrease (rear leaf, from the eye rearwards)
            inertia = np.full(3, rod + 1e-4)
            inertia[axis] = min(1e-4 + mass * 1e-3, 2 * inertia[0 if axis else 1])  # short segments: triangle inequality
            segments.append(self._body(f"{prefix}_{i + 1}", part, mass, cg, np.diag(inertia), side_of(cg[axis])))
        return segments

    def _rear_axle(self, chassis: int) -> None:
        d = self.data
        axle = self._part("rear_axle", "rear_axle")
        if d.rear_type == "multileaf":
            from pybridge.reference.multileaf import LeafPack
            self.leaf_pack = LeafPack(self, axle)
        for s, side in SIDES.items():
            hp = lambda name: d.hardpoint("rear", name, side)  # noqa: E731
            segs = self.leaf_pack.build_side(s, side) if self.leaf_pack else self._single_leaf(axle, s, side)
            self._bushing(chassis, segs[0], hp("leaf_front_eye"), d["rear"]["bushings"]["leaf_eye"])
            shackle = self._part(f"rear_shackle_{s}", "rear_shackle", side)
            self.mbs.CreateRevoluteJoint(itemNumbers=[segs[-1], shackle], position=list(hp("leaf_rear_end")), axis=[0, 1, 0], show=False)
            self.mbs.CreateRevoluteJoint(itemNumbers=[chassis, shackle], position=list(hp("shackle_upper")), axis=[0, 1, 0], show=False)
            self._wheel(f"R{s}", "rear_wheel", axle, hp("wheel_centre"), side)
            self.corners[f"R{s}"].elements.update(self._damper_and_stops("rear", axle, side))
        self.anti_roll_bar = self._anti_roll_bar("rear", chassis, {1: axle, -1: axle})

    def _anti_roll_bar(self, axle: str, chassis: int, carriers: dict) -> int:
        """Anti-roll bar of ``axle``: two arms on chassis bearings (axis y) coupled by the bar's torsional
        stiffness, each arm end on a rigid drop link to its carrier (``carriers``: side -> body)."""
        d = self.data
        arms = {}
        for s, side in SIDES.items():
            hp = lambda name: d.hardpoint(axle, name, side)  # noqa: E731
            arm = self._part(f"{axle}_anti_roll_arm_{s}", f"{axle}_anti_roll_arm", side)
            self.mbs.CreateRevoluteJoint(itemNumbers=[chassis, arm], position=list(hp("anti_roll_pivot")), axis=[0, 1, 0], show=False)
            self.mbs.CreateDistanceConstraint(itemNumbers=[arm, carriers[side]], localPosition0=self._local(arm, hp("anti_roll_arm_end")),
                                              localPosition1=self._local(carriers[side], hp("anti_roll_link_lower")), show=False)
            arms[side] = arm
        stiffness = np.diag([0, 0, 0, 0, float(d[axle]["anti_roll_bar"]["torsional_stiffness"]), 0])
        pivot = d.hardpoint(axle, "anti_roll_pivot")
        index = self.mbs.CreateRigidBodySpringDamper(
            itemNumbers=[arms[1], arms[-1]], localPosition0=self._local(arms[1], pivot),
            localPosition1=self._local(arms[-1], mirror(pivot, -1)), stiffness=stiffness,
            damping=np.zeros((6, 6)), useIntrinsicFormulation=False)
        self._rbsd_potential("anti_roll_bar", index, stiffness, np.zeros(6))
        return index

    def _single_leaf(self, axle: int, s: str, side: int) -> list[int]:
        """One longitudinal leaf of rigid segments clamped to the axle; returns its segments, eye first."""
        d = self.data
        spec = d["rear"]["leaf"]
        eye, seat, rear_end = (d.hardpoint("rear", k) for k in ("leaf_front_eye", "leaf_seat", "leaf_rear_end"))
        bounds = [eye[0], *sorted((float(x) for x in spec["joints_x"]), reverse=True), rear_end[0]]
        k_bend = rear_leaf_joint_stiffness(bounds, seat[0], spec["seat_rate"])
        k = [k_bend * spec["twist_to_vertical_bending"], k_bend, k_bend * spec["lateral_to_vertical_bending"]]
        label = "left" if side > 0 else "right"
        hp_seat = d.hardpoint("rear", "leaf_seat", side)
        segs = self._segments("rear_leaf", f"rear_leaf_{s}", bounds, axis=0, anchor=hp_seat, side_of=lambda x: label)
        for i, x in enumerate(bounds[1:-1]):
            self._leaf_joint(f"rear_leaf_{s}_{i + 1}", segs[i], segs[i + 1], [x, hp_seat[1], seat[2]], k)
        clamp = next(i for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])) if b < seat[0] < a)
        self.mbs.CreateGenericJoint(itemNumbers=[segs[clamp], axle], position=list(hp_seat), show=False)
        return segs

    def commit_friction(self) -> None:
        """After a converged step: update the leaf pack's friction slip states (nothing without a pack)."""
        if self.leaf_pack is not None:
            self.leaf_pack.commit()

    def _contact(self, corner: Corner) -> None:
        """Tyre force loads (road), tyre pads (pads) or K&C actuators (kc) at a corner's contact point."""
        contact = corner.centre * [1, 1, 0]
        local = [0.0, 0.0, -float(corner.centre[2])]
        e = corner.elements
        if self.setup == "road":
            e["tyre_force"] = self.mbs.CreateForce(itemNumber=corner.wheel, loadVector=[0, 0, 0])
            e["tyre_torque"] = self.mbs.CreateTorque(itemNumber=corner.wheel, loadVector=[0, 0, 0])
            e["reaction_torque"] = self.mbs.CreateTorque(itemNumber=corner.carrier, loadVector=[0, 0, 0])
            return
        spacing = dual_spacing(self.data) if corner.name.startswith("R") else None
        patches = [0.0] if self.setup == "kc" or spacing is None else [0.5 * spacing, -0.5 * spacing]
        if self.setup == "kc":
            e["contact_force"] = self.mbs.CreateForce(itemNumber=corner.wheel, localPosition=local, loadVector=[0, 0, 0])
            e["contact_moment"] = self.mbs.CreateTorque(itemNumber=corner.wheel, loadVector=[0, 0, 0])
        e["pads"] = [self._pad(corner, contact + [0.0, y, 0.0], y) for y in patches]  # a pad per tyre (dual: +y first)
        e["pad"] = e["pads"][0]

    def _pad(self, corner: Corner, contact, offset: float) -> int:
        """A tyre pad (``pads``: vertical and tread stiffness of a tyre whose centre plane is ``offset``
        along the spin axis) or the K&C rig's vertical actuator (``kc``) at a contact point."""
        marker_ground = self.mbs.AddMarker(MarkerBodyPosition(bodyNumber=self.ground, localPosition=list(contact)))
        if self.setup == "pads":
            radius = float(self.tir["UNLOADED_RADIUS"])
            wheel_marker = self.mbs.AddMarker(MarkerBodyPosition(bodyNumber=corner.wheel, localPosition=[0.0, offset, -radius]))
            k_h = self.data["tyre"]["pad_stiffness_horizontal"]
            c_z = float(self.tir["VERTICAL_DAMPING"]) if self.dissipation else 0.0
            stiffness = [k_h, k_h, float(self.tir["VERTICAL_STIFFNESS"])]
            damping = [1e-2 * k_h if self.dissipation else 0.0] * 2 + [c_z]
        else:
            wheel_marker = self.mbs.AddMarker(MarkerBodyPosition(bodyNumber=corner.wheel, localPosition=[0.0, 0.0, -float(corner.centre[2])]))
            stiffness, damping = [0.0, 0.0, PAD_STIFFNESS], [0.0, 0.0, 0.0]
        pad = self.mbs.AddObject(ObjectConnectorCartesianSpringDamper(
            markerNumbers=[marker_ground, wheel_marker], stiffness=stiffness, damping=damping, offset=[0.0, 0.0, 0.0]))
        # Exudyn's Displacement output of this connector is already relative to its offset
        self.potentials.append(("pads", lambda: 0.5 * float(np.sum(np.asarray(self.mbs.GetObjectParameter(pad, "stiffness"))
                                                                   * np.asarray(self.mbs.GetObjectOutput(pad, exu.OutputVariableType.Displacement)) ** 2))))
        return pad

    def _rbsd_potential(self, kind: str, index: int, stiffness: np.ndarray, offset: np.ndarray) -> None:
        """Register 1/2 x'Kx of a 6-component spring, x = (displacement, rotation vector) - offset."""
        def energy():
            x = np.concatenate([self.mbs.GetObjectOutput(index, exu.OutputVariableType.DisplacementLocal),
                                self.mbs.GetObjectOutput(index, exu.OutputVariableType.Rotation)]) - offset
            return 0.5 * float(x @ stiffness @ x)
        self.potentials.append((kind, energy))

    def _stretch(self, element: int) -> float:
        """Length change of a line element from its reference (design) length (m)."""
        return float(self.mbs.GetObjectOutput(element, exu.OutputVariableType.Distance)) - \
            float(self.mbs.GetObjectParameter(element, "referenceLength"))

    def mechanical_energy(self) -> dict[str, float]:
        """Kinetic, gravitational and elastic energy (J, per kind of element) and their total."""
        kinetic = gravity = 0.0
        for b in self.bodies.values():
            v, w, r = self.velocity(b.index), self.angular_velocity(b.index), self.rotation(b.index)
            kinetic += 0.5 * b.mass * float(v @ v) + 0.5 * float(w @ (r @ b.inertia @ r.T) @ w)
            gravity += b.mass * self.data.gravity * float(self.position(b.index)[2])
        energy = {"kinetic": kinetic, "gravity": gravity}
        for kind, potential in self.potentials:
            energy[kind] = energy.get(kind, 0.0) + potential()
        energy["total"] = sum(energy.values())
        return energy

    # --- state access --------------------------------------------------------------------
    def position(self, body: int, local=(0.0, 0.0, 0.0)) -> np.ndarray:
        return np.asarray(self.mbs.GetObjectOutputBody(body, exu.OutputVariableType.Position, list(local)))

    def velocity(self, body: int, local=(0.0, 0.0, 0.0)) -> np.ndarray:
        return np.asarray(self.mbs.GetObjectOutputBody(body, exu.OutputVariableType.Velocity, list(local)))

    def rotation(self, body: int) -> np.ndarray:
        return np.asarray(self.mbs.GetObjectOutputBody(body, exu.OutputVariableType.RotationMatrix, [0, 0, 0])).reshape(3, 3)

    def angular_velocity(self, body: int) -> np.ndarray:
        return np.asarray(self.mbs.GetObjectOutputBody(body, exu.OutputVariableType.AngularVelocity, [0, 0, 0]))

    def state(self):
        return self.mbs.systemData.GetSystemState(exu.ConfigurationType.Current)

    def set_initial_state(self, state) -> None:
        self.mbs.systemData.SetSystemState(state, exu.ConfigurationType.Initial)

    def total_mass(self) -> float:
        return sum(b.mass for b in self.bodies.values())


def stop_energy(squeeze: float, deflection: np.ndarray, force: np.ndarray) -> float:
    """Energy stored in a stop compressed by ``squeeze`` (m; <= 0: not in contact)."""
    if squeeze <= 0:
        return 0.0
    grid = np.linspace(0.0, squeeze, 201)
    values = [interp_extrapolated(x, deflection, force) for x in grid]
    return float(np.trapezoid(values, grid))


def transverse_leaf_joint_stiffness(bounds: list, mount_y: float, end_rate: float) -> float:
    """Bending stiffness (N m/rad) of each joint of a transverse leaf of rigid segments.

    Both ends loaded by F, mounts at +-mount_y pinned: the moment at joint y is F (y_end - |y|)
    outside the mounts and F (y_end - mount_y) between them. The end deflection by virtual work
    (unit load at one end) sets the joint stiffness so the end rate equals ``end_rate``.
    """
    y_end = bounds[-1]
    lever = y_end - mount_y
    compliance = 0.0
    for y in bounds[1:-1]:
        moment = y_end - max(abs(y), mount_y)
        if y >= mount_y:
            unit = y_end - y
        elif y > -mount_y:
            unit = lever * (y + mount_y) / (2 * mount_y)
        else:
            unit = 0.0
        compliance += moment * unit
    return end_rate * compliance


def rear_leaf_joint_stiffness(bounds: list, seat_x: float, seat_rate: float) -> float:
    """Bending stiffness (N m/rad) of each joint of a longitudinal leaf simply supported at its ends.

    A load at the seat gives the moment (b/L) d before the seat and (a/L)(L - d) after it (d from the
    front eye); the seat deflection is sum(m^2)/k, so k = seat_rate * sum(m^2).
    """
    front, rear = bounds[0], bounds[-1]
    length, a = front - rear, front - seat_x
    b = length - a
    total = 0.0
    for x in bounds[1:-1]:
        dist = front - x
        m = b / length * dist if dist <= a else a / length * (length - dist)
        total += m * m
    return seat_rate * total
