"""Contact-patch Magic Formula tyre of the multibody reference model (MBM), on a flat moving road.

The slips and their first-order relaxation are those of ``VehicleRTM.Tires.Tire`` (Modelica), the
steady-state forces those of :mod:`pybridge.reference.magic_formula` (PAC2002 / MF 5.2 or MF 6.1, use
mode 4). Axes are ISO 8855 (x forward, y left, z up), the road is the plane z = road_height with
normal +z. Per fixed step h: ``f = tyre.evaluate(...)``, apply ``f.force`` and ``f.torque`` at the
wheel centre for the step, then ``tyre.advance(h)``.

The forces of ``evaluate`` use the slip states at the end of the coming step (advanced over the h of
the last ``advance`` with the current slip velocities, exactly what ``advance(h)`` then stores), so
they react to the wheel speed without a step of lag. With the states at the start of the step the
explicit coupling with the wheel spin (1.5 kg m^2) is unstable at h = 1 ms between about 1 and 8 m/s.

Wheel axes (ISO W): x_w = heading on the road (spin axis x road normal), z_w = road normal,
y_w = z_w x x_w. The spin axis is column 1 (local y) of the wheel rotation matrix and points to
the vehicle's left on both sides; positive spin is rolling forwards. Inclination gamma = asin(spin
axis . normal): positive when the wheel top leans to the right. Slips (CONVENTIONS.md): kappa > 0 in
traction (Fx > 0), alpha = atan(vy/|vx|) > 0 when the contact point slides to the left. Fx, Fy, Fz,
Mx, Mz act along x_w, y_w, z_w at the contact point; My (rolling resistance) acts about the spin axis.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import root

from pybridge.reference.magic_formula import coefficients, reference, relaxation, rolling_radius

__all__ = ["ContactPatchTyre", "TyreForces"]


@dataclass
class TyreForces:
    """Result of :meth:`ContactPatchTyre.evaluate`: global force and torque at the wheel centre, channels."""

    force: np.ndarray            # (3,) global force on the wheel, applied at the wheel centre
    torque: np.ndarray           # (3,) global torque on the wheel about the wheel centre
    Fx: float                    # wheel axes (ISO W), at the contact point
    Fy: float
    Fz: float
    Mx: float
    My: float                    # about the spin axis
    Mz: float
    kappa: float                 # relaxed longitudinal slip (state)
    alpha: float                 # relaxed slip angle atan(tanAlpha)
    gamma: float                 # inclination angle (ISO)
    Vx: float                    # longitudinal velocity of the contact point
    contact_point: np.ndarray    # (3,) global, on the road plane
    loaded_radius: float         # wheel centre to contact point
    rolling_radius: float        # effective rolling radius Re


class ContactPatchTyre:
    """Magic Formula tyre with the relaxation states kappa and tanAlpha of ``VehicleRTM.Tires.Tire``.

    ``sigma_min`` bounds both relaxation lengths from below; ``low_speed_damping`` (N s/m) is the
    contact-patch damping at standstill, faded out with a half cosine at VXLOW; ``mods`` overwrite
    .tir coefficients (see :func:`pybridge.reference.magic_formula.coefficients`).
    """

    def __init__(self, tir_path: str | Path, sigma_min: float = 0.05, low_speed_damping: float = 1000.0, **mods):
        self.coefficients = coefficients(tir_path, **mods)
        self.sigma_min = sigma_min
        self.low_speed_damping = low_speed_damping
        self.unloaded_radius = self.coefficients["UNLOADED_RADIUS"]
        self.vertical_stiffness = self.coefficients["VERTICAL_STIFFNESS"] * self.coefficients["LCZ"]
        self.vertical_damping = self.coefficients["VERTICAL_DAMPING"]
        self.reset()

    def reset(self) -> None:
        """Zero the slip states and the slip velocities kept for :meth:`advance`."""
        self.kappa = 0.0
        self.tan_alpha = 0.0
        self._speed = 0.0                  # |vx| of the last evaluate
        self._slip_x = 0.0                 # omega*Re - vx
        self._slip_y = 0.0                 # vy
        self._sigma_kappa = self.sigma_min
        self._sigma_alpha = self.sigma_min
        self._lead = 0.0                   # h of the last advance: evaluate's forces look this far ahead

    def evaluate(self, centre, rotation, velocity, omega, road_height: float = 0.0,
                 road_velocity: float = 0.0) -> TyreForces:
        """Forces for the wheel-centre position, rotation matrix, velocity and angular velocity (all
        global), with the slip states at the end of the step; keeps the slip velocities for :meth:`advance`."""
        p = self.coefficients
        cx, cy, cz = _floats(centre)                          # Python floats: faster than numpy scalars
        sx, sy, sz = _floats(np.asarray(rotation)[:, 1])
        vcx, vcy, vcz = _floats(velocity)
        wx, wy, wz = _floats(omega)
        road_height, road_velocity = float(road_height), float(road_velocity)
        cos_g = math.sqrt(sx * sx + sy * sy)
        xw_x, xw_y = sy / cos_g, -sx / cos_g                 # heading; y_w = (-xw_y, xw_x, 0)
        gamma = math.atan2(sz, cos_g)
        height = cz - road_height
        loaded_radius = height / cos_g
        # centre -> contact point: r = loaded_radius*(spin x x_w) = (t*y_w, -height)
        t = loaded_radius * sz
        rx, ry, rz = -t * xw_y, t * xw_x, -height
        spin = wx * sx + wy * sy + wz * sz
        # contact point moving with the wheel carrier (body rotation less the spin)
        ux = vcx + wy * rz - wz * ry
        uy = vcy + wz * rx - wx * rz
        vx = ux * xw_x + uy * xw_y + spin * loaded_radius
        vy = uy * xw_x - ux * xw_y
        # vertical force from deflection R0 - loaded_radius and its rate
        cos_g_rate = sz * (sx * wy - sy * wx) / cos_g
        deflection_rate = -(vcz - road_velocity - loaded_radius * cos_g_rate) / cos_g
        deflection = self.unloaded_radius - loaded_radius
        Fz = max(0.0, self.vertical_stiffness * deflection + self.vertical_damping * deflection_rate) \
            if deflection > 0.0 else 0.0
        Re = rolling_radius(p, Fz)
        sigma_kappa, sigma_alpha = relaxation(p, Fz, gamma)
        self._sigma_kappa = max(sigma_kappa, self.sigma_min)
        self._sigma_alpha = max(sigma_alpha, self.sigma_min)
        speed = abs(vx)
        self._speed, self._slip_x, self._slip_y = speed, spin * Re - vx, vy
        # the states at the end of the step (same h as the last advance), as advance(h) will set them
        kappa = _relax(self.kappa, self._slip_x, self._sigma_kappa, speed, self._lead)
        alpha = math.atan(_relax(self.tan_alpha, vy, self._sigma_alpha, speed, self._lead))
        contact_point = np.array((cx + rx, cy + ry, road_height))
        if Fz <= 0.0:                                        # lifted off: no force at all
            return TyreForces(np.zeros(3), np.zeros(3), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, kappa, alpha,
                              gamma, vx, contact_point, loaded_radius, Re)
        mf = reference(p, Fz, kappa, alpha, gamma, vx)
        patch_damping = 0.5 * self.low_speed_damping * (1.0 + math.cos(math.pi * speed / p["VXLOW"])) \
            if speed < p["VXLOW"] else 0.0
        Fx = mf["Fx"] + patch_damping * self._slip_x
        Fy = mf["Fy"] - patch_damping * vy
        Mx, My, Mz = mf["Mx"], mf["My"], mf["Mz"]
        # global force and contact moment: x_w, y_w, z_w = (xw_x, xw_y, 0), (-xw_y, xw_x, 0), (0, 0, 1)
        fx, fy = Fx * xw_x - Fy * xw_y, Fx * xw_y + Fy * xw_x
        mx = Mx * xw_x + My * sx
        my = Mx * xw_y + My * sy
        mz = My * sz + Mz
        torque = np.array((ry * Fz - rz * fy + mx, rz * fx - rx * Fz + my, rx * fy - ry * fx + mz))
        return TyreForces(np.array((fx, fy, Fz)), torque, Fx, Fy, Fz, Mx, My, Mz, kappa, alpha, gamma,
                          vx, contact_point, loaded_radius, Re)

    def hold(self, force, centre, rotation, road_height: float = 0.0) -> None:
        """Set the slip states so that the wheel, at rest at ``centre`` with ``rotation``, carries the
        horizontal part of ``force`` (global, on the wheel, e.g. the static solution's contact force).

        A standing tyre's slip states are part of the vehicle's static equilibrium: from zero states
        the Magic Formula's offsets (conicity, ply steer, Fx at zero slip) would load the standing
        vehicle with forces the static solution did not carry.
        """
        axis = np.asarray(rotation)[:, 1]
        heading = np.array([axis[1], -axis[0]]) / math.hypot(axis[0], axis[1])
        target = np.array([heading @ force[:2], heading[0] * force[1] - heading[1] * force[0]])
        still = np.zeros(3)

        def residual(states):
            self.kappa, self.tan_alpha = float(states[0]), float(states[1])
            f = self.evaluate(centre, rotation, still, still, road_height=road_height)
            return [(f.Fx - target[0]) / 1e3, (f.Fy - target[1]) / 1e3]
        solution = root(residual, [0.0, 0.0], tol=1e-12)
        if not solution.success:
            raise ValueError(f"tyre slip states for the static force {target} N: {solution.message}")
        self.kappa, self.tan_alpha = (float(x) for x in solution.x)

    def advance(self, h: float) -> None:
        """Advance kappa and tanAlpha over the step h with the slip velocities of the last evaluate:
        exact solution of sigma*dx/dt + |vx|*x = u for constant inputs (stable for any h and speed)."""
        self.kappa = _relax(self.kappa, self._slip_x, self._sigma_kappa, self._speed, h)
        self.tan_alpha = _relax(self.tan_alpha, self._slip_y, self._sigma_alpha, self._speed, h)
        self._lead = h


def _relax(state: float, rate: float, sigma: float, speed: float, h: float) -> float:
    """x(h) of sigma*dx/dt + speed*x = rate from x(0) = state, inputs constant over h."""
    decay = speed * h / sigma
    gain = h / sigma if decay < 1e-12 else -math.expm1(-decay) / speed
    return state * math.exp(-decay) + rate * gain


def _floats(vector) -> list:
    """The three components of a vector (numpy array or sequence) as Python floats."""
    return vector.tolist() if isinstance(vector, np.ndarray) else [float(x) for x in vector]
