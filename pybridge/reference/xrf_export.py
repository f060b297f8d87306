"""The reference vehicle's results as Adams xrf result files (``.res``), with Adams/Car's request names.

``pybridge mbm generate`` writes, besides its own ``vehiclertm-*`` files, ``results/<vehicle>_<axle>_<test>
[_<side>].res`` per K&C test (quasi-static, one step per sweep point) and ``results/<vehicle>_<manoeuvre>.res``
per manoeuvre (dynamic), named and laid out as an Adams/Car results folder so that ``pybridge mbm import``
turns them back into the data set. Channel names are those of the built-in channel map
(:meth:`pybridge.mbm.channel_map.ChannelMap.default`); values are written in Adams/Car's usual model
units (mm, deg, newton, newton-mm, sec). :func:`write_dataset_res` does the same for a data set
already on disk (the shipped one), through the same two writer functions.
"""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import pandas as pd

from pybridge.mbm.channel_map import ChannelMap
from pybridge.mbm.kc_results import CHANNEL_KINDS, KCResults, read_kc_results
from pybridge.mbm.xrf import XrfWriter
from pybridge.simulate.scenarios import OUTPUT_CHANNELS

__all__ = ["KC_UNITS", "TRACE_UNITS", "kc_res_name", "write_dataset_res", "write_kc_res", "write_trace_res"]

#: unit written per kind of K&C column
KC_UNITS = {"length": "mm", "angle": "deg", "force": "newton", "moment": "newton-mm"}
#: unit written per SI unit of a trace channel
TRACE_UNITS = {"s": "sec", "m": "mm", "m/s": "mm/sec", "m/s^2": "mm/sec**2", "rad": "deg", "rad/s": "deg/sec",
               "N": "newton", "1": "no_units", "N m": "newton-mm", "Pa": "pascal"}


def _tool() -> tuple[str, str]:
    try:
        return "pybridge.reference", version("vehicle-rtm-bridge")
    except PackageNotFoundError:
        return "pybridge.reference", "unknown"


def _split(source: str) -> tuple[str, str]:
    entity, _, component = source.rpartition(".")
    return entity, component


def kc_res_name(vehicle: str, results: KCResults) -> str:
    """``<vehicle>_<axle>_<test>[_<side>].res``: the analysis name Adams/Car gives, with its file suffix."""
    side = f"_{results.loaded_side}" if results.loaded_side else ""
    return f"{vehicle}_{results.axle}_{results.test}{side}.res"


def write_kc_res(results: KCResults, path: str | Path, vehicle: str) -> Path:
    """One K&C test as a quasi-static suspension analysis (time: the step number in s)."""
    kc = ChannelMap.default().kc
    channels, columns = [("time", "TIME", "sec")], []
    for column in results.data.columns:
        entity, component = _split(kc.column(column).source)
        channels.append((entity, component, KC_UNITS[CHANNEL_KINDS[column]]))
        columns.append(column)
    rows = np.column_stack([np.arange(len(results.data), dtype=float), results.data[columns].to_numpy(float)])
    name = Path(kc_res_name(vehicle, results)).stem
    tool, tool_version = _tool()
    with XrfWriter(path, tool=tool, version=tool_version) as out:
        out.begin_analysis(name, channels, kind="quasiStatic", title=f"{vehicle} {results.axle} suspension",
                           units={"angle": "deg", "length": "mm", "mass": "kg", "time": "sec"})
        out.steps(rows)
        out.end_analysis()
    return Path(path)


def write_trace_res(trace: pd.DataFrame, path: str | Path, manoeuvre: str, vehicle: str) -> Path:
    """One manoeuvre's trace (SI, vocabulary channels, ``time`` first) as a dynamic full-vehicle analysis."""
    sources = ChannelMap.default().traces
    columns = ["time", *[c for c in trace.columns if c != "time"]]
    channels = [(*_split(sources[c].source), TRACE_UNITS[OUTPUT_CHANNELS[c][0]]) for c in columns]
    tool, tool_version = _tool()
    with XrfWriter(path, tool=tool, version=tool_version) as out:
        out.begin_analysis(f"{vehicle}_{manoeuvre}", channels, kind="dynamic", title=f"{vehicle} full vehicle",
                           units={"angle": "deg", "length": "mm", "mass": "kg", "time": "sec"})
        out.steps(trace[columns].to_numpy(float))
        out.end_analysis()
    return Path(path)


def write_dataset_res(dataset_dir: str | Path, out_dir: str | Path, manoeuvres: list[str] | None = None,
                      kc: bool = True) -> list[Path]:
    """The K&C CSVs and traces of a data set on disk as ``.res`` files in ``out_dir`` (a results folder)."""
    from pybridge.traces import find_trace, read_trace
    from pybridge.fileio import read_yaml
    dataset_dir, out_dir = Path(dataset_dir), Path(out_dir)
    manifest = read_yaml(dataset_dir / "manifest.yaml")
    vehicle = manifest["vehicle"]
    written = []
    if kc:
        for csv in sorted((dataset_dir / "mbm" / "kc").glob("*.csv")):
            results = read_kc_results(csv)
            written.append(write_kc_res(results, out_dir / kc_res_name(vehicle, results), vehicle))
    for name in manoeuvres if manoeuvres is not None else list(manifest["traces"]):
        trace, _ = read_trace(find_trace(dataset_dir, name))
        written.append(write_trace_res(trace, out_dir / f"{vehicle}_{name}.res", name, vehicle))
    return written
