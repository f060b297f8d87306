"""SSP 1.0 (Modelica Association, System Structure and Parameterization): parameter sets as SSV, systems of
FMUs as SSD, both in an ``.ssp`` archive.

- :func:`write_ssv` / :func:`read_ssv`: a :class:`ParameterSet` as an ``ssv:ParameterSet``. SSP 1.0
  has no array parameters, so a table is written element by element with the FMU's names
  (``frontAxleData.kinematics.toe[3,5]``, row-major), the form every SSP importer applies to an FMU.
  Units go on every Real and into ``ssv:Units`` (SI base-unit exponents). What SSV has no place for
  (table shapes, origins, uncertain ranges, metadata) travels in an ``ssc:Annotation`` of type
  ``org.vehiclertm.parameterset``; an SSV without it (written by another tool) is read by grouping the
  ``name[i,j]`` elements into tables.
- :func:`write_ssp`: an archive with ``SystemStructure.ssd`` (one ``ssd:Component`` per FMU with its
  inputs and outputs as connectors with units, the connections, the default experiment and the
  Open Simulation Platform's fixed-step annotation that libcosim reads), the FMUs and their SSVs under
  ``resources/``.
- :func:`validate_ssp`: every SSD and SSV of an archive against the SSP 1.0 schemas shipped in
  ``pybridge/rig/ssp_schemas`` (SSP 1.0.1, BSD 2-Clause, Modelica Association; see LICENSE.txt there).

The prefixes are the standard's (``ssd:``, ``ssv:``, ``ssc:``): libcosim's reader matches them literally.
"""
from __future__ import annotations

import datetime
import re
import shutil
import tempfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from lxml import etree

from fmu_build.package import base_unit
from pybridge.fileio import copy_atomically
from pybridge.parameters import ParameterSet

__all__ = ["Component", "Connection", "SSPError", "read_ssv", "validate_ssp", "write_ssp", "write_ssv"]

SSD = "http://ssp-standard.org/SSP1/SystemStructureDescription"
SSV = "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
SSC = "http://ssp-standard.org/SSP1/SystemStructureCommon"
OSP = "http://opensimulationplatform.com/SSP/OSPAnnotations"
VRTM = "urn:vehiclertm:parameterset"
ANNOTATION_TYPE = "org.vehiclertm.parameterset"
SCHEMA_DIR = Path(__file__).resolve().parent / "ssp_schemas"
SSD_FILE = "SystemStructure.ssd"
_ELEMENT = re.compile(r"^(?P<base>.+)\[(?P<index>\d+(?:,\d+)*)\]$")
_GENERATOR = "pybridge (vehicle-rtm-bridge)"


class SSPError(ValueError):
    """An SSP file that is malformed or does not fit (the message names the file and the place)."""


# ---- SSV -----------------------------------------------------------------------------------------

def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _units_element(tag: str, units: Iterable[str]) -> etree._Element | None:
    """``ssv:Units`` / ``ssd:Units`` with the base-unit exponents of every understood unit."""
    parsed = [(u, base_unit(u)) for u in sorted(set(units))]
    parsed = [(u, p) for u, p in parsed if p is not None]
    if not parsed:
        return None
    element = etree.Element(tag)
    for unit, (exponents, factor) in parsed:
        entry = etree.SubElement(element, f"{{{SSC}}}Unit", {"name": unit})
        attributes = {k: str(v) for k, v in exponents.items()}
        if factor != 1.0:
            attributes["factor"] = repr(factor)
        etree.SubElement(entry, f"{{{SSC}}}BaseUnit", attributes)
    return element


