"""Multi-leaf semi-elliptic spring of the reference vehicle's rear axle (``rear.type: multileaf``).

The pack is several leaves of different lengths stacked under the main leaf, whose ends are the
front eye (bushing to the chassis) and the shackle. Every leaf is a chain of rigid segments with
bending joints (lumped beam: a joint between segments of lengths l_a, l_b has the stiffness
E I / ((l_a + l_b) / 2), I = b t^3 / 12; the clamp segment counts as rigid). All leaves are clamped
to the axle over ``clamp_length`` at the seat (U-bolts). The tips of each shorter leaf bear on the
leaf above at their common surface (the leaves' neutral axes are ``(t_upper + t_lower) / 2`` apart).

Inter-leaf contact at each tip, in the axes of the upper leaf's segment (the leaves tilt up to 10
degrees at 80 mm of wheel travel and their tips slide 2 mm, so the contact follows the upper leaf's
surface; fixed vehicle axes would misread 0.35 mm of that sliding as penetration):

- normal (z, the upper leaf's normal): unilateral penalty ``N = k_n (penetration + g0)`` (0 once
  the leaves part), g0 the preload the static solution puts into the contact
  (``statics.leaf_offsets``, as the joint offsets);
- lateral (y): linear spring ``k_n`` both ways (the rebound clips hold the leaves in line);
- tangential (x, along the upper leaf): Coulomb friction regularised as an elasto-plastic
  (stick-slip) spring: the force is ``k_t (u - s)`` clipped to ``+-mu N``, u the relative sliding of
  the two surfaces, s the slip state. After every converged step (static solution or time step)
  :meth:`LeafPack.commit` moves s so the committed force is within the cone (return mapping).
  ``k_t`` (``stick_stiffness``) is the regularisation: below ``mu N / k_t`` of sliding the contact
  sticks elastically. With mu = 0 the pack has no hysteresis.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import exudyn as exu
import numpy as np
from exudyn.itemInterface import MarkerBodyRigid, ObjectConnectorRigidBodySpringDamper

from pybridge.reference.vehicle_data import VehicleDataError

SATURATION = 3.0  # committed stick stretch k_t (u - s) at most 3 mu N: tanh(3) = 0.995
PACK_KEYS = ("youngs_modulus", "width", "clamp_length", "segment_length", "contact_stiffness",
             "stick_stiffness", "friction", "lateral_to_vertical_bending", "twist_to_vertical_bending", "leaves")


@dataclass
class Leaf:
    """One leaf: thickness, front and rear end x (the main leaf: eye and shackle), neutral-axis z."""
    thickness: float
    front: float
    rear: float
    z: float


@dataclass
class Contact:
    """A tip contact between a leaf and the one above it: normal preload offset g0 and the committed
    slip state (m; initially the design sliding from ``statics.leaf_offsets``)."""
    name: str
    connector: int
    preload: float = 0.0
    slip: float = 0.0


def friction_force(stretch: float, limit: float) -> float:
    """Tangential force of a contact from the stick spring's stretch k_t (u - s) and the Coulomb limit
    mu N: limit * tanh(stretch / limit), smooth for Newton's method, within 0.5 % of the limit from 3 x."""
    return limit * math.tanh(stretch / limit) if limit > 0 else 0.0


def pack_spec(data) -> dict:
    """The data file's ``rear.leaf_pack``, its keys checked (errors name the file and key)."""
    spec = data["rear"].get("leaf_pack")
    if not isinstance(spec, dict):
        raise VehicleDataError(f"{data.source}: rear.leaf_pack: expected a mapping for rear.type multileaf")
    missing = [k for k in PACK_KEYS if k not in spec]
    if missing:
        raise VehicleDataError(f"{data.source}: rear.leaf_pack: missing keys {missing}")
    if len(spec["leaves"]) < 1 or float(spec["friction"]) < 0:
        raise VehicleDataError(f"{data.source}: rear.leaf_pack: expected at least one leaf and friction >= 0")
    return spec


def leaves(data) -> list[Leaf]:
    """The leaves from the top (main leaf) down, each nested inside the one above and around the clamp."""
    spec = pack_spec(data)
    eye, seat, rear_end = (data.hardpoint("rear", k) for k in ("leaf_front_eye", "leaf_seat", "leaf_rear_end"))
    half_clamp = 0.5 * float(spec["clamp_length"])
    out = []
    for i, leaf in enumerate(spec["leaves"]):
        t = float(leaf["thickness"])
        front, rear = (eye[0], rear_end[0]) if i == 0 else (float(leaf["front_x"]), float(leaf["rear_x"]))
        z = seat[2] if i == 0 else out[-1].z - 0.5 * (out[-1].thickness + t)
        if i and not (out[-1].front >= front > seat[0] + half_clamp and out[-1].rear <= rear < seat[0] - half_clamp):
            raise VehicleDataError(f"{data.source}: rear.leaf_pack.leaves[{i}]: expected front_x/rear_x inside "
                                   f"the leaf above and outside the clamp ({seat[0]} +- {half_clamp})")
        out.append(Leaf(t, front, rear, z))
    return out


