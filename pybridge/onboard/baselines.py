"""Baselines for the observer's sideslip, run on the same logs.

- ``kinematic_sideslip``: integrates the accelerometer, dvy/dt = ay - r vx (vx from the wheel speeds,
  corrected by GPS fixes), beta = atan(vy / vx). No model; every bias and the gravity component in
  roll accumulate, which is why nobody uses it alone.
- ``bicycle_kf``: the linear single-track model with states (vy, r) and the front wheel angle as input,
  a Kalman filter corrected with yaw rate and ay, re-discretised every step at the measured speed.
  Its parameters (mass, yaw inertia, CoG position, steering ratio, effective axle cornering
  stiffnesses from a steady turn) come from the same RTM FMU and parameter set as the observer
  (:func:`bicycle_parameters`), at the log's speed.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from pybridge.onboard.rtm_model import OUTPUTS, RTMModel
from pybridge.parameters import ParameterSet

__all__ = ["BicycleParameters", "bicycle_kf", "bicycle_parameters", "kinematic_sideslip", "measured_speed"]

_WHEELS = ("fl", "fr", "rl", "rr")
G = 9.80665


@dataclasses.dataclass(frozen=True)
class BicycleParameters:
    mass: float             # kg
    yaw_inertia: float      # kg m^2
    a: float                # CoG to front axle, m
    b: float                # CoG to rear axle, m
    steering_ratio: float   # road wheel angle / steering-wheel angle
    c_front: float          # axle cornering stiffness, N/rad
    c_rear: float
    radius: float           # rolling radius for the wheel speeds, m


def bicycle_parameters(fmu, params: ParameterSet, speed: float = 20.0, steer: float = 0.25,
                       seconds: float = 4.0) -> BicycleParameters:
    """The single-track parameters of the RTM at ``speed`` (m/s): mass and CoG position from its static
    loads, Izz of the sprung body, the steering gain at the straight-ahead position, and the effective
    axle cornering stiffnesses of a steady turn (steering-wheel angle ``steer`` held for ``seconds``):
    each axle's lateral force over its single-track slip angle, so they absorb roll and compliance steer."""
    model = RTMModel(fmu, params, initial_speed=speed)
    try:
        get = lambda *names: np.array(model.model.getReal([model.variables[n].valueReference for n in names]))
        fz = get("Fz[1]", "Fz[2]", "Fz[3]", "Fz[4]")
        wheelbase, izz = get("chassis.wheelbase", "chassis.Izz")
        mass, a = fz.sum() / G, wheelbase * (fz[2] + fz[3]) / fz.sum()
        b = wheelbase - a
        names = [model.state_names[i] for i in model.filtered]
        radius = speed / model.x0[names.index("omega[3]")]
        model.set_inputs(0.0, (0.1, 0.0, 0.0))
        ratio = model.outputs(model.x0[None], np.ones(1))[0][OUTPUTS.index("wheelSteerAngle[1]")] / 0.1
        x = model.x0[None].copy()
        for k in range(round(seconds / 0.002)):
            model.set_inputs(k * 0.002, (steer, 0.0, 0.0))
            x = model.propagate(x, np.ones(1), 0.002)
        out = dict(zip(OUTPUTS, model.outputs(x, np.ones(1))[0]))
    finally:
        model.close()
    v, r, beta = out["speed"], out["yawRate"], out["sideslip"]
    front = sum(out[f"tire{t}.Fy"] * np.cos(out[f"wheelSteerAngle[{k}]"]) + out[f"tire{t}.Fx"]
                * np.sin(out[f"wheelSteerAngle[{k}]"]) for k, t in ((1, "FL"), (2, "FR")))
    rear = out["tireRL.Fy"] + out["tireRR.Fy"]
    c_front = front / (ratio * steer - beta - a * r / v)
    c_rear = rear / (b * r / v - beta)
    return BicycleParameters(mass, izz, a, b, ratio, c_front, c_rear, radius)


def measured_speed(log: pd.DataFrame, radius: float) -> np.ndarray:
    """Speed from the mean wheel speed times the rolling radius, scaled to agree with the GPS fixes."""
    wheels = log[[f"wheel_speed_{w}" for w in _WHEELS]].to_numpy(float).mean(axis=1) * radius
    if "gps_fix" not in log or not (log["gps_fix"] > 0).any():
        return wheels
    fixes = log["gps_fix"].to_numpy() > 0
    scale = np.sum(log["gps_speed"].to_numpy(float)[fixes] * wheels[fixes]) / np.sum(wheels[fixes] ** 2)
    return wheels * scale


def kinematic_sideslip(log: pd.DataFrame, radius: float) -> np.ndarray:
    """Sideslip (rad) at every sample by integrating vy' = ay - r vx from vy = 0."""
    t = log["time"].to_numpy(float)
    vx = measured_speed(log, radius)
    rate = log["ay"].to_numpy(float) - log["yaw_rate"].to_numpy(float) * vx
    vy = np.concatenate([[0.0], np.cumsum(0.5 * (rate[1:] + rate[:-1]) * np.diff(t))])
    return np.arctan2(vy, np.maximum(vx, 0.1))


def bicycle_kf(log: pd.DataFrame, p: BicycleParameters, *, q_vy: float = 0.5, q_r: float = 0.1,
               r_yaw_rate: float = 0.004, r_ay: float = 0.25) -> np.ndarray:
    """Sideslip (rad) at every sample from the linear single-track Kalman filter."""
    t = log["time"].to_numpy(float)
    vx = np.maximum(measured_speed(log, p.radius), 1.0)
    delta = log["steering_wheel_angle"].to_numpy(float) * p.steering_ratio
    z = np.column_stack([log["yaw_rate"].to_numpy(float), log["ay"].to_numpy(float)])
    x, P = np.zeros(2), np.diag([0.1, 0.01]) ** 2
    R = np.diag([r_yaw_rate, r_ay]) ** 2
    cf, cr, m, iz, a, b = p.c_front, p.c_rear, p.mass, p.yaw_inertia, p.a, p.b
    beta = np.zeros(len(t))
    for k in range(1, len(t)):
        dt, u = t[k] - t[k - 1], vx[k - 1]
        A = np.array([[-(cf + cr) / (m * u), (b * cr - a * cf) / (m * u) - u],
                      [(b * cr - a * cf) / (iz * u), -(a * a * cf + b * b * cr) / (iz * u)]])
        B = np.array([cf / m, a * cf / iz])
        F = np.eye(2) + A * dt
        x = F @ x + B * dt * delta[k - 1]
        P = F @ P @ F.T + np.diag([q_vy, q_r]) ** 2 * dt
        u = vx[k]
        H = np.array([[0.0, 1.0], [-(cf + cr) / (m * u), (b * cr - a * cf) / (m * u)]])
        D = np.array([0.0, cf / m])
        S = H @ P @ H.T + R
        K = np.linalg.solve(S, H @ P).T
        x = x + K @ (z[k] - H @ x - D * delta[k])
        P = (np.eye(2) - K @ H) @ P
        beta[k] = np.arctan2(x[0], u)
    return beta