def write_ssv(params: ParameterSet, path: str | Path, types: dict[str, str] | None = None) -> Path:
    """Write ``params`` as an SSV file; ``types`` maps scalar names to ``Integer``/``Boolean`` (an FMU's
    parameter types; default Real)."""
    types = types or {}
    root = etree.Element(f"{{{SSV}}}ParameterSet", {"version": "1.0", "name": params.model,
                                                      "generationTool": _GENERATOR, "generationDateAndTime": _now()},
                         nsmap={"ssv": SSV, "ssc": SSC})
    parameters = etree.SubElement(root, f"{{{SSV}}}Parameters")

    def add(name: str, value: float, unit: str | None, kind: str = "Real") -> None:
        entry = etree.SubElement(parameters, f"{{{SSV}}}Parameter", {"name": name})
        if kind == "Integer":
            etree.SubElement(entry, f"{{{SSV}}}Integer", {"value": str(int(value))})
        elif kind == "Boolean":
            etree.SubElement(entry, f"{{{SSV}}}Boolean", {"value": "true" if value else "false"})
        else:
            etree.SubElement(entry, f"{{{SSV}}}Real", {"value": repr(float(value)), **({"unit": unit} if unit else {})})

    for name, value in params.scalars.items():
        add(name, value, params.units.get(name), types.get(name, "Real"))
    for name, table in params.tables.items():
        for index in np.ndindex(table.shape):
            add(f"{name}[{','.join(str(i + 1) for i in index)}]", table[index], params.units.get(name))
    units = _units_element(f"{{{SSV}}}Units", params.units.values())
    if units is not None:
        root.append(units)
    extra = {"tables": {n: list(t.shape) for n, t in params.tables.items()}, "metadata": params.metadata,
             "origins": params.origins,
             "uncertain": {n: list(v) for n, v in params.uncertain.items()}}
    annotations = etree.SubElement(root, f"{{{SSV}}}Annotations")
    annotation = etree.SubElement(annotations, f"{{{SSC}}}Annotation", {"type": ANNOTATION_TYPE})
    etree.SubElement(annotation, f"{{{VRTM}}}ParameterSet", nsmap={"vrtm": VRTM}).text = etree.CDATA(
        yaml.safe_dump(extra, sort_keys=False, allow_unicode=True, width=120))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    etree.ElementTree(root).write(str(path), xml_declaration=True, encoding="UTF-8", pretty_print=True)
    return path


