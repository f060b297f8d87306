"""Virtual K&C (kinematics and compliance) rig of the reference vehicle, quasi-static.

The ``kc`` setup of :class:`ReferenceVehicle` (chassis held, wheels locked to their carriers, leaves
preloaded to the design loads): the vertical actuators (pads) hold the wheel centres at the prescribed
travel (design height in the rack and compliance tests; the pad offsets are corrected until the
wheel centre is within 1e-10 m), loads act at the contact patches, the steering-column spring's
target moves the rack. Every sweep point is a static solution started from the previous one (from
design outwards, both ways).
Each test gives a :class:`KCResults` (``pybridge.mbm.kc_results``) in SI; channels per wheel:

- ``wheel_travel``: wheel-centre z minus its design z (+ bump; the chassis is held).
- ``wheel_load``: vertical force of the pad on the wheel (+ up). ``fx, fy, mz``: the rig's loads at
  the contact patch of the loaded wheel, ISO axes (compliance tests only).
- ``toe`` (+ toe-in), ``camber`` (+ top outward): from the spin axis a (column 1 of the wheel's
  rotation matrix, pointing left on both sides): toe = s atan2(a_x, a_y), camber = asin(-s a_z),
  s = +1 left, -1 right.
- ``caster`` (+ top rearward), ``kingpin_inclination`` (+ top inward), front only: the axis from
  the lower to the upper ball joint, u: caster = atan2(-u_x, u_z), inclination = atan2(-s u_y, u_z).
- ``wheel_centre_x/y``, ``contact_patch_x/y``: positions (y + outward); the contact point is the
  wheel-fixed point below the design wheel centre at ground level (where the pad acts).
- ``damper_length``, ``bump_stop_length``: distance of the element's hardpoints;
  ``rebound_stop_length`` = damper length (the rebound stop acts on the damper).
- ``spring_length``: vertical distance from the spring's moving point up to the chassis
  ``ride_height_point`` of the axle; front: the leaf-end hardpoint on the lower arm, rear: the leaf
  seat on the axle. So it is the design distance (nominal length) minus the point's vertical travel.
- ``spring_force``: vertical force of the leaf on the lower arm (front, leaf-end bushing) or on the
  axle (rear, seat clamp), + pushing them down (the leaf carries load). QuadTor front: the torsion
  bar's moment as the vertical force at the lower ball joint that does the same work, and
  ``spring_length`` is measured at the lower ball joint.
- ``anti_roll_bar_length`` (rear; QuadTor front): distance from the bar arm's design end point
  (chassis-fixed) to the drop link's point on the axle (on the lower arm). The drop link is rigid (the arm end-axle distance is constant), so
  this is the drop-link length as if the bar did not turn: design 0.15 m, - the link's bump travel.
- ``rack_travel`` (front axle, every test): the rack's displacement, + steers left (the rack moves
  to the right); in the rack test the sweep, elsewhere the column spring's compliance.
"""
from __future__ import annotations

from collections.abc import Callable

import exudyn as exu
import numpy as np
import pandas as pd
from scipy.spatial.transform import Rotation

from pybridge.mbm.kc_results import KCResults, kc_channel_names
from pybridge.reference.model import ReferenceVehicle
from pybridge.reference.quadtor import equivalent_spring_force
from pybridge.reference.statics import (StaticSolutionError, leaf_offsets, pad_force, restart_from_current,
                                             solve_static)
from pybridge.reference.vehicle_data import VehicleData

TRAVEL = np.linspace(-0.08, 0.08, 33)
RACK = np.linspace(-0.06, 0.06, 25)
COMPLIANCE_VALUES = {"fx": np.linspace(-5000.0, 5000.0, 11), "fy": np.linspace(-5000.0, 5000.0, 11),
                     "mz": np.linspace(-500.0, 500.0, 11)}
AXLE_CORNERS = {"front": {"left": "FL", "right": "FR"}, "rear": {"left": "RL", "right": "RR"}}
MAX_TRAVEL_ITERATIONS = 10
TRAVEL_TOLERANCE = 1e-10  # m, wheel-centre travel against the prescribed one
CHANNEL_ORDER = {name: i for i, name in enumerate(kc_channel_names())}


