"""K&C (kinematics and compliance) results of one test on one axle, as CSV exported from Adams/Car.

Layout (documented with the Adams export steps in ``docs/mbm_formats.md``)::

    # format: vehiclertm-kc 1
    # test: parallel_travel             one of TESTS
    # axle: front                       front | rear
    # loaded_side: left                 compliance tests only: the wheel the rig loads
    # source: free text                 any other "# key: value" line goes to metadata
    wheel_travel_left [mm],wheel_travel_right [mm],wheel_load_left [N],...
    -100.0,-100.0,1234.5,...

:func:`read_kc_results` returns a :class:`KCResults` whose ``data`` is in SI (m, rad, N, N m) with
plain column names (``toe_left``); :func:`write_kc_results` writes one back, atomically. Every
problem raises :class:`~pybridge.mbm.errors.MBMDataError` naming file, line (and column) and what
is expected. :func:`read_header_csv` (the ``# key: value`` + CSV layout) is shared with the mass table.
"""
from __future__ import annotations

import csv
import difflib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from pybridge.mbm.errors import MBMDataError, to_si, unit_factor, unit_hint

from pybridge.fileio import write_text_atomically

__all__ = ["CHANNEL_KINDS", "COMPLIANCE_TESTS", "DEFAULT_UNITS", "FORMAT", "KCResults", "MBMDataError",
           "SIDES", "TESTS", "HeaderCSV", "kc_channel_names", "read_header_csv", "read_kc_results",
           "required_channels", "sweep_channel", "write_kc_results"]

FORMAT = "vehiclertm-kc 1"
TESTS = ("parallel_travel", "opposite_travel", "rack_travel", "compliance_fx", "compliance_fy", "compliance_mz")
COMPLIANCE_TESTS = TESTS[3:]
AXLES = ("front", "rear")
SIDES = ("left", "right")

# channel -> kind; True: one column per wheel (suffix _left/_right)
_CHANNELS: dict[str, tuple[str, bool]] = {
    "wheel_travel": ("length", True), "rack_travel": ("length", False), "wheel_load": ("force", True),
    "fx": ("force", True), "fy": ("force", True), "mz": ("moment", True),
    "toe": ("angle", True), "camber": ("angle", True), "caster": ("angle", True),
    "kingpin_inclination": ("angle", True),
    "wheel_centre_x": ("length", True), "wheel_centre_y": ("length", True),
    "contact_patch_x": ("length", True), "contact_patch_y": ("length", True),
    "spring_length": ("length", True), "damper_length": ("length", True),
    "bump_stop_length": ("length", True), "rebound_stop_length": ("length", True),
    "anti_roll_bar_length": ("length", True),
    "spring_force": ("force", True), "damper_force": ("force", True),
}
#: column name -> kind of quantity (length, angle, force, moment)
CHANNEL_KINDS: dict[str, str] = {
    (f"{name}_{side}" if per_wheel else name): kind
    for name, (kind, per_wheel) in _CHANNELS.items() for side in (SIDES if per_wheel else ("",))
}
#: units written by default, per kind
DEFAULT_UNITS = {"length": "mm", "angle": "deg", "force": "N", "moment": "N m"}
_HEADER_KEYS = ("format", "test", "axle", "loaded_side")
_TOLERANCE = (0.5e-3, 0.01)  # left/right sweep agreement: 0.5 mm + 1 % of the travel
#: largest magnitude (SI) a K&C value of a road vehicle can have, per kind: beyond it a file is wrong
#: (units or exponents), not a vehicle
MAGNITUDES = {"length": (100.0, "100 m"), "angle": (2 * math.pi, "2 pi rad (360 deg)"),
              "force": (1e6, "1 MN"), "moment": (1e6, "1 MN m")}


def kc_channel_names() -> list[str]:
    """All known column names (``toe_left``, ``rack_travel``, ...)."""
    return list(CHANNEL_KINDS)


def required_channels(test: str, loaded_side: str | None = None) -> list[str]:
    """Columns a file of ``test`` must hold."""
    names = [f"{n}_{s}" for n in ("wheel_travel", "wheel_load", "toe", "camber") for s in SIDES]
    if test == "rack_travel":
        names.append("rack_travel")
    if test in COMPLIANCE_TESTS:
        names += [f"{n}_{loaded_side}" for n in ("fx", "fy", "mz")]
    return names


def sweep_channel(test: str, loaded_side: str | None = None) -> str:
    """The column that the test sweeps (must be strictly monotonic)."""
    if test in COMPLIANCE_TESTS:
        return f"{test.removeprefix('compliance_')}_{loaded_side}"
    return "rack_travel" if test == "rack_travel" else "wheel_travel_left"


