"""Bake a parameter set into an RTM FMU: a new FMU whose start values and compiled-in defaults are the set.

How (native FMUs): the FMU carries its C sources (``sources/``), its start values are the arrays of
``sources/model_variables.h`` and the wrapper loads them at instantiation. The export

1. applies the set to the source FMU and initializes it, so every parameter is read back with the value
   the model runs with (parameters bound to another one, e.g. ``frontAxle.data.*`` =
   ``frontAxleData.*``, and expression bindings included);
2. writes those values into ``model_variables.h`` and into the ``start`` attributes of the model
   description, and lists the set's own parameters in ``fmu_info.h`` as *preset* (treated as set by
   the importer: a parameter bound to one of them keeps the value the set gave it, as after
   ``FMUSession.apply``);
3. compiles the binary again from the FMU's own sources with a new GUID (for this machine's CPU if the
   source FMU was a ``--native`` build: its annotation then names this machine's CPU), and records where the values
   came from (parameter-set path and sha256, source FMU and GUID, date, the build it was baked into and
   why that build: :mod:`pybridge.rig.export_build`) in the description and in a ``VendorAnnotations`` tool
   entry ``pybridge export``.

An FMU without those sources (OpenModelica's, whose start values are compiled into generated code
this tool does not regenerate) is refused with the reason; use its SSP package instead
(:mod:`pybridge.rig.ssp`), where the importer applies the set from the ``.ssv``.
"""
from __future__ import annotations

import copy
import datetime
import hashlib
import re
import shutil
import tempfile
import uuid
from pathlib import Path

import numpy as np
from lxml import etree

from fmu_build.inspect import extract_fmu
from fmu_build.native_backend import STEP_VARIABLE, compile_library, native_target, platform_folder
from fmu_build.package import zip_directory
from pybridge.rig.export_build import describe_build
from pybridge.fileio import copy_atomically
from pybridge.simulate.fmu import FMUSession
from pybridge.parameters import PARAMS_FILE, ParameterSet

__all__ = ["ExportError", "export_fmu", "parameter_set_digest"]

TOOL = "pybridge export"
_START = re.compile(r"^static const double START_(REAL|INTEGER|BOOLEAN)\[\] = \{(.*)\};$", re.M)
_GUID = re.compile(r'^#define FMU_GUID ".*"$', re.M)
_TYPES = {"Real": "REAL", "Integer": "INTEGER", "Boolean": "BOOLEAN"}


class ExportError(ValueError):
    """An FMU or parameter set that cannot be exported (the message names the file and the reason)."""


