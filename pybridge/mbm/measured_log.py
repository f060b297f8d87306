"""Measured logs (ASAM MDF4 ``.mf4`` through asammdf, or CSV) as reference traces.

A log from an instrumented vehicle or a proving-ground test names its channels its own way, in its
own units, on its own time base (one per MDF channel group). A channel map
(:mod:`pybridge.mbm.channel_map`) says which log channel is which trace channel::

    traces:
      yaw_rate: {source: GyroZ}                      # unit from the file (here deg/s)
      ay_sensor: {source: AccY, unit: g}             # the map's unit wins over the file's
      steering_wheel_angle: {source: SWA, scale: -1} # the log counts clockwise positive
      time: {source: t, unit: ms, offset: -1.25}     # CSV: the time column; MDF: its master time

A map key is a trace channel of ``pybridge.simulate.scenarios.OUTPUT_CHANNELS``; a key of another
definition (``ay_sensor``, ``sideslip_sprung``, ``roll_road``) is read into the plain channel with the
definition declared (``pybridge.evaluate.channels``). The SI value is ``to_si(raw, unit) * scale +
offset`` (the map's convention). The time base: the MDF master channel of the channel's group, in s
(a ``time`` entry may scale and shift it; its ``source`` and ``unit`` are not read), or the CSV column
the ``time`` entry names (default: a column called ``time``). Each channel is interpolated linearly onto the scenario's samples inside
the span every channel covers, after a centred moving mean over about one sample period where the log
is faster.

A CSV log: one header row of names, ``name [unit]`` or ``name (unit)``, or plain names with a second
row of units; then numbers. Problems (an unreadable file, a channel missing, a unit of the wrong kind,
NaN, a time base that goes backwards, no overlap with the scenario) raise :class:`MBMDataError`, one
line naming the file and the channel.
"""
from __future__ import annotations

import csv
import difflib
import gc
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pybridge.evaluate.channels import DEFINITIONS
from pybridge.limits import TRACE_BYTES
from pybridge.mbm import units
from pybridge.mbm.errors import MBMDataError
from pybridge.simulate.scenarios import OUTPUT_CHANNELS

__all__ = ["MDF_SUFFIXES", "LogChannel", "read_log_channels", "read_measured_log", "si_factor"]

MDF_SUFFIXES = (".mf4", ".mdf")
_UNIT_CELL = re.compile(r"\s*(.*?)\s*[\[(]\s*(.*?)\s*[\])]\s*")


def si_factor(channel: str, unit: str, where: str) -> float:
    """Factor from ``unit`` to the SI unit of trace channel ``channel`` (:mod:`pybridge.mbm.units`);
    MBMDataError naming ``where`` for a unit of another quantity."""
    try:
        return units.si_factor(unit, OUTPUT_CHANNELS[channel][0])
    except units.UnitError as error:
        raise MBMDataError(f"{where}: {error} (for {channel})") from None


@dataclass(frozen=True)
class LogChannel:
    """One channel of a log as the file has it: its time base (s in the file's time unit), samples, unit."""
    times: np.ndarray
    values: np.ndarray
    unit: str


def _near(name: str, names) -> str:
    close = difflib.get_close_matches(name, list(names), n=4, cutoff=0.5)
    return f"; near names: {', '.join(close)}" if close else f"; the file has {len(list(names))} channels"


def _open_mdf(path: Path):
    """asammdf's reader of ``path``; MBMDataError for a damaged file, with asammdf's half-built reader
    collected quietly (its __del__ fails and would print a traceback)."""
    from asammdf import MDF

    problem, hook = None, sys.unraisablehook
    sys.unraisablehook = lambda _: None
    try:
        return MDF(str(path))
    except Exception as error:  # asammdf raises many kinds on a damaged file
        problem = f"{type(error).__name__}: {error}"
        error.__traceback__ = None
    finally:
        if problem is not None:
            gc.collect()
        sys.unraisablehook = hook
    raise MBMDataError(f"{path}: cannot read the file as ASAM MDF ({problem})")


