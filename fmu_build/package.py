"""Write an FMI 2.0 FMU: modelDescription.xml (lxml) with units and model structure, and the zip archive.

Backend-neutral: the native backend describes its variables as :class:`FmuVariable` objects and a
staging directory (``binaries/``, ``sources/``); this module turns them into a valid FMU.
"""
from __future__ import annotations

import math
import os
import re
import zipfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from lxml import etree

from fmu_build.errors import BuildError

FMI_TYPES = ("cs", "me", "me_cs")
LOG_CATEGORIES = {
    "logEvents": "Information: instantiation, initialization, model messages",
    "logStatusError": "Errors: calls in the wrong state, forbidden sets, model failures, divergence",
}


@dataclass
class FmuVariable:
    """One ScalarVariable of the model description."""

    name: str
    value_reference: int
    type: str                       # Real, Integer, Boolean
    causality: str                  # parameter, calculatedParameter, input, output, local
    variability: str                # fixed, continuous, discrete
    initial: str | None = None      # exact, calculated (None: not written)
    start: float | bool | int | None = None
    unit: str | None = None
    description: str = ""
    derivative_of: str | None = None   # name of the state this variable is the derivative of
    is_state: bool = False


# ---- units -----------------------------------------------------------------------------------

_BASE = ("kg", "m", "s", "A", "K", "mol", "cd", "rad")
# symbol -> (exponents of the SI base units and rad, factor)
_SYMBOLS: dict[str, tuple[dict[str, int], float]] = {
    "1": ({}, 1.0), "m": ({"m": 1}, 1.0), "s": ({"s": 1}, 1.0), "kg": ({"kg": 1}, 1.0),
    "g": ({"kg": 1}, 1e-3), "A": ({"A": 1}, 1.0), "K": ({"K": 1}, 1.0), "mol": ({"mol": 1}, 1.0),
    "cd": ({"cd": 1}, 1.0), "rad": ({"rad": 1}, 1.0), "deg": ({"rad": 1}, math.pi / 180),
    "N": ({"kg": 1, "m": 1, "s": -2}, 1.0), "Pa": ({"kg": 1, "m": -1, "s": -2}, 1.0),
    "bar": ({"kg": 1, "m": -1, "s": -2}, 1e5), "J": ({"kg": 1, "m": 2, "s": -2}, 1.0),
    "W": ({"kg": 1, "m": 2, "s": -3}, 1.0), "Hz": ({"s": -1}, 1.0), "V": ({"kg": 1, "m": 2, "s": -3, "A": -1}, 1.0),
    "min": ({"s": 1}, 60.0), "h": ({"s": 1}, 3600.0), "l": ({"m": 3}, 1e-3), "rpm": ({"rad": 1, "s": -1}, math.pi / 30),
}
_PREFIXES = {"k": 1e3, "M": 1e6, "G": 1e9, "m": 1e-3, "u": 1e-6, "n": 1e-9, "c": 1e-2, "d": 1e-1}
_FACTOR = re.compile(r"^([A-Za-z]+|1)([+-]?\d+)?$")


def _factor(token: str) -> tuple[dict[str, int], float] | None:
    match = _FACTOR.match(token)
    if not match:
        return None
    symbol, exponent = match.group(1), int(match.group(2) or 1)
    if symbol in _SYMBOLS:
        base, factor = _SYMBOLS[symbol]
    elif symbol[0] in _PREFIXES and symbol[1:] in _SYMBOLS and symbol[1:] != "1":
        base, factor = _SYMBOLS[symbol[1:]]
        factor *= _PREFIXES[symbol[0]]
    else:
        return None
    return {k: v * exponent for k, v in base.items()}, factor ** exponent