def leaf_bounds(leaf: Leaf, below: list[Leaf], seat_x: float, half_clamp: float, segment: float) -> list[float]:
    """Segment ends of a leaf from front to rear: its ends, the clamp edges, the tips of the leaves
    below it, each interval divided into pieces of at most ``segment``."""
    marks = {leaf.front, leaf.rear, seat_x + half_clamp, seat_x - half_clamp}
    marks.update(x for other in below for x in (other.front, other.rear))
    marks = sorted(marks, reverse=True)
    bounds = [marks[0]]
    for a, b in zip(marks[:-1], marks[1:]):
        if math.isclose(a, seat_x + half_clamp) and math.isclose(b, seat_x - half_clamp):
            bounds.append(b)       # the clamp is one rigid segment
            continue
        n = max(1, math.ceil((a - b) / segment - 1e-9))
        bounds += [a + (b - a) * k / n for k in range(1, n + 1)]
    return bounds


def joint_stiffness(bounds: list[float], clamp: int, flexural_rigidity: float) -> list[float]:
    """Bending stiffness (N m/rad) of each joint: E I over half the lengths of its two segments
    (the clamp segment, index ``clamp``, adds none)."""
    lengths = [0.0 if i == clamp else a - b for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    return [flexural_rigidity / (0.5 * (la + lb)) for la, lb in zip(lengths[:-1], lengths[1:])]


def flexural_rigidity(spec: dict, leaf: Leaf) -> float:
    """E I of a leaf (N m^2)."""
    return float(spec["youngs_modulus"]) * float(spec["width"]) * leaf.thickness ** 3 / 12.0


class LeafPack:
    """The multi-leaf springs of both rear sides in a :class:`ReferenceVehicle` (see the module docstring)."""

    def __init__(self, vehicle, axle: int):
        self.vehicle = vehicle
        self.spec = pack_spec(vehicle.data)
        self.leaves = leaves(vehicle.data)
        self.mu = float(self.spec["friction"])   # read at every evaluation: 0 takes the friction out
        self.contacts: list[Contact] = []
        self.axle = axle

    def build_side(self, s: str, side: int) -> list[int]:
        """Leaves, clamps and tip contacts of one side; returns the main leaf's segments, eye first."""
        v, spec = self.vehicle, self.spec
        seat = v.data.hardpoint("rear", "leaf_seat", side)
        half_clamp = 0.5 * float(spec["clamp_length"])
        lengths = [leaf.thickness * (leaf.front - leaf.rear) for leaf in self.leaves]
        label = "left" if side > 0 else "right"
        chains = []
        for i, leaf in enumerate(self.leaves):
            bounds = leaf_bounds(leaf, self.leaves[i + 1:], seat[0], half_clamp, float(spec["segment_length"]))
            share = lengths[i] / sum(lengths)
            segs = v._segments("rear_leaf", f"rear_leaf_{s}_{i}", bounds, axis=0, anchor=[0.0, seat[1], leaf.z],
                               side_of=lambda x: label, share=share)
            clamp = next(k for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])) if b < seat[0] < a)
            stiffness = joint_stiffness(bounds, clamp, flexural_rigidity(spec, leaf))
            for k, (x, bending) in enumerate(zip(bounds[1:-1], stiffness)):
                k3 = [bending * spec["twist_to_vertical_bending"], bending, bending * spec["lateral_to_vertical_bending"]]
                name = f"rear_leaf_{s}_{k + 1}" if i == 0 else f"rear_leaf_{s}_{i}_{k + 1}"
                v._leaf_joint(name, segs[k], segs[k + 1], [x, seat[1], leaf.z], k3)
            v.mbs.CreateGenericJoint(itemNumbers=[segs[clamp], self.axle], position=[seat[0], seat[1], leaf.z],
                                     show=False)   # the U-bolts clamp every leaf to the axle
            chains.append((bounds, segs))
            if i:
                self._tip_contacts(s, i, chains[i - 1], chains[i], seat[1])
        return chains[0][1]

    def _tip_contacts(self, s: str, i: int, upper: tuple, lower: tuple, y: float) -> None:
        """Contacts where leaf i's two tips bear on leaf i-1 (at their common surface)."""
        leaf = self.leaves[i]
        z = leaf.z + 0.5 * leaf.thickness
        (ub, us), (lb, ls) = upper, lower
        for end, x, lower_seg in (("front", leaf.front, ls[0]), ("rear", leaf.rear, ls[-1])):
            # the upper leaf's segment on the clamp side of the tip (the one lying on the lower leaf)
            k = next(j for j, (a, b) in enumerate(zip(ub[:-1], ub[1:]))
                     if (b < x <= a if end == "front" else b <= x < a))
            self._contact(f"rear_leaf_{s}_{i}_{end}_contact", us[k], lower_seg, [x, y, z])

    def _contact(self, name: str, upper: int, lower: int, point) -> None:
        v = self.vehicle
        k_n = float(self.spec["contact_stiffness"]) * (v.stiff_factor if v.stiff_leaves else 1.0)
        k_t = float(self.spec["stick_stiffness"])
        c_n = 1e-3 * k_n if v.dissipation else 0.0
        slip, _, preload = (float(x) for x in v.leaf_offsets.get(name, (0.0, 0.0, 0.0)))
        contact = Contact(name, -1, preload=preload, slip=slip)
        pack = self

        def force(mbs, t, item, u, rotation, rate, angular_rate, stiffness, damping, rot0, rot1, offset):
            normal = max(k_n * (u[2] + contact.preload) + c_n * rate[2], 0.0)
            return [friction_force(k_t * (u[0] - contact.slip), pack.mu * normal), k_n * u[1], normal, 0.0, 0.0, 0.0]
        m0 = v.mbs.AddMarker(MarkerBodyRigid(bodyNumber=upper, localPosition=v._local(upper, point)))
        m1 = v.mbs.AddMarker(MarkerBodyRigid(bodyNumber=lower, localPosition=v._local(lower, point)))
        contact.connector = int(v.mbs.AddObject(ObjectConnectorRigidBodySpringDamper(
            markerNumbers=[m0, m1], stiffness=np.diag([k_t, k_n, k_n, 0.0, 0.0, 0.0]),
            damping=np.diag([0.0, 0.0, c_n, 0.0, 0.0, 0.0]), useIntrinsicFormulation=False,
            springForceTorqueUserFunction=force)))
        self.contacts.append(contact)
        v.potentials.append(("leaves", lambda: self._contact_energy(contact, k_n, k_t)))

    def displacement(self, contact: Contact) -> np.ndarray:
        """Relative displacement (lower - upper surface point, in the upper leaf segment's axes) of a contact (m)."""
        return np.asarray(self.vehicle.mbs.GetObjectOutput(contact.connector, exu.OutputVariableType.DisplacementLocal))

    def forces(self) -> dict[str, tuple[float, float]]:
        """Normal and friction force (N) of every contact in the current state, committed slip states."""
        out = {}
        for c in self.contacts:
            u = self.displacement(c)
            k_n = float(np.asarray(self.vehicle.mbs.GetObjectParameter(c.connector, "stiffness"))[2, 2])
            k_t = float(self.spec["stick_stiffness"])
            normal = max(k_n * (u[2] + c.preload), 0.0)
            out[c.name] = (normal, friction_force(k_t * (u[0] - c.slip), self.mu * normal))
        return out

    def commit(self) -> None:
        """Return mapping after a converged step: the slip states take up the sliding beyond
        ``SATURATION`` (the friction force stays within 0.5 % of mu N)."""
        k_t = float(self.spec["stick_stiffness"])
        for c, (normal, _) in zip(self.contacts, self.forces().values()):
            u, limit = float(self.displacement(c)[0]), self.mu * normal
            excess = k_t * (u - c.slip) / limit if limit > 0 else math.inf
            if abs(excess) > SATURATION:
                c.slip = u - math.copysign(SATURATION * limit / k_t, excess) if limit > 0 else u

    def _contact_energy(self, contact: Contact, k_n: float, k_t: float) -> float:
        """Elastic energy of a contact: normal and lateral penalty, stick spring (integral of friction_force)."""
        u = self.displacement(contact)
        normal = max(k_n * (u[2] + contact.preload), 0.0)
        limit = self.mu * normal
        stick = limit ** 2 / k_t * math.log(math.cosh(k_t * (u[0] - contact.slip) / limit)) if limit > 0 else 0.0
        return 0.5 * normal ** 2 / k_n + 0.5 * k_n * u[1] ** 2 + stick

    def preloads(self) -> dict[str, tuple[float, float, float]]:
        """Normal preload offsets (as ``leaf_offsets`` entries, slip 0) read in the stiffened preload pass."""
        factor = self.vehicle.stiff_factor
        return {c.name: (0.0, 0.0, factor * float(self.displacement(c)[2])) for c in self.contacts}


