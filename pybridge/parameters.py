"""RTM parameter sets: a directory with ``params.yaml`` and the tables it names as ``tables/*.csv``.

::

    format: vehiclertm-params 1
    model: VehicleRTM.Vehicles.RTM14DoF
    metadata: {source: scenarios/mbm/lcv35, created: 2026-01-01T00:00:00Z, tool: pybridge convert}
    scalars:
      chassis.wheelbase: {value: 3.45, unit: m, origin: "mbm/mbm_summary.yaml: wheelbase (direct)"}
    tables:
      frontAxleData.kinematics.toe: {file: tables/frontAxleData.kinematics.toe.csv, unit: rad, shape: [9, 9]}
    uncertain:
      chassis.cogHeight: {nominal: 0.78, lower: 0.624, upper: 0.936, reason: "estimated: ..."}

A table file is the plain CSV of the array (a 1-D table is one column). ``unit``, ``origin`` and an
uncertain parameter's ``reason`` (why it is identified) are optional; ``metadata`` and ``uncertain``
may be left out.

Bounds of an uncertain parameter: ±20 % of the nominal (the LCV paper), or given. A zero nominal has
no relative range; it gets an absolute one by its unit (:data:`ZERO_NOMINAL_HALF_WIDTH`): inertia
kg.m2 ±100 (a product of inertia such as Ixz; the van's Ixx is about 1400), length m ±0.05, mass kg
±10, ratio 1 ±0.1, angle rad ±0.01 (0.57 deg). Any other unit needs explicit lower and upper.

Reading validates everything and raises :class:`ParameterSetError` naming the file and the key.
"""
from __future__ import annotations

import copy
import io
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from pybridge.fileio import dump_yaml, read_yaml, write_text_atomically

__all__ = ["FORMAT", "PARAMS_FILE", "ParameterSet", "ParameterSetError", "read_parameter_set"]

FORMAT_NAME = "vehiclertm-params"
FORMAT_VERSION = 1
FORMAT = f"{FORMAT_NAME} {FORMAT_VERSION}"
PARAMS_FILE = "params.yaml"
TABLES_DIR = "tables"
DEFAULT_FRACTION = 0.2
#: half-width of the bounds of an uncertain parameter whose nominal is 0, by its unit
ZERO_NOMINAL_HALF_WIDTH = {"kg.m2": 100.0, "m": 0.05, "kg": 10.0, "1": 0.1, "rad": 0.01}

_TOP_KEYS = {"format": True, "model": True, "scalars": True, "tables": True, "metadata": False, "uncertain": False}
_SCALAR_KEYS = {"value": True, "unit": False, "origin": False}
_TABLE_KEYS = {"file": True, "shape": True, "unit": False, "origin": False}
_UNCERTAIN_KEYS = {"nominal": True, "lower": True, "upper": True, "reason": False}


class ParameterSetError(ValueError):
    """A parameter set that is malformed or inconsistent (the message names the file and the key)."""