def read_ssv(path: str | Path) -> ParameterSet:
    """The parameter set of an SSV file (see the module doc for tables); SSPError naming the file, line
    and parameter on anything malformed."""
    path = Path(path)
    try:
        root = etree.parse(str(path)).getroot()
    except (OSError, etree.XMLSyntaxError) as error:
        raise SSPError(f"{path}: not a readable XML file ({error})") from None
    if root.tag != f"{{{SSV}}}ParameterSet":
        raise SSPError(f"{path}: root element {root.tag}; expected ssv:ParameterSet ({SSV})")
    extra = {}
    for annotation in root.iterfind(f"{{{SSV}}}Annotations/{{{SSC}}}Annotation[@type='{ANNOTATION_TYPE}']"):
        extra = _annotation(annotation, path)
    shapes = {n: tuple(s) for n, s in extra["tables"].items()} if extra else {}
    params = ParameterSet(model=root.get("name"), metadata=extra.get("metadata", {}), origins=extra.get("origins", {}),
                          uncertain={n: tuple(v) for n, v in extra.get("uncertain", {}).items()})
    elements: dict[str, dict[tuple[int, ...], float]] = {}
    lines: dict[str, int] = {}
    for entry in root.iterfind(f"{{{SSV}}}Parameters/{{{SSV}}}Parameter"):
        name = entry.get("name")
        if not name:
            raise SSPError(f"{path}:{entry.sourceline}: ssv:Parameter without a name")
        if name in lines:
            raise SSPError(f"{path}:{entry.sourceline}: parameter {name} is given twice (first on line {lines[name]}); "
                           "each parameter may appear once")
        lines[name] = entry.sourceline
        typed = next((child for child in entry if isinstance(child.tag, str)), None)
        kind = etree.QName(typed).localname if typed is not None else None
        if kind not in ("Real", "Integer", "Boolean"):
            raise SSPError(f"{path}:{entry.sourceline}: parameter {name}: type {kind}; "
                           "expected Real, Integer or Boolean")
        text = typed.get("value")
        try:
            value = {"true": 1.0, "false": 0.0, "1": 1.0, "0": 0.0}[text] if kind == "Boolean" else float(text)
        except (KeyError, TypeError, ValueError):
            raise SSPError(f"{path}:{entry.sourceline}: parameter {name}: value {text!r} is not a {kind}") from None
        if not np.isfinite(value):
            raise SSPError(f"{path}:{entry.sourceline}: parameter {name}: {text} is not finite")
        match = _ELEMENT.match(name)
        key = name
        if match and (match["base"] in shapes or not extra):
            key = match["base"]
            elements.setdefault(key, {})[tuple(int(i) for i in match["index"].split(","))] = value
        else:
            params.scalars[name] = value
        if typed.get("unit"):
            params.units[key] = typed.get("unit")
    for base, values in elements.items():
        rank = {len(i) for i in values}
        shape = shapes.get(base) or (tuple(max(i[d] for i in values) for d in range(rank.pop()))
                                     if len(rank) == 1 else ())
        if len(values) != int(np.prod(shape)) or any(len(i) != len(shape) or min(i) < 1 or
                                                      any(a > b for a, b in zip(i, shape)) for i in values):
            raise SSPError(f"{path}: table {base}: elements {sorted(values)[:3]}... do not fill a grid of shape "
                           f"{list(shape)} (1-based indices, every element once)")
        table = np.empty(shape)
        for index, value in values.items():
            table[tuple(i - 1 for i in index)] = value
        params.tables[base] = table
    return params


def _annotation(annotation: etree._Element, path: Path) -> dict:
    """The project's annotation of an SSV (YAML through the strict loader), its shapes checked."""
    from pybridge.fileio import load_yaml_text

    where = f"{path}:{annotation.sourceline}: ssc:Annotation {ANNOTATION_TYPE}"
    if len(annotation) != 1 or annotation[0].tag != f"{{{VRTM}}}ParameterSet":
        raise SSPError(f"{where}: expected one vrtm:ParameterSet element ({VRTM}) in it")
    extra = load_yaml_text(annotation[0].text or "", where, SSPError) or {}
    if not isinstance(extra, dict):
        raise SSPError(f"{where}: expected a mapping (tables, metadata, origins, uncertain), "
                       f"found {type(extra).__name__}")
    extra = {key: extra.get(key) or {} for key in ("tables", "metadata", "origins", "uncertain")}
    for key, value in extra.items():
        if not isinstance(value, dict):
            raise SSPError(f"{where}: {key}: expected a mapping, found {type(value).__name__}")
    for name, shape in extra["tables"].items():
        if not isinstance(shape, list) or not shape or not all(type(n) is int and 0 < n <= 1_000_000 for n in shape):
            raise SSPError(f"{where}: tables: {name}: {shape!r}; expected a list of sizes (whole numbers >= 1)")
    for name, entry in extra["uncertain"].items():
        if not isinstance(entry, list) or len(entry) != 3 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) for v in entry):
            raise SSPError(f"{where}: uncertain: {name}: {entry!r}; expected [nominal, lower, upper] (numbers)")
    return extra


# ---- SSD and the archive --------------------------------------------------------------------------

@dataclass
class Component:
    """One FMU of a system: its instance name, the FMU file and the parameter set applied to it."""

    name: str
    fmu: Path
    parameters: ParameterSet | None = None


@dataclass
class Connection:
    """An output of one component feeding an input of another (names as in the FMUs)."""

    start: str
    start_connector: str
    end: str
    end_connector: str
    factor: float | None = None   # an ssc:LinearTransformation end = factor * start + offset (units stated whole)
    offset: float = 0.0


