"""Adams ``xrf`` result files (``.res``): a streaming reader and a writer.

The layout (XML, namespace ``http://www.mscsoftware.com/:xrf10``), as Adams/Solver, Adams/Car and
VI-CarRealTime write it::

    <Results xmlns="http://www.mscsoftware.com/:xrf10">
      <Bibliography> <File version=.. publicationDate=../> <Corporation author=../> </Bibliography>
      <Analysis name="run_parallel_travel" executionDate=".." Solver="..">
        <Bibliography> <Application name="Adams/Car" version="2022.1"/> </Bibliography>
        <ModelInfo title=".."/> <Units angle="deg" length="mm" mass="kg" time="sec"/>
        <StepMap name="map_001">
          <Entity name="time"> <Component name="TIME" unitsValue="sec" id="1"/> </Entity>
          <Entity name="toe_angle" entType="Request"> <Component name="left" unitsValue="deg" id="2"/> ...
        </StepMap>
        <Data name="initialConditions_001"> <Step type="initialConditions"> 0 ... </Step> </Data>
        <Data name="quasiStatic_001"> <Step type="quasiStatic"> 0.0 0.12 0.11 ... </Step> ... </Data>
      </Analysis>  (more analyses may follow)
    </Results>

A Step holds one number per Component, whitespace-separated, in the order of the Components' ``id``
(1-based; declarations need not be in id order). A channel is named ``ENTITY.COMPONENT`` (the
entity's ``name``). :func:`read_xrf` streams the file with lxml ``iterparse``, clearing each element
once read, and keeps only the channels asked for (in SI, through :mod:`pybridge.mbm.units`): memory is
bounded by those channels, not by the file. The Data blocks of type ``input`` and ``initialConditions``
are skipped; the others (``dynamic``, ``quasiStatic``, ``static``, ``kinematic``...) are the analysis's
output, in file order. :class:`XrfWriter` writes the same layout, streaming. Every problem raises
:class:`XrfError`, one line naming the file, the line or element and what is expected.
"""
from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np
from lxml import etree

from pybridge.mbm.errors import MBMDataError
from pybridge.mbm.units import UnitError, parse_unit

__all__ = ["NAMESPACE", "XrfAnalysis", "XrfChannel", "XrfError", "XrfResults", "XrfWriter", "read_xrf", "si_unit"]

NAMESPACE = "http://www.mscsoftware.com/:xrf10"
TIME = "time.TIME"
_SKIPPED = ("input", "initialConditions", "modelInput")
_BLOCK = 4096  # rows per buffer block
_CLEARED = ("Step", "Data", "StepMap", "Bibliography", "ModelInfo", "Units", "Analysis", "TerminationStatus")


class XrfError(MBMDataError):
    """An xrf result file that cannot be read or written; one line: file, place, what is expected."""


@dataclass(frozen=True)
class XrfChannel:
    """One Component of a StepMap: ``source`` is ``ENTITY.COMPONENT``, ``id`` its 1-based column."""

    entity: str
    component: str
    unit: str | None
    id: int
    ent_type: str | None = None
    plot_label: str | None = None

    @property
    def source(self) -> str:
        return f"{self.entity}.{self.component}"


@dataclass
class XrfAnalysis:
    """One Analysis: its declarations, and the values of the channels asked for (SI)."""

    name: str
    line: int
    attributes: dict[str, str] = field(default_factory=dict)   # executionDate, Solver, ...
    application: dict[str, str] = field(default_factory=dict)  # Application name, version
    title: str | None = None
    units: dict[str, str] = field(default_factory=dict)        # the Units element
    channels: dict[str, XrfChannel] = field(default_factory=dict)
    blocks: list[tuple[str, str, int]] = field(default_factory=list)  # (Data name, step type, rows)
    data: dict[str, np.ndarray] = field(default_factory=dict)
    data_units: dict[str, str] = field(default_factory=dict)   # channel -> SI unit of data
    missing: list[str] = field(default_factory=list)           # asked for, not declared here

    @property
    def kind(self) -> str:
        """The step type of the output (``dynamic``, ``quasiStatic``, ...), joined by '+' when mixed."""
        kinds = list(dict.fromkeys(kind for _, kind, _ in self.blocks))
        return "+".join(kinds) if kinds else "none"

    @property
    def steps(self) -> int:
        return sum(rows for _, _, rows in self.blocks)

    @property
    def tool(self) -> str:
        """The program that wrote the analysis: Application name, else the ModelInfo title."""
        return self.application.get("name") or self.title or "unknown"

    @property
    def version(self) -> str:
        return self.application.get("version") or " ".join(self.attributes.get("Solver", "").split()) or "unknown"


