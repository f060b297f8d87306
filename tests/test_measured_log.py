"""Measured logs (MDF4 written here with asammdf, CSV) as reference traces through a channel map."""
from __future__ import annotations

import math

import shutil

import numpy as np
import pytest
import yaml
from asammdf import MDF, Signal

from conftest import REPO
from pybridge.convert import convert_mbm
from pybridge.coverage import offered
from pybridge.evaluate.compare import compare_parameter_sets, trace_path
from pybridge.evaluate.kpi import evaluate_indices
from pybridge.mbm.errors import MBMDataError
from pybridge.traces import find_trace, read_trace

SHIPPED = REPO / "scenarios" / "mbm" / "lcv35"
G = 9.80665
CLOCK = 100.0  # s: the logger's clock at the manoeuvre's t = 0
RATE = 500.0  # Hz: the logger's sample rate (the scenario samples at 200 Hz)
# trace channel -> (logger's name, unit, its value from the SI value)
LOGGED = {"yaw_rate": ("GyroZ", "deg/s", np.degrees), "ay": ("AccY", "g", lambda v: v / G),
          "steering_wheel_angle": ("SWA", "deg", lambda v: -np.degrees(v)),  # the logger counts clockwise
          "speed": ("VehSpd", "km/h", lambda v: 3.6 * v), "roll": ("Roll", "deg", np.degrees),
          "sideslip": ("Beta", "deg", np.degrees)}
NOISE = {"GyroZ": 0.05, "AccY": 0.004, "Roll": 0.01, "Beta": 0.01, "VehSpd": 0.05}  # rms, file units


def _logged(columns=None):
    """(logger time, {name: (samples, unit)}): the shipped step steer as the logger writes it, with noise."""
    reference = read_trace(SHIPPED / "traces" / "step_steer.csv")[0]
    t = np.arange(0.0, float(reference["time"].iloc[-1]), 1 / RATE)
    rng = np.random.default_rng(7)
    channels = {}
    for channel, (name, unit, convert) in LOGGED.items():
        values = convert(np.interp(t, reference["time"], reference[channel]))
        channels[name] = (values + rng.normal(0.0, NOISE.get(name, 0.0), t.size), unit)
    return t + CLOCK, channels


def _map(path, **changes):
    traces = {"time": {"source": "t", "offset": -CLOCK},
              **{channel: {"source": name} for channel, (name, _, _) in LOGGED.items()}}
    traces["steering_wheel_angle"]["scale"] = -1
    traces.update(changes)
    path.write_text(yaml.safe_dump({"format": "vehiclertm-map 1", "traces": traces}))
    return path


def _write_mdf(path, t, channels):
    mdf = MDF(version="4.10")
    mdf.append([Signal(samples, t, name=name, unit=unit) for name, (samples, unit) in channels.items()])
    mdf.save(path, overwrite=True)
    return path