def parameter_set_digest(path: str | Path) -> str:
    """sha256 over a parameter set's ``params.yaml`` and every file under its ``tables/``, with their
    relative paths (the set's identity, independent of where it lies)."""
    root = Path(path)
    root = root.parent if root.is_file() else root
    digest = hashlib.sha256()
    files = [root / PARAMS_FILE, *sorted(p for p in (root / "tables").rglob("*") if p.is_file())]
    for file in files:
        digest.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def export_fmu(params: ParameterSet, fmu: str | Path, out: str | Path, *, params_path: str | Path | None = None,
               date: datetime.datetime | None = None, internal_step: float | None = None,
               build_reason: str = "") -> Path:
    """Write ``out``: ``fmu`` with ``params`` as its start values and compiled-in defaults (see module doc).

    ``params_path``: the set's directory, recorded with its sha256 (default: not recorded, the
    provenance names the set's model and metadata source only). ``internal_step``: the internal step
    baked in as the FMU's fixedStepSize (default: the source FMU's); the build (integrator, step,
    backend, GUID) and ``build_reason`` (why that build) go into the provenance.
    """
    fmu, out = Path(fmu), Path(out)
    if internal_step is not None:
        params = copy.deepcopy(params)
        params.scalars[STEP_VARIABLE] = float(internal_step)
    date = date or datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    with tempfile.TemporaryDirectory(prefix="export-") as folder:
        staging = Path(folder) / "fmu"
        extract_fmu(fmu, staging)
        sources = staging / "sources"
        missing = [n for n in ("model_variables.h", "fmu_info.h") if not (sources / n).is_file()]
        if missing:
            raise ExportError(
                f"{fmu}: sources/{missing[0]} is missing: only FMUs of fmu_build's native backend carry the "
                "start-value tables this export rewrites (an OpenModelica FMU compiles its start values into "
                "generated code); export an SSP package instead (pybridge export --ssp), whose .ssv the rig "
                "applies, or build the native FMU (fmu-build --backend native)")
        with FMUSession(fmu, instance_name="export") as session:
            session.apply(params)
            values = session.initialized_parameters()
            variables = session.variables
            old_guid = session.description.guid
        guid = "{" + str(uuid.uuid4()) + "}"
        preset = _preset_references(params, variables)
        _rewrite_headers(sources, values, variables, preset, guid, fmu)
        provenance = {"parameterSet": str(params_path) if params_path else "(in memory)",
                      "sha256": parameter_set_digest(params_path) if params_path else "",
                      "parameterSetSource": str(params.metadata.get("source", "")),
                      "sourceFmu": fmu.name, "sourceGuid": old_guid, "date": date.isoformat(),
                      "sourceBuild": describe_build(fmu, internal_step), "buildChoice": build_reason,
                      **_intervals(params)}
        source_files = _rewrite_description(staging / "modelDescription.xml", values, guid, provenance, date, fmu)
        _recompile(staging, source_files)
        out.parent.mkdir(parents=True, exist_ok=True)
        finished = Path(folder) / "export.fmu"
        zip_directory(staging, finished)
        copy_atomically(finished, out)
    return out


def _intervals(params: ParameterSet) -> dict:
    """The identified 95 % intervals and flags the set's metadata carries (pybridge.identify.run_analysis),
    as a sentence for the description; nothing for a set that has none."""
    intervals = params.metadata.get("identified_intervals_95")
    if not isinstance(intervals, dict) or not intervals:
        return {}
    flags = params.metadata.get("identification_flags") or {}
    parts = [f"{name} {params.scalars.get(name, float('nan')):.6g} in [{low:.6g}, {high:.6g}]"
             + (f" ({', '.join(flags[name])})" if flags.get(name) else "") for name, (low, high) in intervals.items()]
    return {"identifiedIntervals": " Identified, 95 % intervals: " + "; ".join(parts) + "."}


def _preset_references(params: ParameterSet, variables: dict) -> dict[str, list[int]]:
    """Value references of the set's own parameters (table elements included), by FMI type."""
    names = list(params.scalars)
    for name, table in params.tables.items():
        names += [f"{name}[{','.join(str(i + 1) for i in index)}]" for index in np.ndindex(table.shape)]
    result = {kind: [] for kind in _TYPES}
    for name in names:
        var = variables[name]
        result[var.type].append(var.valueReference)
    return result


def _rewrite_headers(sources: Path, values: dict, variables: dict, preset: dict, guid: str, fmu: Path) -> None:
    header = sources / "model_variables.h"
    text = header.read_text()
    by_type: dict[str, dict[int, float]] = {kind: {} for kind in _TYPES}
    for name, value in values.items():
        var = variables[name]
        by_type[var.type][var.valueReference] = value

    def replace(match: re.Match) -> str:
        kind = next(k for k, v in _TYPES.items() if v == match[1])
        starts = [float(v) for v in match[2].split(",")]
        for vr, value in by_type[kind].items():
            starts[vr] = float(value)
        return f"static const double START_{match[1]}[] = {{{', '.join(repr(v) for v in starts)}}};"

    text, count = _START.subn(replace, text)
    if count != 3:
        raise ExportError(f"{fmu}: sources/model_variables.h: expected the START_REAL, START_INTEGER and "
                          f"START_BOOLEAN arrays of fmu_build's native backend, found {count}")
    header.write_text(text)
    info = sources / "fmu_info.h"
    text = info.read_text()
    if not _GUID.search(text) or "#define N_PRESET_REAL" in text:
        raise ExportError(f"{fmu}: sources/fmu_info.h: expected one FMU_GUID define and no preset parameters (an FMU "
                          "is exported from a native build, not from an exported FMU: its preset parameters would mix "
                          "two sets)")
    lines = [f"/* Parameters of the set baked in by {TOOL}: they count as set by the importer. */"]
    for kind, suffix in _TYPES.items():
        vrs = preset[kind]
        lines.append(f"#define N_PRESET_{suffix} {len(vrs)}")
        lines.append(f"static const unsigned int PRESET_{suffix}[] = {{{', '.join(map(str, vrs or [0]))}}};")
    text = _GUID.sub(f'#define FMU_GUID "{guid}"', text)
    text = text.replace("\n#endif", "\n" + "\n".join(lines) + "\n\n#endif", 1)
    info.write_text(text)