@dataclass(eq=False)
class ParameterSet:
    """Parameter values of one RTM model; ``uncertain`` maps a scalar to (nominal, lower, upper),
    ``reasons`` an uncertain scalar to why it is identified; ``source``: the params.yaml it was read
    from (for messages; not part of the values)."""

    model: str
    scalars: dict[str, float] = field(default_factory=dict)
    tables: dict[str, np.ndarray] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    uncertain: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    source: Path | None = None

    def __post_init__(self):
        self.tables = {name: np.asarray(table, dtype=float) for name, table in self.tables.items()}

    def __eq__(self, other) -> bool:
        if not isinstance(other, ParameterSet):
            return NotImplemented
        same_tables = self.tables.keys() == other.tables.keys() and all(
            np.array_equal(self.tables[k], other.tables[k]) for k in self.tables)
        return same_tables and (self.model, self.scalars, self.units, self.origins, self.uncertain,
                                self.metadata, self.reasons) == (other.model, other.scalars, other.units,
                                                                 other.origins, other.uncertain, other.metadata,
                                                                 other.reasons)

    def names(self) -> list[str]:
        """Scalar names, then table names, in insertion order."""
        return [*self.scalars, *self.tables]

    def mark_uncertain(self, name: str, fraction: float = DEFAULT_FRACTION, *, lower: float | None = None,
                       upper: float | None = None, reason: str | None = None) -> None:
        """Make scalar ``name`` uncertain around its value: bounds ±``fraction`` of it unless given (a zero
        value: ± ZERO_NOMINAL_HALF_WIDTH of its unit); ``reason``: why it is identified."""
        if name not in self.scalars:
            raise ParameterSetError(f"mark_uncertain: '{name}' is not a scalar of the parameter set")
        nominal = float(self.scalars[name])
        spread = abs(nominal) * fraction
        if nominal == 0 and (lower is None or upper is None):
            unit = self.units.get(name)
            if unit not in ZERO_NOMINAL_HALF_WIDTH:
                raise ParameterSetError(f"mark_uncertain: '{name}' is 0 with unit {unit!r}, which has no absolute "
                                        f"range (known: {ZERO_NOMINAL_HALF_WIDTH}); give lower and upper")
            spread = ZERO_NOMINAL_HALF_WIDTH[unit]
        low = nominal - spread if lower is None else float(lower)
        high = nominal + spread if upper is None else float(upper)
        if not low <= nominal <= high or low == high:
            raise ParameterSetError(f"mark_uncertain: '{name}': bounds [{low}, {high}] must contain the nominal "
                                    f"{nominal} and be distinct (give lower and upper for a zero nominal)")
        self.uncertain[name] = (nominal, low, high)
        if reason:
            self.reasons[name] = reason

    def _copy(self) -> ParameterSet:
        """A deep copy, container by container (each identification candidate is one: copy.deepcopy of the van's
        set took 0.7 ms); a field added later is carried over as it is."""
        return replace(self, scalars=dict(self.scalars),
                       tables={name: np.array(table, dtype=float) for name, table in self.tables.items()},
                       units=dict(self.units), origins=dict(self.origins), uncertain=dict(self.uncertain),
                       metadata=copy.deepcopy(self.metadata), reasons=dict(self.reasons))

    def with_values(self, values: Mapping[str, float | np.ndarray]) -> ParameterSet:
        """A copy with the given scalars (and tables, same shape) replaced; uncertain ones stay in bounds."""
        result = self._copy()
        for name, value in values.items():
            if name in self.tables:
                table = np.asarray(value, dtype=float)
                if table.shape != self.tables[name].shape or not np.isfinite(table).all():
                    raise ParameterSetError(f"with_values: table '{name}' needs finite values of shape "
                                            f"{self.tables[name].shape}, got shape {table.shape}")
                result.tables[name] = table.copy()
                continue
            if name not in self.scalars:
                raise ParameterSetError(f"with_values: '{name}' is not a parameter of the set")
            number = float(value)
            if not math.isfinite(number):
                raise ParameterSetError(f"with_values: '{name}' = {value}; expected a finite number")
            if name in self.uncertain:
                _, low, high = self.uncertain[name]
                if not low <= number <= high:
                    raise ParameterSetError(f"with_values: '{name}' = {number} is outside its bounds [{low}, {high}]")
            result.scalars[name] = number
        return result

    def write(self, directory: str | Path) -> Path:
        """Write ``directory/params.yaml`` and ``directory/tables/*.csv`` (each file atomically)."""
        directory = Path(directory)
        (directory / TABLES_DIR).mkdir(parents=True, exist_ok=True)
        tables = {}
        for name, array in self.tables.items():
            array = np.asarray(array, dtype=float)
            if array.ndim not in (1, 2) or array.size == 0 or not np.isfinite(array).all():
                raise ParameterSetError(f"write: table '{name}' must be a non-empty finite 1-D or 2-D array "
                                        f"(got shape {array.shape})")
            relative = f"{TABLES_DIR}/{name}.csv"
            text = io.StringIO()
            np.savetxt(text, array.reshape(len(array), -1), delimiter=",", fmt="%.17g")
            write_text_atomically(directory / relative, text.getvalue())
            tables[name] = {"file": relative, "shape": list(array.shape), **self._extras(name)}
        document = {
            "format": FORMAT,
            "model": self.model,
            "metadata": dict(self.metadata),
            "scalars": {n: {"value": float(v), **self._extras(n)} for n, v in self.scalars.items()},
            "tables": tables,
            "uncertain": {n: {"nominal": float(a), "lower": float(b), "upper": float(c),
                              **({"reason": self.reasons[n]} if n in self.reasons else {})}
                          for n, (a, b, c) in self.uncertain.items()},
        }
        path = directory / PARAMS_FILE
        write_text_atomically(path, dump_yaml(document, sort_keys=False, allow_unicode=True, width=120))
        return path

    def _extras(self, name: str) -> dict:
        extras = {}
        if name in self.units:
            extras["unit"] = self.units[name]
        if name in self.origins:
            extras["origin"] = self.origins[name]
        return extras


def read_parameter_set(path: str | Path) -> ParameterSet:
    """Read and validate a parameter set from its directory or its ``params.yaml``."""
    path = Path(path)
    yaml_path = path / PARAMS_FILE if path.is_dir() else path
    return _Reader(yaml_path).parameter_set(read_yaml(yaml_path, ParameterSetError))


