"""Mass and inertia of every body of the MBM, one CSV row per body (see ``docs/mbm_formats.md``)::

    # format: vehiclertm-masses 1
    # vehicle: lcv35
    # frame: ISO 8855 vehicle axes at design position, origin on the ground below the front axle centre
    body,class,axle,side,mass [kg],x [mm],y [mm],z [mm],ixx [kg m^2],iyy [kg m^2],izz [kg m^2],ixy [kg m^2],ixz [kg m^2],iyz [kg m^2]
    ges_body,sprung,none,centre,1850,1620,0,780,520,2300,2450,0,-35,0

``class`` is sprung | unsprung | linkage (bodies between sprung and unsprung mass, split by the
conversion), ``axle`` front | rear | none, ``side`` left | right | centre. Position of the centre
of gravity in the vehicle frame; inertia about the body's own centre of gravity, axes parallel to
the vehicle axes, products as positive integrals (``ixy = ∫ x y dm``, the Adams convention).

:func:`read_mass_table` returns a :class:`MassTable` in SI; :func:`write_mass_table` writes one,
atomically. Errors are :class:`~pybridge.mbm.errors.MBMDataError` naming file, line and column.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from pybridge.mbm.errors import MBMDataError, unit_factor, unit_hint
from pybridge.fileio import write_text_atomically
from pybridge.mbm.kc_results import csv_line, format_number, header_lines_text, read_header_csv

__all__ = ["AXLES", "CLASSES", "COLUMN_KINDS", "DEFAULT_UNITS", "FORMAT", "SIDES", "MassTable",
           "combined_properties", "read_mass_table", "write_mass_table"]

FORMAT = "vehiclertm-masses 1"
CLASSES = ("sprung", "unsprung", "linkage")
AXLES = ("front", "rear", "none")
SIDES = ("left", "right", "centre")
TEXT_COLUMNS = {"body": None, "class": CLASSES, "axle": AXLES, "side": SIDES}
INERTIAS = ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
#: numeric column -> kind of quantity
COLUMN_KINDS = {"mass": "mass", "x": "length", "y": "length", "z": "length", **{i: "inertia" for i in INERTIAS}}
COLUMNS = (*TEXT_COLUMNS, *COLUMN_KINDS)
DEFAULT_UNITS = {"mass": "kg", "length": "mm", "inertia": "kg m^2"}
_INERTIA_TOLERANCE = 1e-6  # of the trace, for rounded exports of flat or slender bodies


def _tensor(ixx, iyy, izz, ixy, ixz, iyz) -> np.ndarray:
    """Inertia tensor from moments and products (products as positive integrals)."""
    return np.array([[ixx, -ixy, -ixz], [-ixy, iyy, -iyz], [-ixz, -iyz, izz]], dtype=float)


def combined_properties(bodies: pd.DataFrame) -> pd.Series:
    """Mass, centre of gravity and inertia (about that centre) of several bodies taken as one."""
    mass = float(bodies["mass"].sum())
    positions = bodies[["x", "y", "z"]].to_numpy(dtype=float)
    centre = bodies["mass"].to_numpy() @ positions / mass
    tensor = np.zeros((3, 3))
    for (_, body), offset in zip(bodies.iterrows(), positions - centre):
        tensor += _tensor(*(body[i] for i in INERTIAS))
        tensor += body["mass"] * (offset @ offset * np.eye(3) - np.outer(offset, offset))
    return pd.Series({"mass": mass, "x": centre[0], "y": centre[1], "z": centre[2],
                      "ixx": tensor[0, 0], "iyy": tensor[1, 1], "izz": tensor[2, 2],
                      "ixy": 0.0 - tensor[0, 1], "ixz": 0.0 - tensor[0, 2], "iyz": 0.0 - tensor[1, 2]})


@dataclass(eq=False)
class MassTable:
    """The bodies of an MBM: ``data`` has the columns :data:`COLUMNS` in SI (kg, m, kg m^2)."""

    data: pd.DataFrame
    metadata: dict[str, str] = field(default_factory=dict)  # vehicle, frame, ...
    units: dict[str, str] = field(default_factory=dict)  # column -> unit of the file it came from
    path: Path | None = None

    @property
    def total_mass(self) -> float:
        return float(self.data["mass"].sum())

    @property
    def centre_of_gravity(self) -> np.ndarray:
        """Mass-weighted centre of gravity (x, y, z) in m."""
        return combined_properties(self.data)[["x", "y", "z"]].to_numpy(dtype=float)

    def by_class(self) -> pd.DataFrame:
        """One row per class present: mass, centre of gravity and inertia about it."""
        groups = dict(list(self.data.groupby("class")))
        return pd.DataFrame({c: combined_properties(groups[c]) for c in CLASSES if c in groups}).T


# --------------------------------------------------------------------------------------------
# Reading and validation
# --------------------------------------------------------------------------------------------

def read_mass_table(path: str | Path) -> MassTable:
    """Read a mass table CSV into a :class:`MassTable` (SI), validating it."""
    table = read_header_csv(path, FORMAT)
    for i, (name, unit) in enumerate(zip(table.columns, table.units)):
        where = table.where(None, i)
        if name not in COLUMNS:
            raise MBMDataError(f"{where}: unknown column {name!r} — expected one of {', '.join(COLUMNS)}")
        if name in TEXT_COLUMNS and unit is not None:
            raise MBMDataError(f"{where}: column {name} has a unit [{unit}] — expected plain '{name}'")
        if name in COLUMN_KINDS and (unit is None or unit_factor(COLUMN_KINDS[name], unit) is None):
            kind = COLUMN_KINDS[name]
            raise MBMDataError(f"{where}: unit {unit!r} of {name} — expected '{name} [unit]' with a unit "
                               f"of {kind}: {unit_hint(kind)}")
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise MBMDataError(f"{table.where()}: no column {', '.join(missing)} — expected the columns "
                           f"{', '.join(COLUMNS)}")

    records = []
    for r, cells in enumerate(table.rows):
        record: dict[str, object] = {}
        for c, name in enumerate(table.columns):
            if name in TEXT_COLUMNS:
                record[name] = cells[c]
            else:
                record[name] = table.number(r, c, unit_factor(COLUMN_KINDS[name], table.units[c]))
        records.append(record)
    data = pd.DataFrame(records, columns=list(COLUMNS))
    _check(data, lambda row, col: table.where(row, table.columns.index(col)))
    metadata = {k: v for k, v in table.header.items() if k != "format"}
    units = {n: u for n, u in zip(table.columns, table.units) if u is not None}
    return MassTable(data, metadata, units, Path(path))


def _check(data: pd.DataFrame, where: Callable[[int, str], str]) -> None:
    """Names, classes, axles, sides, positive masses and physically possible inertias."""
    first_row: dict[str, int] = {}
    for row, values in enumerate(data.to_dict("records")):
        for name, allowed in TEXT_COLUMNS.items():
            text = values[name]
            if not isinstance(text, str) or not text.strip():
                raise MBMDataError(f"{where(row, name)}: empty {name} — expected "
                                   f"{'a body name' if allowed is None else 'one of ' + ', '.join(allowed)}")
            if allowed is not None and text not in allowed:
                raise MBMDataError(f"{where(row, name)}: {name} {text!r} — expected one of {', '.join(allowed)}")
        name = values["body"]
        if name in first_row:
            raise MBMDataError(f"{where(row, 'body')}: duplicate body {name!r} (first at "
                               f"{where(first_row[name], 'body')}) — expected unique body names")
        first_row[name] = row
        for column in COLUMN_KINDS:
            if not np.isfinite(values[column]):
                raise MBMDataError(f"{where(row, column)}: {column} of {name!r} is {values[column]} — "
                                   f"expected a finite number")
        if not values["mass"] > 0:
            raise MBMDataError(f"{where(row, 'mass')}: mass of {name!r} is {values['mass']!r} kg — "
                               f"expected a positive mass")
        if values["class"] != "sprung" and values["axle"] == "none":
            raise MBMDataError(f"{where(row, 'axle')}: {values['class']} body {name!r} has axle none — "
                               f"expected front or rear")
        principal = np.linalg.eigvalsh(_tensor(*(values[i] for i in INERTIAS)))
        tol = _INERTIA_TOLERANCE * max(float(np.sum(principal)), 0.0)
        a, b, c = principal  # ascending
        if a < -tol or a + b < c - tol:
            broken = "a negative principal moment" if a < -tol else "the triangle inequality"
            raise MBMDataError(f"{where(row, 'ixx')}: inertia of {name!r} is not physically possible "
                               f"(principal moments {a:.6g}, {b:.6g}, {c:.6g} kg m^2 break {broken}) — "
                               f"expected principal moments ≥ 0, each at most the sum of the other two")


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

def write_mass_table(table: MassTable | pd.DataFrame, path: str | Path,
                     units: Mapping[str, str] | None = None) -> Path:
    """Write ``table`` (SI) to ``path`` atomically; returns ``path``.

    ``table`` is a :class:`MassTable` or a DataFrame with the columns :data:`COLUMNS` (metadata such
    as ``vehicle`` and ``frame`` in its ``attrs``). ``units`` maps a kind (mass, length, inertia) or
    a column to a unit; the rest take :data:`DEFAULT_UNITS` (kg, mm, kg m^2).
    """
    path = Path(path)
    where = str(path)
    if isinstance(table, MassTable):
        data, metadata = table.data, dict(table.metadata)
    else:
        data, metadata = table, {k: str(v) for k, v in table.attrs.items()}
    missing = [c for c in COLUMNS if c not in data.columns]
    extra = [c for c in data.columns if c not in COLUMNS]
    if missing or extra:
        raise MBMDataError(f"{where}: columns missing {missing} / unknown {extra} — expected exactly "
                           f"{', '.join(COLUMNS)}")
    units = dict(units or {})
    for key in units:
        if key not in COLUMN_KINDS and key not in DEFAULT_UNITS:
            raise MBMDataError(f"{where}: units for {key!r} — expected a numeric column or one of "
                               f"{', '.join(DEFAULT_UNITS)}")
    data = data[list(COLUMNS)].reset_index(drop=True)
    try:
        data = data.astype({c: float for c in COLUMN_KINDS})
    except (TypeError, ValueError) as exc:
        raise MBMDataError(f"{where}: {exc} — expected numbers in {', '.join(COLUMN_KINDS)}") from None
    _check(data, lambda row, col: f"{where}: row {row}, column {col}")

    header, factors = list(TEXT_COLUMNS), {}
    for column, kind in COLUMN_KINDS.items():
        unit = units.get(column, units.get(kind, DEFAULT_UNITS[kind]))
        factors[column] = unit_factor(kind, unit)
        if factors[column] is None:
            raise MBMDataError(f"{where}: unit {unit!r} for {column} — expected a unit of {kind}: {unit_hint(kind)}")
        header.append(f"{column} [{unit}]")
    metadata.pop("format", None)
    lines = header_lines_text(FORMAT, metadata, where) + [",".join(header)]
    for values in data.to_dict("records"):
        lines.append(csv_line([values[c] for c in TEXT_COLUMNS]
                              + [format_number(values[c], factors[c]) for c in COLUMN_KINDS]))
    return write_text_atomically(path, "\n".join(lines) + "\n")
