"""Measured logs named by a data set's manifest, read as the data set's reference traces.

A data set (``manifest.yaml``, ``traces/``) may hold a manoeuvre's reference as a measured log (MDF4 or a
CSV log, :mod:`pybridge.mbm.measured_log`) with a channel map; the manifest's entry says so::

    traces:
      step_steer:
        file: logs/step_steer_run3.mf4     # relative to the data set
        map: logs/logger_map.yaml          # pybridge.mbm.channel_map, format vehiclertm-map 1
        scenario: step_steer               # optional: whose time base (default: the entry's name)

``pybridge.traces.find_trace`` and ``read_trace`` consult it, so every command that reads a data set
(``demo --reference``, ``identify``, ``report``, the comparison) scores the log exactly like a trace.
"""
from __future__ import annotations

import stat
from pathlib import Path

import pandas as pd

from pybridge.fileio import read_yaml
from pybridge.mbm.channel_map import load_channel_map
from pybridge.mbm.errors import MBMDataError
from pybridge.mbm.measured_log import MDF_SUFFIXES, read_measured_log

__all__ = ["is_log", "log_file", "read_log_trace"]

MANIFEST = "manifest.yaml"
_READ: dict[tuple, dict] = {}   # (manifest, inode, size, mtime) -> its entries


def _entries(dataset_dir: Path) -> dict:
    """The manifest's trace entries that name a map (``{}`` without a manifest); read once per process while
    the file stays the same (every reference trace looked up asks: 13 times in an identification's analysis)."""
    manifest = dataset_dir / MANIFEST
    try:
        info = manifest.stat()
    except OSError:
        return {}
    if not stat.S_ISREG(info.st_mode):
        return {}
    key = (str(manifest), info.st_ino, info.st_size, info.st_mtime_ns)
    if key not in _READ:
        _READ[key] = _read_entries(manifest)
    return dict(_READ[key])


def _read_entries(manifest: Path) -> dict:
    try:
        raw = read_yaml(manifest, MBMDataError)
    except MBMDataError:  # not readable: the readers of the manifest's other parts say why
        return {}
    traces = raw.get("traces") if isinstance(raw, dict) else None
    if not isinstance(traces, dict):
        return {}
    entries = {}
    for name, entry in traces.items():
        if isinstance(entry, dict) and "map" in entry:
            for key in ("file", "map"):
                if not isinstance(entry.get(key), str) or not entry[key].strip():
                    raise MBMDataError(f"{manifest}: traces.{name}.{key}: {entry.get(key)!r} — expected a path "
                                       "relative to the data set")
            entries[name] = entry
    return entries


def log_file(dataset_dir: str | Path, name: str) -> Path | None:
    """The log the manifest of ``dataset_dir`` names for manoeuvre ``name`` with a map, else None."""
    entry = _entries(Path(dataset_dir)).get(name)
    return None if entry is None else Path(dataset_dir) / entry["file"]


def _owner(path: Path) -> tuple[Path, str, dict] | None:
    """(data set folder, manoeuvre, entry) of the manifest above ``path`` that names it with a map."""
    resolved = path.resolve()
    for folder in list(path.parents)[:3]:
        for name, entry in _entries(folder).items():
            if (folder / entry["file"]).resolve() == resolved:
                return folder, name, entry
    return None


def is_log(path: str | Path) -> bool:
    """True for an MDF file, or a file a data set's manifest names as a log with a map."""
    path = Path(path)
    return path.suffix.lower() in MDF_SUFFIXES or _owner(path) is not None


def read_log_trace(path: str | Path) -> tuple[pd.DataFrame, dict[str, str]]:
    """The log as ``read_trace`` gives a trace: (DataFrame in SI on the scenario's samples, metadata)."""
    from pybridge.simulate.scenarios import ScenarioError, load_scenario

    path = Path(path)
    owner = _owner(path)
    if owner is None:
        raise MBMDataError(f"{path}: a measured log that no data set manifest names with a channel map; expected "
                           f"an entry traces.<manoeuvre>: {{file: ..., map: ...}} in the {MANIFEST} of its data set")
    folder, name, entry = owner
    scenario_name = entry.get("scenario", name)
    try:
        scenario = load_scenario(scenario_name)
    except ScenarioError as error:
        raise MBMDataError(f"{folder / MANIFEST}: traces.{name}: no scenario '{scenario_name}' for the log's time "
                           f"base ({error})") from None
    channel_map = load_channel_map(folder / entry["map"])
    trace = read_measured_log(path, channel_map, scenario.time())
    metadata = {"format": "measured log", "manoeuvre": name, "source": str(path), "map": str(folder / entry["map"]),
                **{f"{c}_definition": d for c, d in trace.attrs["definitions"].items()}}
    return trace, metadata
