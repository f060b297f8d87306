"""Engine, gearbox and brake data of the MBM as YAML, every dimensional value with its unit::

    format: vehiclertm-driveline 1
    engine:
      speed: {unit: rpm, values: [800, 1200, ..., 4000]}        # strictly increasing
      throttle: {unit: "1", values: [0, 0.25, 0.5, 0.75, 1]}    # strictly increasing, within 0..1
      torque: {unit: N m, values: [[...], ...]}                 # one row per throttle, one value per speed
      idle_speed: {unit: rpm, value: 800}
      max_speed: {unit: rpm, value: 4000}
      inertia: {unit: kg m^2, value: 0.3}
    gearbox:
      ratios: [5.0, 2.8, 1.7, 1.2, 1.0, 0.8]                    # strictly decreasing
      final_drive: 4.1
      efficiency: 0.92
      upshift_speed: {unit: rpm, value: 3200}
      downshift_speed: {unit: rpm, value: 1300}
      driven_axle: rear
    brakes:
      front_torque_per_pedal: {unit: N m, value: 9000}          # per wheel at pedal = 1
      rear_torque_per_pedal: {unit: N m, value: 6000}

:func:`read_driveline` returns a :class:`DrivelineData` in SI (rad/s, N m, kg m^2);
:func:`driveline_from_dict` validates the same sections embedded in another YAML file;
:func:`write_driveline` writes a file (rpm, N m, kg m^2), atomically. Errors are
:class:`~pybridge.mbm.errors.MBMDataError` ``file:line: key.path: what — expected ...``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from pybridge.mbm.errors import MBMDataError, to_si, unit_factor, unit_hint
from pybridge.fileio import load_yaml_text, write_text_atomically

__all__ = ["DEFAULT_UNITS", "FORMAT", "BrakeData", "DrivelineData", "EngineData", "GearboxData",
           "driveline_from_dict", "driveline_to_dict", "read_driveline", "write_driveline", "yaml_key_lines"]

FORMAT = "vehiclertm-driveline 1"
DRIVEN_AXLES = ("front", "rear")
#: units written by default, per kind
DEFAULT_UNITS = {"speed": "rpm", "moment": "N m", "inertia": "kg m^2", "dimensionless": "1"}

# section -> key -> (form, kind): form value | values | table (quantities with a unit), number, numbers, axle
_SCHEMA: dict[str, dict[str, tuple[str, str | None]]] = {
    "engine": {"speed": ("values", "speed"), "throttle": ("values", "dimensionless"),
               "torque": ("table", "moment"), "idle_speed": ("value", "speed"),
               "max_speed": ("value", "speed"), "inertia": ("value", "inertia")},
    "gearbox": {"ratios": ("numbers", None), "final_drive": ("number", None), "efficiency": ("number", None),
                "upshift_speed": ("value", "speed"), "downshift_speed": ("value", "speed"),
                "driven_axle": ("axle", None)},
    "brakes": {"front_torque_per_pedal": ("value", "moment"), "rear_torque_per_pedal": ("value", "moment")},
}

KeyPath = tuple  # a key path: ("engine", "torque", "values", 2)


@dataclass(eq=False)
class EngineData:
    """Engine torque map and limits in SI: ``torque[i, j]`` at ``throttle[i]`` and ``speed[j]``."""

    speed: np.ndarray  # rad/s
    throttle: np.ndarray  # 0..1
    torque: np.ndarray  # N m, shape (len(throttle), len(speed))
    idle_speed: float  # rad/s
    max_speed: float  # rad/s
    inertia: float  # kg m^2


@dataclass(eq=False)
class GearboxData:
    """Gear ratios (first gear first), final drive, efficiency and the shift speeds (rad/s, engine)."""

    ratios: np.ndarray
    final_drive: float
    efficiency: float
    upshift_speed: float
    downshift_speed: float
    driven_axle: str


@dataclass(eq=False)
class BrakeData:
    """Brake torque per wheel at full pedal (pedal = 1), N m."""

    front_torque_per_pedal: float
    rear_torque_per_pedal: float


@dataclass(eq=False)
class DrivelineData:
    engine: EngineData
    gearbox: GearboxData
    brakes: BrakeData
    source: str | None = None


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------

def yaml_key_lines(text: str) -> dict[KeyPath, int]:
    """1-based line of every key and list item of a YAML text, by key path (root: ``()``)."""
    lines: dict[KeyPath, int] = {}

    def walk(node: yaml.Node, path: KeyPath) -> None:
        lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    lines[path + (key.value,)] = key.start_mark.line + 1
                    walk(value, path + (key.value,))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, path + (i,))

    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if root is not None:
        walk(root, ())
    return lines


class _Checker:
    """Error messages ``source:line: key.path: ...`` for the sections under the prefix ``where``."""

    def __init__(self, source: str, where: str, lines: Mapping[KeyPath, int] | None):
        self.source, self.lines = source, lines or {}
        self.prefix: KeyPath = tuple(where.split(".")) if where else ()

    def fail(self, path: KeyPath, message: str) -> MBMDataError:
        full = self.prefix + path
        line = next((self.lines[full[:n]] for n in range(len(full), -1, -1) if full[:n] in self.lines), None)
        dotted = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in full).lstrip(".") or "(top)"
        return MBMDataError(f"{self.source}{'' if line is None else f':{line}'}: {dotted}: {message}")

    def mapping(self, value: object, path: KeyPath, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, f"{type(value).__name__} {value!r} — expected a mapping with "
                                  f"{', '.join(keys)}")
        unknown = [k for k in value if k not in keys + optional]
        if unknown:
            raise self.fail(path + (unknown[0],), f"unknown key {unknown[0]!r} — expected one of "
                                                  f"{', '.join(keys + optional)}")
        missing = [k for k in keys if k not in value]
        if missing:
            raise self.fail(path, f"no key {missing[0]!r} — expected {', '.join(keys)}")
        return value

    def number(self, value: object, path: KeyPath, factor: float = 1.0) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(path, f"{value!r} — expected a number")
        if not math.isfinite(value):
            raise self.fail(path, f"{value!r} — expected a finite number")
        return to_si(value, factor)

    def numbers(self, value: object, path: KeyPath, factor: float = 1.0) -> np.ndarray:
        if not isinstance(value, list) or not value:
            raise self.fail(path, f"{value!r} — expected a non-empty list of numbers")
        return np.array([self.number(v, path + (i,), factor) for i, v in enumerate(value)])

    def quantity(self, value: object, path: KeyPath, form: str, kind: str):
        entry = self.mapping(value, path, ("unit", "value" if form == "value" else "values"))
        unit = entry["unit"]
        unit = str(unit) if isinstance(unit, int) and not isinstance(unit, bool) else unit
        factor = unit_factor(kind, unit)
        if factor is None:
            raise self.fail(path + ("unit",), f"unit {unit!r} — expected a unit of {kind}: {unit_hint(kind)}")
        if form == "value":
            return self.number(entry["value"], path + ("value",), factor)
        rows = entry["values"]
        if form == "values":
            return self.numbers(rows, path + ("values",), factor)
        if not isinstance(rows, list) or not rows:
            raise self.fail(path + ("values",), f"{rows!r} — expected a list of rows (lists of numbers)")
        return [self.numbers(row, path + ("values", i), factor) for i, row in enumerate(rows)]

    def increasing(self, values: np.ndarray, path: KeyPath, sign: float = 1.0,
                   what: str = "strictly increasing values") -> None:
        if len(values) < 2 and sign > 0:
            raise self.fail(path, f"{len(values)} breakpoint — expected at least 2")
        bad = np.flatnonzero(~(sign * np.diff(values) > 0))
        if bad.size:
            i = int(bad[0]) + 1
            raise self.fail(path + (i,), f"{values[i]:.6g} after {values[i - 1]:.6g} (SI) — expected {what}")


def driveline_from_dict(data: object, source: str = "<dict>", where: str = "",
                        lines: Mapping[KeyPath, int] | None = None) -> DrivelineData:
    """Validate the driveline sections (``engine``, ``gearbox``, ``brakes``; ``format`` optional).

    ``source`` names the file in messages, ``where`` is the dotted key path of ``data`` inside it
    (e.g. ``powertrain``) and ``lines`` the line of each key path from the file's root
    (:func:`yaml_key_lines`), to name lines in messages.
    """
    check = _Checker(source, where, lines)
    top = check.mapping(data, (), tuple(_SCHEMA), ("format",))
    if "format" in top and top["format"] != FORMAT:
        raise check.fail(("format",), f"{top['format']!r} — expected {FORMAT!r}")
    values: dict[str, dict[str, object]] = {}
    for section, schema in _SCHEMA.items():
        entries = check.mapping(top[section], (section,), tuple(schema))
        values[section] = {}
        for key, (form, kind) in schema.items():
            path, value = (section, key), entries[key]
            if form in ("value", "values", "table"):
                values[section][key] = check.quantity(value, path, form, kind)
            elif form == "number":
                values[section][key] = check.number(value, path)
            elif form == "numbers":
                values[section][key] = check.numbers(value, path)
            elif value not in DRIVEN_AXLES:
                raise check.fail(path, f"{value!r} — expected one of {', '.join(DRIVEN_AXLES)}")
            else:
                values[section][key] = value
    engine, gearbox, brakes = (values[s] for s in _SCHEMA)

    speed, throttle = engine["speed"], engine["throttle"]
    check.increasing(speed, ("engine", "speed", "values"))
    check.increasing(throttle, ("engine", "throttle", "values"))
    if speed[0] < 0:
        raise check.fail(("engine", "speed", "values", 0), f"{float(speed[0])!r} rad/s — expected speeds ≥ 0")
    if throttle[0] < 0 or throttle[-1] > 1:
        raise check.fail(("engine", "throttle", "values"), "throttle outside 0..1 — expected values within 0..1")
    rows = engine["torque"]
    if len(rows) != len(throttle):
        raise check.fail(("engine", "torque", "values"), f"{len(rows)} rows — expected {len(throttle)}, "
                                                         f"one per throttle value")
    for i, row in enumerate(rows):
        if len(row) != len(speed):
            raise check.fail(("engine", "torque", "values", i), f"{len(row)} values — expected {len(speed)}, "
                                                                f"one per engine speed")
    _positive(check, engine, "engine", ("idle_speed", "max_speed", "inertia"))
    if not engine["idle_speed"] < engine["max_speed"]:
        raise check.fail(("engine", "max_speed"), f"{_rpm(engine['max_speed'])} ≤ idle_speed "
                                                  f"{_rpm(engine['idle_speed'])} — expected idle_speed < max_speed")

    ratios = gearbox["ratios"]
    _positive(check, gearbox, "gearbox", ("final_drive", "efficiency", "upshift_speed", "downshift_speed"))
    if np.any(ratios <= 0):
        i = int(np.flatnonzero(ratios <= 0)[0])
        raise check.fail(("gearbox", "ratios", i), f"{float(ratios[i])!r} — expected positive gear ratios")
    check.increasing(ratios, ("gearbox", "ratios"), sign=-1.0,
                     what="strictly decreasing values (first gear first)")
    if gearbox["efficiency"] > 1:
        raise check.fail(("gearbox", "efficiency"), f"{gearbox['efficiency']!r} — expected a value in (0, 1]")
    up, down = gearbox["upshift_speed"], gearbox["downshift_speed"]
    if not down < up:
        raise check.fail(("gearbox", "downshift_speed"), f"{_rpm(down)} ≥ upshift_speed {_rpm(up)} — "
                                                         f"expected downshift_speed < upshift_speed")
    if up > engine["max_speed"]:
        raise check.fail(("gearbox", "upshift_speed"), f"{_rpm(up)} above engine.max_speed "
                                                       f"{_rpm(engine['max_speed'])} — expected upshift_speed "
                                                       f"≤ max_speed")
    _positive(check, brakes, "brakes", tuple(_SCHEMA["brakes"]))
    return DrivelineData(
        EngineData(speed, throttle, np.array(rows), engine["idle_speed"], engine["max_speed"], engine["inertia"]),
        GearboxData(ratios, gearbox["final_drive"], gearbox["efficiency"], up, down, gearbox["driven_axle"]),
        BrakeData(brakes["front_torque_per_pedal"], brakes["rear_torque_per_pedal"]), source)


def _rpm(speed: float) -> str:
    return f"{speed * 30 / math.pi:.6g} rpm"


def _positive(check: _Checker, values: dict, section: str, keys: tuple[str, ...]) -> None:
    for key in keys:
        if not values[key] > 0:
            raise check.fail((section, key), f"{values[key]!r} — expected a positive value")


def read_driveline(path: str | Path) -> DrivelineData:
    """Read a driveline YAML file (safe loading) into :class:`DrivelineData` in SI units."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise MBMDataError(f"{source}: cannot read the file ({exc}) — expected a readable YAML file "
                           f"'{FORMAT}'") from exc
    data = load_yaml_text(text, source, MBMDataError)
    lines = yaml_key_lines(text)
    if isinstance(data, dict) and "format" not in data:
        raise MBMDataError(f"{source}:1: no 'format' key — expected 'format: {FORMAT}' at the top")
    return driveline_from_dict(data, source, "", lines)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

