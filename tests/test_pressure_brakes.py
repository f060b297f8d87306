"""VehicleRTM.Brakes.PressureBrakes: sliding torque = mu*F*r with F from the clamp-force polynomial, and
stiction: a parked wheel under a torque below the sliding torque is held (no creep), one above it turns.

One rumoca harness: brakes on wheels spinning at a prescribed speed (sliding), and two parked wheels of
inertia J pushed by a torque ramped to 0.5 and 1.5 times the sliding torque."""
from __future__ import annotations

import numpy as np
import pytest

# PressureBrakes defaults, restated so that a silent change of a default fails the test
AREA_FRONT, AREA_REAR, MU, RADIUS_FRONT, RADIUS_REAR, F_REF = 0.01148, 0.008242, 0.35, 0.14, 0.13, 1e4
PRESSURE, C2, C3, J = 5e6, 0.1, 0.02, 1.2

HARNESS = f"""
model BrakeHarness
  VehicleRTM.Brakes.PressureBrakes spinning(clampQuadratic = {C2}, clampCubic = {C3});
  VehicleRTM.Brakes.PressureBrakes parked;
  Real phi[2](each start = 0, each fixed = true) "Wheel angles";
  Real w[2](each start = 0, each fixed = true) "Wheel speeds";
  Real ramp = min(time/0.1, 1);
equation
  spinning.pressure = {PRESSURE};
  spinning.omega = {{20, -20, 20, -20}};
  parked.pressure = {PRESSURE};
  parked.omega = {{w[1], w[2], 0, 0}};
  der(phi) = w;
  {J}*der(w[1]) = 0.5*ramp*parked.slidingTorque[1] - parked.torque[1];
  {J}*der(w[2]) = 1.5*ramp*parked.slidingTorque[2] - parked.torque[2];
end BrakeHarness;
"""


@pytest.fixture(scope="module")
def result(compile_source):
    model = compile_source(HARNESS, "BrakeHarness")
    assert model.structure().is_balanced
    return model.simulate(t=(0.0, 2.0), dt=0.01)


def _series(result, name):
    return np.asarray(result[name], dtype=float)


def _clamp(area, c2=0.0, c3=0.0):
    theoretical = PRESSURE * area
    return theoretical * (1 + c2 * theoretical / F_REF + c3 * (theoretical / F_REF) ** 2)


def test_sliding_torque_is_mu_f_r(result):
    front = MU * _clamp(AREA_FRONT, C2, C3) * RADIUS_FRONT
    rear = MU * _clamp(AREA_REAR, C2, C3) * RADIUS_REAR
    assert _series(result, "spinning.clampForce[1]")[-1] == pytest.approx(_clamp(AREA_FRONT, C2, C3), rel=1e-9)
    expected = [front, -front, rear, -rear]  # opposing the spin
    for i, value in enumerate(expected, start=1):
        assert _series(result, f"spinning.torque[{i}]")[-1] == pytest.approx(value, rel=1e-6)
        assert abs(_series(result, f"spinning.slidingTorque[{i}]")[-1]) == pytest.approx(abs(value), rel=1e-9)


def test_stiction_holds_a_parked_wheel(result):
    t = np.asarray(result.time)
    sliding = MU * _clamp(AREA_FRONT) * RADIUS_FRONT
    held, angle = _series(result, "w[1]"), _series(result, "phi[1]")
    late = t >= 1.0
    assert np.max(np.abs(held[late])) < 1e-4  # at rest
    assert np.ptp(angle[late]) < 1e-5  # no creep over a second (a tanh law would creep at ~0.27 rad/s)
    assert 0 < angle[-1] < 0.01  # turned less than the stiction angle before it was held
    assert _series(result, "parked.torque[1]")[-1] == pytest.approx(0.5 * sliding, rel=1e-3)
    # above the sliding torque the wheel turns, braked by exactly mu*F*r
    turning = _series(result, "w[2]")
    assert turning[-1] == pytest.approx(0.5 * sliding / J * (2.0 - 0.05), rel=0.02)


RELEASED = """
model ReleasedAtSpeed
  VehicleRTM.Brakes.PressureBrakes b;
equation
  b.pressure = 0;
  b.omega = {OMEGA, -OMEGA, OMEGA, -OMEGA};
end ReleasedAtSpeed;
"""


def test_the_friction_state_at_speed_is_slow_enough_for_the_identification_step(compile_source):
    """The state relaxes as 1 - |z| = exp(-rate*t) on a wheel at the van's 80 km/h (R = 0.35 m); its rate must
    keep |h*rate| within the step choice's MARGIN at RK4's 10 ms identification step. With the rate bounded
    by the 3 ms stictionLag (317 1/s, |h*rate| = 3.2, past RK4's 2.8) the released brakes' state grew by 1.74
    per step and overflowed after 12.8 s of the van's ramp steer."""
    from pybridge.identify.problem import IDENTIFICATION_STEPS
    from pybridge.identify.step_choice import MARGIN

    omega = (80 / 3.6) / 0.35
    model = compile_source(RELEASED.replace("OMEGA", f"{omega:.6f}"), "ReleasedAtSpeed")
    t_probe = 0.005
    result = model.simulate(t=(0.0, t_probe), dt=t_probe / 10)
    for i, sign in enumerate((1, -1, 1, -1), start=1):
        z = _series(result, f"b.z[{i}]")[-1]
        rate = -np.log(1 - sign * z) / t_probe
        assert 0 < rate * IDENTIFICATION_STEPS["RK4"] <= MARGIN, (i, rate)