@dataclass
class XrfResults:
    """A result file: its bibliography and its analyses, in file order."""

    path: Path
    bibliography: dict[str, str]
    analyses: list[XrfAnalysis]

    def analysis(self, name: str | None = None) -> XrfAnalysis:
        """The analysis called ``name``; without a name, the only one (XrfError if there are several)."""
        if name is None and len(self.analyses) == 1:
            return self.analyses[0]
        found = [a for a in self.analyses if a.name == name]
        if len(found) != 1:
            names = ", ".join(a.name for a in self.analyses)
            raise XrfError(f"{self.path}: analysis {name!r} — expected one of {names}")
        return found[0]


def si_unit(dimension: tuple[int, ...]) -> str:
    """The SI unit text of a dimension (powers of m, kg, s, rad, A, K): (1, 0, -2, 0, 0, 0) -> 'm/s^2'."""
    names = ("m", "kg", "s", "rad", "A", "K")
    order = (1, 0, 3, 4, 5, 2)  # kg m rad A K / s
    up = [names[i] + (f"^{dimension[i]}" if dimension[i] != 1 else "") for i in order if dimension[i] > 0]
    down = [names[i] + (f"^{-dimension[i]}" if dimension[i] != -1 else "") for i in order if dimension[i] < 0]
    if dimension == (2, 1, -2, 0, 0, 0):
        return "N m"
    if dimension == (1, 1, -2, 0, 0, 0):
        return "N"
    return (" ".join(up) or "1") + ("/" + " ".join(down) if down else "")


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


