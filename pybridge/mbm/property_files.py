"""Adams TeimOrbit property files of springs (.spr), dampers (.dpr), bump stops (.bum) and rebound stops (.reb).

``read_property_file(path)`` returns a :class:`PropertyCurve` in SI units (x in m, or m/s for a
damper; force in N; free length / clearance in m), converting the file's ``[UNITS]`` block.
``write_property_file(curve, path, units=...)`` writes the same format, atomically (a temporary
file in the same folder, then ``os.replace``), so a failed write never leaves a partial file.

Layout read and written (TeimOrbit, see :mod:`pybridge.mbm.teimorbit`)::

    [MDI_HEADER]
    FILE_TYPE = 'spr'                 $ 'spr' | 'dpr' | 'bum' | 'reb', must match the extension
    FILE_VERSION = 4.0
    FILE_FORMAT = 'ASCII'
    [UNITS]
    LENGTH = 'mm'                     $ mm, cm, m (and spelled-out forms)
    FORCE = 'newton'                  $ newton / N, kilonewton / kN
    TIME = 'second'                   $ second / s, millisecond / ms (needed by .dpr only)
    ANGLE = 'degrees'                 $ ANGLE, MASS, ...: not used by these curves, not checked
    MASS = 'kg'
    [SPRING_DATA]                     $ .spr only, optional
    FREE_LENGTH = 250.0
    [BUMPSTOP_DATA]                   $ .bum only ([REBOUNDSTOP_DATA] for .reb), optional
    CLEARANCE = 30.0                  $ travel before the stop engages
    [CURVE]
    { disp force }                    $ { vel force } for a damper
    -20.0   -4000.0
    ...

``[SPRING_DATA] FREE_LENGTH`` and the ``[CURVE]`` table of displacement (or velocity) against force
are the Adams/Car layout; the ``CLEARANCE`` key of the stop files is this project's convention (Adams
keeps it in the subsystem). Unit conversions are powers of ten done in decimal arithmetic, so
write → read reproduces a curve bit for bit.

Every problem raises :class:`PropertyFileError` with a one-line message
``file:line: what — expected ...``; a missing block is reported at the last line of the file.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np

from pybridge.mbm.errors import PlausibilityWarning
from pybridge.fileio import write_text_atomically
from pybridge.mbm.teimorbit import TeimOrbitData, TeimOrbitError, parse_teimorbit

__all__ = [
    "DEFAULT_UNITS",
    "EXTENSIONS",
    "KINDS",
    "PropertyCurve",
    "PropertyFileError",
    "parse_property_file",
    "read_property_file",
    "write_property_file",
]


class PropertyFileError(TeimOrbitError):
    """A spring/damper/stop property file that cannot be read or written (message ``file:line: ...``)."""


#: file extension (= FILE_TYPE) per kind, and back
MIN_SPRING_RATE = 1000.0  # N/m: a softer spring curve is flat (a plausibility warning, not an error)
EXTENSIONS = {"spring": "spr", "damper": "dpr", "bumpstop": "bum", "reboundstop": "reb"}
KINDS = {ext: kind for kind, ext in EXTENSIONS.items()}

# block with the scalars of a kind, and its keys -> PropertyCurve attribute (all lengths)
_DATA_BLOCK = {"spring": "SPRING_DATA", "bumpstop": "BUMPSTOP_DATA", "reboundstop": "REBOUNDSTOP_DATA"}
_SCALARS = {"spring": {"FREE_LENGTH": "free_length"},
            "bumpstop": {"CLEARANCE": "clearance"},
            "reboundstop": {"CLEARANCE": "clearance"},
            "damper": {}}
_COLUMNS = {"spring": ("disp", "force"), "damper": ("vel", "force"),
            "bumpstop": ("disp", "force"), "reboundstop": ("disp", "force")}

# accepted spellings (lower case) -> decimal exponent of the factor to SI
_UNITS: dict[str, dict[str, int]] = {
    "LENGTH": {"m": 0, "meter": 0, "meters": 0, "metre": 0, "metres": 0,
               "cm": -2, "centimeter": -2, "centimeters": -2, "centimetre": -2, "centimetres": -2,
               "mm": -3, "millimeter": -3, "millimeters": -3, "millimetre": -3, "millimetres": -3},
    "FORCE": {"n": 0, "newton": 0, "newtons": 0, "kn": 3, "kilonewton": 3, "kilonewtons": 3},
    "TIME": {"s": 0, "sec": 0, "second": 0, "seconds": 0,
             "ms": -3, "msec": -3, "millisecond": -3, "milliseconds": -3},
}
_UNIT_HINT = {"LENGTH": "'mm', 'cm' or 'm' (or 'millimeter', 'meter', ...)",
              "FORCE": "'newton'/'N' or 'kilonewton'/'kN'",
              "TIME": "'second'/'s' or 'millisecond'/'ms'"}

#: units written by default (the usual Adams/Car property-file units)
DEFAULT_UNITS = {"LENGTH": "mm", "FORCE": "newton", "TIME": "second"}


@dataclass(eq=False)
class PropertyCurve:
    """A force curve in SI: ``x`` in m (spring, stops) or m/s (damper), ``force`` in N.

    ``free_length`` (spring) and ``clearance`` (stops) are in m, None when the file has none.
    ``columns`` are the names of the table columns (written back as the ``{...}`` header).
    """

    kind: str
    x: np.ndarray
    force: np.ndarray
    free_length: float | None = None
    clearance: float | None = None
    columns: tuple[str, str] | None = None
    source: str | None = None
    row_lines: tuple[int, ...] = ()   # the file's line of every point, when read from a file

    def __post_init__(self) -> None:
        self.x = np.asarray(self.x, dtype=float)
        self.force = np.asarray(self.force, dtype=float)
        if self.columns is None and self.kind in _COLUMNS:
            self.columns = _COLUMNS[self.kind]

    @property
    def x_unit(self) -> str:
        return "m/s" if self.kind == "damper" else "m"


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------

def _kind_of(path: Path) -> str:
    ext = path.suffix.lower().lstrip(".")
    if ext not in KINDS:
        raise PropertyFileError(f"{path}: unknown property file extension {path.suffix!r} — expected "
                                f"one of {', '.join('.' + e for e in KINDS)}")
    return KINDS[ext]


def _to_si(token: str, exponent: int, where: str, what: str) -> float:
    """The number ``token`` (as written) times 10**exponent, rounded once to a float."""
    try:
        value = Decimal(token.replace("d", "e").replace("D", "e"))
    except InvalidOperation:
        raise PropertyFileError(f"{where}: {what} {token!r} is not a number — expected a real "
                                f"number") from None
    if not value.is_finite():
        raise PropertyFileError(f"{where}: {what} is {token} — expected a finite number")
    return float(value.scaleb(exponent))


def _unit_exponent(data: TeimOrbitData, key: str) -> int:
    units = data.sections["UNITS"]
    if key not in units:
        line = data.section_lines["UNITS"]
        raise PropertyFileError(f"{data.source}:{line}: [UNITS] has no {key} — expected "
                                f"{key} = {_UNIT_HINT[key]}")
    value = units[key]
    line = data.lines[("UNITS", key)]
    if not isinstance(value, str) or value.strip().lower() not in _UNITS[key]:
        raise PropertyFileError(f"{data.source}:{line}: unknown {key} unit {value!r} — expected "
                                f"{_UNIT_HINT[key]}")
    return _UNITS[key][value.strip().lower()]


def parse_property_file(text: str, source: str, kind: str) -> PropertyCurve:
    """Parse the text of a property file of ``kind`` ('spring', 'damper', 'bumpstop', 'reboundstop')."""
    if kind not in EXTENSIONS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {sorted(EXTENSIONS)}")
    data = parse_teimorbit(text, source, error=PropertyFileError)
    eof = max(1, len(text.splitlines()))

    for block in ("MDI_HEADER", "UNITS", "CURVE"):
        if block not in data.sections:
            raise PropertyFileError(f"{source}:{eof}: no [{block}] block up to the end of the file — "
                                    f"expected a .{EXTENSIONS[kind]} file with [MDI_HEADER], [UNITS] "
                                    f"and [CURVE] blocks")

    header = data.sections["MDI_HEADER"]
    expected_type = EXTENSIONS[kind]
    if "FILE_TYPE" not in header:
        raise PropertyFileError(f"{source}:{data.section_lines['MDI_HEADER']}: [MDI_HEADER] has no "
                                f"FILE_TYPE — expected FILE_TYPE = '{expected_type}'")
    file_type = header["FILE_TYPE"]
    if not isinstance(file_type, str) or file_type.strip().lower() != expected_type:
        line = data.lines[("MDI_HEADER", "FILE_TYPE")]
        raise PropertyFileError(f"{source}:{line}: FILE_TYPE = {file_type!r} does not match the "
                                f"file — expected FILE_TYPE = '{expected_type}' for a {kind}")

    length = _unit_exponent(data, "LENGTH")
    force = _unit_exponent(data, "FORCE")
    x_exp = length - _unit_exponent(data, "TIME") if kind == "damper" else length

    # scalars of the kind's data block
    scalars: dict[str, float] = {}
    block = _DATA_BLOCK.get(kind)
    if block in data.sections:
        known = _SCALARS[kind]
        for key, value in data.sections[block].items():
            line = data.lines[(block, key)]
            where = f"{source}:{line}"
            if key not in known:
                raise PropertyFileError(f"{where}: unknown key {key} in [{block}] — expected "
                                        f"{' or '.join(known)}")
            if isinstance(value, str):
                raise PropertyFileError(f"{where}: {key} = {value!r} — expected a length (a number "
                                        f"in the LENGTH unit)")
            scalars[known[key]] = _to_si(data.raw[(block, key)], length, where, key)

    # the curve
    table = data.table_info.get("CURVE")
    if table is None:
        line = data.section_lines["CURVE"]
        raise PropertyFileError(f"{source}:{line}: [CURVE] has no table — expected "
                                f"{{ {' '.join(_COLUMNS[kind])} }} followed by rows of two numbers")
    if table.is_text:
        raise PropertyFileError(f"{source}:{table.row_lines[0]}: the [CURVE] table holds text — "
                                f"expected rows of two numbers")
    if len(table.columns) not in (0, 2):
        raise PropertyFileError(f"{source}:{table.line}: the [CURVE] table has {len(table.columns)} "
                                f"columns {table.columns} — expected two, e.g. "
                                f"{{ {' '.join(_COLUMNS[kind])} }}")
    xs: list[float] = []
    fs: list[float] = []
    x_name = table.columns[0] if table.columns else _COLUMNS[kind][0]
    for tokens, line in zip(table.tokens, table.row_lines):
        where = f"{source}:{line}"
        if len(tokens) != 2:
            raise PropertyFileError(f"{where}: [CURVE] row has {len(tokens)} values — expected two "
                                    f"({' and '.join(_COLUMNS[kind])})")
        x = _to_si(tokens[0], x_exp, where, x_name)
        f = _to_si(tokens[1], force, where, "force")
        if xs and not x > xs[-1]:
            raise PropertyFileError(f"{where}: {x_name} {tokens[0]} does not increase — expected "
                                    f"strictly increasing breakpoints (previous row "
                                    f"{table.tokens[len(xs) - 1][0]})")
        xs.append(x)
        fs.append(f)
    if len(xs) < 2:
        line = table.row_lines[-1] if table.row_lines else table.line
        raise PropertyFileError(f"{source}:{line}: [CURVE] has {len(xs)} point"
                                f"{'' if len(xs) == 1 else 's'} — expected at least 2")
    if kind == "spring" and not abs(fs[-1] - fs[0]) >= MIN_SPRING_RATE * (xs[-1] - xs[0]):
        warnings.warn(f"{source}:{table.line}: spring rate {(fs[-1] - fs[0]) / (xs[-1] - xs[0]):.4g} N/m over the "
                      f"[CURVE] — a flat spring curve (expected at least {MIN_SPRING_RATE:g} N/m) [spring-rate]",
                      PlausibilityWarning, stacklevel=2)
    columns = (table.columns[0], table.columns[1]) if table.columns else None
    return PropertyCurve(kind, np.array(xs), np.array(fs), columns=columns, source=source,
                         row_lines=tuple(table.row_lines[:len(xs)]), **scalars)


def read_property_file(path: str | Path) -> PropertyCurve:
    """Read a .spr/.dpr/.bum/.reb file into a :class:`PropertyCurve` in SI units."""
    path = Path(path)
    kind = _kind_of(path)
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise PropertyFileError(f"{path}: cannot read the file ({exc.strerror}) — expected a "
                                f"readable .{EXTENSIONS[kind]} file") from exc
    if text and not text.endswith("\n"):
        raise PropertyFileError(f"{path}:{text.count(chr(10)) + 1}: the file ends inside a line — expected "
                                "complete lines ending in a newline (is the file cut short?)")
    return parse_property_file(text, str(path), kind)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

def _from_si(value: float, exponent: int) -> str:
    """``value`` (SI) in a unit 10**exponent, as an exact decimal string."""
    return format(Decimal(repr(float(value))).scaleb(-exponent).normalize(), "f")


def _check_curve(curve: PropertyCurve, where: str) -> None:
    if curve.kind not in EXTENSIONS:
        raise PropertyFileError(f"{where}: kind {curve.kind!r} — expected one of {sorted(EXTENSIONS)}")
    x, f = np.asarray(curve.x, dtype=float), np.asarray(curve.force, dtype=float)
    if x.ndim != 1 or x.shape != f.shape:
        raise PropertyFileError(f"{where}: x {x.shape} and force {f.shape} — expected two 1-D arrays "
                                f"of the same length")
    if len(x) < 2:
        raise PropertyFileError(f"{where}: {len(x)} points — expected at least 2")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(f))):
        raise PropertyFileError(f"{where}: NaN or infinite values in the curve — expected finite numbers")
    if not np.all(np.diff(x) > 0):
        i = int(np.argmin(np.diff(x) > 0)) + 1
        raise PropertyFileError(f"{where}: x[{i}] = {float(x[i])!r} after {float(x[i - 1])!r} — expected strictly "
                                f"increasing breakpoints")
    for name in ("free_length", "clearance"):
        value = getattr(curve, name)
        if value is not None and not np.isfinite(value):
            raise PropertyFileError(f"{where}: {name} = {value!r} — expected a finite length")


def write_property_file(curve: PropertyCurve, path: str | Path,
                        units: Mapping[str, str] | None = None) -> Path:
    """Write ``curve`` (SI) to ``path`` (extension = the kind's) in ``units`` (default mm/newton/second).

    ``units`` maps LENGTH, FORCE and TIME to unit names accepted by the reader; missing keys take
    :data:`DEFAULT_UNITS`. The file is written to a temporary file next to ``path`` and moved into
    place, so an error never leaves a partial file. Returns ``path``.
    """
    path = Path(path)
    where = str(path)
    _check_curve(curve, where)
    ext = EXTENSIONS[curve.kind]
    if path.suffix.lower() != "." + ext:
        raise PropertyFileError(f"{where}: a {curve.kind} written to {path.suffix or 'no extension'!r} "
                                f"— expected the extension .{ext}")
    chosen = {**DEFAULT_UNITS, **{k.upper(): v for k, v in (units or {}).items()}}
    exps: dict[str, int] = {}
    for key in ("LENGTH", "FORCE", "TIME"):
        name = chosen[key]
        if not isinstance(name, str) or name.strip().lower() not in _UNITS[key]:
            raise PropertyFileError(f"{where}: unknown {key} unit {name!r} — expected {_UNIT_HINT[key]}")
        exps[key] = _UNITS[key][name.strip().lower()]
    for key in chosen:
        if key not in _UNITS:
            raise PropertyFileError(f"{where}: unknown units key {key!r} — expected LENGTH, FORCE, TIME")
    x_exp = exps["LENGTH"] - exps["TIME"] if curve.kind == "damper" else exps["LENGTH"]
    columns = curve.columns or _COLUMNS[curve.kind]

    out = [
        "$" + "-" * 69 + "MDI_HEADER",
        "[MDI_HEADER]",
        f"FILE_TYPE = '{ext}'",
        "FILE_VERSION = 4.0",
        "FILE_FORMAT = 'ASCII'",
        "(COMMENTS)",
        "{comment_string}",
        f"'{curve.kind} written by pybridge.mbm.property_files'",
        "$" + "-" * 74 + "UNITS",
        "[UNITS]",
        f"LENGTH = '{chosen['LENGTH']}'",
        "ANGLE = 'degrees'",
        f"FORCE = '{chosen['FORCE']}'",
        "MASS = 'kg'",
        f"TIME = '{chosen['TIME']}'",
    ]
    block = _DATA_BLOCK.get(curve.kind)
    scalars = [(key, getattr(curve, attr)) for key, attr in _SCALARS[curve.kind].items()
               if getattr(curve, attr) is not None]
    if block and scalars:
        out += ["$" + "-" * (79 - len(block)) + block, f"[{block}]"]
        out += [f"{key} = {_from_si(value, exps['LENGTH'])}" for key, value in scalars]
    out += ["$" + "-" * 74 + "CURVE", "[CURVE]", f"{{ {columns[0]} {columns[1]} }}"]
    out += [f"{_from_si(x, x_exp)} {_from_si(f, exps['FORCE'])}" for x, f in zip(curve.x, curve.force)]
    return write_text_atomically(path, "\n".join(out) + "\n")
