"""Rear-wheel-drive driveline and brakes of the multibody reference vehicle (SI units).

``Driveline(parameters).wheel_torques(throttle, brake, wheel_speeds, h)`` returns the drive and the
brake torque on each wheel (order FL, FR, RL, RR; positive driving the wheel forward; add both to
the wheel's spin equation). The model, as in ``VehicleRTM.Powertrain.Driveline``:

- rigid clutch: engine speed = gear ratio x final drive x mean rear wheel speed, never below idle;
- engine torque: bilinear interpolation of the map over (throttle, engine speed), clamped at its
  edges; fuel cut (throttle 0) at and above ``max_speed``;
- gearbox and final drive: losses oppose the power flow (x efficiency in traction, / in overrun);
- open differential: equal torque on the two rear wheels;
- shift schedule: in gear k, up when the engine speed exceeds ``upshift_speed[k]``, down when it
  falls below ``downshift_speed[k-1]``, at most one gear per ``min_shift_interval``;
- brakes: pedal x torque per unit pedal, opposing the spin with ``tanh(omega/brake_speed_scale)``
  (a regularised Coulomb law: smooth, holds a wheel at standstill up to a slow creep, no chatter).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Driveline", "DrivelineParameters"]


@dataclass
class DrivelineParameters:
    """Engine, gearbox and brake data, SI. Gears are numbered from 1; index k below is 0-based.

    engine_torque[i, j] is the torque at throttle[i] and engine_speed[j]. upshift_speed[k]: engine
    speed in gear k+1 above which it shifts to k+2; downshift_speed[k]: engine speed in gear k+2
    below which it shifts to k+1 (a single number applies to every gear change). Brake torques are
    per wheel at full pedal.
    """
    engine_speed: np.ndarray  # rad/s, increasing
    throttle: np.ndarray  # 0..1, increasing
    engine_torque: np.ndarray  # N m, shape (len(throttle), len(engine_speed))
    idle_speed: float  # rad/s
    max_speed: float  # rad/s
    engine_inertia: float  # kg m^2
    gear_ratios: np.ndarray  # first to top gear
    final_drive: float
    efficiency: float  # of gearbox and final drive together, (0, 1]
    upshift_speed: np.ndarray  # rad/s, one per gear but the top (or one for all)
    downshift_speed: np.ndarray  # rad/s, one per gear but the first (or one for all)
    front_brake_torque_per_pedal: float  # N m per front wheel at pedal 1
    rear_brake_torque_per_pedal: float  # N m per rear wheel at pedal 1

    def __post_init__(self):
        for name in ("engine_speed", "throttle", "engine_torque", "gear_ratios", "upshift_speed", "downshift_speed"):
            value = np.array(getattr(self, name), dtype=float)
            if not np.all(np.isfinite(value)):
                raise ValueError(f"DrivelineParameters.{name}: must be finite")
            setattr(self, name, value)
        for name in ("engine_speed", "throttle"):
            axis = getattr(self, name)
            if axis.ndim != 1 or axis.size < 2 or np.any(np.diff(axis) <= 0):
                raise ValueError(f"DrivelineParameters.{name}: expected at least 2 strictly increasing breakpoints")
        shape = (self.throttle.size, self.engine_speed.size)
        if self.engine_torque.shape != shape:
            raise ValueError(f"DrivelineParameters.engine_torque: shape {self.engine_torque.shape}, "
                             f"expected {shape} (throttle x engine_speed)")
        n = self.gear_ratios.size
        ratios = self.gear_ratios
        if ratios.ndim != 1 or n < 1 or np.any(ratios <= 0) or np.any(np.diff(ratios) >= 0):
            raise ValueError("DrivelineParameters.gear_ratios: expected positive ratios decreasing from first gear")
        for name in ("upshift_speed", "downshift_speed"):
            if getattr(self, name).ndim == 0:  # one speed for every gear change
                setattr(self, name, np.full(n - 1, getattr(self, name)))
            if getattr(self, name).shape != (n - 1,):
                raise ValueError(f"DrivelineParameters.{name}: expected {n - 1} values (one per gear change)")
        if not 0 < self.idle_speed < self.max_speed:
            raise ValueError("DrivelineParameters: expected 0 < idle_speed < max_speed")
        if not (self.final_drive > 0 and 0 < self.efficiency <= 1 and self.engine_inertia >= 0
                and self.front_brake_torque_per_pedal >= 0 and self.rear_brake_torque_per_pedal >= 0):
            raise ValueError("DrivelineParameters: expected final_drive > 0, 0 < efficiency <= 1, "
                             "engine_inertia >= 0 and brake torques >= 0")
        after_upshift = self.downshift_speed * self.gear_ratios[:-1] / self.gear_ratios[1:]
        for k in np.nonzero(after_upshift >= self.upshift_speed)[0]:
            raise ValueError(f"DrivelineParameters: no hysteresis between gears {k + 1} and {k + 2}: "
                             "downshift_speed[k]*ratio[k]/ratio[k+1] must be below upshift_speed[k]")


def _bilinear(x_axis, y_axis, table, x, y):
    """table[i, j] at (y_axis[i], x_axis[j]), interpolated bilinearly, clamped at the edges."""
    x = min(max(x, x_axis[0]), x_axis[-1])
    y = min(max(y, y_axis[0]), y_axis[-1])
    j = min(int(np.searchsorted(x_axis, x, side="right")) - 1, x_axis.size - 2)
    i = min(int(np.searchsorted(y_axis, y, side="right")) - 1, y_axis.size - 2)
    sx = (x - x_axis[j]) / (x_axis[j + 1] - x_axis[j])
    sy = (y - y_axis[i]) / (y_axis[i + 1] - y_axis[i])
    low = (1 - sx) * table[i, j] + sx * table[i, j + 1]
    high = (1 - sx) * table[i + 1, j] + sx * table[i + 1, j + 1]
    return float((1 - sy) * low + sy * high)


class Driveline:
    """Rear-wheel drive with a gear state; see the module docstring for the model."""

    def __init__(self, parameters: DrivelineParameters, min_shift_interval: float = 0.5,
                 brake_speed_scale: float = 0.5):
        if min_shift_interval < 0 or brake_speed_scale <= 0:
            raise ValueError("Driveline: expected min_shift_interval >= 0 and brake_speed_scale > 0")
        self.parameters = parameters
        self.min_shift_interval = min_shift_interval
        self.brake_speed_scale = brake_speed_scale
        self.gear = 1
        self.engine_speed = parameters.idle_speed
        self.engine_torque = 0.0
        self._time_in_gear = math.inf

    def engine_torque_at(self, engine_speed: float, throttle: float) -> float:
        """Engine torque (N m) from the map, without fuel cut."""
        p = self.parameters
        return _bilinear(p.engine_speed, p.throttle, p.engine_torque, engine_speed, throttle)

    @property
    def overall_ratio(self) -> float:
        return self.parameters.gear_ratios[self.gear - 1] * self.parameters.final_drive

    @property
    def reflected_inertia(self) -> float:
        """Engine inertia seen by each rear wheel (kg m^2) in the engaged gear."""
        return self.parameters.engine_inertia * self.overall_ratio ** 2 / 2

    def select_gear(self, vehicle_speed: float, wheel_radius: float) -> int:
        """Engage the lowest gear below its upshift speed at this speed (initial conditions)."""
        p = self.parameters
        output_speed = p.final_drive * vehicle_speed / wheel_radius
        below = np.nonzero(output_speed * p.gear_ratios[:-1] < p.upshift_speed)[0]
        self.gear = int(below[0]) + 1 if below.size else p.gear_ratios.size
        self._time_in_gear = math.inf
        return self.gear

    def _shift(self, output_speed: float, h: float) -> None:
        p = self.parameters
        self._time_in_gear += h
        if self._time_in_gear < self.min_shift_interval:
            return
        in_gear = output_speed * p.gear_ratios[self.gear - 1]
        if self.gear < p.gear_ratios.size and in_gear > p.upshift_speed[self.gear - 1]:
            self.gear += 1
        elif self.gear > 1 and in_gear < p.downshift_speed[self.gear - 2]:
            self.gear -= 1
        else:
            return
        self._time_in_gear = 0.0

    def wheel_torques(self, throttle: float, brake: float, wheel_speeds, h: float) -> tuple[np.ndarray, np.ndarray]:
        """Advance by the step h (s); return (drive, brake) torques per wheel FL, FR, RL, RR (N m).

        throttle and brake are pedal fractions (clamped to 0..1), wheel_speeds the spin speeds
        (rad/s, positive rolling forward).
        """
        p = self.parameters
        throttle = min(max(throttle, 0.0), 1.0)
        brake = min(max(brake, 0.0), 1.0)
        omega = np.asarray(wheel_speeds, dtype=float)
        output_speed = p.final_drive * 0.5 * (omega[2] + omega[3])
        self._shift(output_speed, h)
        ratio = p.gear_ratios[self.gear - 1]
        self.engine_speed = max(p.idle_speed, ratio * output_speed)
        demand = throttle if self.engine_speed < p.max_speed else 0.0
        self.engine_torque = self.engine_torque_at(self.engine_speed, demand)
        torque = self.engine_torque
        axle = self.overall_ratio * (torque * p.efficiency if torque >= 0 else torque / p.efficiency)
        drive = np.array([0.0, 0.0, axle / 2, axle / 2])
        front, rear = p.front_brake_torque_per_pedal * brake, p.rear_brake_torque_per_pedal * brake
        braking = -np.array([front, front, rear, rear]) * np.tanh(omega / self.brake_speed_scale)
        return drive, braking
