"""Read an FMU safely and summarise its interface: inputs, outputs, parameters and table parameters.

The archive is checked before anything is read from it (a zip file, no entry escaping the archive,
a modelDescription.xml that parses as FMI 2.0); every problem is a :class:`BuildError` with one line.
"""
from __future__ import annotations

import re
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lxml import etree

from fmu_build.errors import BuildError
from fmu_build.limits import FMU_ENTRY_BYTES, FMU_TOTAL_BYTES

_ELEMENT = re.compile(r"^(?P<base>.+)\[(?P<index>[0-9,\s]+)\]$")
MAX_DESCRIPTION_BYTES = 256 * 1024 * 1024


@dataclass
class Variable:
    name: str
    type: str
    causality: str
    variability: str
    unit: str | None = None
    start: str | None = None
    description: str = ""


@dataclass
class TableParameter:
    """An array parameter (a table grid or its breakpoints) and its size."""

    name: str
    shape: tuple[int, ...]
    unit: str | None = None

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass
class FmuSummary:
    path: Path
    model_name: str
    fmi_version: str
    guid: str
    generation_tool: str
    interfaces: list[str]
    inputs: list[Variable] = field(default_factory=list)
    outputs: list[Variable] = field(default_factory=list)
    parameters: list[Variable] = field(default_factory=list)
    calculated_parameters: int = 0
    states: int = 0
    locals: int = 0
    tables: list[TableParameter] = field(default_factory=list)
    default_experiment: dict[str, str] = field(default_factory=dict)
    platforms: list[str] = field(default_factory=list)
    has_sources: bool = False


def unsafe_entry_name(name: str) -> bool:
    """True if an archive entry ``name`` would be written outside the extraction folder (absolute, a
    drive letter, or ``..``)."""
    pure = PurePosixPath(name.replace("\\", "/"))
    return name.startswith(("/", "\\")) or bool(re.match(r"^[A-Za-z]:", name)) or ".." in pure.parts


def check_archive(archive: zipfile.ZipFile, path: Path, *, entry_limit=FMU_ENTRY_BYTES, total_limit=FMU_TOTAL_BYTES,
                  error: type[Exception] = BuildError, what: str = "the FMU archive") -> int:
    """The unpacked size ``archive`` declares; ``error`` if an entry would land outside the extraction
    folder, or if an entry or all of them together would unpack to more than the limits (a zip bomb).
    Sizes are the ones the archive declares; zipfile never unpacks more than the declared size of an entry."""
    total, entry_bytes, total_bytes = 0, entry_limit.value(), total_limit.value()
    for info in archive.infolist():
        name = info.filename
        if unsafe_entry_name(name):
            raise error(f"{path}: unsafe entry '{name}' in {what} (it would be written outside "
                        "the extraction folder); refusing to read it")
        if info.file_size > entry_bytes:
            raise error(f"{path}: entry '{name}' unpacks to {info.file_size} bytes, more than "
                        f"{entry_limit.describe()}")
        total += info.file_size
        if total > total_bytes:
            raise error(f"{path}: the entries unpack to more than {total_limit.describe()}")
    return total


def verify_fmu(path: str | Path) -> str | None:
    """None if ``path`` is a complete FMU archive (every entry's checksum matches), else what is wrong
    (e.g. a copy cut short by a killed process)."""
    try:
        with zipfile.ZipFile(path) as archive:
            check_archive(archive, Path(path))
            bad = archive.testzip()
            return None if bad is None else f"entry '{bad}' is damaged"
    except (OSError, zipfile.BadZipFile, EOFError, BuildError) as error:
        return str(error)


def open_fmu(path: str | Path) -> tuple[zipfile.ZipFile, bytes]:
    """The open archive and the bytes of its modelDescription.xml, after the safety checks."""
    path = Path(path)
    if not path.exists():
        raise BuildError(f"{path}: no such file")
    if path.is_dir():
        raise BuildError(f"{path}: is a directory, expected an .fmu file")
    if not zipfile.is_zipfile(path):
        raise BuildError(f"{path}: not an FMU (not a zip archive)")
    try:
        archive = zipfile.ZipFile(path)
        check_archive(archive, path)
        try:
            info = archive.getinfo("modelDescription.xml")
        except KeyError:
            raise BuildError(f"{path}: no modelDescription.xml at the top of the FMU archive") from None
        if info.file_size > MAX_DESCRIPTION_BYTES:
            raise BuildError(f"{path}: modelDescription.xml is {info.file_size} bytes, more than the "
                             f"{MAX_DESCRIPTION_BYTES} this tool reads")
        return archive, archive.read(info)
    except zipfile.BadZipFile as error:
        raise BuildError(f"{path}: damaged FMU archive ({error})") from None


def extract_fmu(path: str | Path, folder: str | Path) -> Path:
    """Unpack an FMU into ``folder`` after checking every entry stays inside it."""
    archive, _ = open_fmu(path)
    folder = Path(folder).resolve()
    with archive:
        for info in archive.infolist():
            target = (folder / info.filename).resolve()
            if folder not in target.parents and target != folder:
                raise BuildError(f"{path}: unsafe entry '{info.filename}' in the FMU archive")
        archive.extractall(folder)
    return folder