def _connections_element(system, connections: list[Connection], known: dict, units_of: dict, out: Path) -> None:
    """The system's ssd:Connections, each end checked to be an output / input of its component, then one
    writer per input and matching units (:func:`pybridge.rig.ssp_checks.check_wires`)."""
    from pybridge.rig.ssp_checks import Wire, check_wires

    wires = etree.SubElement(system, f"{{{SSD}}}Connections")
    for c in connections:
        for who, connector, kind in ((c.start, c.start_connector, "output"), (c.end, c.end_connector, "input")):
            if known.get(who, {}).get(connector) != kind:
                raise SSPError(f"{out}: connection {c.start}.{c.start_connector} -> {c.end}.{c.end_connector}: "
                               f"{who}.{connector} is not an {kind} of a component "
                               f"({', '.join(known)} have {sorted(known.get(who, {}))[:8]}...)")
        wire = etree.SubElement(wires, f"{{{SSD}}}Connection", {
            "startElement": c.start, "startConnector": c.start_connector,
            "endElement": c.end, "endConnector": c.end_connector,
            **({"suppressUnitConversion": "true"} if c.factor is not None else {})})
        if c.factor is not None:
            etree.SubElement(wire, f"{{{SSC}}}LinearTransformation",
                             {"factor": repr(float(c.factor)), "offset": repr(float(c.offset))})
    check_wires([Wire(c.start, c.start_connector, c.end, c.end_connector,
                      units_of[c.start][c.start_connector], units_of[c.end][c.end_connector], str(out),
                      c.factor, c.offset, c.factor is not None) for c in connections])