class _Reader:
    """Validation of one ``params.yaml``; every error names the file and the key."""

    def __init__(self, yaml_path: Path):
        self.file = yaml_path
        self.root = yaml_path.parent.resolve()

    def fail(self, key: str, message: str):
        raise ParameterSetError(f"{self.file}: {key}: {message}")

    def mapping(self, value, key: str, keys: dict[str, bool]) -> dict:
        if not isinstance(value, dict):
            self.fail(key, f"expected a mapping with keys {sorted(keys)}, got {type(value).__name__}")
        missing = [k for k, required in keys.items() if required and k not in value]
        unknown = [k for k in value if k not in keys]
        if missing:
            self.fail(key, f"missing key(s) {missing}")
        if unknown:
            self.fail(key, f"unknown key(s) {unknown}; expected {sorted(keys)}")
        return value

    def section(self, document: dict, name: str) -> dict:
        value = document.get(name) or {}
        if not isinstance(value, dict):
            self.fail(name, f"expected a mapping of names, got {type(value).__name__}")
        return value

    def number(self, value, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(key, f"expected a number, got {value!r}")
        if not math.isfinite(value):
            self.fail(key, f"{value} is not finite; expected a finite number")
        return float(value)

    def text(self, value, key: str) -> str:
        if not isinstance(value, str) or not value:
            self.fail(key, f"expected a non-empty string, got {value!r}")
        return value

    def parameter_set(self, document) -> ParameterSet:
        document = self.mapping(document, "top level", _TOP_KEYS)
        fmt = self.text(document["format"], "format").split()
        if len(fmt) != 2 or fmt[0] != FORMAT_NAME:
            self.fail("format", f"unknown format '{document['format']}'; expected '{FORMAT}'")
        if fmt[1] != str(FORMAT_VERSION):
            self.fail("format", f"unsupported version {fmt[1]} of {FORMAT_NAME}; this reader knows {FORMAT_VERSION}")
        result = ParameterSet(model=self.text(document["model"], "model"), source=self.file)
        metadata = document.get("metadata") or {}
        if not isinstance(metadata, dict):
            self.fail("metadata", f"expected a mapping, got {type(metadata).__name__}")
        result.metadata = metadata
        for name, entry in self.section(document, "scalars").items():
            key = f"scalars.{name}"
            entry = self.mapping(entry, key, _SCALAR_KEYS)
            result.scalars[name] = self.number(entry["value"], f"{key}.value")
            self.extras(result, name, entry, key)
        for name, entry in self.section(document, "tables").items():
            key = f"tables.{name}"
            if name in result.scalars:
                self.fail(key, "the name is also a scalar of the set")
            entry = self.mapping(entry, key, _TABLE_KEYS)
            result.tables[name] = self.table(entry, key)
            self.extras(result, name, entry, key)
        for name, entry in self.section(document, "uncertain").items():
            key = f"uncertain.{name}"
            if name not in result.scalars:
                self.fail(key, "an uncertain parameter must be a scalar of the set (under scalars)")
            entry = self.mapping(entry, key, _UNCERTAIN_KEYS)
            nominal, low, high = (self.number(entry[k], f"{key}.{k}") for k in ("nominal", "lower", "upper"))
            if not low <= nominal <= high or low == high:
                self.fail(key, f"nominal {nominal} must lie within distinct bounds [lower, upper] = [{low}, {high}]")
            if not low <= result.scalars[name] <= high:
                self.fail(key, f"the value {result.scalars[name]} (scalars.{name}) is outside [{low}, {high}]")
            result.uncertain[name] = (nominal, low, high)
            if "reason" in entry:
                result.reasons[name] = self.text(entry["reason"], f"{key}.reason")
        return result

    def extras(self, result: ParameterSet, name: str, entry: dict, key: str) -> None:
        if "unit" in entry:
            result.units[name] = self.text(entry["unit"], f"{key}.unit")
        if "origin" in entry:
            result.origins[name] = self.text(entry["origin"], f"{key}.origin")

    def table(self, entry: dict, key: str) -> np.ndarray:
        shape = entry["shape"]
        if (not isinstance(shape, list) or len(shape) not in (1, 2)
                or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in shape)):
            self.fail(f"{key}.shape", f"expected [n] or [n, m] with positive integers, got {shape!r}")
        file = (self.root / self.text(entry["file"], f"{key}.file")).resolve()
        if self.root not in file.parents:
            self.fail(f"{key}.file", f"'{entry['file']}' lies outside the parameter set's directory {self.root}")
        try:
            array = np.loadtxt(file, delimiter=",", ndmin=2, dtype=float)
        except OSError:
            self.fail(f"{key}.file", f"table file {file} is missing")
        except ValueError as error:
            self.fail(f"{key}.file", f"{file} is not a CSV of numbers ({error})")
        if len(shape) == 1 and array.shape[1:] == (1,):
            array = array[:, 0]
        if array.shape != tuple(shape):
            self.fail(f"{key}.shape", f"{file} holds an array of shape {list(array.shape)}, declared {shape}")
        bad = np.argwhere(~np.isfinite(array))
        if len(bad):
            place = " column ".join(str(i + 1) for i in bad[0])
            self.fail(f"{key}.file", f"{file}: the value in row {place} is {array[tuple(bad[0])]}; "
                                     "expected finite numbers")
        return array