@dataclass(eq=False)
class KCResults:
    """One K&C test on one axle; ``data`` in SI (m, rad, N, N m), one column per channel."""

    test: str
    axle: str
    data: pd.DataFrame
    loaded_side: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)  # column -> unit of the file it came from
    path: Path | None = None

    @property
    def sweep(self) -> str:
        return sweep_channel(self.test, self.loaded_side)


# --------------------------------------------------------------------------------------------
# The "# key: value" header + CSV layout (shared with pybridge.mbm.mass_table)
# --------------------------------------------------------------------------------------------

_COLUMN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[([^\]]*)\])?$")
_KEY = re.compile(r"^#\s*([a-z_][a-z0-9_]*)\s*:(.*)$")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


@dataclass
class HeaderCSV:
    """A CSV file with ``# key: value`` lines before the column names ``name [unit]``; 1-based line numbers."""

    source: str
    header: dict[str, str]
    header_lines: dict[str, int]
    columns: list[str]
    units: list[str | None]
    column_line: int
    rows: list[list[str]]
    row_lines: list[int]

    def where(self, row: int | None = None, column: int | None = None) -> str:
        """``file:line[:column]`` of a data row (index into rows; None: the column line), column 0-based."""
        line = self.column_line if row is None else self.row_lines[row]
        return f"{self.source}:{line}" + ("" if column is None else f":{column + 1}")

    def number(self, row: int, column: int, factor: float = 1.0) -> float:
        """The cell times ``factor`` (to SI), or an error naming file, line, column and the column name."""
        token = self.rows[row][column]
        where, name = self.where(row, column), self.columns[column]
        if not token:
            raise MBMDataError(f"{where}: empty cell in column {name} — expected a number")
        if token.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise MBMDataError(f"{where}: {name} is {token} — expected a finite number")
        if not _NUMBER.match(token):
            raise MBMDataError(f"{where}: {name} {token!r} is not a number — expected a real number")
        return to_si(token, factor)


def read_header_csv(path: str | Path, file_format: str) -> HeaderCSV:
    """Split a file into header keys, columns and rows; checks the ``# format:`` line and row lengths."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise MBMDataError(f"{source}: cannot read the file ({exc}) — expected a readable UTF-8 CSV "
                           f"file '{file_format}'") from exc
    header: dict[str, str] = {}
    header_lines: dict[str, int] = {}
    table: HeaderCSV | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or (line.startswith("#") and table is not None):
            continue
        if line.startswith("#"):
            match = _KEY.match(line)
            if match:
                key = match.group(1)
                if key in header:
                    raise MBMDataError(f"{source}:{number}: duplicate header key {key!r} (first on line "
                                       f"{header_lines[key]}) — expected each key once")
                header[key], header_lines[key] = match.group(2).strip(), number
            continue
        cells = [c.strip() for c in next(csv.reader([line]))]
        if table is None:
            table = HeaderCSV(source, header, header_lines, [], [], number, [], [])
            for i, cell in enumerate(cells):
                match = _COLUMN.match(cell)
                if not match:
                    raise MBMDataError(f"{source}:{number}:{i + 1}: column name {cell!r} — expected "
                                       f"'name [unit]' (letters, digits, _)")
                if match.group(1) in table.columns:
                    first = table.columns.index(match.group(1)) + 1
                    raise MBMDataError(f"{source}:{number}:{i + 1}: duplicate column {match.group(1)} "
                                       f"(first in column {first}) — expected each column once")
                table.columns.append(match.group(1))
                table.units.append(None if match.group(2) is None else match.group(2).strip())
            continue
        if len(cells) != len(table.columns):
            raise MBMDataError(f"{source}:{number}: {len(cells)} values — expected {len(table.columns)}, "
                               f"one per column of line {table.column_line}")
        table.rows.append(cells)
        table.row_lines.append(number)
    if table is None:
        last = max(1, len(text.splitlines()))
        raise MBMDataError(f"{source}:{last}: no column names up to the end of the file — expected a "
                           f"line of 'name [unit]' columns after the '#' header")
    if "format" not in header:
        raise MBMDataError(f"{source}:{table.column_line}: no '# format:' line before the column names — "
                           f"expected '# format: {file_format}'")
    if header["format"] != file_format:
        raise MBMDataError(f"{source}:{header_lines['format']}: format {header['format']!r} — expected "
                           f"'{file_format}'")
    if len(table.rows) < 2:
        raise MBMDataError(f"{table.where(None if not table.rows else 0)}: {len(table.rows)} data "
                           f"row{'' if len(table.rows) == 1 else 's'} — expected at least 2")
    return table


def header_value(table: HeaderCSV, key: str, allowed: tuple[str, ...]) -> str:
    """The header value of ``key``, which must be one of ``allowed``."""
    if key not in table.header:
        raise MBMDataError(f"{table.where()}: no '# {key}:' line before the column names — expected "
                           f"'# {key}: ' and one of {', '.join(allowed)}")
    value = table.header[key]
    if value not in allowed:
        raise MBMDataError(f"{table.source}:{table.header_lines[key]}: {key} {value!r} — expected one of "
                           f"{', '.join(allowed)}")
    return value


def header_lines_text(file_format: str, fields: Mapping[str, str | None], where: str) -> list[str]:
    """``# key: value`` lines (``format`` first); values must fit on one line."""
    lines = [f"# format: {file_format}"]
    for key, value in fields.items():
        if value is None:
            continue
        if not _KEY.match(f"# {key}:") or key == "format":
            raise MBMDataError(f"{where}: metadata key {key!r} — expected a lower-case name (a-z, 0-9, _) "
                               f"other than 'format'")
        if "\n" in str(value) or "\r" in str(value):
            raise MBMDataError(f"{where}: metadata {key} holds a line break — expected one line of text")
        lines.append(f"# {key}: {value}")
    return lines


