"""The SSP system of ``pybridge export --ssp`` from its flags, every value checked before anything is
written: ``--component NAME=FMU`` (the FMU's archive checked as pybridge.rig.ssp_archive checks the FMUs of
an SSP), ``--set COMPONENT.PARAMETER=VALUE`` (a finite number), ``--connect A.OUTPUT=B.INPUT[*FACTOR]``
(with a factor: an ``ssc:LinearTransformation``, the units' conversion stated whole, pybridge.rig.ssp_checks).
"""
from __future__ import annotations

import math
from pathlib import Path

from pybridge.parameters import ParameterSet
from pybridge.rig.ssp import Component, Connection, SSPError
from pybridge.rig.ssp_archive import check_fmu_file

__all__ = ["system_from_flags"]


def _pairs(values: list[str] | None, flag: str) -> list[tuple[str, str]]:
    result = []
    for value in values or []:
        left, sep, right = value.partition("=")
        if not sep or not left or not right:
            raise ValueError(f"{flag} {value!r}: expected LEFT=RIGHT")
        result.append((left, right))
    return result


def _component(name: str, fmu: str) -> Component:
    from fmpy import read_model_description

    path = Path(fmu)
    if not path.is_file():
        raise SSPError(f"--component {name}={fmu}: {fmu} is not a file; expected an FMU")
    check_fmu_file(path, f"--component {name}={fmu}")
    try:
        model = read_model_description(str(path), validate=False).modelName
    except Exception as error:   # fmpy raises several kinds on a broken model description
        raise SSPError(f"--component {name}={fmu}: not a readable FMU ({type(error).__name__}: {error})") from None
    return Component(name, path, ParameterSet(model=model))


def _value(target: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):
        raise ValueError(f"--set {target}={text}: {text!r} is not a finite number; expected "
                         "COMPONENT.PARAMETER=VALUE with VALUE in SI units")
    return value


def _connection(start: str, end: str) -> Connection:
    a, _, x = start.partition(".")
    target, star, factor_text = end.partition("*")
    b, _, y = target.partition(".")
    if not (a and x and b and y):
        raise ValueError(f"--connect {start}={end}: expected A.OUTPUT=B.INPUT or A.OUTPUT=B.INPUT*FACTOR")
    factor = None
    if star:
        try:
            factor = float(factor_text)
        except ValueError:
            factor = math.nan
        if not math.isfinite(factor):
            raise ValueError(f"--connect {start}={end}: {factor_text!r} is not a finite number; "
                             "expected A.OUTPUT=B.INPUT*FACTOR")
    return Connection(a, x, b, y, factor)


def system_from_flags(vehicle: Component, components: list[str] | None, settings: list[str] | None,
                      connects: list[str] | None) -> tuple[dict[str, Component], list[Connection]]:
    """The components (``vehicle`` first) and connections of the flags, checked (see the module doc)."""
    result = {vehicle.name: vehicle}
    for name, fmu in _pairs(components, "--component"):
        if name in result:
            raise ValueError(f"--component {name}={fmu}: the name {name} is taken")
        result[name] = _component(name, fmu)
    for target, text in _pairs(settings, "--set"):
        name, _, parameter = target.partition(".")
        if name not in result or not parameter:
            raise ValueError(f"--set {target}={text}: expected COMPONENT.PARAMETER=VALUE with COMPONENT one "
                             f"of {', '.join(result)}")
        result[name].parameters.scalars[parameter] = _value(target, text)
    for component in result.values():
        if component is not vehicle and not component.parameters.scalars:
            component.parameters = None
    return result, [_connection(start, end) for start, end in _pairs(connects, "--connect")]
