"""``pybridge mbm import``: a folder of Adams/Car (or VI-CarRealTime) result files -> an MBM data set.

:func:`import_results` reads every ``*.res`` under the results folder (:func:`pybridge.mbm.xrf.read_xrf`)
and sorts each analysis by its name (then the file's name) through the channel map
(:class:`~pybridge.mbm.channel_map.ChannelMap`, the built-in Adams/Car names unless a mapping file says
otherwise): a K&C test (``kc.tests``, axle ``kc.axles``, loaded side ``kc.loaded_side``) becomes
``mbm/kc/<axle>_<test>[_<side>].csv``, a full-vehicle run (``manoeuvres``) ``traces/<name>.csv[.gz]``;
other analyses are listed as not recognised. The property files, mass table, driveline and summary
found in the folder (``*.tir .dpr .bum .reb .spr``, ``masses.csv``, ``driveline.yaml``,
``mbm_summary.yaml``) are copied to ``mbm/``. ``manifest.yaml`` records each result file (path,
sha256, analyses with tool and version from the file) and what became of it. A channel the map names
but no file holds is listed once; only a channel a K&C test or a trace needs is an error. The set is
written into a temporary folder renamed at the end, so a failed import leaves nothing half-written.
"""
from __future__ import annotations

import datetime
import fnmatch
import hashlib
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from pybridge.mbm.channel_map import ChannelMap, ChannelSpec
from pybridge.mbm.errors import MBMDataError
from pybridge.mbm.kc_results import CHANNEL_KINDS, COMPLIANCE_TESTS, KCResults, required_channels, write_kc_results
from pybridge.mbm.xrf import XrfAnalysis, read_xrf
from pybridge.traces import write_trace

__all__ = ["MBMImportError", "ImportReport", "import_results"]

PROPERTY_SUFFIXES = (".tir", ".dpr", ".bum", ".reb", ".spr")
PROPERTY_NAMES = ("masses.csv", "driveline.yaml", "mbm_summary.yaml")
COMPRESS_ABOVE = 1_000_000  # bytes of CSV text above which a trace is gzip-compressed (as mbm generate)


class MBMImportError(MBMDataError):
    """A results folder that cannot be imported; one line naming the file, the analysis and the expectation."""


@dataclass
class _Target:
    """What one analysis becomes: a K&C test or a trace, and the channels it takes."""

    kind: str                       # "kc" | "trace"
    name: str                       # front_parallel_travel | step_steer
    columns: dict[str, ChannelSpec]  # project column -> its source
    test: str | None = None
    axle: str | None = None
    side: str | None = None


@dataclass
class ImportReport:
    """What an import wrote: outputs by name, the channels the map names that no file holds, the manifest."""

    dataset: Path
    kc: dict[str, str] = field(default_factory=dict)       # kc name -> source file
    traces: dict[str, str] = field(default_factory=dict)   # trace name -> source file
    ignored: list[str] = field(default_factory=list)       # "file: analysis" not recognised
    not_found: dict[str, list[str]] = field(default_factory=dict)  # output -> mapped channels absent
    manifest: dict = field(default_factory=dict)

    def absent_everywhere(self) -> dict[str, list[str]]:
        """Per kind ("K&C", "trace"), the mapped channels that none of its outputs found: listed once."""
        result = {}
        for kind, names in (("K&C", self.kc), ("trace", self.traces)):
            sets = [set(self.not_found.get(n, ())) for n in names]
            common = sorted(set.intersection(*sets)) if sets else []
            if common:
                result[kind] = common
        return result


def _match(patterns: dict[str, tuple[str, ...]], *names: str) -> list[str]:
    """Keys whose patterns match the first of ``names`` that any key matches (case-insensitive)."""
    for name in names:
        hits = [key for key, pats in patterns.items() if any(fnmatch.fnmatch(name.lower(), p.lower()) for p in pats)]
        if hits:
            return hits
    return []


def _one(path: Path, analysis: XrfAnalysis, what: str, hits: list[str], key: str) -> str | None:
    if len(hits) > 1:
        raise MBMImportError(f"{path}: analysis {analysis.name!r} matches {what} {' and '.join(hits)} — expected "
                           f"names that match one ({key} in a mapping file, --map)")
    return hits[0] if hits else None


