"""Manoeuvre traces as CSV with units in the header (plain or gzip-compressed ``.csv.gz``).

::

    # format: vehiclertm-trace 1
    # manoeuvre: step_steer
    # source: reference MBM lcv35 (Exudyn 1.13.6), ...
    time [s],speed [m/s],ay [m/s^2],...

Channels and their SI units are the scenario vocabulary (``pybridge.simulate.scenarios.OUTPUT_CHANNELS``);
the reader refuses unknown channels, other units, NaN and a non-increasing time column, naming the
file and the line. What ax, ay, sideslip, roll and pitch mean is declared per channel by a header line
``# ay_definition: sensor`` (``pybridge.evaluate.channels``; default: the whole vehicle's centre of gravity and
the horizontal); the reader checks it and puts the declarations in ``DataFrame.attrs["definitions"]``.
A header line the reader ignores is not silent: a key that names a channel (``# ay: sprung-mass CG``) warns
naming the file, the line and the key that would declare it; other unknown keys are listed in one warning
(``pybridge.evaluate.channels.check_header_keys``, ``HEADER_KEYS``). A measured log (MDF4 or CSV) that a data
set's manifest names with a channel map is read in its place (:mod:`pybridge.mbm.log_traces`).
"""
from __future__ import annotations

import gzip
import io
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from pybridge.evaluate.channels import ChannelDefinitionError, check_header_keys, declared_definitions
from pybridge.limits import TRACE_BYTES
from pybridge.mbm.errors import MBMDataError
from pybridge.mbm.log_traces import is_log, log_file, read_log_trace
from pybridge.mbm.measured_log import MDF_SUFFIXES
from pybridge.fileio import write_text_maybe_gzipped
from pybridge.simulate.scenarios import OUTPUT_CHANNELS

FORMAT = "vehiclertm-trace 1"
COLUMN = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]\s*")


def _open_text(path: Path) -> str:
    """The text of a trace file, refused before reading past ``TRACE_BYTES`` (uncompressed)."""
    limit = TRACE_BYTES.value()
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as handle:
            raw = handle.read(limit + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise MBMDataError(f"{path}: cannot read the trace ({error}); expected a complete "
                           + ("gzip-compressed CSV file" if path.suffix == ".gz" else "CSV file")) from None
    if len(raw) > limit:
        raise MBMDataError(f"{path}: the trace is larger than {TRACE_BYTES.describe()}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise MBMDataError(f"{path}: not a UTF-8 text file (byte 0x{raw[error.start]:02x} at offset "
                           f"{error.start}); expected a CSV trace") from None


def write_trace(trace: pd.DataFrame, path: str | Path, metadata: dict[str, str],
                units: dict[str, str] | None = None) -> Path:
    """Write ``trace`` (SI, vocabulary channels) with ``metadata`` header lines; gzip for ``.gz``.
    ``units``: the unit of every channel, for channels outside the vocabulary (co-simulation traces)."""
    path = Path(path)
    units = units if units is not None else {c: OUTPUT_CHANNELS[c][0] for c in OUTPUT_CHANNELS}
    unknown = [c for c in trace.columns if c not in units]
    if unknown:
        raise MBMDataError(f"{path}: unknown channels {unknown} (known: {', '.join(units)})")
    return write_text_maybe_gzipped(path, csv_with_header(trace, FORMAT, metadata, units, "%.10g"))


def csv_with_header(frame: pd.DataFrame, file_format: str, metadata: dict, units: dict[str, str],
                    float_format: str) -> str:
    """The project's CSV text: ``# format:`` and ``# key: value`` lines, then ``name [unit]`` columns."""
    lines = [f"# format: {file_format}", *(f"# {k}: {v}" for k, v in metadata.items())]
    body = frame.to_csv(index=False, header=[f"{c} [{units[c]}]" for c in frame.columns],
                        float_format=float_format, lineterminator="\n")
    return "\n".join(lines) + "\n" + body


def read_trace(path: str | Path) -> tuple[pd.DataFrame, dict[str, str]]:
    """Read a trace: (DataFrame in SI with plain channel names, header metadata)."""
    path = Path(path)
    if not path.is_file():
        raise MBMDataError(f"{path}: no such trace file")
    if path.suffix.lower() in MDF_SUFFIXES:  # a measured log with a channel map (pybridge.mbm.log_traces)
        return read_log_trace(path)
    lines = _open_text(path).splitlines()
    metadata, n, keys = {}, 0, []
    while n < len(lines) and lines[n].startswith("#"):
        key, _, value = lines[n][1:].partition(":")
        metadata[key.strip()] = value.strip()
        keys.append((n + 1, key.strip(), value.strip()))
        n += 1
    if metadata.get("format") != FORMAT:
        if is_log(path):  # a CSV log its data set's manifest names with a map
            return read_log_trace(path)
        raise MBMDataError(f"{path}:1: format: expected '# format: {FORMAT}'")
    if n >= len(lines):
        raise MBMDataError(f"{path}:{n + 1}: expected the column header 'time [s],...'")
    names = []
    for col, cell in enumerate(lines[n].split(","), start=1):
        match = COLUMN.fullmatch(cell)
        if not match:
            raise MBMDataError(f"{path}:{n + 1}:{col}: '{cell}': expected 'channel [unit]'")
        name, unit = match.group(1), match.group(2).strip()
        if name not in OUTPUT_CHANNELS:
            raise MBMDataError(f"{path}:{n + 1}:{col}: unknown channel '{name}'")
        if unit != OUTPUT_CHANNELS[name][0]:
            raise MBMDataError(f"{path}:{n + 1}:{col}: {name}: unit '{unit}', expected '{OUTPUT_CHANNELS[name][0]}'")
        names.append(name)
    data = pd.read_csv(io.StringIO("\n".join(lines[n + 1:])), header=None, names=names)
    bad = np.argwhere(~np.isfinite(data.to_numpy(dtype=float)))
    if bad.size:
        row, col = bad[0]
        raise MBMDataError(f"{path}:{n + 2 + row}:{col + 1}: {names[col]}: expected a finite number")
    if "time" not in data or np.any(np.diff(data["time"].to_numpy()) <= 0):
        raise MBMDataError(f"{path}: expected an increasing 'time' column")
    check_header_keys(keys, path, OUTPUT_CHANNELS)
    try:
        data.attrs["definitions"] = declared_definitions(metadata, path)
    except ChannelDefinitionError as error:
        raise MBMDataError(str(error)) from None
    return data, metadata


def find_trace(dataset_dir: str | Path, name: str) -> Path:
    """The trace of manoeuvre ``name`` in a data set folder: the measured log its manifest names with a
    map, else ``traces/<name>.csv`` or ``.csv.gz``."""
    log = log_file(dataset_dir, name)
    if log is not None:
        if not log.is_file():
            raise FileNotFoundError(f"{log}: no such log (named by {Path(dataset_dir) / 'manifest.yaml'}, "
                                    f"traces.{name}.file)")
        return log
    for suffix in (".csv", ".csv.gz"):
        path = Path(dataset_dir) / "traces" / f"{name}{suffix}"
        if path.is_file():
            return path
    raise FileNotFoundError(f"{dataset_dir}: no trace traces/{name}.csv[.gz]")