class KCRig:
    """The ``kc`` setup of ``data`` with preloaded leaves, its actuators and its measurements."""

    def __init__(self, data: VehicleData):
        self.data = data
        self.vehicle = v = ReferenceVehicle(data, "kc", leaf_offsets=leaf_offsets(data), dissipation=False)
        self.records = {b.index: b for b in v.bodies.values()}
        self.travel: dict[str, float] = {}      # corner -> prescribed wheel-centre travel
        self.pad_offset: dict[str, float] = {}  # corner -> pad offset that gives it
        self.spring_connector = {}  # corner -> leaf-end bushing (front) or leaf-seat clamp (rear)
        for s, side in (("L", "left"), ("R", "right")):
            arm = int(v.corners[f"F{s}"].elements["lower_arm"])
            if data.front_type == "quadtor":
                self.spring_connector[f"F{s}"] = v.corners[f"F{s}"].elements["torsion_bar"]
            else:
                self.spring_connector[f"F{s}"] = self._connector("ConnectorRigidBodySpringDamper", lambda b: b.index == arm,
                                                           lambda b: b.part == "front_leaf")
            self.spring_connector[f"R{s}"] = self._connector("JointGeneric", lambda b: b.part == "rear_leaf" and b.side == side,
                                                       lambda b: b.part == "rear_axle", every=True)

    def _connector(self, object_type: str, first: Callable, second: Callable, every: bool = False) -> int | list[int]:
        """The object of ``object_type`` whose marker bodies satisfy ``first`` and ``second`` (``every``:
        all of them, e.g. the clamps of every leaf of a multi-leaf pack)."""
        mbs = self.vehicle.mbs
        found = []
        for i in range(mbs.systemData.NumberOfObjects()):
            item = mbs.GetObject(i)
            if item["objectType"] != object_type:
                continue
            b0, b1 = (self.records.get(int(mbs.GetMarker(m)["bodyNumber"])) for m in item["markerNumbers"])
            if b0 and b1 and first(b0) and second(b1):
                found.append(i)
        if not found:
            raise LookupError(f"no {object_type} between the bodies asked for")
        return found if every else found[0]

    # --- actuators -------------------------------------------------------------------------
    def set_travel(self, corner: str, dz: float) -> None:
        """Prescribe the wheel-centre travel (m, + bump); :meth:`solve` finds the pad offset for it."""
        self.pad_offset[corner] = self.pad_offset.get(corner, 0.0) + float(dz) - self.travel.get(corner, 0.0)
        self.travel[corner] = float(dz)

    def solve(self) -> None:
        """Static solution with the wheel centres at their prescribed travel (pad offsets corrected);
        a multi-leaf pack's friction slip states are committed once the travel is reached."""
        v = self.vehicle
        for _ in range(MAX_TRAVEL_ITERATIONS):
            for corner, offset in self.pad_offset.items():
                v.mbs.SetObjectParameter(v.corners[corner].elements["pad"], "offset", [0.0, 0.0, offset])
            solve_static(v)
            restart_from_current(v)
            error = {c: dz - (v.position(v.corners[c].wheel)[2] - v.corners[c].centre[2]) for c, dz in self.travel.items()}
            if max(map(abs, error.values()), default=0.0) < TRAVEL_TOLERANCE:
                v.commit_friction()   # leaf-pack friction: one step from the last committed state
                return
            for corner, e in error.items():
                self.pad_offset[corner] += e
        raise StaticSolutionError(f"wheel travel not reached within {TRAVEL_TOLERANCE} m: {error}")

    def set_contact_load(self, corner: str, load: str, value: float) -> None:
        """Apply ``load`` ('fx', 'fy' or 'mz', ISO axes) of ``value`` at the corner's contact patch, nothing else."""
        force = [value if load == "fx" else 0.0, value if load == "fy" else 0.0, 0.0]
        e = self.vehicle.corners[corner].elements
        self.vehicle.mbs.SetLoadParameter(e["contact_force"], "loadVector", force)
        self.vehicle.mbs.SetLoadParameter(e["contact_moment"], "loadVector", [0.0, 0.0, value if load == "mz" else 0.0])

    def sweep(self, values: np.ndarray, apply: Callable[[float], None], axle: str) -> list[dict]:
        """Measurements of ``axle`` at each of ``values`` (``apply`` sets one), solved from design outwards."""
        v = self.vehicle
        for corner in AXLE_CORNERS[axle].values():
            if corner not in self.travel:  # wheels held at design height unless the test moves them
                self.set_travel(corner, 0.0)
        centre = int(np.argmin(np.abs(values)))
        start = v.state()
        contacts = v.leaf_pack.contacts if v.leaf_pack else []   # friction slip states restart with the state
        slips = [c.slip for c in contacts]
        rows: dict[int, dict] = {}
        for branch in (range(centre, len(values)), range(centre, -1, -1)):
            v.set_initial_state(start)
            for c, slip in zip(contacts, slips):
                c.slip = slip
            for i in branch:
                apply(float(values[i]))
                self.solve()
                rows[i] = self.measure(axle)
                if i == centre:
                    start, slips = v.state(), [c.slip for c in contacts]
        return [rows[i] for i in range(len(values))]

    # --- measurements ----------------------------------------------------------------------
    def point(self, body: int, design_point) -> np.ndarray:
        """Current position of the body-fixed point that is at ``design_point`` in the design position."""
        return self.vehicle.position(body, np.asarray(design_point, float) - self.records[int(body)].cg)

    def connector_force(self, connector: int) -> np.ndarray:
        """Global force vector of a connector's ``ForceLocal`` (intrinsic bushings: in the mid-frame)."""
        mbs, v = self.vehicle.mbs, self.vehicle
        item = mbs.GetObject(connector)
        r0, r1 = (v.rotation(int(mbs.GetMarker(m)["bodyNumber"])) for m in item["markerNumbers"])
        frame = r0
        if item.get("useIntrinsicFormulation", False):
            frame = r0 @ Rotation.from_rotvec(0.5 * Rotation.from_matrix(r0.T @ r1).as_rotvec()).as_matrix()
        return frame @ np.asarray(mbs.GetObjectOutput(connector, exu.OutputVariableType.ForceLocal))

    def length(self, element: int) -> float:
        return float(self.vehicle.mbs.GetObjectOutput(element, exu.OutputVariableType.Distance))

    def measure(self, axle: str) -> dict[str, float]:
        """All channels of both wheels of ``axle`` in the current state (column name -> SI value)."""
        out = {f"{name}_{side}": value for side, corner in AXLE_CORNERS[axle].items()
               for name, value in self.wheel_channels(corner).items()}
        if axle == "front":
            rack = self.vehicle.bodies["steering_rack"]
            out["rack_travel"] = float(rack.cg[1] - self.vehicle.position(rack.index)[1])
        return out

    def wheel_channels(self, corner: str) -> dict[str, float]:
        """The per-wheel channels of ``corner`` without the side suffix (see the module docstring)."""
        v, d = self.vehicle, self.data
        c = v.corners[corner]
        axle, s = ("front" if corner[0] == "F" else "rear"), c.side
        chassis = v.bodies["chassis"].index
        centre, contact = self.point(c.wheel, c.centre), self.point(c.wheel, c.centre * [1, 1, 0])
        spin = v.rotation(c.wheel)[:, 1]
        damper = self.length(c.elements["damper"])
        out = {"wheel_travel": centre[2] - c.centre[2], "wheel_load": pad_force(v, corner)[2],
               "toe": s * np.arctan2(spin[0], spin[1]), "camber": np.arcsin(-s * spin[2]),
               "wheel_centre_x": centre[0], "wheel_centre_y": s * centre[1],
               "contact_patch_x": contact[0], "contact_patch_y": s * contact[1],
               "damper_length": damper, "rebound_stop_length": damper,
               "bump_stop_length": self.length(c.elements["bump_stop"])}
        reference = self.point(chassis, d.hardpoint(axle, "ride_height_point", s))
        spring_point, spring_body = (("leaf_end", c.elements["lower_arm"]) if axle == "front" else ("leaf_seat", c.carrier))
        torsion_bar = axle == "front" and d.front_type == "quadtor"
        spring_point = "lower_ball_joint" if torsion_bar else spring_point
        at = self.point(spring_body, d.hardpoint(axle, spring_point, s))
        out["spring_length"] = reference[2] - at[2]
        # bushing: force on marker 0's body (the arm); joint: force on marker 1's body (the axle)
        out["spring_force"] = (equivalent_spring_force(v, corner, at) if torsion_bar
                               else -sum(self.connector_force(c)[2] for c in np.atleast_1d(self.spring_connector[corner])))
        if axle == "front":
            upright = v.bodies[f"front_upright_{corner[1]}"].index
            u = (self.point(upright, d.hardpoint("front", "upper_ball_joint", s))
                 - self.point(upright, d.hardpoint("front", "lower_ball_joint", s)))
            out["caster"] = np.arctan2(-u[0], u[2])
            out["kingpin_inclination"] = np.arctan2(-s * u[1], u[2])
        if "anti_roll_link_lower" in d[axle]["hardpoints"]:  # a separate bar on drop links (rear; QuadTor front)
            link = self.point(spring_body, d.hardpoint(axle, "anti_roll_link_lower", s))
            out["anti_roll_bar_length"] = np.linalg.norm(self.point(chassis, d.hardpoint(axle, "anti_roll_arm_end", s)) - link)
        return {k: float(x) for k, x in out.items()}


