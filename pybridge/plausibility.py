"""Plausibility of a full-vehicle parameter set (RTM14DoF names): warnings for values a road vehicle
hardly has, errors for values physics forbids.

A warning is a :class:`PlausibilityWarning` (Python ``warnings``; ``pybridge`` prints each on one
line) whose message ends with the check's name in brackets, e.g. ``[tyre-cornering-stiffness]``, so a
user can filter it (``python -W "ignore::pybridge.plausibility.PlausibilityWarning"``). An error is
an :class:`ImplausibleParameterError`. Both name the parameter set's file (or its model) and the
parameter. The ranges are wide on purpose (a small car to a heavy truck).
"""
from __future__ import annotations

import warnings

import numpy as np

from pybridge.mbm.errors import PlausibilityWarning
from pybridge.parameters import ParameterSet

__all__ = ["ImplausibleParameterError", "PlausibilityWarning", "check_parameter_set"]

#: any value (SI) beyond this is a unit or exponent mistake, not a vehicle
MAX_MAGNITUDE = 1e12
TYRES = ("frontTire", "rearTire")
AXLES = ("frontAxleData", "rearAxleData")

#: parameter -> (check name, what, positive by physics, plausible |value| range, unit)
SCALARS = {
    "chassis.sprungBodies": ("sprung-mass", "sprung mass", True, (100.0, 60_000.0), "kg"),
    **{f"chassis.{axis}": ("body-inertia", f"body inertia {axis}", True, (10.0, 1e6), "kg m^2")
       for axis in ("Ixx", "Iyy", "Izz")},
    **{f"{tyre}.{key}": entry for tyre in TYRES for key, entry in {
        "PKY1": ("tyre-cornering-stiffness", "cornering stiffness factor PKY1", False, (1.0, 100.0), "1"),
        "PKX1": ("tyre-slip-stiffness", "longitudinal slip stiffness factor PKX1", False, (1.0, 100.0), "1"),
        "PDY1": ("tyre-friction", "lateral friction PDY1", False, (0.1, 3.0), "1"),
        "PDX1": ("tyre-friction", "longitudinal friction PDX1", False, (0.1, 3.0), "1"),
        "VERTICAL_STIFFNESS": ("tyre-vertical-stiffness", "vertical stiffness", True, (3e4, 5e6), "N/m"),
        "UNLOADED_RADIUS": ("tyre-radius", "free radius", True, (0.15, 1.5), "m"),
        "FNOMIN": ("tyre-nominal-load", "nominal load FNOMIN", True, (500.0, 1e5), "N"),
    }.items()},
}
#: plausible wheel rate (N/m per wheel) of the parallel-travel stiffness table
WHEEL_RATE = (5e3, 2e6)


class ImplausibleParameterError(ValueError):
    """A value physics forbids (a non-positive mass, an absurd magnitude)."""


def _warn(where: str, name: str, message: str, check: str) -> None:
    warnings.warn(f"{where}: {name}: {message} [{check}]", PlausibilityWarning, stacklevel=3)


def check_parameter_set(params: ParameterSet) -> None:
    """Warn about implausible values of ``params``; raise for impossible ones (see the module)."""
    where = str(params.source or params.metadata.get("source") or f"parameter set of {params.model}")

    def named(name: str) -> str:  # the parameter and where its value came from
        return f"{name} (from {params.origins[name]})" if name in params.origins else name

    for name, values in [*params.scalars.items(), *params.tables.items()]:
        biggest = float(np.max(np.abs(values))) if np.size(values) else 0.0
        if not biggest <= MAX_MAGNITUDE:
            raise ImplausibleParameterError(f"{where}: {named(name)}: magnitude {biggest:.4g} (SI) — expected at "
                                            f"most {MAX_MAGNITUDE:g}; check the units of the data it came from")
    for name, (check, what, positive, (low, high), unit) in SCALARS.items():
        if name not in params.scalars:
            continue
        value = params.scalars[name]
        if positive and not value > 0:
            raise ImplausibleParameterError(f"{where}: {named(name)}: {what} {value:g} {unit} — expected a "
                                            "positive value")
        if not low <= abs(value) <= high:
            _warn(where, named(name), f"{what} {value:g} {unit} is outside the plausible {low:g} .. {high:g} "
                                      f"{unit}" + ("" if positive else " in magnitude"), check)
    for axle in AXLES:
        travel, force = (params.tables.get(f"{axle}.stiffness.{key}") for key in ("travel", "parallelForce"))
        if travel is None or force is None or len(travel) < 2:
            continue
        rate = float((force[-1] - force[0]) / (travel[-1] - travel[0]))
        if not WHEEL_RATE[0] <= rate <= WHEEL_RATE[1]:
            _warn(where, named(f"{axle}.stiffness.parallelForce"), f"wheel rate {rate:.4g} N/m over the travel "
                  f"table is outside the plausible {WHEEL_RATE[0]:g} .. {WHEEL_RATE[1]:g} N/m", "axle-stiffness")