class _Reader:
    """State of one streaming pass (see :func:`read_xrf`)."""

    def __init__(self, path: Path, wanted: list[str] | None, units: Mapping[str, str]):
        self.path, self.wanted, self.units = path, wanted, dict(units)
        self.bibliography: dict[str, str] = {}
        self.analyses: list[XrfAnalysis] = []
        self.current: XrfAnalysis | None = None
        self.map: dict[int, XrfChannel] = {}
        self.columns: np.ndarray = np.zeros(0, int)
        self.factors: np.ndarray = np.zeros(0)
        self.names: list[str] = []
        self.blocks: list[np.ndarray] = []
        self.rows = 0
        self.data_name: str | None = None
        self.data_kind: str | None = None
        self.data_rows = 0
        self.last_time: tuple[float, int] | None = None
        self.time_column: int | None = None
        self.count = 0
        self.duplicates: dict[str, list[int]] = {}

    def where(self, element) -> str:
        return f"{self.path}:{element.sourceline}"

    # -- declarations ---------------------------------------------------------------------
    def bibliography_end(self, element) -> None:
        for child in element:
            tag = _local(child.tag)
            for key, value in child.attrib.items():
                if self.current is None:
                    self.bibliography[f"{tag}.{key}"] = value
                elif tag == "Application":
                    self.current.application[key] = value

    def step_map(self, element) -> None:
        analysis = self.current
        if analysis is None:
            raise XrfError(f"{self.where(element)}: StepMap outside an Analysis — expected it inside <Analysis>")
        if self.map:
            raise XrfError(f"{self.where(element)}: a second StepMap in analysis {analysis.name!r} — expected one "
                           "StepMap per Analysis (a file with one per analysis)")
        self.map, seen = {}, {}
        analysis.channels = {}
        for entity in element:
            if _local(entity.tag) != "Entity":
                continue
            name = entity.get("name")
            if not name:
                raise XrfError(f"{self.where(entity)}: Entity without a name — expected name=\"...\"")
            for component in entity:
                if _local(component.tag) == "Component":
                    self._component(entity, name, component, seen)
        self.duplicates = {source: ids for source, ids in seen.items() if len(ids) > 1}
        self._select(element)

    def _component(self, entity, name: str, component, seen: dict) -> None:
        where = self.where(component)
        cname, cid = component.get("name"), component.get("id")
        if not cname:
            raise XrfError(f"{where}: Component of Entity {name!r} without a name — expected name=\"...\"")
        try:
            number = int(cid)
        except (TypeError, ValueError):
            raise XrfError(f"{where}: Component {name}.{cname} id {cid!r} — expected a positive integer "
                           "(its column in each Step)") from None
        if number < 1 or number in self.map:
            first = f" (already {self.map[number].source})" if number in self.map else ""
            raise XrfError(f"{where}: Component {name}.{cname} id {number}{first} — expected a unique id >= 1")
        unit = component.get("unitsValue")
        channel = XrfChannel(name, cname, unit if unit else None, number, entity.get("entType"),
                             component.get("plotLabel"))
        self.map[number] = channel
        if channel.source in seen:
            seen[channel.source].append(number)
        else:
            seen[channel.source] = [number]
            self.current.channels[channel.source] = channel

    def _select(self, element) -> None:
        """Columns and SI factors of the channels asked for, from the StepMap just read."""
        analysis = self.current
        count = max(self.map) if self.map else 0
        if sorted(self.map) != list(range(1, count + 1)):
            gap = next(i for i in range(1, count + 1) if i not in self.map)
            raise XrfError(f"{self.where(element)}: StepMap {element.get('name')!r} has no Component with id "
                           f"{gap} — expected ids 1..{count} without gaps")
        self.count = count
        units = self.units
        if callable(self.wanted):
            chosen = dict(self.wanted(analysis))
            wanted, units = list(chosen), {**units, **{k: v for k, v in chosen.items() if v}}
        else:
            wanted = list(analysis.channels) if self.wanted is None else self.wanted
        self.names = [s for s in wanted if s in analysis.channels]
        analysis.missing = [s for s in wanted if s not in analysis.channels]
        for source in self.names:
            if source in self.duplicates:
                raise XrfError(f"{self.where(element)}: Component {source} declared {len(self.duplicates[source])} "
                               f"times (ids {', '.join(map(str, self.duplicates[source]))}) — expected each "
                               "ENTITY.COMPONENT once")
        factors = []
        for source in self.names:
            channel = analysis.channels[source]
            unit = units.get(source, channel.unit)
            if unit is None:
                raise XrfError(f"{self.path}: Component {source} (line {self._line(element, channel)}) has no "
                               "unitsValue — expected a unit there, or one given for it (mapping file: unit:)")
            try:
                parsed = parse_unit(unit)
            except UnitError as exc:
                raise XrfError(f"{self.path}: Component {source}: {exc}") from None
            factors.append(parsed.factor)
            analysis.data_units[source] = si_unit(parsed.dimension)
        self.columns = np.array([analysis.channels[s].id - 1 for s in self.names], int)
        self.factors = np.array(factors)
        self.time_column = analysis.channels[TIME].id - 1 if TIME in analysis.channels else None

    @staticmethod
    def _line(element, channel: XrfChannel) -> int | str:
        for component in element.iter("{*}Component"):
            if component.get("id") == str(channel.id):
                return component.sourceline
        return "?"

    # -- data -----------------------------------------------------------------------------
    def step(self, element) -> None:
        kind = element.get("type") or (self.data_name or "").rsplit("_", 1)[0]
        if self.data_kind is None:
            self.data_kind = kind
        if kind in _SKIPPED:
            return
        if not self.map:
            raise XrfError(f"{self.where(element)}: Step before any StepMap — expected a StepMap declaring "
                           "the Components first")
        text = element.text or ""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a bad token ends the parse early: the count check names it
                values = np.fromstring(text, sep=" ") if text.strip() else np.zeros(0)
        except ValueError:
            values = np.zeros(0)
        if values.size != self.count:
            self._bad_step(element, text)
        if self.time_column is not None:
            self._check_time(element, float(values[self.time_column]))
        if not self.names:
            self.data_rows += 1
            return
        picked = values[self.columns]
        if not np.all(np.isfinite(picked)):
            bad = self.names[int(np.flatnonzero(~np.isfinite(picked))[0])]
            raise XrfError(f"{self.where(element)}: {bad} is {picked[~np.isfinite(picked)][0]} — expected a "
                           "finite number")
        row = self.rows % _BLOCK
        if row == 0:
            self.blocks.append(np.empty((_BLOCK, len(self.names))))
        self.blocks[-1][row] = picked * self.factors
        self.rows += 1
        self.data_rows += 1

    def _bad_step(self, element, text: str) -> None:
        for token in text.split():
            try:
                float(token)
            except ValueError:
                raise XrfError(f"{self.where(element)}: Step value {token[:40]!r} is not a number — expected "
                               f"{self.count} numbers") from None
        raise XrfError(f"{self.where(element)}: Step has {len(text.split())} values — expected {self.count}, "
                       "one per Component id of the StepMap")

    def _check_time(self, element, time: float) -> None:
        if self.last_time is not None and time < self.last_time[0]:
            raise XrfError(f"{self.where(element)}: TIME {time:.9g} after {self.last_time[0]:.9g} (line "
                           f"{self.last_time[1]}) in analysis {self.current.name!r} — expected time that "
                           "does not go backwards")
        self.last_time = (time, element.sourceline)

    def data_end(self, element) -> None:
        if self.data_kind is not None and self.data_kind not in _SKIPPED and self.current is not None:
            self.current.blocks.append((element.get("name") or "", self.data_kind, self.data_rows))
        self.data_name, self.data_kind, self.data_rows = None, None, 0

    def analysis_end(self) -> None:
        analysis = self.current
        values = (np.concatenate(self.blocks)[: self.rows] if self.blocks else np.zeros((0, len(self.names))))
        analysis.data = {name: values[:, i].copy() for i, name in enumerate(self.names)}
        self.blocks, self.rows, self.map, self.names = [], 0, {}, []
        self.last_time, self.current = None, None


