"""The sensor model of the validation logs, and the log file the observer reads.

A production van's sensors, sampled by a 500 Hz logger (``SensorModel(seed).apply(truth)``; every
random draw from one ``numpy.random.default_rng(seed)``, so a log is reproducible):

=================  =====================  ======================================================================
channel            from (MBM, truth)      model
=================  =====================  ======================================================================
yaw_rate           body yaw rate (IMU)    bias N(0, 0.003 rad/s) + random walk 1e-4 rad/s/sqrt(s); white noise
                                          sd 0.002 rad/s; quantised to 1e-4 rad/s
ax, ay             specific force along   bias N(0, 0.08 m/s^2) + random walk 0.002 m/s^2/sqrt(s); white noise
                   the body axes at the   sd 0.04 m/s^2; quantised to 0.005 m/s^2 (a body-fixed accelerometer:
                   sprung CoG (IMU)       reads g sin(roll), g sin(pitch))
wheel_speed_XX     wheel spin (rad/s)     white noise sd 0.05 rad/s; quantised to 0.02 rad/s (FL, FR, RL, RR)
steering_wheel_    steering-wheel angle   white noise sd 0.001 rad; quantised to 0.1 deg
angle
gps_speed          speed over ground      50 Hz: white noise sd 0.05 m/s, quantised to 0.01 m/s, held between
                                          fixes; ``gps_fix`` is 1 on the sample of a new fix, else 0
throttle, brake    pedals (0..1)          quantised to 0.001
=================  =====================  ======================================================================

The truth a log carries beside them (not sensor readings; for validation only): ``true_sideslip``,
``true_fy_front``, ``true_fy_rear`` (lateral tyre force per axle, yaw frame), ``true_mu`` (road
friction), ``true_speed``, ``true_yaw_rate``, ``true_ay``, and the drawn IMU biases
``bias_yaw_rate``, ``bias_ax``, ``bias_ay``.

A log is the project's trace layout (``# format: vehiclertm-log 1``, ``channel [unit]`` header, CSV,
``.gz`` compressed or not), 500 Hz, with the channels of ``LOG_CHANNELS``: ``REQUIRED`` ones, the RTM's
inputs as :mod:`pybridge.onboard.log_inputs` takes them (``steering_wheel_angle`` or ``rack_travel``;
``wheel_torque_rl``/``_rr`` or ``throttle``; ``brake_pressure`` or ``brake``), truth channels optional.
"""
from __future__ import annotations

import gzip
import io
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from pybridge.fileio import write_text_maybe_gzipped
from pybridge.mbm.errors import MBMDataError
from pybridge.traces import csv_with_header

__all__ = ["LOG_CHANNELS", "LogError", "SensorModel", "read_log", "write_log"]

FORMAT = "vehiclertm-log 1"
_COLUMN = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]\s*")
_WHEELS = ("fl", "fr", "rl", "rr")
LOG_CHANNELS = {
    "time": "s", "yaw_rate": "rad/s", "ax": "m/s^2", "ay": "m/s^2",
    **{f"wheel_speed_{w}": "rad/s" for w in _WHEELS},
    "steering_wheel_angle": "rad", "gps_speed": "m/s", "gps_fix": "1", "throttle": "1", "brake": "1",
    "rack_travel": "m", "wheel_torque_rl": "N m", "wheel_torque_rr": "N m", "brake_pressure": "Pa",
    "true_sideslip": "rad", "true_fy_front": "N", "true_fy_rear": "N", "true_mu": "1", "true_speed": "m/s",
    "true_yaw_rate": "rad/s", "true_ay": "m/s^2", "bias_yaw_rate": "rad/s", "bias_ax": "m/s^2", "bias_ay": "m/s^2",
}
REQUIRED = ("time", "yaw_rate", "ax", "ay", *(f"wheel_speed_{w}" for w in _WHEELS), "gps_speed", "gps_fix")


class LogError(MBMDataError):
    """A log the observer cannot read: names the file, the line or channel, and what was expected."""


