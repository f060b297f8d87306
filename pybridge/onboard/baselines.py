"""Baselines for the observer's sideslip, run on the same logs.

- ``kinematic_sideslip``: integrates the accelerometer, dvy/dt = ay - r vx (vx from the wheel speeds,
  corrected by GPS fixes), beta = atan(vy / vx). No model; every bias and the gravity component in
  roll accumulate, which is why nobody uses it alone.
- ``bicycle_kf``: the linear single-track model with states (vy, r) and the front wheel angle as input,
  a Kalman filter corrected with yaw rate and ay, re-discretised every step at the measured speed.
  Its parameters (mass, yaw inertia, CoG position, steering ratio, axle cornering stiffnesses) come
  from the same RTM FMU and parameter set as the observer (:func:`bicycle_parameters`).
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


def bicycle_parameters(fmu, params: ParameterSet, speed: float = 20.0) -> BicycleParameters:
    """The single-track parameters of the RTM: loads, steering gain and tyre slip stiffnesses at rest state."""
    model = RTMModel(fmu, params, initial_speed=speed)
    try:
        get = lambda *names: np.array(model.model.getReal([model.variables[n].valueReference for n in names]))
        fz = get("Fz[1]", "Fz[2]", "Fz[3]", "Fz[4]")
        wheelbase, izz = get("chassis.wheelbase", "chassis.Izz")
        mass = fz.sum() / G
        a = wheelbase * (fz[2] + fz[3]) / fz.sum()
        omega = [model.state_names[i] for i in model.filtered].index("omega[3]")
        radius = speed / model.x0[omega]
        model.set_inputs(0.0, (0.1, 0.0, 0.0))
        steer = model.outputs(model.x0[None], np.ones(1))[0][OUTPUTS.index("wheelSteerAngle[1]")] / 0.1
        names = [model.state_names[i] for i in model.filtered]
        x = model.x0.copy()
        for t in ("FL", "FR", "RL", "RR"):
            x[names.index(f"tire{t}.tanAlpha")] = 0.01
        model.set_inputs(0.0, (0.0, 0.0, 0.0))
        out = model.outputs(x[None], np.ones(1))[0]
        fy = [abs(out[OUTPUTS.index(f"tire{t}.Fy")]) / 0.01 for t in ("FL", "FR", "RL", "RR")]
    finally:
        model.close()
    # yaw inertia: the sprung body's Izz (the unsprung masses sit near the axles and are left out)
    return BicycleParameters(mass, izz, a, wheelbase - a, steer, fy[0] + fy[1], fy[2] + fy[3], radius)


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