def read_xrf(path: str | Path, channels: Iterable[str] | Callable | None = (),
             units: Mapping[str, str] | None = None) -> XrfResults:
    """Read ``path``: declarations of every analysis, and the values (SI) of ``channels``.

    ``channels``: ``ENTITY.COMPONENT`` names to keep (``()``: none, declarations only; ``None``: all), or
    a function called with each analysis once its StepMap is read (name and channels known) returning
    {channel: unit or None} to keep for that analysis (a unit given replaces the file's).
    ``units``: a unit per channel used instead of the file's ``unitsValue`` (or where it has none).
    A channel an analysis does not declare is listed in its ``missing``.
    """
    path = Path(path)
    if not path.is_file():
        raise XrfError(f"{path}: no such file — expected an xrf result file (.res)")
    wanted = channels if channels is None or callable(channels) else list(dict.fromkeys(channels))
    reader = _Reader(path, wanted, units or {})
    try:
        _parse(reader, path)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno or 1
        raise XrfError(f"{path}:{line}: not well-formed XML ({exc.msg}) — expected a complete xrf result "
                       "file (a truncated or damaged file?)") from None
    return XrfResults(path, reader.bibliography, reader.analyses)


def _parse(reader: _Reader, path: Path) -> None:
    events = etree.iterparse(str(path), events=("start", "end"), resolve_entities=False, no_network=True,
                             huge_tree=True, remove_comments=True)
    depth, root_seen = 0, False
    for event, element in events:
        tag = _local(element.tag)
        if event == "start":
            depth += 1
            if depth == 1:
                if tag != "Results":
                    raise XrfError(f"{reader.where(element)}: root element <{tag}> — expected <Results "
                                   f"xmlns=\"{NAMESPACE}\"> (an xrf result file)")
                root_seen = True
            elif tag == "Analysis" and depth == 2:
                reader.current = XrfAnalysis(element.get("name") or f"analysis_{len(reader.analyses) + 1}",
                                             element.sourceline, dict(element.attrib))
                reader.analyses.append(reader.current)
            elif tag == "Data":
                reader.data_name = element.get("name")
            continue
        depth -= 1
        if tag == "Step":
            reader.step(element)
        elif tag == "Data":
            reader.data_end(element)
        elif tag == "StepMap":
            reader.step_map(element)
        elif tag == "Bibliography":
            reader.bibliography_end(element)
        elif tag == "ModelInfo" and reader.current is not None:
            reader.current.title = element.get("title")
        elif tag == "Units" and reader.current is not None:
            reader.current.units = dict(element.attrib)
        elif tag == "Analysis" and depth == 1:
            reader.analysis_end()
        if tag in _CLEARED:
            element.clear(keep_tail=False)
            while element.getprevious() is not None:
                del element.getparent()[0]
    if not root_seen:
        raise XrfError(f"{path}: empty file — expected an xrf result file")


# ------------------------------------------------------------------------------------------------
# Writing
# ------------------------------------------------------------------------------------------------

