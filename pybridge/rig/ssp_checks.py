"""What a co-simulation engine would refuse, or silently get wrong, in an SSP system: checked when
``pybridge export --ssp`` writes one and when ``pybridge cosim`` loads one.

- **One writer per input** (SSP 1.0: an input connector takes one connection): two connections into one
  input are refused, naming both.
- **Units**: an output feeds an input of another unit only through an ``ssc:LinearTransformation``
  (``end = factor * start + offset``) with ``suppressUnitConversion="true"`` on the connection. SSP 1.0
  lets an importer convert between units of one quantity (km/h to m/s) before the transformation, but
  libcosim converts nothing (measured: a m/s output into a km/h connector arrives unchanged), so the
  conversion must be stated whole in the transformation; between different quantities (rad into a
  unitless input) nothing converts. ``pybridge export --connect A.X=B.Y*FACTOR`` writes such a connection.
- **Communication step below an FMU's internal step**: warned, not refused. A native FMU states its
  internal step (its ``fixedStepSize`` parameter, and ``VendorAnnotations/Tool[@name='fmu_build']/Build``);
  its ``fmi2DoStep`` then takes one shortened step per communication step (the wrapper cuts its last
  step to the communication point and its multistep methods take the step ratio), so the run is valid,
  but it is not the run of the build validated at its own step: more model evaluations per simulated
  second (for a real-time rig) and results that differ from that build's.
"""
from __future__ import annotations

import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from fmu_build.native_backend import STEP_VARIABLE
from fmu_build.package import base_unit
from pybridge.rig.ssp import SSPError

__all__ = ["CommunicationStepWarning", "Wire", "check_step", "check_wires", "internal_step"]


class CommunicationStepWarning(UserWarning):
    """A communication step below an FMU's internal step (see the module doc)."""


@dataclass
class Wire:
    """A connection as checked: its ends, their units, its transformation and where it is written."""

    start: str
    start_connector: str
    end: str
    end_connector: str
    start_unit: str | None
    end_unit: str | None
    place: str
    factor: float | None = None     # ssc:LinearTransformation, None without one
    offset: float = 0.0
    suppress_units: bool = False    # suppressUnitConversion="true"

    @property
    def label(self) -> str:
        return f"{self.start}.{self.start_connector} -> {self.end}.{self.end_connector}"


def _unit(text: str | None) -> str:
    return "1" if text in (None, "", "1") else text


def _unit_problem(wire: Wire) -> str | None:
    start, end = _unit(wire.start_unit), _unit(wire.end_unit)
    if start == end:
        return None
    if wire.factor is not None and wire.suppress_units:
        return None
    if wire.factor is not None:
        return (f"{start} into {end} with an ssc:LinearTransformation but without suppressUnitConversion=\"true\": "
                "SSP 1.0 converts the units before the transformation and libcosim does not; set "
                "suppressUnitConversion=\"true\" and state the whole conversion in the factor")
    a, b = base_unit(start), base_unit(end)
    fix = ("add an ssc:LinearTransformation (end = factor * start + offset) with suppressUnitConversion=\"true\" "
           "to the connection (pybridge export: --connect A.OUTPUT=B.INPUT*FACTOR)")
    if a is not None and b is not None and a[0] == b[0]:
        return f"{start} into {end}: libcosim does not convert units; {fix}, here with factor {a[1] / b[1]:.10g}"
    return f"{start} into {end}: not the same quantity; connect an output in {end}, or {fix}"


def check_wires(wires: list[Wire]) -> None:
    """SSPError on an input with two writers or a connection whose units do not match (module doc)."""
    writers: dict[tuple[str, str], Wire] = {}
    for wire in wires:
        first = writers.setdefault((wire.end, wire.end_connector), wire)
        if first is not wire:
            seen = f" ({first.place})" if first.place != wire.place else ""
            raise SSPError(f"{wire.place}: input {wire.end}.{wire.end_connector} has two writers, connection "
                           f"{first.label}{seen} and connection {wire.label}; an input takes one "
                           "connection (SSP 1.0): remove one, or combine the signals in a component of their own")
        problem = _unit_problem(wire)
        if problem:
            raise SSPError(f"{wire.place}: connection {wire.label}: units differ, {problem}")


def internal_step(fmu: Path, parameters: dict | None = None) -> float | None:
    """The internal step the FMU ``fmu`` states, in s (``parameters``' fixedStepSize first, then the FMU's
    fixedStepSize parameter, then fmu_build's vendor annotation); None when it states none."""
    if parameters and STEP_VARIABLE in parameters:
        return float(parameters[STEP_VARIABLE])
    try:
        with zipfile.ZipFile(fmu) as archive:
            root = etree.fromstring(archive.read("modelDescription.xml"),
                                    etree.XMLParser(resolve_entities=False, no_network=True))
    except (OSError, KeyError, zipfile.BadZipFile, etree.XMLSyntaxError):
        return None
    for var in root.iterfind(f"ModelVariables/ScalarVariable[@name='{STEP_VARIABLE}']"):
        real = var.find("Real")
        if var.get("causality") == "parameter" and real is not None and real.get("start"):
            return float(real.get("start"))
    build = root.find("VendorAnnotations/Tool[@name='fmu_build']/Build")
    return float(build.get(STEP_VARIABLE)) if build is not None and build.get(STEP_VARIABLE) else None


def check_step(step: float, steps: dict[str, float | None], where: str) -> None:
    """CommunicationStepWarning for each component whose internal step (``steps``: name -> s) is longer
    than the communication step ``step``."""
    for name, inner in steps.items():
        if inner is not None and step < inner * (1 - 1e-9):
            warnings.warn(CommunicationStepWarning(
                f"{where}: communication step {step:g} s is below the internal step {inner:g} s of component "
                f"{name}: each fmi2DoStep takes one step of {step:g} s instead, {inner / step:.3g}x the model "
                f"evaluations per simulated second of the build validated at {inner:g} s, with results that "
                f"differ from that build's; use a step >= {inner:g} s, or set {name}.{STEP_VARIABLE}={step:g} "
                "to run at the communication step on purpose"), stacklevel=2)