def _parse(xml: bytes, path: Path):
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_comments=True)
    try:
        root = etree.fromstring(xml, parser)
    except etree.XMLSyntaxError as error:
        line = getattr(error, "lineno", None)
        raise BuildError(f"{path}: modelDescription.xml{f' line {line}' if line else ''} is not valid XML "
                         f"({error.msg if hasattr(error, 'msg') else error})") from None
    if root.tag != "fmiModelDescription":
        raise BuildError(f"{path}: modelDescription.xml has root element <{root.tag}>, expected <fmiModelDescription>")
    return root


def read_fmu(path: str | Path) -> FmuSummary:
    """Summary of an FMU's interface (FMI 2.0; FMI 1.0/3.0 archives are read as far as they agree)."""
    path = Path(path)
    archive, xml = open_fmu(path)
    with archive:
        names = archive.namelist()
    root = _parse(xml, path)
    version = root.get("fmiVersion", "?")
    if not version.startswith("2."):
        raise BuildError(f"{path}: fmiVersion {version}; this tool reads FMI 2.0 FMUs")
    summary = FmuSummary(path, root.get("modelName", "?"), version, root.get("guid", "?"),
                         root.get("generationTool", ""),
                         [tag for tag in ("ModelExchange", "CoSimulation") if root.find(tag) is not None])
    experiment = root.find("DefaultExperiment")
    if experiment is not None:
        summary.default_experiment = dict(experiment.attrib)
    summary.platforms = sorted({n.split("/")[1] for n in names if n.startswith("binaries/") and n.count("/") >= 2})
    summary.has_sources = any(n.startswith("sources/") and n.endswith(".c") for n in names)
    variables = root.find("ModelVariables")
    if variables is None:
        raise BuildError(f"{path}: modelDescription.xml has no <ModelVariables>")
    arrays: dict[str, list[tuple[int, ...]]] = defaultdict(list)
    array_units: dict[str, str | None] = {}
    for element in variables.iterfind("ScalarVariable"):
        typed = next((child for child in element if child.tag in ("Real", "Integer", "Boolean", "String",
                                                                    "Enumeration")), None)
        if typed is None:
            raise BuildError(f"{path}: modelDescription.xml line {element.sourceline}: ScalarVariable "
                             f"'{element.get('name')}' has no type element")
        var = Variable(element.get("name", "?"), typed.tag, element.get("causality", "local"),
                       element.get("variability", "continuous"), typed.get("unit"), typed.get("start"),
                       element.get("description", ""))
        if var.causality == "input":
            summary.inputs.append(var)
        elif var.causality == "output":
            summary.outputs.append(var)
        elif var.causality == "parameter":
            summary.parameters.append(var)
            match = _ELEMENT.match(var.name)
            if match:
                index = tuple(int(i) for i in match["index"].split(","))
                arrays[match["base"]].append(index)
                array_units.setdefault(match["base"], var.unit)
        elif var.causality == "calculatedParameter":
            summary.calculated_parameters += 1
        else:
            summary.locals += 1
        if typed.get("derivative") is not None:
            summary.states += 1
    for base, indices in arrays.items():
        rank = max(len(i) for i in indices)
        shape = tuple(max(i[axis] for i in indices if len(i) == rank) for axis in range(rank))
        summary.tables.append(TableParameter(base, shape, array_units.get(base)))
    summary.tables.sort(key=lambda t: (-len(t.shape), -t.size, t.name))
    return summary


def format_summary(summary: FmuSummary, *, all_parameters: bool = False) -> str:
    """Human-readable report of :func:`read_fmu`."""
    def unit(var) -> str:
        return f" [{var.unit}]" if getattr(var, "unit", None) else ""

    lines = [f"{summary.path}",
             f"  model        {summary.model_name}",
             f"  FMI          {summary.fmi_version} {' + '.join(summary.interfaces) or '(no interface)'}",
             f"  generated by {summary.generation_tool or '?'}",
             f"  platforms    {', '.join(summary.platforms) or 'none'}{' + sources' if summary.has_sources else ''}"]
    if summary.default_experiment:
        lines.append("  experiment   " + ", ".join(f"{k}={v}" for k, v in summary.default_experiment.items()))
    scalar = len(summary.parameters) - sum(t.size for t in summary.tables)
    lines.append(f"  parameters   {len(summary.parameters)} ({scalar} scalars, {len(summary.tables)} arrays "
                 f"with {sum(t.size for t in summary.tables)} values), {summary.calculated_parameters} calculated")
    lines.append(f"  states       {summary.states}")
    lines.append(f"inputs ({len(summary.inputs)}):")
    lines += [f"  {v.name}{unit(v)}" for v in summary.inputs] or ["  (none)"]
    lines.append(f"outputs ({len(summary.outputs)}):")
    lines += [f"  {v.name}{unit(v)}" for v in summary.outputs] or ["  (none)"]
    lines.append(f"table parameters ({len(summary.tables)}):")
    lines += [f"  {t.name}  {'x'.join(map(str, t.shape))}{unit(t)}" for t in summary.tables] or ["  (none)"]
    if all_parameters:
        lines.append(f"parameters ({len(summary.parameters)}):")
        lines += [f"  {v.name} = {v.start}{unit(v)}" for v in summary.parameters]
    return "\n".join(lines)