def csv_line(cells: list[str]) -> str:
    """One CSV row, a cell quoted where it holds a comma or a quote or starts with '#'."""
    return ",".join('"' + c.replace('"', '""') + '"' if c.startswith("#") or any(ch in c for ch in ',"')
                    else c for c in cells)


def format_number(value: float, factor: float) -> str:
    """SI ``value`` in a unit of ``factor``, with 15 significant digits (a round trip to ~1e-15)."""
    return format(value / factor, ".15g")


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------

def read_kc_results(path: str | Path) -> KCResults:
    """Read one K&C CSV file into :class:`KCResults` (SI units), validating it."""
    table = read_header_csv(path, FORMAT)
    test = header_value(table, "test", TESTS)
    axle = header_value(table, "axle", AXLES)
    loaded_side = None
    if test in COMPLIANCE_TESTS:
        loaded_side = header_value(table, "loaded_side", SIDES)
    elif "loaded_side" in table.header:
        raise MBMDataError(f"{table.source}:{table.header_lines['loaded_side']}: loaded_side in the {test} "
                           f"test — expected it only in the compliance tests ({', '.join(COMPLIANCE_TESTS)})")

    factors = []
    for i, (name, unit) in enumerate(zip(table.columns, table.units)):
        where = table.where(None, i)
        if name not in CHANNEL_KINDS:
            close = difflib.get_close_matches(name, CHANNEL_KINDS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise MBMDataError(f"{where}: unknown channel {name!r}{hint} — expected one of "
                               f"{', '.join(CHANNEL_KINDS)}")
        kind = CHANNEL_KINDS[name]
        if unit is None:
            raise MBMDataError(f"{where}: column {name} has no unit — expected '{name} [unit]' with a "
                               f"unit of {kind}: {unit_hint(kind)}")
        factor = unit_factor(kind, unit)
        if factor is None:
            raise MBMDataError(f"{where}: unit {unit!r} of {name} — expected a unit of {kind}: {unit_hint(kind)}")
        factors.append(factor)

    values = np.array([[table.number(r, c, factors[c]) for c in range(len(table.columns))]
                       for r in range(len(table.rows))])
    for column, name in enumerate(table.columns):
        limit, text = MAGNITUDES[CHANNEL_KINDS[name]]
        beyond = np.flatnonzero(~(np.abs(values[:, column]) <= limit))
        if beyond.size:
            row = int(beyond[0])
            raise MBMDataError(f"{table.where(row, column)}: {name} {table.rows[row][column]} "
                               f"[{table.units[column]}] — expected a magnitude up to {text} for a road vehicle")
    data = pd.DataFrame(values, columns=table.columns)
    _check(data, test, loaded_side, lambda row=None, col=None: table.where(
        row, None if col is None else table.columns.index(col)))
    metadata = {k: v for k, v in table.header.items() if k not in _HEADER_KEYS}
    return KCResults(test, axle, data, loaded_side, metadata, dict(zip(table.columns, table.units)),
                     Path(path))


def _check(data: pd.DataFrame, test: str, loaded_side: str | None,
           where: Callable[..., str]) -> None:
    """Required channels, strictly monotonic sweep, left/right sweeps consistent with the test."""
    missing = [c for c in required_channels(test, loaded_side) if c not in data.columns]
    if missing:
        raise MBMDataError(f"{where()}: no column {', '.join(missing)} — expected the channels "
                           f"{', '.join(required_channels(test, loaded_side))} in the {test} test")
    sweep = sweep_channel(test, loaded_side)
    x = data[sweep].to_numpy()
    steps = np.sign(np.diff(x))
    bad = np.flatnonzero((steps != steps[0]) | (steps == 0))
    if bad.size:
        row = int(bad[0]) + 1
        raise MBMDataError(f"{where(row, sweep)}: {sweep} turns or stalls here ({x[row - 1]:.9g} then "
                           f"{x[row]:.9g} in SI) — expected a strictly monotonic sweep")
    if test in ("parallel_travel", "opposite_travel"):
        left, right = data["wheel_travel_left"].to_numpy(), data["wheel_travel_right"].to_numpy()
        mirror = 1.0 if test == "parallel_travel" else -1.0
        limit = _TOLERANCE[0] + _TOLERANCE[1] * np.maximum(abs(left), abs(right))
        bad = np.flatnonzero(~(abs(left - mirror * right) <= limit))
        if bad.size:
            row = int(bad[0])
            relation = "wheel_travel_right" if mirror > 0 else "-wheel_travel_right"
            raise MBMDataError(f"{where(row, 'wheel_travel_right')}: wheel_travel_left {left[row] * 1e3:.6g} mm, "
                               f"wheel_travel_right {right[row] * 1e3:.6g} mm — expected wheel_travel_left = "
                               f"{relation} (within 0.5 mm + 1 %) in the {test} test")


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

def write_kc_results(results: KCResults | pd.DataFrame, path: str | Path,
                     units: Mapping[str, str] | None = None) -> Path:
    """Write ``results`` (SI) to ``path`` in engineering units, atomically; returns ``path``.

    ``results`` is a :class:`KCResults` or a DataFrame whose ``attrs`` hold ``test``, ``axle``,
    ``loaded_side`` (compliance) and any further metadata. ``units`` maps a kind (``length``,
    ``angle``, ``force``, ``moment``) or a column name to a unit; the rest take :data:`DEFAULT_UNITS`.
    """
    path = Path(path)
    where = str(path)
    if isinstance(results, KCResults):
        test, axle, side, data = results.test, results.axle, results.loaded_side, results.data
        metadata = dict(results.metadata)
    else:
        data, attrs = results, dict(results.attrs)
        test, axle, side = attrs.pop("test", None), attrs.pop("axle", None), attrs.pop("loaded_side", None)
        metadata = {k: str(v) for k, v in attrs.items()}
    for key, value, allowed in (("test", test, TESTS), ("axle", axle, AXLES)):
        if value not in allowed:
            raise MBMDataError(f"{where}: {key} {value!r} — expected one of {', '.join(allowed)}")
    if test in COMPLIANCE_TESTS and side not in SIDES:
        raise MBMDataError(f"{where}: loaded_side {side!r} in the {test} test — expected left or right")
    if test not in COMPLIANCE_TESTS:
        side = None
    unknown = [c for c in data.columns if c not in CHANNEL_KINDS]
    if unknown:
        raise MBMDataError(f"{where}: unknown channel {unknown[0]!r} — expected one of {', '.join(CHANNEL_KINDS)}")
    units = dict(units or {})
    for key in units:
        if key not in CHANNEL_KINDS and key not in DEFAULT_UNITS:
            raise MBMDataError(f"{where}: units for {key!r} — expected a channel name or one of "
                               f"{', '.join(DEFAULT_UNITS)}")
    try:
        values = data.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise MBMDataError(f"{where}: {exc} — expected numbers in every column") from None
    if not np.all(np.isfinite(values)):
        row, col = np.argwhere(~np.isfinite(values))[0]
        raise MBMDataError(f"{where}: row {row}, column {data.columns[col]} is {values[row, col]} — "
                           f"expected finite numbers")
    if len(data) < 2:
        raise MBMDataError(f"{where}: {len(data)} rows — expected at least 2")
    _check(data.reset_index(drop=True), test, side,
           lambda row=None, col=None: where + ("" if row is None else f": row {row}, column {col}"))

    header, factors = [], []
    for column in data.columns:
        kind = CHANNEL_KINDS[column]
        unit = units.get(column, units.get(kind, DEFAULT_UNITS[kind]))
        factor = unit_factor(kind, unit)
        if factor is None:
            raise MBMDataError(f"{where}: unit {unit!r} for {column} — expected a unit of {kind}: {unit_hint(kind)}")
        header.append(f"{column} [{unit}]")
        factors.append(factor)
    fields = {"test": test, "axle": axle, "loaded_side": side,
              **{k: v for k, v in metadata.items() if k not in _HEADER_KEYS}}
    lines = header_lines_text(FORMAT, fields, where) + [",".join(header)]
    lines += [",".join(format_number(v, f) for v, f in zip(row, factors)) for row in values]
    return write_text_atomically(path, "\n".join(lines) + "\n")