class SensorModel:
    """Noise, bias, random walk, quantisation and sample rates of the log's sensors (module docstring)."""

    imu = {"yaw_rate": (0.003, 1e-4, 0.002, 1e-4), "ax": (0.08, 0.002, 0.04, 0.005),
           "ay": (0.08, 0.002, 0.04, 0.005)}  # bias sd, random walk /sqrt(s), white sd, quantum
    wheel = (0.05, 0.02)
    steer = (0.001, np.radians(0.1))
    gps = (50.0, 0.05, 0.01)   # rate Hz, white sd, quantum
    pedal_quantum = 0.001

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def _noisy(self, values: np.ndarray, sd: float, quantum: float) -> np.ndarray:
        return np.round((values + self.rng.normal(0.0, sd, len(values))) / quantum) * quantum

    def apply(self, truth: pd.DataFrame) -> pd.DataFrame:
        """The log of an MBM trace with the truth channels (:mod:`pybridge.onboard.validation_logs`)."""
        t = truth["time"].to_numpy(float)
        dt = np.diff(t, prepend=t[0])
        log = {"time": t}
        for name, (bias_sd, walk, white, quantum) in self.imu.items():
            bias = self.rng.normal(0.0, bias_sd) + np.cumsum(self.rng.normal(0.0, 1.0, len(t)) * walk * np.sqrt(dt))
            log[name] = self._noisy(truth[f"{name}_imu"].to_numpy(float) + bias, white, quantum)
            log[f"bias_{name}"] = bias
        for w in _WHEELS:
            log[f"wheel_speed_{w}"] = self._noisy(truth[f"wheel_speed_{w}"].to_numpy(float), *self.wheel)
        log["steering_wheel_angle"] = self._noisy(truth["steering_wheel_angle"].to_numpy(float), *self.steer)
        log["gps_speed"], log["gps_fix"] = self._gps(t, truth["speed"].to_numpy(float))
        for pedal in ("throttle", "brake"):
            log[pedal] = np.round(truth[pedal].to_numpy(float) / self.pedal_quantum) * self.pedal_quantum
        log.update(true_sideslip=truth["sideslip"], true_fy_front=truth["fy_front"], true_fy_rear=truth["fy_rear"],
                   true_mu=truth["mu"], true_speed=truth["speed"], true_yaw_rate=truth["yaw_rate_imu"],
                   true_ay=truth["ay_imu"])
        return pd.DataFrame({name: np.asarray(log[name], float) for name in LOG_CHANNELS if name in log})

    def _gps(self, t: np.ndarray, speed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rate, sd, quantum = self.gps
        fix = np.zeros(len(t))
        fix[np.flatnonzero(np.diff(np.floor(t * rate + 1e-9), prepend=-1) > 0)] = 1.0
        noisy = self._noisy(speed, sd, quantum)
        held = noisy[np.maximum.accumulate(np.where(fix > 0, np.arange(len(t)), 0))]
        return held, fix


def write_log(log: pd.DataFrame, path: str | Path, metadata: dict[str, str]) -> Path:
    """Write a log (``.gz``: gzip-compressed), atomically; returns its path."""
    return write_text_maybe_gzipped(Path(path), csv_with_header(log, FORMAT, metadata, LOG_CHANNELS, "%.9g"))


def read_log(path: str | Path) -> tuple[pd.DataFrame, dict[str, str]]:
    """Read and check a log: (channels in SI, header metadata); a LogError names the file and place."""
    path = Path(path)
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        lines = raw.decode("utf-8").splitlines()
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as error:
        raise LogError(f"{path}: cannot read the log ({error}); expected a UTF-8 CSV log, gzip or not") from None
    metadata, n = {}, 0
    while n < len(lines) and lines[n].startswith("#"):
        key, _, value = lines[n][1:].partition(":")
        metadata[key.strip()] = value.strip()
        n += 1
    if metadata.get("format") != FORMAT:
        raise LogError(f"{path}:1: format: expected '# format: {FORMAT}'")
    if n >= len(lines):
        raise LogError(f"{path}:{n + 1}: expected the column header 'time [s],...'")
    names = [_column(path, n + 1, col, cell) for col, cell in enumerate(lines[n].split(","), start=1)]
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise LogError(f"{path}:{n + 1}: missing channels {', '.join(missing)} (a log needs {', '.join(REQUIRED)})")
    data = pd.read_csv(io.StringIO("\n".join(lines[n + 1:])), header=None, names=names)
    values = data.to_numpy(dtype=float)
    bad = np.argwhere(~np.isfinite(values))
    if bad.size:
        row, col = bad[0]
        raise LogError(f"{path}:{n + 2 + row}: {names[col]}: expected a finite number")
    if len(data) < 2 or np.any(np.diff(data["time"].to_numpy()) <= 0):
        raise LogError(f"{path}: time: expected at least 2 samples, strictly increasing")
    return data, metadata


def _column(path: Path, line: int, col: int, cell: str) -> str:
    match = _COLUMN.fullmatch(cell)
    if not match:
        raise LogError(f"{path}:{line}:{col}: '{cell}': expected 'channel [unit]'")
    name, unit = match.group(1), match.group(2).strip()
    if name not in LOG_CHANNELS:
        raise LogError(f"{path}:{line}:{col}: unknown channel '{name}' (known: {', '.join(LOG_CHANNELS)})")
    if unit != LOG_CHANNELS[name]:
        raise LogError(f"{path}:{line}:{col}: {name}: unit '{unit}', expected '{LOG_CHANNELS[name]}'")
    return name