def _mdf_channels(path: Path, sources: list[str]) -> dict[str, LogChannel]:
    mdf = _open_mdf(path)
    try:
        channels = {}
        for source in sources:
            if source not in mdf.channels_db:
                raise MBMDataError(f"{path}: no channel '{source}'{_near(source, mdf.channels_db)}")
            try:
                signal = mdf.get(source)
            except Exception as error:
                raise MBMDataError(f"{path}: channel '{source}': cannot read it ({type(error).__name__}: "
                                   f"{error})") from None
            channels[source] = LogChannel(np.asarray(signal.timestamps, float),
                                          np.asarray(signal.samples, float), str(signal.unit or ""))
        return channels
    finally:
        mdf.close()


def _csv_channels(path: Path, sources: list[str], time_source: str) -> dict[str, LogChannel]:
    if path.stat().st_size > TRACE_BYTES.value():
        raise MBMDataError(f"{path}: the log is larger than {TRACE_BYTES.describe()}")
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError) as error:
        raise MBMDataError(f"{path}: cannot read the CSV log ({error})") from None
    if len(rows) < 3:
        raise MBMDataError(f"{path}: {len(rows)} rows; expected a header row of channel names and samples")
    names, units = [], []
    for cell in rows[0]:
        match = _UNIT_CELL.fullmatch(cell)
        names.append(match.group(1) if match else cell.strip())
        units.append(match.group(2) if match else "")
    first = 1
    if not any(_UNIT_CELL.fullmatch(c) for c in rows[0]) and not _numeric(rows[1]):
        units, first = [c.strip() for c in rows[1]], 2
    index = {name: i for i, name in enumerate(names)}
    if time_source not in index:
        raise MBMDataError(f"{path}:1: no time column '{time_source}'{_near(time_source, names)} "
                           "(name it in the map: time: {source: ...})")
    try:
        data = np.array([[float(c) if c.strip() else math.nan for c in row] for row in rows[first:] if row], float)
    except ValueError as error:
        raise MBMDataError(f"{path}: a sample is not a number ({error})") from None
    if data.ndim != 2 or data.shape[1] != len(names):
        raise MBMDataError(f"{path}: rows of different lengths; expected {len(names)} cells in every row")
    times = data[:, index[time_source]]
    channels = {}
    for source in sources:
        if source not in index:
            raise MBMDataError(f"{path}:1: no channel '{source}'{_near(source, names)}")
        channels[source] = LogChannel(times, data[:, index[source]], units[index[source]])
    channels[time_source] = LogChannel(times, times, units[index[time_source]])
    return channels


def _numeric(row: list[str]) -> bool:
    try:
        [float(c) for c in row if c.strip()]
    except ValueError:
        return False
    return True


def read_log_channels(path: str | Path, sources: list[str], time_source: str = "time") -> dict[str, LogChannel]:
    """The channels ``sources`` of the log at ``path`` as the file holds them (MDF4 by suffix, else CSV)."""
    path = Path(path)
    if not path.is_file():
        raise MBMDataError(f"{path}: no such log file")
    if path.suffix.lower() in MDF_SUFFIXES:
        return _mdf_channels(path, sources)
    return _csv_channels(path, sources, time_source)


def _checked_time(path: Path, source: str, times: np.ndarray, factor: float, scale: float, offset: float):
    bad = np.flatnonzero(~np.isfinite(times))
    if bad.size:
        raise MBMDataError(f"{path}: channel '{source}': time of sample {bad[0]} is {times[bad[0]]}; expected a number")
    seconds = times * factor * scale + offset
    back = np.flatnonzero(np.diff(seconds) <= 0)
    if back.size:
        k = back[0]
        raise MBMDataError(f"{path}: channel '{source}': time goes from {seconds[k]:.6g} s to {seconds[k + 1]:.6g} s "
                           f"at sample {k + 1}; expected an increasing time base")
    return seconds