def beam_theory_rate(data, points: int = 4001) -> float:
    """Seat rate (N/m) of the pack as one beam of stacked leaves, eye and shackle pinned, clamp rigid.

    The leaves over a section share its curvature, so the section's flexural rigidity is the sum
    E b sum(t_i^3) / 12 over the leaves that reach it. A unit load at the seat gives the moment
    m(d) = (b_s / L) d in front of the seat and (a_s / L)(L - d) behind it (d from the eye, a_s and
    b_s the seat's distances to the eye and the shackle pin); the seat deflects by the virtual work
    integral of m^2 / EI over the span less the clamp, and the rate is its inverse.
    """
    spec, stack = pack_spec(data), leaves(data)
    seat = data.hardpoint("rear", "leaf_seat")[0]
    front, rear = stack[0].front, stack[0].rear
    length, a = front - rear, front - seat
    x = np.linspace(rear, front, points)
    d = front - x
    moment = np.where(d <= a, (length - a) / length * d, a / length * (length - d))
    rigidity = sum(flexural_rigidity(spec, leaf) * ((x <= leaf.front) & (x >= leaf.rear)) for leaf in stack)
    outside = np.abs(x - seat) > 0.5 * float(spec["clamp_length"])
    return 1.0 / float(np.trapezoid(np.where(outside, moment ** 2 / rigidity, 0.0), x))