def driveline_to_dict(data: DrivelineData, units: Mapping[str, str] | None = None) -> dict:
    """The YAML sections of ``data`` (``format`` first) in ``units`` (kind -> unit, default rpm/N m/kg m^2)."""
    chosen = {**DEFAULT_UNITS, **(units or {})}
    for kind, unit in chosen.items():
        if kind not in DEFAULT_UNITS or unit_factor(kind, unit) is None:
            hint = unit_hint(kind) if kind in DEFAULT_UNITS else ", ".join(DEFAULT_UNITS)
            raise MBMDataError(f"{data.source or '<driveline>'}: units {kind!r}: {unit!r} — expected {hint}")

    def quantity(kind: str, si, form: str = "value") -> dict:
        factor = unit_factor(kind, chosen[kind])
        plain = np.vectorize(lambda v: float(format(v / factor, ".15g")), otypes=[float])(np.asarray(si, float))
        return {"unit": chosen[kind], form: plain.tolist()}

    engine, gearbox, brakes = data.engine, data.gearbox, data.brakes
    return {
        "format": FORMAT,
        "engine": {"speed": quantity("speed", engine.speed, "values"),
                   "throttle": quantity("dimensionless", engine.throttle, "values"),
                   "torque": quantity("moment", engine.torque, "values"),
                   "idle_speed": quantity("speed", engine.idle_speed),
                   "max_speed": quantity("speed", engine.max_speed),
                   "inertia": quantity("inertia", engine.inertia)},
        "gearbox": {"ratios": [float(r) for r in gearbox.ratios], "final_drive": float(gearbox.final_drive),
                    "efficiency": float(gearbox.efficiency),
                    "upshift_speed": quantity("speed", gearbox.upshift_speed),
                    "downshift_speed": quantity("speed", gearbox.downshift_speed),
                    "driven_axle": gearbox.driven_axle},
        "brakes": {"front_torque_per_pedal": quantity("moment", brakes.front_torque_per_pedal),
                   "rear_torque_per_pedal": quantity("moment", brakes.rear_torque_per_pedal)},
    }


def write_driveline(data: DrivelineData, path: str | Path, units: Mapping[str, str] | None = None) -> Path:
    """Validate ``data`` and write it to ``path`` as YAML (rpm, N m, kg m^2 by default), atomically."""
    path = Path(path)
    data = DrivelineData(data.engine, data.gearbox, data.brakes, str(path))
    content = driveline_to_dict(data, units)
    driveline_from_dict(content, str(path))
    text = yaml.safe_dump(content, sort_keys=False, default_flow_style=None, width=120, allow_unicode=True)
    return write_text_atomically(path, text)