def _classify(path: Path, analysis: XrfAnalysis, cmap: ChannelMap) -> _Target | None:
    names = (analysis.name, path.stem)
    test = _one(path, analysis, "K&C tests", _match(cmap.kc.tests, *names), "kc.tests")
    if test is None:
        trace = _one(path, analysis, "manoeuvres", _match(cmap.manoeuvres, *names), "manoeuvres")
        if trace is None:
            return None
        return _Target("trace", trace, dict(cmap.traces))
    axle = _one(path, analysis, "axles", _match(cmap.kc.axles, *names), "kc.axles")
    if axle is None:
        raise MBMImportError(f"{path}: analysis {analysis.name!r} is a {test} test of no axle — expected its name "
                           f"or the file's to match kc.axles (front: {cmap.kc.axles.get('front')}, rear: "
                           f"{cmap.kc.axles.get('rear')}; set them with --map)")
    side = None
    if test in COMPLIANCE_TESTS:
        side = _one(path, analysis, "loaded sides", _match(cmap.kc.loaded_side, *names), "kc.loaded_side")
        if side is None:
            raise MBMImportError(f"{path}: analysis {analysis.name!r} is a {test} test without a loaded side — "
                               f"expected its name or the file's to match kc.loaded_side (set it with --map)")
    columns = {c: spec for c in CHANNEL_KINDS if (spec := cmap.kc.column(c)) is not None}
    name = f"{axle}_{test}" + (f"_{side}" if side else "")
    return _Target("kc", name, columns, test, axle, side)


def _needed(target: _Target) -> list[str]:
    return required_channels(target.test, target.side) if target.kind == "kc" else ["time"]


def _frame(path: Path, analysis: XrfAnalysis, target: _Target, report: ImportReport) -> pd.DataFrame:
    """The analysis's mapped channels in SI with the map's scale and offset; the needed ones must be there."""
    found = {c: s for c, s in target.columns.items() if s.source in analysis.data}
    absent = [c for c in _needed(target) if c not in found]
    if absent:
        wanted = ", ".join(f"{c} <- {target.columns[c].source}" if c in target.columns else f"{c} (not in the map)"
                           for c in absent)
        raise MBMImportError(f"{path}: analysis {analysis.name!r} ({target.name}) lacks {wanted} — expected these "
                           "channels in the file (or other sources for them in a mapping file, --map)")
    if analysis.steps < 2:
        raise MBMImportError(f"{path}: analysis {analysis.name!r} has {analysis.steps} output steps — expected at "
                           "least 2")
    report.not_found[target.name] = sorted(c for c in target.columns if c not in found)
    return pd.DataFrame({c: analysis.data[s.source] * s.scale + s.offset for c, s in found.items()})