def _results(test: str, axle: str, rows: list[dict], data: VehicleData, loaded_side: str | None = None) -> KCResults:
    frame = pd.DataFrame(rows)
    frame = frame[sorted(frame.columns, key=CHANNEL_ORDER.__getitem__)]
    metadata = {"source": f"{data.name} reference MBM (Exudyn), virtual K&C rig, quasi-static"}
    return KCResults(test, axle, frame, loaded_side, metadata)


def parallel_travel(data: VehicleData, axle: str, travel=TRAVEL) -> KCResults:
    """Both wheel centres of ``axle`` moved together by ``travel`` (m, + bump)."""
    rig = KCRig(data)
    corners = AXLE_CORNERS[axle].values()
    rows = rig.sweep(np.asarray(travel, float), lambda z: [rig.set_travel(c, z) for c in corners], axle)
    return _results("parallel_travel", axle, rows, data)


def opposite_travel(data: VehicleData, axle: str, travel=TRAVEL) -> KCResults:
    """Left wheel centre moved by ``travel`` (m, + bump), the right one by ``-travel``."""
    rig = KCRig(data)
    left, right = AXLE_CORNERS[axle].values()

    def apply(z):
        rig.set_travel(left, z)
        rig.set_travel(right, -z)
    return _results("opposite_travel", axle, rig.sweep(np.asarray(travel, float), apply, axle), data)


