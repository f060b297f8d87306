"""Units written as text in result files and logs, to SI: ``newton/meter**2``, ``meter/second**2``, ``deg/sec``.

:func:`parse_unit` reads a product of unit names with powers (``**``, ``^``), separated by ``*``, ``-``,
``.``, ``·`` or a space, with ``/`` dividing by everything after it (``kg*m/s**2`` is kg m s^-2):
the result is a :class:`Unit`, its factor to SI and its dimension (powers of m, kg, s, rad, A, K).
:func:`si_factor` checks that a unit is of the dimension of an SI unit and returns the factor.
The names are those of Adams (``meter``, ``newton``, ``sec``, ``deg``, ``newton-meter``), of
VI-CarRealTime, of the scenario files (``km/h``, ``g``, ``%``) and common abbreviations; the
catalogue is :data:`NAMES`. Angles have their own dimension, so a length is never taken for an angle.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["NAMES", "Unit", "UnitError", "parse_unit", "si_factor"]


class UnitError(ValueError):
    """A unit text that is not a product of known unit names; the message says what is expected."""


# dimension vector: powers of (m, kg, s, rad, A, K)
_L, _M, _T, _ANG = (1, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0), (0, 0, 1, 0, 0, 0), (0, 0, 0, 1, 0, 0)
_NONE = (0, 0, 0, 0, 0, 0)
_FORCE = (1, 1, -2, 0, 0, 0)
_G = 9.80665

_BASE: dict[tuple[str, ...], tuple[float, tuple[int, ...]]] = {
    ("m", "meter", "meters", "metre", "metres"): (1.0, _L),
    ("mm", "millimeter", "millimeters", "millimetre", "millimetres"): (1e-3, _L),
    ("cm", "centimeter", "centimeters", "centimetre"): (1e-2, _L),
    ("km", "kilometer", "kilometers", "kilometre"): (1e3, _L),
    ("in", "inch", "inches"): (0.0254, _L),
    ("ft", "foot", "feet"): (0.3048, _L),
    ("mile", "miles"): (1609.344, _L),
    ("kg", "kilogram", "kilograms"): (1.0, _M),
    ("g_mass", "gram", "grams"): (1e-3, _M),
    ("t", "tonne", "tonnes"): (1e3, _M),
    ("lbm", "pound_mass"): (0.45359237, _M),
    ("s", "sec", "second", "seconds"): (1.0, _T),
    ("ms", "millisecond", "milliseconds", "msec"): (1e-3, _T),
    ("min", "minute", "minutes"): (60.0, _T),
    ("h", "hr", "hour", "hours"): (3600.0, _T),
    ("rad", "radian", "radians"): (1.0, _ANG),
    ("deg", "degree", "degrees"): (math.pi / 180, _ANG),
    ("rev", "revolution", "revolutions"): (2 * math.pi, _ANG),
    ("rpm",): (math.pi / 30, (0, 0, -1, 1, 0, 0)),
    ("n", "newton", "newtons"): (1.0, _FORCE),
    ("kn", "kilonewton", "kilonewtons"): (1e3, _FORCE),
    ("lbf", "pound_force"): (4.4482216152605, _FORCE),
    ("kgf",): (_G, _FORCE),
    ("g",): (_G, (1, 0, -2, 0, 0, 0)),  # standard gravity (an acceleration); grams are "gram"
    ("pa", "pascal"): (1.0, (-1, 1, -2, 0, 0, 0)),
    ("kpa",): (1e3, (-1, 1, -2, 0, 0, 0)),
    ("mpa",): (1e6, (-1, 1, -2, 0, 0, 0)),
    ("bar",): (1e5, (-1, 1, -2, 0, 0, 0)),
    ("j", "joule", "joules"): (1.0, (2, 1, -2, 0, 0, 0)),
    ("w", "watt", "watts"): (1.0, (2, 1, -3, 0, 0, 0)),
    ("kw", "kilowatt", "kilowatts"): (1e3, (2, 1, -3, 0, 0, 0)),
    ("hz", "hertz"): (1.0, (0, 0, -1, 0, 0, 0)),
    ("a", "amp", "ampere", "amperes"): (1.0, (0, 0, 0, 0, 1, 0)),
    ("v", "volt", "volts"): (1.0, (2, 1, -3, 0, -1, 0)),
    ("k", "kelvin"): (1.0, (0, 0, 0, 0, 0, 1)),
    ("1", "-", "none", "no_units"): (1.0, _NONE),
    ("%", "percent"): (0.01, _NONE),
}
#: unit name (lower case) -> (factor to SI, dimension)
NAMES: dict[str, tuple[float, tuple[int, ...]]] = {name: value for names, value in _BASE.items() for name in names}
#: whole spellings that the product grammar would split wrongly
_WHOLE = {"km/h": (1 / 3.6, (1, 0, -1, 0, 0, 0)), "kph": (1 / 3.6, (1, 0, -1, 0, 0, 0)),
          "mph": (0.44704, (1, 0, -1, 0, 0, 0)), "n-m": (1.0, (2, 1, -2, 0, 0, 0)),
          "newton-meter": (1.0, (2, 1, -2, 0, 0, 0)), "n-mm": (1e-3, (2, 1, -2, 0, 0, 0)),
          "newton-mm": (1e-3, (2, 1, -2, 0, 0, 0)), "newton-millimeter": (1e-3, (2, 1, -2, 0, 0, 0))}
_FACTOR = re.compile(r"^([a-z_%]+|1)(?:\^([+-]?\d+))?$")


@dataclass(frozen=True)
class Unit:
    """A parsed unit: ``value_si = value * factor``; ``dimension`` the powers of (m, kg, s, rad, A, K)."""

    text: str
    factor: float
    dimension: tuple[int, ...]


def _product(text: str, whole: str) -> tuple[float, list[int]]:
    factor, dims = 1.0, [0] * 6
    for token in re.split(r"[\s*·]+|(?<!\^)[-.]", text.replace("**", "^")):
        token = token.strip()
        if not token:
            continue
        match = _FACTOR.match(token)
        if not match or match.group(1) not in NAMES:
            raise UnitError(f"unit {whole!r}: {token!r} is not a unit name — expected names such as meter, "
                            "mm, newton, sec, deg, rad, kg with powers written ** or ^ (e.g. meter/second**2)")
        scale, dim = NAMES[match.group(1)]
        power = int(match.group(2) or 1)
        factor *= scale ** power
        dims = [d + power * e for d, e in zip(dims, dim)]
    return factor, dims


def parse_unit(text: str) -> Unit:
    """``text`` as a :class:`Unit`; :class:`UnitError` saying what is expected when it is not one."""
    if not isinstance(text, str) or not text.strip():
        raise UnitError(f"unit {text!r} — expected a unit name such as meter, newton, sec, deg or 1")
    clean = re.sub(r"\s+", " ", text.strip().lower())
    if clean in _WHOLE:
        return Unit(text, *_WHOLE[clean])
    if clean.count("/") > 1:
        raise UnitError(f"unit {text!r}: more than one '/' — expected at most one (e.g. meter/second**2)")
    top, _, bottom = clean.partition("/")
    top = top.replace("newton-meter", "newton meter").replace("n-m", "n m")
    factor, dims = _product(top, text) if top.strip() not in ("", "1") else (1.0, [0] * 6)
    if bottom:
        below, below_dims = _product(bottom, text)
        factor, dims = factor / below, [d - e for d, e in zip(dims, below_dims)]
    return Unit(text, factor, tuple(dims))


def si_factor(unit: str, si_unit: str) -> float:
    """Factor from ``unit`` to ``si_unit`` (an SI unit such as 'm/s^2'); UnitError for another dimension."""
    source, target = parse_unit(unit), parse_unit(si_unit)
    if source.dimension != target.dimension:
        raise UnitError(f"unit {unit!r} is not a unit of the same quantity as {si_unit!r} — expected a unit "
                        f"convertible to {si_unit}")
    return source.factor / target.factor
