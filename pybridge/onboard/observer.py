"""The state observer: an unscented Kalman filter on the RTM FMU, driven and corrected by a vehicle log.

Filter state: the RTM's continuous states (:class:`pybridge.onboard.rtm_model.RTMModel`), the IMU
biases of yaw rate, ax and ay (random walks), and the road friction coefficient (a random walk that
scales the RTM tyres' LMUX and LMUY, bounded to ``MU_RANGE``). Per log sample (500 Hz): the RTM's
inputs come from the log through :func:`pybridge.onboard.log_inputs.log_inputs` (steering-wheel angle
or rack travel; hub torque or throttle; brake pressure or pedal), held over the step; the sigma
points are propagated by the RTM (Heun, one step) and corrected with yaw rate, ax, ay (each plus its
bias), the four wheel speeds, and the GPS speed on the samples of a fix. Estimates: sideslip at the
CoG, lateral tyre force per axle (yaw frame), friction; each with its standard deviation.
"""
from __future__ import annotations

import dataclasses
import gc
import time as clock

import numpy as np
import pandas as pd

from pybridge.onboard.log_inputs import INPUT_CHANNELS, LogInputs, Signal, log_inputs
from pybridge.onboard.rtm_model import FRICTION_INPUTS, OUTPUTS, RTMModel
from pybridge.onboard.ukf import UnscentedKalmanFilter
from pybridge.parameters import ParameterSet

__all__ = ["ESTIMATES", "ObserverSettings", "run_observer"]

ESTIMATES = ("sideslip", "fy_front", "fy_rear")
MU_RANGE = (0.2, 1.3)
_O = {name: i for i, name in enumerate(OUTPUTS)}
_WHEELS = ("fl", "fr", "rl", "rr")


@dataclasses.dataclass
class ObserverSettings:
    """Noise levels of the filter (SI). Process noise as standard deviations per sqrt(s) of a random
    walk; measurement noise as standard deviations, sensor noise plus the RTM's model error."""

    q_velocity: float = 0.3          # vx, vy: m/s per sqrt(s)
    q_rate: float = 0.05             # yaw, roll, pitch rates: rad/s per sqrt(s)
    q_other: float = 0.01            # the other RTM states, relative to 1 per sqrt(s)
    q_wheel: float = 2.0             # wheel spins: rad/s per sqrt(s)
    q_bias: tuple = (1e-4, 2e-3, 2e-3)  # yaw rate, ax, ay bias random walks
    q_mu: float = 0.05               # friction per sqrt(s)
    r_yaw_rate: float = 0.004
    r_accel: float = 0.25
    r_wheel: float = 1.0             # rad/s: sensor noise and the RTM-MBM wheel slip and radius difference
    r_gps: float = 0.08
    p0_bias: tuple = (0.003, 0.08, 0.08)
    p0_mu: float = 0.3
    mu0: float = 1.0


def _process_noise(model: RTMModel, s: ObserverSettings, dt: float) -> np.ndarray:
    names = [model.state_names[i] for i in model.filtered]
    q = []
    for name in names:
        if name in ("vx", "vy"):
            q.append(s.q_velocity)
        elif name in ("yawRate", "rollRate", "pitchRate"):
            q.append(s.q_rate)
        elif name.startswith("omega["):
            q.append(s.q_wheel)
        else:
            q.append(s.q_other * max(1.0, abs(float(model.x0[len(q)]))))
    q += [*s.q_bias, s.q_mu]
    return np.diag(np.square(q) * dt)


def _initial(model: RTMModel, s: ObserverSettings) -> tuple[np.ndarray, np.ndarray]:
    x0 = np.concatenate([model.x0, np.zeros(3), [s.mu0]])
    spread = np.abs(model.x0) * 1e-3 + 1e-4
    P0 = np.diag(np.concatenate([spread, s.p0_bias, [s.p0_mu]]) ** 2)
    return x0, P0


def _derived(O: np.ndarray) -> np.ndarray:
    """Sideslip, front and rear axle lateral force (yaw frame) at every point's outputs."""
    front = sum(O[:, _O[f"tire{t}.Fy"]] * np.cos(O[:, _O[f"wheelSteerAngle[{k}]"]])
                + O[:, _O[f"tire{t}.Fx"]] * np.sin(O[:, _O[f"wheelSteerAngle[{k}]"]])
                for k, t in ((1, "FL"), (2, "FR")))
    rear = O[:, _O["tireRL.Fy"]] + O[:, _O["tireRR.Fy"]]
    return np.column_stack([O[:, _O["sideslip"]], front, rear])