def _dataset(root, log_name="step_steer_run3.mf4", **map_changes):
    """A data set whose step steer is a logger's MDF4 file (or CSV log), named by the manifest with a map."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "logs").mkdir(exist_ok=True)
    manifest = yaml.safe_load((SHIPPED / "manifest.yaml").read_text())
    manifest["traces"] = {"step_steer": {"file": f"logs/{log_name}", "map": "logs/logger_map.yaml"}}
    (root / "manifest.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False))
    _map(root / "logs" / "logger_map.yaml", **map_changes)
    return root


@pytest.fixture(scope="module")
def mdf_set(tmp_path_factory):
    root = _dataset(tmp_path_factory.mktemp("measured") / "set")
    _write_mdf(root / "logs" / "step_steer_run3.mf4", *_logged())
    return root


def test_mdf_log_reads_as_the_data_set_trace(mdf_set):
    path = find_trace(mdf_set, "step_steer")
    assert path.name == "step_steer_run3.mf4"
    assert offered(mdf_set)["step_steer"] is None
    trace, metadata = read_trace(path)
    reference = read_trace(SHIPPED / "traces" / "step_steer.csv")[0]
    assert metadata["format"] == "measured log" and metadata["manoeuvre"] == "step_steer"
    assert list(trace.columns) == ["time", "speed", "ay", "yaw_rate", "roll", "sideslip", "steering_wheel_angle"]
    np.testing.assert_allclose(np.diff(trace["time"]), 1 / 200, rtol=1e-9)   # the scenario's time base
    assert trace["time"].iloc[0] == 0.0                                      # the map's time offset
    for channel, (name, unit, convert) in LOGGED.items():
        expected = np.interp(trace["time"], reference["time"], reference[channel])
        scale = np.max(np.abs(reference[channel]))
        noise = NOISE.get(name, 0.0) / abs(convert(1.0)) if name in NOISE else 0.0
        error = np.abs(trace[channel] - expected)
        assert np.sqrt(np.mean(error ** 2)) < noise + 2e-3 * scale, channel   # units to SI, sign, resampling
    assert trace["steering_wheel_angle"].max() > 0.5                          # scale -1: left is positive


def test_csv_log_reads_like_the_mdf_log(tmp_path, mdf_set):
    t, channels = _logged()
    root = _dataset(tmp_path / "set", log_name="run3.csv")
    header = "t [s]," + ",".join(f"{name} [{unit}]" for name, (_, unit) in channels.items())
    rows = np.column_stack([t, *(samples for samples, _ in channels.values())])
    np.savetxt(root / "logs" / "run3.csv", rows, delimiter=",", header=header, comments="", fmt="%.12g")
    from_csv = read_trace(find_trace(root, "step_steer"))[0]
    from_mdf = read_trace(find_trace(mdf_set, "step_steer"))[0]
    np.testing.assert_allclose(from_csv.to_numpy(), from_mdf.to_numpy(), rtol=1e-9, atol=1e-9)


def _error(root) -> str:
    with pytest.raises(MBMDataError) as caught:
        read_trace(find_trace(root, "step_steer"))
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_missing_channel_names_file_channel_and_near_names(tmp_path):
    root = _dataset(tmp_path / "set", yaw_rate={"source": "GyroZZ"})
    _write_mdf(root / "logs" / "step_steer_run3.mf4", *_logged())
    message = _error(root)
    assert "step_steer_run3.mf4: no channel 'GyroZZ'" in message and "near names: GyroZ" in message


def test_time_going_backwards(tmp_path):
    root = _dataset(tmp_path / "set")
    t, channels = _logged()
    t[300:302] = t[301], t[300]
    _write_mdf(root / "logs" / "step_steer_run3.mf4", t, channels)
    message = _error(root)
    assert "step_steer_run3.mf4: channel '" in message and "at sample 301; expected an increasing time base" in message


def test_nan_sample(tmp_path):
    root = _dataset(tmp_path / "set")
    t, channels = _logged()
    channels["AccY"][0][1000] = np.nan
    _write_mdf(root / "logs" / "step_steer_run3.mf4", t, channels)
    assert "channel 'AccY' (ay): sample 1000 at t = 2 s is nan; expected a finite number" in _error(root)


def test_unit_of_the_wrong_kind(tmp_path):
    root = _dataset(tmp_path / "set")
    t, channels = _logged()
    channels["GyroZ"] = (channels["GyroZ"][0], "m/s")
    _write_mdf(root / "logs" / "step_steer_run3.mf4", t, channels)
    message = _error(root)
    assert "channel 'GyroZ' (yaw_rate): unit 'm/s' is not a unit of the same quantity as 'rad/s'" in message


def test_log_outside_the_scenario_time(tmp_path):
    root = _dataset(tmp_path / "set", time={"source": "t"})  # no offset: the log runs from 100 s
    _write_mdf(root / "logs" / "step_steer_run3.mf4", *_logged())
    assert "shift it with the map's time offset" in _error(root)


def test_damaged_mdf_file(tmp_path, mdf_set):
    root = _dataset(tmp_path / "set")
    data = (mdf_set / "logs" / "step_steer_run3.mf4").read_bytes()
    (root / "logs" / "step_steer_run3.mf4").write_bytes(data[:200])
    assert "cannot read the file as ASAM MDF" in _error(root)


def test_csv_log_without_its_time_column(tmp_path):
    root = _dataset(tmp_path / "set", log_name="run3.csv")
    (root / "logs" / "run3.csv").write_text("time_s,GyroZ\ns,deg/s\n0,1\n0.1,2\n")
    assert "run3.csv:1: no time column 't'" in _error(root)


def test_mdf_without_a_map_in_the_manifest(tmp_path, mdf_set):
    loose = tmp_path / "loose.mf4"
    shutil.copy(mdf_set / "logs" / "step_steer_run3.mf4", loose)
    with pytest.raises(MBMDataError, match="no data set manifest names with a channel map"):
        read_trace(loose)


def test_mdf_step_steer_scored_like_the_csv_trace(rtm_fmu, mdf_set, tmp_path):
    """The RTM against the noisy log through the map: the indices that use the whole response agree with
    those against the CSV trace; peak values and times are noise-dominated at this noise (not asserted)."""
    params = convert_mbm(SHIPPED / "mbm", fmu=rtm_fmu)
    result = compare_parameter_sets({"nominal": params}, mdf_set, rtm_fmu, tmp_path, manoeuvres=["step_steer"],
                                    workers=1, progress=False)
    entry = result["manoeuvres"]["step_steer"]
    assert entry["inputs"]["steering_wheel_angle"]["source"] == "recorded"       # the log's steering drove it
    assert entry["inputs"]["steering_wheel_angle"]["rms_difference"] < 1e-3      # rad, against the nominal step
    rtm = read_trace(trace_path(tmp_path, "nominal", "step_steer"))[0]
    against_csv = {r.name: r.value_percent
                   for r in evaluate_indices("step_steer", rtm, read_trace(SHIPPED / "traces" / "step_steer.csv")[0])}
    for name, value in against_csv.items():
        logged = entry["indices"][name]["nominal"]
        if name.endswith("_trace"):   # the log's noise adds to the RMS error in quadrature: up to 1 % of the range
            assert value - 0.05 <= logged <= math.hypot(value, 1.0), name
        elif name.endswith(("_gain", "_response_time")):
            assert logged == pytest.approx(value, abs=1.5), name


def test_csv_log_with_a_units_row_and_a_sensor_definition(tmp_path):
    root = _dataset(tmp_path / "set", log_name="run3.csv", time={"source": "t", "offset": -1.0},
                    ay_sensor={"source": "AccY"})
    t = np.arange(0, 5001) * 1.0 + 1000.0  # ms, logger clock at 1 s
    ay = 0.3 * np.sin(t / 1000.0)
    (root / "logs" / "run3.csv").write_text("t,AccY,GyroZ\nms,g,deg/s\n" + "".join(
        f"{a},{b},{c}\n" for a, b, c in zip(t, ay, 2 * ay)))
    channel_map = yaml.safe_load((root / "logs" / "logger_map.yaml").read_text())
    channel_map["traces"] = {k: v for k, v in channel_map["traces"].items() if k in ("time", "ay_sensor", "yaw_rate")}
    (root / "logs" / "logger_map.yaml").write_text(yaml.safe_dump(channel_map))
    trace, metadata = read_trace(find_trace(root, "step_steer"))
    assert list(trace.columns) == ["time", "ay", "yaw_rate"] and trace.attrs["definitions"] == {"ay": "sensor"}
    assert metadata["ay_definition"] == "sensor" and trace["time"].iloc[-1] == pytest.approx(5.0)
    k = np.searchsorted(trace["time"], 2.0)
    assert trace["ay"].iloc[k] == pytest.approx(0.3 * np.sin(3.0) * G, rel=1e-3)


def test_map_giving_a_channel_twice(tmp_path):
    root = _dataset(tmp_path / "set", ay_sensor={"source": "AccY"})
    _write_mdf(root / "logs" / "step_steer_run3.mf4", *_logged())
    assert "map entries 'ay' and 'ay_sensor' both give the trace channel 'ay'; expected one" in _error(root)