class XrfWriter:
    """Write an xrf result file, streaming, atomically (a temporary file renamed when closed).

    ::

        with XrfWriter(path, tool="pybridge", version="1") as out:
            out.begin_analysis("van_parallel_travel", [("time", "TIME", "sec"), ("toe_angle", "left", "deg")],
                               kind="quasiStatic")
            out.steps(rows_si)        # one row per step, SI values in the order of the channels
            out.end_analysis()

    Values are given in SI and written in each channel's unit, with 17 significant digits.
    """

    def __init__(self, path: str | Path, *, tool: str = "pybridge", version: str = "1",
                 corporation: str = "vehiclertm", date: str = "-unknown-"):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, self._tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        self._out = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        self.tool, self.version = tool, version
        self._factors: np.ndarray | None = None
        self._format = ""
        self._data = 0
        self._kind = ""
        self._write('<?xml version="1.0" encoding="UTF-8"?>\n'
                    f'<Results xmlns="{NAMESPACE}">\n<Bibliography>\n'
                    f'<File URI={quoteattr(self.path.name)} schema="xrf" version="2.0.0.0" '
                    f'publicationDate={quoteattr(date)} />\n'
                    f'<Corporation author={quoteattr(corporation)} URI="" />\n</Bibliography>\n')

    def _write(self, text: str) -> None:
        self._out.write(text)
        self.written += len(text)

    written: int = 0  #: characters written so far (bytes, for the ASCII of numbers and names)

    def begin_analysis(self, name: str, channels: list[tuple[str, str, str]], *, kind: str = "dynamic",
                       title: str = "", date: str = "-unknown-", units: Mapping[str, str] | None = None) -> None:
        """Start an Analysis declaring ``channels`` (entity, component, unit), the first being time."""
        factors, groups, lines = [], [], []
        entities: dict[str, list[tuple[str, str, int]]] = {}
        for number, (entity, component, unit) in enumerate(channels, start=1):
            try:
                factors.append(parse_unit(unit).factor)
            except UnitError as exc:
                raise XrfError(f"{self.path}: channel {entity}.{component}: {exc}") from None
            entities.setdefault(entity, []).append((component, unit, number))
        order = [number for members in entities.values() for _, _, number in members]  # id order
        ids = iter(range(1, len(order) + 1))
        for entity, members in entities.items():
            lines.append(f'<Entity name={quoteattr(entity)} entity={quoteattr(entity)} entType="Request">')
            lines += [f'<Component name={quoteattr(c)} unitsValue={quoteattr(u)} id="{next(ids)}" />'
                      for c, u, _ in members]
            lines.append("</Entity>")
            groups.append(len(members))
        self._order = np.array(order) - 1
        self._factors, self._kind = np.array(factors), kind
        step_lines = "\n".join(" ".join(["%.17g"] * size) for size in groups)  # one line per entity, as Adams does
        self._format = f'<Step type="{escape(kind)}">\n' + step_lines + "\n</Step>\n"
        unit_attrs = " ".join(f"{k}={quoteattr(v)}" for k, v in (units or {"angle": "rad", "length": "meter",
                                                                               "mass": "kg", "time": "sec"}).items())
        self._write(f'<Analysis name={quoteattr(name)} executionDate={quoteattr(date)} '
                    f'Solver={quoteattr(f"{self.tool} {self.version}")} script="-unknown-">\n<Bibliography>\n'
                    f'<Application name={quoteattr(self.tool)} version={quoteattr(self.version)} />\n'
                    f'</Bibliography>\n<ModelInfo title={quoteattr(title or name)} />\n<Units {unit_attrs} />\n'
                    '<StepMap name="map_001">\n' + "\n".join(lines) + "\n</StepMap>\n")
        self._data += 1
        self._write(f'<Data name="{escape(kind)}_001" id="{self._data}">\n')

    def steps(self, rows_si) -> None:
        """Write rows (SI, one value per channel in declaration order) as Steps."""
        rows = np.atleast_2d(np.asarray(rows_si, float))
        if self._factors is None or rows.shape[1] != self._factors.size:
            raise XrfError(f"{self.path}: {rows.shape[1]} values per step — expected "
                           f"{0 if self._factors is None else self._factors.size}, one per channel declared")
        if not np.all(np.isfinite(rows)):
            raise XrfError(f"{self.path}: a value is NaN or infinite — expected finite numbers")
        values = (rows / self._factors)[:, self._order]
        self._write("".join(self._format % tuple(row) for row in values.tolist()))

    def end_analysis(self) -> None:
        self._write('</Data>\n<TerminationStatus runTermObject="" runStatus="Successful" />\n</Analysis>\n')
        self._factors = None

    def close(self) -> Path:
        """Finish the file and move it into place."""
        self._write("</Results>\n")
        self._out.close()
        os.chmod(self._tmp, 0o644)
        os.replace(self._tmp, self.path)
        return self.path

    def abort(self) -> None:
        """Drop the temporary file (the target is left as it was)."""
        self._out.close()
        try:
            os.unlink(self._tmp)
        except OSError:
            pass

    def __enter__(self) -> XrfWriter:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()