def write_ssp(out: str | Path, components: list[Component], connections: list[Connection] = (), *,
              name: str = "system", stop_time: float | None = None, step: float | None = None,
              description: str = "") -> Path:
    """Write an SSP 1.0 archive of ``components`` wired by ``connections`` (see the module doc).

    ``step``: the co-simulation step written as the Open Simulation Platform's fixed-step annotation
    (libcosim's default step for the system). The system is checked as :mod:`pybridge.rig.ssp_checks` says
    and the archive against the SSP 1.0 schemas before it replaces ``out``.
    """
    from fmpy import read_model_description

    from pybridge.rig.ssp_checks import check_step, internal_step

    out = Path(out)
    with tempfile.TemporaryDirectory(prefix="ssp-") as folder:
        staging = Path(folder) / "ssp"
        (staging / "resources").mkdir(parents=True)
        root = etree.Element(f"{{{SSD}}}SystemStructureDescription",
                             {"version": "1.0", "name": name, "generationTool": _GENERATOR,
                              "generationDateAndTime": _now(), **({"description": description} if description else {})},
                             nsmap={"ssd": SSD, "ssc": SSC, "ssv": SSV, "osp": OSP})
        system = etree.SubElement(root, f"{{{SSD}}}System", {"name": name})
        elements = etree.SubElement(system, f"{{{SSD}}}Elements")
        units, known, units_of = set(), {}, {}
        for component in components:
            fmu_name = f"{component.name}.fmu"
            shutil.copyfile(component.fmu, staging / "resources" / fmu_name)
            element = etree.SubElement(elements, f"{{{SSD}}}Component",
                                       {"name": component.name, "type": "application/x-fmu-sharedlibrary",
                                        "source": f"resources/{fmu_name}", "implementation": "CoSimulation"})
            connectors = etree.SubElement(element, f"{{{SSD}}}Connectors")
            every = read_model_description(str(component.fmu)).modelVariables
            variables = [v for v in every if v.causality in ("input", "output")]
            known[component.name] = {v.name: v.causality for v in variables}
            units_of[component.name] = {v.name: v.unit or (v.declaredType.unit if v.declaredType else None)
                                        for v in variables}
            for var in variables:
                connector = etree.SubElement(connectors, f"{{{SSD}}}Connector",
                                             {"name": var.name, "kind": var.causality})
                if var.type == "Real":
                    etree.SubElement(connector, f"{{{SSC}}}Real", {"unit": var.unit} if var.unit else {})
                    units.update([var.unit] if var.unit else [])
                else:
                    etree.SubElement(connector, f"{{{SSC}}}{var.type}")
            if component.parameters is not None:
                types = {v.name: v.type for v in every if v.causality == "parameter"}
                params = component.parameters
                names = [*params.scalars, *(f"{n}[{','.join(str(i + 1) for i in index)}]"
                                            for n, t in params.tables.items() for index in np.ndindex(t.shape))]
                unknown = [n for n in names if n not in types]
                if unknown:
                    raise SSPError(f"{out}: component {component.name}: {', '.join(unknown[:5])} "
                                   f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'} of "
                                   f"{component.fmu}")
                write_ssv(component.parameters, staging / "resources" / f"{component.name}.ssv", types)
                bindings = etree.SubElement(element, f"{{{SSD}}}ParameterBindings")
                etree.SubElement(bindings, f"{{{SSD}}}ParameterBinding",
                                 {"type": "application/x-ssp-parameter-set",
                                  "source": f"resources/{component.name}.ssv"})
        if connections:
            _connections_element(system, connections, known, units_of, out)
        if step:
            check_step(step, {c.name: internal_step(c.fmu, c.parameters.scalars if c.parameters else None)
                              for c in components}, str(out))
        unit_element = _units_element(f"{{{SSD}}}Units", units)
        if unit_element is not None:
            root.append(unit_element)
        experiment = etree.SubElement(root, f"{{{SSD}}}DefaultExperiment",
                                      {"startTime": "0.0",
                                       **({"stopTime": repr(float(stop_time))} if stop_time else {})})
        if step:
            annotations = etree.SubElement(experiment, f"{{{SSD}}}Annotations")
            annotation = etree.SubElement(annotations, f"{{{SSC}}}Annotation", {"type": "com.opensimulationplatform"})
            algorithm = etree.SubElement(annotation, f"{{{OSP}}}Algorithm")
            etree.SubElement(algorithm, f"{{{OSP}}}FixedStepAlgorithm", {"baseStepSize": repr(float(step))})
        etree.ElementTree(root).write(str(staging / SSD_FILE), xml_declaration=True, encoding="UTF-8",
                                      pretty_print=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(folder) / f"{out.name}.partial"
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for file in sorted(p for p in staging.rglob("*") if p.is_file()):
                archive.write(file, file.relative_to(staging).as_posix())
        problems = validate_ssp(partial)
        if problems:
            raise SSPError(f"{out}: not valid against the SSP 1.0 schemas, not written: "
                           f"{problems[0].split('!', 1)[-1]}")
        copy_atomically(partial, out)
    return out


def validate_ssp(path: str | Path) -> list[str]:
    """Schema errors (file:line: message) of the archive's SSD and every SSV in it; empty when valid."""
    schemas = {SSD: etree.XMLSchema(file=str(SCHEMA_DIR / "SystemStructureDescription.xsd")),
               SSV: etree.XMLSchema(file=str(SCHEMA_DIR / "SystemStructureParameterValues.xsd"))}
    problems = []
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        if SSD_FILE not in names:
            return [f"{path}: no {SSD_FILE} at the root of the archive"]
        for name in names:
            if not name.endswith((".ssd", ".ssv")):
                continue
            document = etree.fromstring(archive.read(name))
            schema = schemas.get(etree.QName(document).namespace)
            if schema is None:
                problems.append(f"{path}!{name}: root element {document.tag} is not SSP 1.0")
                continue
            if not schema.validate(etree.ElementTree(document)):
                problems += [f"{path}!{name}:{e.line}: {e.message}" for e in schema.error_log]
    return problems