def base_unit(unit: str) -> tuple[dict[str, int], float] | None:
    """Exponents of the SI base units (and rad) and the factor of a Modelica unit string such as
    ``"N.s/m"`` or ``"kg2.m4"``; None if the string is not understood."""
    exponents: dict[str, int] = {}
    factor = 1.0
    parts = unit.replace("(", "").replace(")", "").split("/")
    for position, part in enumerate(parts):
        sign = 1 if position == 0 else -1
        for token in part.split("."):
            parsed = _factor(token.strip())
            if parsed is None:
                return None
            for key, value in parsed[0].items():
                exponents[key] = exponents.get(key, 0) + sign * value
            factor *= parsed[1] ** sign
    return {k: v for k, v in exponents.items() if v}, factor


# ---- model description -----------------------------------------------------------------------

def _number(value: float) -> str:
    return repr(float(value))


def _unit_definitions(root, variables: list[FmuVariable]) -> None:
    """UnitDefinitions: one Unit per unit of a Real variable, with its BaseUnit when understood."""
    units = sorted({v.unit for v in variables if v.type == "Real" and v.unit})
    if units:
        definitions = etree.SubElement(root, "UnitDefinitions")
        for unit in units:
            element = etree.SubElement(definitions, "Unit", {"name": unit})
            parsed = base_unit(unit)
            if parsed is not None:
                exponents, factor = parsed
                attributes = {k: str(v) for k, v in exponents.items()}
                if factor != 1.0:
                    attributes["factor"] = _number(factor)
                etree.SubElement(element, "BaseUnit", attributes)


def _model_variables(root, variables: list[FmuVariable]) -> dict[str, int]:
    """ModelVariables in order; returns each variable's 1-based index (derivatives refer to it)."""
    model_variables = etree.SubElement(root, "ModelVariables")
    index = {}
    for k, var in enumerate(variables, start=1):
        index[var.name] = k
    for var in variables:
        attributes = {"name": var.name, "valueReference": str(var.value_reference)}
        if var.description:
            attributes["description"] = var.description
        attributes["causality"] = var.causality
        attributes["variability"] = var.variability
        if var.initial:
            attributes["initial"] = var.initial
        scalar = etree.SubElement(model_variables, "ScalarVariable", attributes)
        typed = {}
        if var.type == "Real":
            if var.unit:
                typed["unit"] = var.unit
            if var.derivative_of is not None:
                if var.derivative_of not in index:
                    raise BuildError(f"{var.name}: its state {var.derivative_of} is not a variable of the FMU")
                typed["derivative"] = str(index[var.derivative_of])
        if var.start is not None:
            if var.type == "Boolean":
                typed["start"] = "true" if var.start else "false"
            elif var.type == "Integer":
                typed["start"] = str(int(var.start))
            else:
                typed["start"] = _number(var.start)
        etree.SubElement(scalar, var.type, typed)
    return index


def _model_structure(root, variables: list[FmuVariable], index: dict[str, int]) -> None:
    """ModelStructure: outputs, state derivatives and the initial unknowns FMI 2.0 requires."""
    structure = etree.SubElement(root, "ModelStructure")
    outputs = [v for v in variables if v.causality == "output"]
    if outputs:
        element = etree.SubElement(structure, "Outputs")
        for var in outputs:
            etree.SubElement(element, "Unknown", {"index": str(index[var.name])})
    derivatives = [v for v in variables if v.derivative_of is not None]
    if derivatives:
        element = etree.SubElement(structure, "Derivatives")
        for var in derivatives:
            etree.SubElement(element, "Unknown", {"index": str(index[var.name])})
    initial = set()
    for var in variables:
        if var.causality == "output" and var.initial in ("approx", "calculated"):
            initial.add(index[var.name])
        if var.causality == "calculatedParameter":
            initial.add(index[var.name])
    for var in derivatives:
        state = variables[index[var.derivative_of] - 1]
        for candidate in (state, var):
            if candidate.initial in ("approx", "calculated"):
                initial.add(index[candidate.name])
    if initial:
        element = etree.SubElement(structure, "InitialUnknowns")
        for k in sorted(initial):
            etree.SubElement(element, "Unknown", {"index": str(k)})