def _rewrite_description(path: Path, values: dict, guid: str, provenance: dict, date, fmu: Path) -> list[str]:
    """New GUID, start values, provenance; returns the C files to compile (SourceFiles)."""
    tree = etree.parse(str(path))
    root = tree.getroot()
    root.set("guid", guid)
    root.set("generationTool", f"{root.get('generationTool', '')} + {TOOL}".strip(" +"))
    root.set("generationDateAndTime", date.strftime("%Y-%m-%dT%H:%M:%SZ"))
    root.set("description", f"{root.get('description', '')} Parameter set baked in by {TOOL} on "
                            f"{provenance['date']}: {provenance['parameterSet']}"
                            + (f" (sha256 {provenance['sha256']})" if provenance["sha256"] else "")
                            + f"; from FMU {provenance['sourceFmu']}, build {provenance['sourceBuild']}."
                            + provenance.get("identifiedIntervals", ""))
    for var in root.iter("ScalarVariable"):
        name = var.get("name")
        if name not in values:
            continue
        typed = var[0]
        value = values[name]
        typed.set("start", "true" if typed.tag == "Boolean" and value else "false" if typed.tag == "Boolean"
                  else str(int(value)) if typed.tag == "Integer" else repr(float(value)))
    vendor = root.find("VendorAnnotations")
    if vendor is None:
        vendor = etree.Element("VendorAnnotations")
        anchor = root.find("ModelVariables")
        anchor.addprevious(vendor)
    build = vendor.find("Tool[@name='fmu_build']/Build")
    if build is not None and build.get("cpu") == "native":
        build.set("march", native_target()[0])      # _recompile compiles for this machine's CPU
    if build is not None and STEP_VARIABLE in values:
        build.set(STEP_VARIABLE, repr(float(values[STEP_VARIABLE])))   # the internal step baked in
    for old in vendor.findall(f"Tool[@name='{TOOL}']"):
        vendor.remove(old)
    tool = etree.SubElement(vendor, "Tool", {"name": TOOL})
    etree.SubElement(tool, "Provenance", provenance)
    tree.write(str(path), xml_declaration=True, encoding="UTF-8", pretty_print=True)
    files = {f.get("name") for f in root.iterfind("*/SourceFiles/File")}
    if not files:
        raise ExportError(f"{fmu}: modelDescription.xml lists no SourceFiles; cannot recompile the FMU")
    return sorted(files)


def _recompile(staging: Path, source_files: list[str]) -> None:
    root = etree.parse(str(staging / "modelDescription.xml")).getroot()
    identifiers = {e.get("modelIdentifier") for e in root if e.tag in ("CoSimulation", "ModelExchange")}
    folder, suffix = platform_folder()
    binaries = staging / "binaries"
    shutil.rmtree(binaries, ignore_errors=True)   # binaries of other platforms would carry the old defaults
    (binaries / folder).mkdir(parents=True)
    sources = staging / "sources"
    native_cpu = root.find("VendorAnnotations/Tool[@name='fmu_build']/Build[@cpu='native']") is not None
    for identifier in sorted(identifiers):
        compile_library([sources / name for name in source_files], [sources],
                        binaries / folder / f"{identifier}{suffix}", native_cpu=native_cpu)
