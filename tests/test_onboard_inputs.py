"""Log inputs for replay: each channel at its own rate onto the RTM's 1 ms step, held or interpolated."""
from __future__ import annotations

import numpy as np
import pytest

from pybridge.mbm.channel_map import load_channel_map
from pybridge.onboard.log_inputs import LogInputError, Signal, log_inputs, read_log_inputs
from pybridge.onboard.resample import resample


def test_500hz_step_is_seen_at_its_millisecond():
    times = np.arange(0, 1.0, 0.002)  # 500 Hz
    values = np.where(times >= 0.5 - 1e-12, 1.0, 0.0)  # the step is sampled at t = 0.500 s
    grid = np.arange(0, 0.99, 0.001)
    held = resample(times, values, grid, "hold")
    assert grid[np.argmax(held > 0.5)] == pytest.approx(0.500)
    linear = resample(times, values, grid, "linear")
    assert linear[np.searchsorted(grid, 0.499 - 1e-9)] == pytest.approx(0.5)  # half way between 0.498 and 0.500


def test_50hz_hold_versus_interpolate():
    times = np.arange(0, 1.0, 0.02)  # 50 Hz GPS
    values = 10.0 * times
    grid = np.arange(0, 0.98, 0.001)
    held = resample(times, values, grid, "hold")
    linear = resample(times, values, grid, "linear")
    assert np.allclose(linear, 10.0 * grid)
    assert np.all(held[:20] == 0.0) and held[20] == pytest.approx(0.2)  # flat for 20 steps
    assert np.max(linear - held) == pytest.approx(0.19, abs=1e-9)  # 19 ms of the ramp at most


def _signals(**extra):
    t500, t50 = np.arange(0, 2.0, 0.002), np.arange(0, 2.0, 0.02)
    signals = {"steering_wheel_angle": Signal(t500, np.sin(t500)),
               "wheel_torque_rl": Signal(t500, np.full_like(t500, 150.0), "hold"),
               "brake_pressure": Signal(t500, np.where(t500 >= 1.0 - 1e-12, 2e6, 0.0), "hold"),
               "speed": Signal(t50, 20.0 + t50, "hold")}
    signals.update(extra)
    return signals


def test_log_inputs_modes_and_sources():
    inputs = log_inputs(_signals(), "log.mf4")
    assert inputs.mode == "wheel_torque"
    assert inputs.sources["rearWheelTorque[2]"] == "wheel_torque_rl"  # one sensor drives both wheels
    assert inputs.time[1] == pytest.approx(1e-3) and inputs.initial_speed == pytest.approx(20.0)
    k = int(np.argmax(inputs.values["brakePressure"] > 0))
    assert inputs.time[k] == pytest.approx(1.0)
    no_torque = {k: v for k, v in _signals().items() if k != "wheel_torque_rl"}
    pedals = log_inputs({**no_torque, "throttle": Signal(np.arange(0, 2, .01), np.full(200, .3))}, "log.mf4")
    assert pedals.mode == "pedals" and np.allclose(pedals.values["throttle"], 0.3)
    rack = log_inputs(_rack_signals(0.004), "log", steering_ratio=0.008)
    assert np.allclose(rack.values["steeringWheelAngle"], 0.5)
    with pytest.raises(LogInputError, match=r"^log: channel rack_travel: needs the steering ratio"):
        log_inputs(_rack_signals(0.0), "log")


def _rack_signals(travel):
    signals = {k: v for k, v in _signals().items() if k != "steering_wheel_angle"}
    return {**signals, "rack_travel": Signal(np.arange(0, 2, .002), np.full(1000, travel))}


def _write_csv(path, rate_torque=500.0):
    t = np.arange(0, 1.0, 1 / rate_torque)
    rows = ["t [s],SWA [deg],Tq [N m],v [km/h]"] + [f"{x:.6f},{10 * x:.6f},100,72" for x in t]
    path.write_text("\n".join(rows) + "\n")
    return path


def _write_map(path, torque="Tq", rate=500):
    path.write_text("format: vehiclertm-map 1\ntraces:\n  time: {source: t}\n"
                    f"  steering_wheel_angle: {{source: SWA, rate: 500}}\n"
                    f"  wheel_torque_rl: {{source: {torque}, rate: {rate}, resample: hold}}\n"
                    "  speed: {source: v}\n")
    return load_channel_map(path)


def test_csv_log_with_a_map(tmp_path):
    log = _write_csv(tmp_path / "drive.csv")
    inputs = read_log_inputs(log, _write_map(tmp_path / "map.yaml"))
    assert inputs.initial_speed == pytest.approx(20.0)
    assert inputs.values["steeringWheelAngle"][100] == pytest.approx(np.radians(1.0))  # 10 deg/s at 0.1 s
    assert np.all(inputs.values["rearWheelTorque[1]"] == 100.0)


def test_bad_rate_and_bad_channel_name_one_line(tmp_path):
    log = _write_csv(tmp_path / "drive.csv", rate_torque=100.0)
    with pytest.raises(LogInputError) as bad_rate:
        read_log_inputs(log, _write_map(tmp_path / "map.yaml"))
    message = str(bad_rate.value)
    assert "\n" not in message and "drive.csv: channel 'SWA'" in message and "declares rate 500 Hz" in message
    log = _write_csv(tmp_path / "ok.csv")
    with pytest.raises(Exception) as bad_name:
        read_log_inputs(log, _write_map(tmp_path / "map2.yaml", torque="Torq"))
    assert "ok.csv" in str(bad_name.value) and "'Torq'" in str(bad_name.value) and "\n" not in str(bad_name.value)