def rack_travel(data: VehicleData, rack=RACK) -> KCResults:
    """Steering rack swept (column-spring target ``rack`` m, + steers left), front wheels at design height."""
    rig = KCRig(data)

    def apply(target):
        rig.vehicle.rack_target = target
    return _results("rack_travel", "front", rig.sweep(np.asarray(rack, float), apply, "front"), data)


def compliance(data: VehicleData, axle: str, load: str = "fx", side: str = "left", values=None) -> KCResults:
    """``load`` ('fx', 'fy' N or 'mz' N m, ISO axes) swept at the contact patch of one wheel, both wheels at design height."""
    values = COMPLIANCE_VALUES[load] if values is None else np.asarray(values, float)
    rig = KCRig(data)
    corner = AXLE_CORNERS[axle][side]
    rows = rig.sweep(values, lambda x: rig.set_contact_load(corner, load, x), axle)
    for row, x in zip(rows, values):
        row.update({f"{name}_{side}": float(x if name == load else 0.0) for name in ("fx", "fy", "mz")})
    return _results(f"compliance_{load}", axle, rows, data, side)


def run_all(data: VehicleData) -> list[KCResults]:
    """Every test on both axles: parallel and opposite travel, rack travel (front), compliance (each load, both sides)."""
    results = []
    for axle in AXLE_CORNERS:
        results += [parallel_travel(data, axle), opposite_travel(data, axle)]
        if axle == "front":
            results.append(rack_travel(data))
        results += [compliance(data, axle, load, side) for load in COMPLIANCE_VALUES for side in ("left", "right")]
    return results