def rtm_inputs(log: pd.DataFrame, where: str, params: ParameterSet) -> LogInputs:
    """The RTM's inputs on the log's own samples (held), by the rules of ``log_inputs``; the speed for the
    RTM's start from the GPS fixes."""
    t = log["time"].to_numpy(float)
    signals = {c: Signal(t, log[c].to_numpy(float), "hold") for c in INPUT_CHANNELS if c in log and c != "speed"}
    fixes = log["gps_fix"].to_numpy() > 0 if "gps_fix" in log else np.zeros(len(t), bool)
    if fixes.sum() >= 2:
        signals["speed"] = Signal(t[fixes], log["gps_speed"].to_numpy(float)[fixes], "hold")
    return log_inputs(signals, where, steering_ratio=params.scalars.get("chassis.steeringRatio"),
                      step=float(np.median(np.diff(t))))


def run_observer(log: pd.DataFrame, fmu, params: ParameterSet, settings: ObserverSettings | None = None,
                 *, timer=None, where: str = "the log") -> pd.DataFrame:
    """Estimates at every log sample: time, ESTIMATES and mu, each with ``<name>_sd``, the biases.
    ``timer``: a list that gets the thread CPU time (s) of every update (predict + correct)."""
    s = settings or ObserverSettings()
    inputs = rtm_inputs(log, where, params)
    log = log[log["time"] >= inputs.start - 1e-9].reset_index(drop=True)
    names = tuple(n for n in inputs.values if n not in FRICTION_INPUTS)  # the filter sets the friction
    table = np.column_stack([inputs.values[n] for n in names])
    model = RTMModel(fmu, params, inputs.initial_speed, names,
                     {"wheelTorqueInput": True} if inputs.mode == "wheel_torque" else None)
    collecting = gc.isenabled()
    gc.disable()  # a cyclic collection costs up to 60 ms inside one update; nothing here forms cycles
    try:
        n = len(model.filtered)
        ukf = UnscentedKalmanFilter(*_initial(model, s))
        t = log["time"].to_numpy(float)
        Q = _process_noise(model, s, float(np.median(np.diff(t))))
        cols = {c: log[c].to_numpy(float) for c in log.columns}
        imu = np.column_stack([cols["yaw_rate"], cols["ax"], cols["ay"]])
        wheels = np.column_stack([cols[f"wheel_speed_{w}"] for w in _WHEELS])
        gps_fix = cols.get("gps_fix", np.zeros(len(t)))
        rows = []
        omega = [list(model.state_names[i] for i in model.filtered).index(f"omega[{k}]") for k in range(1, 5)]
        R_base = np.diag(np.square([s.r_yaw_rate, s.r_accel, s.r_accel, *[s.r_wheel] * 4]))
        for k in range(min(len(t), len(table)) - 1):
            start = clock.thread_time()
            dt = t[k + 1] - t[k]
            model.set_inputs(t[k], table[k])

            def fx(S):
                mu = np.clip(S[:, -1], *MU_RANGE)
                return np.column_stack([model.propagate(S[:, :n], mu, dt), S[:, n:n + 3], mu])
            ukf.predict(fx, Q)
            O = model.outputs(ukf.sigmas[:, :n], ukf.sigmas[:, -1])
            H = np.column_stack([O[:, _O["yawRate"]] + ukf.sigmas[:, n], O[:, _O["axSensor"]] + ukf.sigmas[:, n + 1],
                                 O[:, _O["aySensor"]] + ukf.sigmas[:, n + 2], ukf.sigmas[:, omega]])
            z, R = np.concatenate([imu[k + 1], wheels[k + 1]]), R_base
            if gps_fix[k + 1] > 0:
                H = np.column_stack([H, O[:, _O["speed"]]])
                z, R = np.append(z, cols["gps_speed"][k + 1]), np.diag(np.append(np.diag(R_base), s.r_gps ** 2))
            ukf.update(z, lambda _: H, R, derived=_derived(O))
            ukf.x[-1] = np.clip(ukf.x[-1], *MU_RANGE)
            model.commit(ukf.x[:n], ukf.x[-1])
            if timer is not None:
                timer.append(clock.thread_time() - start)
            rows.append(_row(t[k + 1], ukf, n))
    finally:
        model.close()
        if collecting:
            gc.enable()
    return pd.DataFrame(rows)


def _row(t: float, ukf: UnscentedKalmanFilter, n: int) -> dict:
    sd = np.sqrt(np.maximum(np.diag(ukf.derived_cov), 0.0))
    row = {"time": t}
    for i, name in enumerate(ESTIMATES):
        row[name], row[f"{name}_sd"] = float(ukf.derived_mean[i]), float(sd[i])
    row["mu"], row["mu_sd"] = float(ukf.x[-1]), float(np.sqrt(max(ukf.P[-1, -1], 0.0)))
    for i, name in enumerate(("bias_yaw_rate", "bias_ax", "bias_ay")):
        row[name] = float(ukf.x[n + i])
    return row
