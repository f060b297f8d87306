"""Error class and small helpers shared by the MBM data formats (K&C results, masses, driveline).

* :class:`MBMDataError`: every problem with one of these files; the message is one line
  ``file:line[:column]: what — expected ...``.
* :data:`UNITS`: the accepted units per kind and their factor to SI; :func:`unit_factor` looks one up.
"""
from __future__ import annotations

import math
import re
from decimal import Decimal

__all__ = ["MBMDataError", "PlausibilityWarning", "UNITS", "normalise_unit", "unit_factor", "to_si", "unit_hint"]


class MBMDataError(ValueError):
    """An MBM data file (K&C results, mass table, driveline data) that cannot be read or written."""


class PlausibilityWarning(UserWarning):
    """A value physics allows but a road vehicle hardly has; the message ends with the check's name."""


_LBF = 4.4482216152605  # N, exact by definition (0.45359237 kg × 9.80665 m/s²)

#: kind -> accepted unit (normalised spelling, see :func:`normalise_unit`) -> factor to SI
UNITS: dict[str, dict[str, float]] = {
    "length": {"mm": 1e-3, "cm": 1e-2, "m": 1.0, "in": 0.0254},
    "angle": {"deg": math.pi / 180, "rad": 1.0},
    "force": {"n": 1.0, "kn": 1e3, "lbf": _LBF},
    "moment": {"n m": 1.0, "nm": 1.0, "kn m": 1e3},
    "mass": {"kg": 1.0, "g": 1e-3, "t": 1e3},
    "inertia": {"kg m^2": 1.0, "kg mm^2": 1e-6, "kg cm^2": 1e-4, "t mm^2": 1e-3},
    "speed": {"rpm": math.pi / 30, "rad/s": 1.0},
    "dimensionless": {"1": 1.0, "%": 1e-2},
}


def normalise_unit(unit: str) -> str:
    """Lower case, ``**`` as ``^``, ``*``/``·`` as a space, single spaces: 'kg*mm**2' -> 'kg mm^2'."""
    text = unit.strip().lower().replace("**", "^").replace("*", " ").replace("·", " ")
    return re.sub(r"\s+", " ", text)


#: the SI unit of each kind, for spellings outside UNITS (Adams's ``newton``, ``millimeter``, ``degree``)
SI_UNITS = {"length": "m", "angle": "rad", "force": "N", "moment": "N m", "mass": "kg", "inertia": "kg m^2",
            "speed": "rad/s", "dimensionless": "1"}


def unit_factor(kind: str, unit: str) -> float | None:
    """Factor from ``unit`` to SI for a quantity of ``kind``, None if the unit is not one of that kind.

    The spellings of UNITS first; then any unit :mod:`pybridge.mbm.units` reads that has the kind's
    dimension (``newton``, ``millimeter``, ``newton-meter``, ``kg*m**2``)."""
    if not isinstance(unit, str):
        return None
    factor = UNITS[kind].get(normalise_unit(unit))
    if factor is None and kind in SI_UNITS:
        from pybridge.mbm.units import UnitError, si_factor
        try:
            factor = si_factor(unit, SI_UNITS[kind])
        except UnitError:
            return None
    return factor


def to_si(number: str | float, factor: float) -> float:
    """``number`` (as written, or a float) times ``factor``; powers of ten in decimal (820 mm is 0.82 m)."""
    exponent = round(math.log10(factor))
    if math.isclose(factor, 10.0 ** exponent, rel_tol=1e-15):
        return float(Decimal(number if isinstance(number, str) else repr(number)).scaleb(exponent))
    return float(number) * factor


def unit_hint(kind: str) -> str:
    """The units accepted for ``kind``, for messages: 'mm', 'cm', 'm' or 'in'."""
    names = [f"'{u}'" for u in UNITS[kind]]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