def _chooser(path: Path, cmap: ChannelMap, targets: dict[int, _Target | None]):
    """The callback of read_xrf: classify each analysis and name the channels to keep."""
    def choose(analysis: XrfAnalysis) -> dict[str, str | None]:
        target = _classify(path, analysis, cmap)
        targets[id(analysis)] = target
        if target is None:
            return {}
        return {s.source: s.unit for c, s in target.columns.items() if s.source in analysis.channels}
    return choose


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _property_files(results_dir: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(results_dir.rglob("*")):
        if path.is_file() and (path.suffix.lower() in PROPERTY_SUFFIXES or path.name in PROPERTY_NAMES):
            if path.name in found:
                raise MBMImportError(f"{path}: a second {path.name} (first {found[path.name]}) — expected one file "
                                   "of each name in the results folder")
            found[path.name] = path
    return found


def _rewrap(exc: MBMDataError, written: Path, path: Path, analysis: XrfAnalysis, name: str) -> MBMImportError:
    message = str(exc).removeprefix(f"{written}: ")
    return MBMImportError(f"{path}: analysis {analysis.name!r} ({name}): {message}")


def _write_kc(out: Path, path: Path, analysis: XrfAnalysis, target: _Target, frame: pd.DataFrame) -> Path:
    source = f"{path.name}, analysis {analysis.name} ({analysis.tool} {analysis.version})"
    results = KCResults(target.test, target.axle, frame, target.side, {"source": source})
    written = out / "mbm" / "kc" / f"{target.name}.csv"
    try:
        return write_kc_results(results, written)
    except MBMDataError as exc:
        raise _rewrap(exc, written, path, analysis, target.name) from None


def _write_trace(out: Path, path: Path, analysis: XrfAnalysis, target: _Target, frame: pd.DataFrame) -> Path:
    frame = frame[["time", *[c for c in frame.columns if c != "time"]]]
    frame = frame[~frame["time"].duplicated(keep="last")].reset_index(drop=True)  # static + dynamic at one time
    big = frame.memory_usage(index=False).sum() * 2 > COMPRESS_ABOVE
    written = out / "traces" / (f"{target.name}.csv.gz" if big else f"{target.name}.csv")
    source = f"{path.name}, analysis {analysis.name} ({analysis.tool} {analysis.version})"
    written.parent.mkdir(parents=True, exist_ok=True)
    return write_trace(frame, written, {"manoeuvre": target.name, "source": source})


def _references(out: Path, traces: dict) -> dict:
    """The step steer's amplitude reference from its recorded steering-wheel angle (its value at the end)."""
    from pybridge.simulate.scenarios import load_scenario
    from pybridge.traces import read_trace
    if "step_steer" not in traces:
        return {}
    trace, _ = read_trace(out / traces["step_steer"]["file"])
    if "steering_wheel_angle" not in trace:
        return {}
    references = {}
    for ref in load_scenario("step_steer").references():
        if ref.name == "ramp_steer_at_ay":
            references[ref.name] = {
                "ay [m/s^2]": float(ref.argument), "speed [m/s]": float(trace["speed"].iloc[0]) if "speed" in trace
                else None, "steering_wheel_angle [rad]": float(trace["steering_wheel_angle"].iloc[-1]),
                "from": "the imported step steer's steering-wheel angle at its end (the MBM driver's input)"}
    return references


def _analysis_record(analysis: XrfAnalysis) -> dict:
    return {"name": analysis.name, "tool": analysis.tool, "version": analysis.version, "kind": analysis.kind,
            "steps": analysis.steps, "execution_date": analysis.attributes.get("executionDate")}


def _import_into(results_dir: Path, files: list[Path], out: Path, cmap: ChannelMap) -> ImportReport:
    report = ImportReport(out)
    sources, outputs, traces = [], {}, {}
    for path in files:
        targets: dict[int, _Target | None] = {}
        results = read_xrf(path, _chooser(path, cmap, targets))
        entry = {"file": str(path.relative_to(results_dir)), "sha256": _sha256(path),
                 "bibliography": {k: v for k, v in results.bibliography.items()
                                  if k in ("File.version", "File.publicationDate", "Corporation.author")},
                 "analyses": []}
        for analysis in results.analyses:
            record, target = _analysis_record(analysis), targets.get(id(analysis))
            if target is None:
                report.ignored.append(f"{path}: {analysis.name}")
                record["became"] = None
            else:
                if target.name in outputs:
                    first = outputs[target.name]
                    raise MBMImportError(f"{path}: analysis {analysis.name!r} gives {target.name}, as does analysis "
                                       f"{first[1]!r} of {first[0]} — expected one analysis per K&C test and "
                                       "manoeuvre (name them apart with --map)")
                outputs[target.name] = (path, analysis.name)
                frame = _frame(path, analysis, target, report)
                writer = _write_kc if target.kind == "kc" else _write_trace
                written = writer(out, path, analysis, target, frame)
                record["became"] = str(written.relative_to(out))
                (report.kc if target.kind == "kc" else report.traces)[target.name] = str(path)
                if target.kind == "trace":
                    traces[target.name] = {"file": record["became"], "rows": len(frame),
                                           "simulated": float(frame["time"].iloc[-1]), "sha256": _sha256(written)}
            entry["analyses"].append(record)
            analysis.data.clear()
        sources.append(entry)
    copied = []
    for name, path in _property_files(results_dir).items():
        (out / "mbm").mkdir(parents=True, exist_ok=True)
        copied.append(str(Path(shutil.copyfile(path, out / "mbm" / name)).relative_to(out)))
    report.manifest = _manifest(results_dir, out, cmap, report, sources, traces, copied)
    return report


def _manifest(results_dir: Path, out: Path, cmap: ChannelMap, report: ImportReport, sources: list, traces: dict,
              copied: list[str]) -> dict:
    summary = out / "mbm" / "mbm_summary.yaml"
    vehicle = results_dir.resolve().name
    if summary.is_file():
        vehicle = (yaml.safe_load(summary.read_text()) or {}).get("vehicle", vehicle)
    manifest = {
        "format": "vehiclertm-mbm-dataset 1", "vehicle": vehicle,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "generator": "pybridge mbm import (pybridge.mbm.importer)", "imported_from": str(results_dir.resolve()),
        "map": str(cmap.path) if cmap.path else "built-in (Adams/Car request names)",
        "references": _references(out, traces), "traces": dict(sorted(traces.items())),
        "mbm_files": sorted(copied + [f"mbm/kc/{n}.csv" for n in report.kc]),
        "sources": sources, "not_found": {k: v for k, v in sorted(report.not_found.items()) if v},
        "not_recognised": report.ignored,
    }
    (out / "manifest.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    return manifest


def import_results(results_dir: str | Path, out_dir: str | Path, channel_map: ChannelMap | None = None,
                   ) -> ImportReport:
    """Import the ``.res`` files (and property files) under ``results_dir`` as a data set in ``out_dir``.

    ``channel_map``: the map to use (default :meth:`ChannelMap.default`; a mapping file is laid over
    it by the caller: ``ChannelMap.default().overlaid(load_channel_map(path))``). ``out_dir`` must be
    new or empty; it is written only when the whole import succeeded.
    """
    results_dir, out_dir = Path(results_dir), Path(out_dir)
    if not results_dir.is_dir():
        raise MBMImportError(f"{results_dir}: not a directory — expected a folder of result files (.res)")
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise MBMImportError(f"{out_dir}: exists and is not an empty folder — expected a new data-set folder "
                           "(nothing is overwritten)")
    files = sorted(p for p in results_dir.rglob("*.res") if p.is_file())
    if not files:
        raise MBMImportError(f"{results_dir}: no *.res file — expected Adams/Car or VI-CarRealTime result files")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        report = _import_into(results_dir, files, tmp, channel_map or ChannelMap.default())
        if out_dir.exists():
            out_dir.rmdir()
        tmp.rename(out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    report.dataset = out_dir
    return report
