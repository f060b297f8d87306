"""The reference vehicle's data file (``lcv35.yaml``): loading, checking, mirroring.

The file states masses, hardpoints (left side, design position, ISO vehicle axes) and force
elements of the multibody model; see the comments in ``lcv35.yaml``. Errors name the file and the
key path. ``tyre.file`` is looked up beside the data file, then in ``scenarios/tires/``. The optional
``data_set_omits: [driveline]`` makes the exported data set leave out ``driveline.yaml`` (as an MBM
export without the powertrain files): the model still drives with it, the data set is lateral only.

Suspension variants (``front.type``, ``rear.type``; absent = the 3.5 t layout): see :data:`FRONT_TYPES`
and :data:`REAR_TYPES` for the sections and hardpoints each one needs. ``tyre.rear_tyres_per_wheel``
(1 or 2, default 1) puts dual tyres on the rear wheel stations (``tyre.dual_spacing``: m between the
two tyres' centre planes).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import re

import numpy as np

from pybridge.fileio import read_yaml

FORMAT = "vehiclertm-mbm-vehicle 1"
FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")
PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parents[1]
VEHICLES = {"lcv35": PACKAGE_DIR / "lcv35.yaml", "lcv70": PACKAGE_DIR / "lcv70.yaml"}
BODY_CLASSES = ("sprung", "unsprung", "linkage")
REQUIRED_SECTIONS = ("name", "gravity", "tyre", "targets", "bodies", "front", "steering", "rear",
                     "aerodynamics", "driveline")
COMMON_AXLE_KEYS = ("track", "hardpoints", "damper", "bump_stop", "rebound_stop")
COMMON_HARDPOINTS = ("wheel_centre", "damper_lower", "damper_upper", "bump_stop_lower", "bump_stop_upper",
                     "ride_height_point")
WISHBONES = ("lower_ball_joint", "lower_arm_front", "lower_arm_rear", "upper_ball_joint", "upper_arm_front",
             "upper_arm_rear", "tie_rod_outer", "tie_rod_inner")
BAR = ("anti_roll_pivot", "anti_roll_arm_end", "anti_roll_link_lower")
# variant -> (sections it needs besides COMMON_AXLE_KEYS, hardpoints besides COMMON_HARDPOINTS)
FRONT_TYPES = {
    "quadleaf": (("transverse_leaf", "bushings"), WISHBONES + ("leaf_end", "leaf_mount")),
    "quadtor": (("torsion_bar", "anti_roll_bar", "bushings"), WISHBONES + BAR + ("torsion_bar_anchor",)),
}
REAR_TYPES = {
    "singleleaf": (("leaf", "bushings", "anti_roll_bar"), ("leaf_front_eye", "leaf_seat", "leaf_rear_end", "shackle_upper") + BAR),
    "multileaf": (("leaf_pack", "bushings", "anti_roll_bar"), ("leaf_front_eye", "leaf_seat", "leaf_rear_end", "shackle_upper") + BAR),
}
AXLE_TYPES = {"front": (FRONT_TYPES, "quadleaf"), "rear": (REAR_TYPES, "singleleaf")}
OMITTABLE = ("driveline",)  # data the data set may leave out (``data_set_omits``); the model keeps them
TYRE_DIR = REPO_DIR / "scenarios" / "tires"


class VehicleDataError(ValueError):
    """A reference-vehicle data file is malformed."""


@dataclass(frozen=True)
class Body:
    """Mass properties of one body as the data file states them (left side for paired bodies)."""
    name: str
    body_class: str
    axle: str
    mass: float
    cg: np.ndarray
    inertia: np.ndarray  # 3x3 about the body's centre of gravity, vehicle axes


def mirror(point, side: int) -> np.ndarray:
    """A left-side point mirrored to ``side`` (+1 left, -1 right)."""
    p = np.array(point, dtype=float)
    p[1] *= side
    return p


def mirror_inertia(inertia: np.ndarray, side: int) -> np.ndarray:
    """An inertia tensor mirrored in the x-z plane (products with y change sign)."""
    if side > 0:
        return inertia.copy()
    m = np.diag([1.0, -1.0, 1.0])
    return m @ inertia @ m


def inertia_tensor(values) -> np.ndarray:
    """3x3 tensor from ``[ixx, iyy, izz, ixy, ixz, iyz]`` (products as J_ij = -sum m x_i x_j)."""
    ixx, iyy, izz, ixy, ixz, iyz = (float(v) for v in values)
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


class VehicleData:
    """The parsed data file: ``raw`` sections plus typed bodies and the tyre file path."""

    def __init__(self, raw: dict, source: Path):
        self.raw = raw
        self.source = source
        self.name = raw["name"]
        self.gravity = float(raw["gravity"])
        self.bodies = {name: self._body(name, spec) for name, spec in raw["bodies"].items()}
        self.tyre_file = self._tyre_file(raw["tyre"]["file"])
        self.omitted = self._omitted(raw.get("data_set_omits", []))
        self.front_type, self.rear_type = (self._axle_type(axle) for axle in AXLE_TYPES)
        self.rear_tyres_per_wheel = self._tyres_per_wheel(raw["tyre"])

    def __getitem__(self, key: str):
        return self.raw[key]

    def _fail(self, where: str, message: str):
        raise VehicleDataError(f"{self.source}: {where}: {message}")

    def _tyre_file(self, name: str) -> Path:
        """The tyre property file: beside the data file, else in scenarios/tires/."""
        for folder in (self.source.parent, TYRE_DIR):
            if (folder / name).is_file():
                return (folder / name).resolve()
        self._fail("tyre.file", f"tyre property file '{name}' found neither in {self.source.parent} nor in {TYRE_DIR}")

    def _omitted(self, names) -> tuple[str, ...]:
        """The data the exported data set leaves out, checked against :data:`OMITTABLE`."""
        if not isinstance(names, list) or any(name not in OMITTABLE for name in names):
            self._fail("data_set_omits", f"{names!r}; expected a list of some of {list(OMITTABLE)}")
        return tuple(names)

    def _axle_type(self, axle: str) -> str:
        """The suspension variant of ``axle``, with its sections and hardpoints checked."""
        types, default = AXLE_TYPES[axle]
        spec = self.raw[axle]
        kind = spec.get("type", default) if isinstance(spec, dict) else None
        if kind not in types:
            self._fail(f"{axle}.type", f"{kind!r}; expected one of {sorted(types)}")
        sections, points = types[kind]
        missing = [key for key in COMMON_AXLE_KEYS + sections if key not in spec]
        if missing:
            self._fail(axle, f"missing keys {missing} (a '{kind}' {axle} needs {list(COMMON_AXLE_KEYS + sections)})")
        absent = [p for p in COMMON_HARDPOINTS + points if p not in spec["hardpoints"]]
        if absent:
            self._fail(f"{axle}.hardpoints", f"missing hardpoints {absent} (a '{kind}' {axle} needs them)")
        return kind

    def _tyres_per_wheel(self, spec: dict) -> int:
        """Rear tyres per wheel station: 1 or 2 (dual tyres need ``tyre.dual_spacing`` > 0)."""
        count = spec.get("rear_tyres_per_wheel", 1)
        if count not in (1, 2):
            self._fail("tyre.rear_tyres_per_wheel", f"{count!r}; expected 1 or 2")
        if count == 2 and not spec.get("dual_spacing", 0) > 0:
            self._fail("tyre.dual_spacing", "dual rear tyres need a positive spacing (m between the tyres' centre planes)")
        return int(count)

    def _body(self, name: str, spec: dict) -> Body:
        where = f"bodies.{name}"
        missing = {"class", "axle", "mass", "cg", "inertia"} - set(spec)
        if missing:
            self._fail(where, f"missing keys {sorted(missing)}")
        if spec["class"] not in BODY_CLASSES:
            self._fail(where + ".class", f"'{spec['class']}' is not one of {BODY_CLASSES}")
        if not float(spec["mass"]) > 0:
            self._fail(where + ".mass", f"expected a positive mass, got {spec['mass']}")
        if len(spec["cg"]) != 3 or len(spec["inertia"]) != 6:
            self._fail(where, "expected cg [x, y, z] and inertia [ixx, iyy, izz, ixy, ixz, iyz]")
        tensor = inertia_tensor(spec["inertia"])
        if np.linalg.eigvalsh(tensor).min() <= 0:
            self._fail(where + ".inertia", "the inertia tensor is not positive definite")
        return Body(name, spec["class"], spec["axle"], float(spec["mass"]),
                    np.array(spec["cg"], dtype=float), tensor)

    def hardpoint(self, axle: str, name: str, side: int = 1) -> np.ndarray:
        """A hardpoint of ``axle`` ('front' or 'rear') on ``side`` (+1 left, -1 right)."""
        points = self.raw[axle]["hardpoints"]
        if name not in points:
            self._fail(f"{axle}.hardpoints", f"missing hardpoint '{name}'")
        return mirror(points[name], side)

    def curve(self, axle: str, element: str, x_key: str, y_key: str) -> tuple[np.ndarray, np.ndarray]:
        """A force curve (breakpoints, values) of a force element, checked for increasing breakpoints."""
        spec = self.raw[axle][element]
        x, y = np.array(spec[x_key], dtype=float), np.array(spec[y_key], dtype=float)
        if len(x) != len(y) or len(x) < 2 or np.any(np.diff(x) <= 0) or not np.all(np.isfinite(y)):
            self._fail(f"{axle}.{element}", f"expected increasing '{x_key}' and finite '{y_key}' of equal length")
        return x, y


TEXT_KEYS = {"format", "name", "description", "file", "class", "axle", "driven_axle", "unit", "data_set_omits", "type"}


def _check_numbers(node, where: str, source: Path) -> None:
    """Every value of the data file is a number except under the keys of :data:`TEXT_KEYS`."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        path = f"{where}.{key}" if where else str(key)
        if isinstance(value, (dict, list)) and key not in TEXT_KEYS:
            _check_numbers(value, path, source)
        elif key not in TEXT_KEYS and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise VehicleDataError(f"{source}: {path}: {value!r}; expected a number")


def _numbers(node):
    """Floats written without a signed exponent (``3.0e6``) are strings to PyYAML; make them floats."""
    if isinstance(node, dict):
        return {k: _numbers(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_numbers(v) for v in node]
    if isinstance(node, str) and FLOAT.fullmatch(node):
        return float(node)
    return node


def load_vehicle(name_or_path: str | Path) -> VehicleData:
    """Load a reference vehicle by name (``lcv35``) or data-file path."""
    path = VEHICLES.get(str(name_or_path), Path(name_or_path).absolute())
    if not path.is_file():
        raise VehicleDataError(f"{path}: no such vehicle data file (known vehicles: {sorted(VEHICLES)})")
    raw = read_yaml(path, VehicleDataError)
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise VehicleDataError(f"{path}: format: expected '{FORMAT}'")
    missing = [key for key in REQUIRED_SECTIONS if key not in raw]
    if missing:
        raise VehicleDataError(f"{path}: missing sections {missing}")
    raw = _numbers(raw)
    _check_numbers(raw, "", path)
    return VehicleData(raw, path)
