"""The contact-patch tyre of the multibody model (pybridge.reference.tyre) on the UAZ .tir.

Steady states are compared with the independent Magic Formula of pybridge.reference.magic_formula; the
transients and the stability with small explicit simulations at h = 1 ms.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import TIR_FILE
from pybridge.reference import magic_formula as mf
from pybridge.reference.tyre import ContactPatchTyre

H = 1e-3
G = 9.81
P = mf.coefficients(TIR_FILE)
R0 = P["UNLOADED_RADIUS"]
K = P["VERTICAL_STIFFNESS"] * P["LCZ"]
# the shifts that give forces and moments at zero slip
NO_OFFSETS = dict(PHX1=0.0, PHX2=0.0, PVX1=0.0, PVX2=0.0, PHY1=0.0, PHY2=0.0, PHY3=0.0, PVY1=0.0,
                  PVY2=0.0, PVY3=0.0, PVY4=0.0, QDZ6=0.0, QDZ7=0.0, QSX1=0.0)


def wheel_rotation(heading: float = 0.0, lean_right: float = 0.0) -> np.ndarray:
    """Rotation of a wheel heading ``heading`` (about z) whose top leans to its right by ``lean_right``."""
    c, s = math.cos(lean_right), math.sin(lean_right)
    top = np.array((0.0, -s, c))                     # the top moves towards -y when leaning right
    forward = np.array((1.0, 0.0, 0.0))
    lean = np.column_stack((forward, np.cross(top, forward), top))
    ch, sh = math.cos(heading), math.sin(heading)
    return np.array(((ch, -sh, 0.0), (sh, ch, 0.0), (0.0, 0.0, 1.0))) @ lean


def wheel_axes(rotation):
    """x_w, y_w of the wheel heading on the flat road."""
    x_w = np.cross(rotation[:, 1], (0.0, 0.0, 1.0))
    x_w /= np.linalg.norm(x_w)
    return x_w, np.cross((0.0, 0.0, 1.0), x_w)


def run_steady(tyre, rotation, velocity, omega, centre, steps=3000):
    for _ in range(steps):
        tyre.evaluate(centre, rotation, velocity, omega)
        tyre.advance(H)
    return tyre.evaluate(centre, rotation, velocity, omega)


@pytest.fixture
def tyre():
    return ContactPatchTyre(TIR_FILE)


def test_static_press_is_a_vertical_spring():
    tyre = ContactPatchTyre(TIR_FILE, **NO_OFFSETS)
    centre = np.array((1.0, 2.0, R0 - 0.03))
    f = tyre.evaluate(centre, np.eye(3), np.zeros(3), np.zeros(3))
    assert f.Fz == pytest.approx(K * 0.03, rel=1e-12)
    np.testing.assert_allclose(f.force, (0.0, 0.0, K * 0.03), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(f.torque, 0.0, atol=1e-12)
    np.testing.assert_allclose(f.contact_point, (1.0, 2.0, 0.0), atol=1e-15)
    assert f.loaded_radius == pytest.approx(R0 - 0.03, rel=1e-14)
    assert f.rolling_radius == pytest.approx(mf.rolling_radius(P, f.Fz), rel=1e-14)
    # with the file's shifts the zero-slip forces are those of the Magic Formula at standstill
    g = ContactPatchTyre(TIR_FILE).evaluate(centre, np.eye(3), np.zeros(3), np.zeros(3))
    ref = mf.reference(P, g.Fz, 0.0, 0.0, 0.0, 0.0)
    np.testing.assert_allclose(g.force, (ref["Fx"], ref["Fy"], K * 0.03), rtol=1e-12)
    assert g.Mz == pytest.approx(ref["Mz"], rel=1e-12)


def test_vertical_damping_moving_road_and_lift_off(tyre):
    zero = np.zeros(3)
    f = tyre.evaluate((0.0, 0.0, 0.1 + R0 - 0.02), np.eye(3), (0.0, 0.0, -0.1), zero, road_height=0.1)
    assert f.Fz == pytest.approx(K * 0.02 + P["VERTICAL_DAMPING"] * 0.1, rel=1e-12)
    g = tyre.evaluate((0.0, 0.0, 0.1 + R0 - 0.02), np.eye(3), zero, zero, road_height=0.1, road_velocity=0.1)
    assert g.Fz == pytest.approx(f.Fz, rel=1e-12)
    # rate of the deflection with the wheel leaning faster (camber rate) and sinking
    lean_rate, sink, dt = 2.0, -0.3, 1e-6
    def loaded_radius(t):
        return tyre.evaluate((0.0, 0.0, R0 - 0.02 + sink * t), wheel_rotation(0.3, 0.05 + lean_rate * t),
                             zero, zero).loaded_radius
    rate = -(loaded_radius(dt) - loaded_radius(-dt)) / (2 * dt)
    omega = lean_rate * np.array((math.cos(0.3), math.sin(0.3), 0.0))   # about the heading: top to the right
    f = tyre.evaluate((0.0, 0.0, R0 - 0.02), wheel_rotation(0.3, 0.05), (0.0, 0.0, sink), omega)
    assert f.Fz == pytest.approx(K * (R0 - f.loaded_radius) + P["VERTICAL_DAMPING"] * rate, rel=1e-7)
    spinning = (0.0, 30.0, 0.0)
    for centre, velocity in (((0.0, 0.0, R0 + 0.01), (5.0, 0.0, 0.0)),          # in the air
                             ((0.0, 0.0, R0 - 1e-4), (5.0, 1.0, 1.0))):         # damper pulls: no contact
        off = tyre.evaluate(centre, np.eye(3), velocity, spinning)
        assert off.Fz == 0.0
        assert not off.force.any() and not off.torque.any()
        assert off.Fx == off.Fy == off.Mz == off.My == off.Mx == 0.0


@pytest.mark.parametrize("heading", [0.0, 0.7])
@pytest.mark.parametrize("lean_right", [0.05, -0.08])
def test_inclination_sign_and_contact_point(tyre, heading, lean_right):
    """Top leaning right gives gamma > 0; left and right wheels alike (spin axis to the left)."""
    height = R0 - 0.03
    f = tyre.evaluate((0.0, 0.0, height), wheel_rotation(heading, lean_right), np.zeros(3), np.zeros(3))
    assert f.gamma == pytest.approx(lean_right, rel=1e-12)
    assert f.loaded_radius == pytest.approx(height / math.cos(lean_right), rel=1e-12)
    assert f.Fz == pytest.approx(K * (R0 - height / math.cos(lean_right)), rel=1e-12)
    # the lowest point of the disc is on the side the top leans away from
    lateral = height * math.tan(lean_right)
    np.testing.assert_allclose(f.contact_point, (-math.sin(heading) * lateral, math.cos(heading) * lateral, 0.0),
                               atol=1e-14)


@pytest.mark.parametrize("heading", [0.0, 0.7])
@pytest.mark.parametrize("alpha, gamma", [(0.03, 0.0), (-0.08, 0.04), (0.2, -0.03)])
def test_steady_cornering_matches_magic_formula(tyre, heading, alpha, gamma):
    rotation = wheel_rotation(heading, gamma)
    x_w, y_w = wheel_axes(rotation)
    vx, deflection = 15.0, 0.025
    Fz = K * deflection
    omega = rotation[:, 1] * vx / mf.rolling_radius(P, Fz)
    velocity = vx * x_w + vx * math.tan(alpha) * y_w
    centre = np.array((3.0, -1.0, (R0 - deflection) * math.cos(gamma)))
    f = run_steady(tyre, rotation, velocity, omega, centre)
    ref = mf.reference(P, f.Fz, 0.0, alpha, gamma, vx)
    assert f.Fz == pytest.approx(Fz, rel=1e-9)
    assert (f.alpha, f.gamma, f.Vx) == pytest.approx((alpha, gamma, vx), rel=1e-9)
    assert abs(f.kappa) < 1e-12
    for name in ("Fx", "Fy", "Mz", "Mx", "My"):
        assert getattr(f, name) == pytest.approx(ref[name], rel=1e-6, abs=1e-9), name
    assert f.Fy * alpha < 0                   # sliding left (alpha > 0) pushes the tyre right
    np.testing.assert_allclose(f.force, f.Fx * x_w + f.Fy * y_w + (0.0, 0.0, f.Fz), rtol=1e-12, atol=1e-9)
    # contact-point moments: Mx, Mz about x_w, z_w, My about the spin axis
    moment = f.Mx * x_w + f.My * rotation[:, 1] + (0.0, 0.0, f.Mz)
    np.testing.assert_allclose(f.torque, np.cross(f.contact_point - centre, f.force) + moment, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("vx, kappa", [(12.0, 0.05), (12.0, -0.1), (20.0, 0.4), (-5.0, 0.08)])
def test_steady_drive_and_brake_slip(tyre, vx, kappa):
    rotation = wheel_rotation(0.4)
    x_w, _ = wheel_axes(rotation)
    deflection = 0.02
    Fz = K * deflection
    spin = (vx + kappa * abs(vx)) / mf.rolling_radius(P, Fz)   # kappa = (omega*Re - vx)/|vx|
    f = run_steady(tyre, rotation, vx * x_w, spin * rotation[:, 1], np.array((0.0, 0.0, R0 - deflection)),
                   steps=int(40.0 / abs(vx) / H))          # 40 m: about 50 relaxation lengths
    ref = mf.reference(P, Fz, kappa, 0.0, 0.0, vx)
    assert f.kappa == pytest.approx(kappa, rel=1e-9)
    assert f.Fx == pytest.approx(ref["Fx"], rel=1e-6)
    assert f.Fy == pytest.approx(ref["Fy"], rel=1e-6)
    assert f.Fx * kappa > 0                   # traction for kappa > 0, also when rolling backwards
    # upright wheel: about the spin axis only Fx (arm = loaded radius, contact point below) and My
    spin_torque = f.torque @ rotation[:, 1]
    assert spin_torque == pytest.approx(-f.loaded_radius * f.Fx + f.My, rel=1e-12)
    assert f.My == pytest.approx(mf.rolling_resistance(P, Fz, f.Fx, vx, 0.0), rel=1e-12)


@pytest.mark.parametrize("vx", [3.0, 10.0, 30.0])
def test_free_rolling_leaves_only_rolling_resistance(tyre, vx):
    """A wheel without drive torque (spin integrated explicitly) settles where Fx = My/R_l.

    The wheel-spin mode decays at vx/(2*sigmaKappa) only, so slow runs take longer.
    """
    inertia, deflection = 1.5, 0.022
    centre, velocity = np.array((0.0, 0.0, R0 - deflection)), np.array((vx, 0.0, 0.0))
    spin = vx / mf.rolling_radius(P, K * deflection)
    for _ in range(int((1.0 + 30.0 / vx) / H)):
        f = tyre.evaluate(centre, np.eye(3), velocity, (0.0, spin, 0.0))
        spin += H * f.torque[1] / inertia
        tyre.advance(H)
    f = tyre.evaluate(centre, np.eye(3), velocity, (0.0, spin, 0.0))
    resistance = mf.rolling_resistance(P, f.Fz, f.Fx, vx, 0.0) / f.loaded_radius
    assert resistance < 0
    assert f.Fx == pytest.approx(resistance, rel=1e-6)
    assert abs(f.Fx) < 0.015 * f.Fz


def quarter_car(tyre, speed, seconds, brake=0.0, push=(0.0, 0.0), locked=False, mass=500.0, inertia=1.5):
    """Mass (x, y, z) on one upright wheel with spin inertia, explicit steps of H; rows t, vx, vy, spin, Fx, Fy."""
    position = np.array((0.0, 0.0, R0 - mass * G / K))
    velocity = np.array((speed, 0.0, 0.0))
    spin = 0.0 if locked else speed / R0
    rows = []
    for step in range(int(round(seconds / H))):
        f = tyre.evaluate(position, np.eye(3), velocity, (0.0, spin, 0.0))
        velocity = velocity + H * (f.force + (push[0], push[1], -mass * G)) / mass
        position = position + H * velocity
        if not locked:                          # Coulomb brake: stops the wheel, never reverses it
            spin += H * f.torque[1] / inertia
            slow = H * brake / inertia
            spin = spin - slow if spin > slow else (spin + slow if spin < -slow else 0.0)
        tyre.advance(H)
        rows.append((step * H, velocity[0], velocity[1], spin, f.Fx, f.Fy))
    return np.array(rows)


def test_locked_wheel_pushed_at_standstill_settles(tyre):
    push = (1500.0, -800.0)
    rows = quarter_car(tyre, 0.0, 10.0, push=push, locked=True)
    assert np.isfinite(rows).all()
    last = rows[-1000:]
    np.testing.assert_allclose(last[:, 4], -push[0], rtol=1e-3)   # the tread spring holds the push
    np.testing.assert_allclose(last[:, 5], -push[1], rtol=1e-3)
    assert np.abs(last[:, 1:3]).max() < 1e-3
    deflection = tyre.kappa * mf.relaxation(P, 500 * G, 0.0)[0]  # tread deflection sigma*kappa
    assert -0.05 < deflection < 0


@pytest.mark.parametrize("brake, seconds", [(1500.0, 10.0), (4000.0, 15.0)])
def test_braking_to_standstill_is_stable(tyre, brake, seconds):
    rows = quarter_car(tyre, 20.0, seconds, brake=brake)
    assert np.isfinite(rows).all()
    assert np.abs(rows[:, 1]).max() <= 20.0 + 1e-9
    assert rows[2000, 1] < 10.0                                   # it does brake
    assert np.abs(rows[-1000:, 1]).max() < 0.02                   # and comes to rest
    assert np.abs(rows[-1000:, 4]).max() < 200.0


def test_lateral_relaxation_reaches_63_percent_after_sigma_alpha(tyre):
    vx, deflection, alpha = 10.0, 0.025, 0.01
    Fz = K * deflection
    centre = np.array((0.0, 0.0, R0 - deflection))
    omega = (0.0, vx / mf.rolling_radius(P, Fz), 0.0)
    start = run_steady(tyre, np.eye(3), (vx, 0.0, 0.0), omega, centre, steps=2000).Fy
    final = mf.reference(P, Fz, 0.0, alpha, 0.0, vx)["Fy"]
    fraction, travelled = 0.0, 0.0
    while fraction < 1 - math.exp(-1):
        f = tyre.evaluate(centre, np.eye(3), (vx, vx * math.tan(alpha), 0.0), omega)
        tyre.advance(H)
        travelled += vx * H
        fraction = (f.Fy - start) / (final - start)
    sigma_alpha = max(mf.relaxation(P, Fz, 0.0)[1], tyre.sigma_min)
    assert travelled == pytest.approx(sigma_alpha, rel=0.05)