def _resampled(times: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``values(times)`` at ``at``: a centred moving mean over about one target period (an odd number of
    samples) where the log is faster, then linear."""
    if len(at) > 1 and len(times) > 2:
        width = int((at[1] - at[0]) / float(np.median(np.diff(times)))) | 1
        if width > 1:
            kernel = np.ones(width) / width
            padded = np.pad(values, (width // 2, width - 1 - width // 2), mode="edge")
            values = np.convolve(padded, kernel, mode="valid")
    return np.interp(at, times, values)


def _target(key: str) -> tuple[str, str | None, str | None]:
    """(trace column, channel with a definition, its definition) of a map key."""
    for channel, names in DEFINITIONS.items():
        for definition, name in names.items():
            if key == name and name != channel:
                return channel, channel, definition
    return key, None, None


def read_measured_log(path: str | Path, channel_map, sample_times: np.ndarray) -> pd.DataFrame:
    """The log at ``path`` as a reference trace: the map's channels in SI on ``sample_times`` (s; those
    inside the span of every channel), with ``attrs["definitions"]`` and ``attrs["units"]``."""
    path = Path(path)
    specs = {k: v for k, v in channel_map.traces.items() if k != "time"}
    for key in specs:
        if key not in OUTPUT_CHANNELS:
            raise MBMDataError(f"{path}: map entry '{key}': not a trace channel (expected one of "
                               f"{', '.join(OUTPUT_CHANNELS)})")
    if not specs:
        raise MBMDataError(f"{path}: the channel map names no trace channel")
    time_spec = channel_map.traces.get("time")
    mdf = path.suffix.lower() in MDF_SUFFIXES
    time_source = "time" if mdf or time_spec is None else time_spec.source
    raw = read_log_channels(path, [s.source for s in specs.values()], time_source)
    time_unit = "s" if mdf else (time_spec.unit if time_spec else None) or raw[time_source].unit or "s"
    time_factor = si_factor("time", time_unit, f"{path}: time")  # asammdf gives the master time in s
    scale, offset = (time_spec.scale, time_spec.offset) if time_spec else (1.0, 0.0)
    columns, definitions, spans, given = {}, {}, [], {}
    for key, spec in specs.items():
        channel = raw[spec.source]
        unit = spec.unit if spec.unit is not None else channel.unit
        where = f"{path}: channel '{spec.source}' ({key})"
        if not unit:
            if OUTPUT_CHANNELS[key][0] != "1":
                raise MBMDataError(f"{where}: no unit in the file; expected the map to give one (unit: ...)")
            unit = "1"
        factor = si_factor(key, unit, where)
        seconds = _checked_time(path, spec.source, channel.times, time_factor, scale, offset)
        bad = np.flatnonzero(~np.isfinite(channel.values))
        if bad.size:
            raise MBMDataError(f"{where}: sample {bad[0]} at t = {seconds[bad[0]]:.6g} s is {channel.values[bad[0]]}; "
                               "expected a finite number")
        column, base, definition = _target(key)
        if column in given:
            raise MBMDataError(f"{path}: map entries '{given[column]}' and '{key}' both give the trace channel "
                               f"'{column}'; expected one")
        given[column] = key
        columns[column] = (seconds, channel.values * factor * spec.scale + spec.offset)
        spans.append((seconds[0], seconds[-1]))
        if base is not None:
            definitions[base] = definition
    start, end = max(s for s, _ in spans), min(e for _, e in spans)
    at = np.asarray(sample_times, float)
    at = at[(at >= start - 1e-9) & (at <= end + 1e-9)]
    if len(at) < 2:
        raise MBMDataError(f"{path}: the log covers {start:.6g} to {end:.6g} s (every mapped channel), which holds "
                           f"fewer than 2 of the scenario's samples ({sample_times[0]:.6g} to "
                           f"{sample_times[-1]:.6g} s); shift it with the map's time offset")
    order = [c for c in OUTPUT_CHANNELS if c in columns]  # the vocabulary's order, as the trace files have it
    trace = pd.DataFrame({"time": at, **{c: _resampled(*columns[c], np.clip(at, columns[c][0][0], columns[c][0][-1]))
                                         for c in order}})
    trace.attrs["definitions"] = definitions
    trace.attrs["units"] = {c: OUTPUT_CHANNELS[c][0] for c in trace.columns}
    return trace