def model_description(*, model_name: str, model_identifier: str, guid: str, fmi_type: str,
                      variables: list[FmuVariable], description: str = "", generation_tool: str = "fmu_build",
                      default_experiment: dict[str, float] | None = None, source_files: list[str] = (),
                      vendor_annotations: dict[str, str] | None = None,
                      capabilities: dict[str, str] | None = None) -> bytes:
    """The modelDescription.xml of an FMI 2.0 FMU as bytes (UTF-8).

    ``variables`` are written in order; the derivatives refer to their states by name. Units get a
    UnitDefinitions entry each (with BaseUnit when the unit string is understood). ModelStructure
    lists every output, every state derivative and the initial unknowns FMI 2.0 requires (outputs,
    calculated parameters, states and derivatives with initial = calculated/approx).
    """
    if fmi_type not in FMI_TYPES:
        raise BuildError(f"unknown FMI type '{fmi_type}'; expected one of {', '.join(FMI_TYPES)}")
    root = etree.Element("fmiModelDescription", {
        "fmiVersion": "2.0",
        "modelName": model_name,
        "guid": guid,
        "description": description,
        "generationTool": generation_tool,
        "generationDateAndTime": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "variableNamingConvention": "structured",
        "numberOfEventIndicators": "0",
    })
    common = {"modelIdentifier": model_identifier, "canGetAndSetFMUstate": "true",
              "canSerializeFMUstate": "true", "canNotUseMemoryManagementFunctions": "false",
              "providesDirectionalDerivative": "false"}
    common.update(capabilities or {})
    sections = []
    if fmi_type in ("me", "me_cs"):
        sections.append(etree.SubElement(root, "ModelExchange", {**common, "completedIntegratorStepNotNeeded": "false"}))
    if fmi_type in ("cs", "me_cs"):
        sections.append(etree.SubElement(root, "CoSimulation", {
            **common, "canHandleVariableCommunicationStepSize": "true", "canInterpolateInputs": "true",
            "maxOutputDerivativeOrder": "0"}))
    if source_files:
        for section in sections:
            files = etree.SubElement(section, "SourceFiles")
            for name in source_files:
                etree.SubElement(files, "File", {"name": name})

    _unit_definitions(root, variables)

    categories = etree.SubElement(root, "LogCategories")
    for name, text in LOG_CATEGORIES.items():
        etree.SubElement(categories, "Category", {"name": name, "description": text})

    if default_experiment:
        attributes = {}
        for key, attribute in (("StartTime", "startTime"), ("StopTime", "stopTime"),
                               ("Tolerance", "tolerance"), ("Interval", "stepSize")):
            if key in default_experiment:
                attributes[attribute] = _number(default_experiment[key])
        etree.SubElement(root, "DefaultExperiment", attributes)

    if vendor_annotations:
        vendor = etree.SubElement(root, "VendorAnnotations")
        tool = etree.SubElement(vendor, "Tool", {"name": "fmu_build"})
        etree.SubElement(tool, "Build", dict(vendor_annotations))

    index = _model_variables(root, variables)
    _model_structure(root, variables, index)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


# ---- archive -----------------------------------------------------------------------------------

def zip_directory(folder: Path, fmu_path: Path) -> Path:
    """Zip the staging directory ``folder`` (modelDescription.xml, binaries/, sources/, ...) into ``fmu_path``.

    Entries use forward slashes, are sorted and carry a fixed timestamp, so the same content gives the
    same archive.
    """
    folder = Path(folder)
    if not (folder / "modelDescription.xml").is_file():
        raise BuildError(f"{folder}: no modelDescription.xml to package")
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    with zipfile.ZipFile(fmu_path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            name = path.relative_to(folder).as_posix()
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
            archive.writestr(info, path.read_bytes())
    return fmu_path
