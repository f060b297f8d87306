"""Manoeuvre trace files: round trip (plain and gzip) and malformed files."""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from pybridge.mbm.errors import MBMDataError
from pybridge.traces import read_trace, write_trace


def _trace():
    t = np.arange(0, 1.0, 0.01)
    return pd.DataFrame({"time": t, "ay": 3.0 * np.sin(t), "yaw_rate": 0.1 * t, "fz_fl": 7000 + 10 * t})


@pytest.mark.parametrize("name", ["trace.csv", "trace.csv.gz"])
def test_round_trip(tmp_path, name):
    trace = _trace()
    path = write_trace(trace, tmp_path / name, {"manoeuvre": "unit", "source": "test"})
    back, meta = read_trace(path)
    pd.testing.assert_frame_equal(back, trace, rtol=1e-9)
    assert meta["manoeuvre"] == "unit" and meta["format"] == "vehiclertm-trace 1"
    if name.endswith(".gz"):
        assert gzip.decompress(path.read_bytes()).startswith(b"# format: vehiclertm-trace 1")


def test_writer_refuses_unknown_channels(tmp_path):
    with pytest.raises(MBMDataError, match="unknown channels \\['lateral_g'\\]"):
        write_trace(_trace().rename(columns={"ay": "lateral_g"}), tmp_path / "t.csv", {})


@pytest.mark.parametrize("mutate, message", [
    (lambda lines: [lines[0].replace("trace 1", "trace 9")] + lines[1:], ":1: format"),
    (lambda lines: lines[:2] + [lines[2].replace("ay [m/s^2]", "ay [g]")] + lines[3:], ":3:2: ay: unit 'g', expected 'm/s^2'"),
    (lambda lines: lines[:2] + [lines[2].replace("yaw_rate", "yawrate")] + lines[3:], ":3:3: unknown channel 'yawrate'"),
    (lambda lines: lines[:2] + [lines[2].replace("fz_fl [N]", "fz_fl")] + lines[3:], ":3:4: 'fz_fl': expected 'channel [unit]'"),
    (lambda lines: lines[:6] + [lines[6].replace(lines[6].split(",")[1], "nan", 1)] + lines[7:], ":7:2: ay: expected a finite number"),
    (lambda lines: lines[:6] + [lines[5]] + lines[7:], "expected an increasing 'time' column"),
])
def test_malformed_traces_name_file_line_and_expectation(tmp_path, mutate, message):
    path = write_trace(_trace(), tmp_path / "t.csv", {"manoeuvre": "unit"})
    lines = path.read_text().splitlines()
    path.write_text("\n".join(mutate(lines)) + "\n")
    with pytest.raises(MBMDataError) as err:
        read_trace(path)
    assert str(path) in str(err.value) and message in str(err.value)
