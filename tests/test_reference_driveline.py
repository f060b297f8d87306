"""Rear-wheel-drive driveline of the multibody reference vehicle (pybridge.reference.driveline)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.interpolate import RegularGridInterpolator

from pybridge.reference.driveline import Driveline, DrivelineParameters

RPM = math.pi / 30
# 3.0 L diesel and 6-speed gearbox of the 3.5 t van (the values of VehicleRTM.Powertrain.Engine30Diesel/Driveline)
SPEEDS = np.array([800, 1000, 1250, 1500, 2000, 2500, 3000, 3250, 3500, 3750, 4000, 4250]) * RPM
TORQUE = np.array([  # rows: throttle 0, 0.25, 0.5, 0.75, 1
    [0, -20, -25, -28, -33, -38, -44, -47, -50, -54, -58, -62],
    [45, 50, 73.75, 79, 75.25, 71.5, 67, 60.25, 45, 9.5, -43.5, -62],
    [90, 120, 172.5, 186, 183.5, 181, 178, 167.5, 140, 73, -29, -62],
    [135, 190, 271.25, 293, 291.75, 290.5, 289, 274.75, 235, 136.5, -14.5, -62],
    [180, 260, 370, 400, 400, 400, 400, 382, 330, 200, 0, -62],
])
RADIUS = 0.36


def van(**changes) -> DrivelineParameters:
    values = dict(
        engine_speed=SPEEDS, throttle=[0, 0.25, 0.5, 0.75, 1], engine_torque=TORQUE,
        idle_speed=800 * RPM, max_speed=4000 * RPM, engine_inertia=0.45,
        gear_ratios=[5.10, 2.90, 1.87, 1.32, 1.00, 0.79], final_drive=3.92, efficiency=0.93,
        upshift_speed=np.full(5, 3400 * RPM), downshift_speed=np.array([1000, 1100, 1150, 1200, 1200]) * RPM,
        front_brake_torque_per_pedal=4500.0, rear_brake_torque_per_pedal=3000.0)
    values.update(changes)
    return DrivelineParameters(**values)


def rolling(wheel_speed):
    return np.full(4, wheel_speed)


def wheel_speed_for(engine_speed, ratio, final_drive=3.92):
    return engine_speed / (ratio * final_drive)


# ---------------------------------------------------------------- engine map

def test_map_equals_table_at_breakpoints():
    driveline = Driveline(van())
    for i, throttle in enumerate(van().throttle):
        for j, speed in enumerate(SPEEDS):
            assert driveline.engine_torque_at(speed, throttle) == pytest.approx(TORQUE[i, j], abs=1e-9)


def test_map_is_bilinear_between_breakpoints_and_clamped_outside():
    driveline = Driveline(van())
    reference = RegularGridInterpolator((van().throttle, SPEEDS), TORQUE, method="linear")
    rng = np.random.default_rng(1)
    for throttle, speed in zip(rng.uniform(0, 1, 200), rng.uniform(SPEEDS[0], SPEEDS[-1], 200)):
        assert driveline.engine_torque_at(speed, throttle) == pytest.approx(reference([throttle, speed])[0], abs=1e-9)
    middle = driveline.engine_torque_at((SPEEDS[2] + SPEEDS[3]) / 2, 0.625)
    assert middle == pytest.approx(TORQUE[2:4, 2:4].mean())
    # along one row the map is linear in speed, along a column linear in throttle
    speeds = np.linspace(SPEEDS[4], SPEEDS[5], 7)
    row = [driveline.engine_torque_at(s, 0.5) for s in speeds]
    assert np.diff(row, 2) == pytest.approx(np.zeros(5), abs=1e-9)
    assert driveline.engine_torque_at(100 * RPM, 2.0) == pytest.approx(TORQUE[-1, 0])
    assert driveline.engine_torque_at(9000 * RPM, -1.0) == pytest.approx(TORQUE[0, -1])


def test_engine_speed_rigid_clutch_clamped_at_idle_and_fuel_cut():
    driveline = Driveline(van())
    driveline.wheel_torques(1.0, 0.0, rolling(0.0), 0.01)
    assert driveline.gear == 1 and driveline.engine_speed == pytest.approx(800 * RPM)
    assert driveline.engine_torque == pytest.approx(180.0)  # full-load torque at idle: a standing start works
    wheel = wheel_speed_for(2000 * RPM, 5.10)
    driveline.wheel_torques(0.5, 0.0, [0.0, 0.0, wheel * 0.9, wheel * 1.1], 0.01)  # mean of the rear wheels
    assert driveline.engine_speed == pytest.approx(2000 * RPM)
    fast = Driveline(van())
    fast.gear = 6  # top gear: no upshift
    fast.wheel_torques(1.0, 0.0, rolling(wheel_speed_for(4100 * RPM, 0.79)), 0.01)
    assert fast.gear == 6 and fast.engine_speed == pytest.approx(4100 * RPM)
    assert fast.engine_torque == pytest.approx(fast.engine_torque_at(4100 * RPM, 0.0))


# ---------------------------------------------------------------- torque split

@pytest.mark.parametrize("throttle", [1.0, 0.3, 0.0])
def test_open_differential_splits_equally(throttle):
    driveline = Driveline(van())
    driveline.select_gear(60 / 3.6, RADIUS)
    wheel = 60 / 3.6 / RADIUS
    drive, _ = driveline.wheel_torques(throttle, 0.0, [wheel, wheel, wheel * 0.9, wheel * 1.1], 0.01)
    assert drive[0] == drive[1] == 0.0 and drive[2] == drive[3]
    engine = driveline.engine_torque
    overall = driveline.overall_ratio
    expected = engine * overall * 0.93 if engine >= 0 else engine * overall / 0.93  # losses oppose the power flow
    assert drive.sum() == pytest.approx(expected)
    if throttle == 0.0:
        assert drive.sum() < 0  # engine braking


def test_reflected_inertia():
    driveline = Driveline(van())
    driveline.gear = 2
    assert driveline.reflected_inertia == pytest.approx(0.45 * (2.90 * 3.92) ** 2 / 2)


# ---------------------------------------------------------------- shift schedule

def test_upshifts_then_downshifts_at_scheduled_speeds():
    p = van()
    driveline = Driveline(p)
    h, ratios = 0.01, p.gear_ratios
    shifts = []
    wheel = 1.0
    while driveline.gear < 6:  # slow acceleration: the engine speed rises by < 0.2 rpm per step
        wheel += 0.0005
        before = driveline.gear
        driveline.wheel_torques(1.0, 0.0, rolling(wheel), h)
        if driveline.gear != before:
            shifts.append((before, driveline.gear, wheel * p.final_drive * ratios[before - 1]))
    assert [s[:2] for s in shifts] == [(k, k + 1) for k in range(1, 6)]
    for k, (_, _, engine) in enumerate(shifts):
        assert engine == pytest.approx(p.upshift_speed[k], abs=0.05)
        assert engine * ratios[k + 1] / ratios[k] > p.downshift_speed[k]  # hysteresis: no shift back
    shifts.clear()
    while driveline.gear > 1:
        wheel -= 0.0005
        before = driveline.gear
        driveline.wheel_torques(0.0, 0.0, rolling(wheel), h)
        if driveline.gear != before:
            shifts.append((before, driveline.gear, wheel * p.final_drive * ratios[before - 1]))
    assert [s[:2] for s in shifts] == [(k, k - 1) for k in range(6, 1, -1)]
    for (before, _, engine) in shifts:
        assert engine == pytest.approx(p.downshift_speed[before - 2], abs=0.05)


@pytest.mark.parametrize("gear, threshold, direction", [(2, "upshift", +1), (4, "downshift", -1)])
def test_no_chatter_when_speed_hovers_at_a_threshold(gear, threshold, direction):
    p = van()
    driveline = Driveline(p)
    driveline.gear = gear
    engine = p.upshift_speed[gear - 1] if threshold == "upshift" else p.downshift_speed[gear - 2]
    centre = wheel_speed_for(engine, p.gear_ratios[gear - 1])
    gears = [gear]
    for k in range(3000):  # 30 s hovering +-3 % around the threshold, 2 Hz
        wheel = centre * (1 + 0.03 * math.sin(2 * math.pi * 2 * 0.01 * k))
        driveline.wheel_torques(0.5, 0.0, rolling(wheel), 0.01)
        gears.append(driveline.gear)
    assert np.count_nonzero(np.diff(gears)) == 1 and gears[-1] == gear + direction


def test_minimum_time_between_shifts_cascades_one_gear_at_a_time():
    p = van()
    driveline = Driveline(p, min_shift_interval=0.5)
    driveline.select_gear(140 / 3.6, RADIUS)
    assert driveline.gear == 6
    gears = [driveline.gear]
    for k in range(400):  # the wheels almost stop at once (hard braking)
        driveline.wheel_torques(0.0, 1.0, rolling(0.5), 0.01)
        gears.append(driveline.gear)
    change = np.nonzero(np.diff(gears))[0]
    assert gears[-1] == 1 and len(change) == 5
    assert np.all(np.diff(change) * 0.01 >= 0.5 - 1e-9)


def test_select_gear_for_initial_conditions():
    p = van()
    driveline = Driveline(p)
    assert driveline.select_gear(0.0, RADIUS) == 1
    assert driveline.select_gear(250 / 3.6, RADIUS) == 6
    for kmh in (20, 50, 80, 100):
        gear = driveline.select_gear(kmh / 3.6, RADIUS)
        engine = kmh / 3.6 / RADIUS * p.final_drive * p.gear_ratios[gear - 1]
        assert engine < p.upshift_speed[gear - 1]
        assert gear == 1 or engine > p.downshift_speed[gear - 2]
        driveline.wheel_torques(0.3, 0.0, rolling(kmh / 3.6 / RADIUS), 0.01)
        assert driveline.gear == gear  # no shift at the first step


# ---------------------------------------------------------------- brakes

def test_brake_torque_opposes_rotation_and_is_bounded():
    driveline = Driveline(van(), brake_speed_scale=0.5)
    for omega in (-50.0, -2.0, -0.1, 0.1, 2.0, 50.0):
        _, brake = driveline.wheel_torques(0.0, 0.6, rolling(omega), 0.01)
        assert np.all(np.sign(brake) == -np.sign(omega))
        assert np.all(np.abs(brake) <= 0.6 * np.array([4500, 4500, 3000, 3000]))
    _, brake = driveline.wheel_torques(0.0, 0.6, rolling(0.0), 0.01)
    assert np.all(brake == 0.0)
    _, brake = driveline.wheel_torques(0.0, 1.7, rolling(30.0), 0.01)  # pedal clamped to 1
    assert brake == pytest.approx(-np.array([4500, 4500, 3000, 3000]), rel=1e-6)
    _, released = driveline.wheel_torques(0.0, 0.0, rolling(30.0), 0.01)
    assert np.all(released == 0.0)


def test_brake_holds_a_wheel_at_standstill_without_chatter():
    """A braked rear wheel carrying a quarter of the van (1.3 kg m2 + 750 kg x 0.36 m^2) on a 10 % slope.

    Explicit Euler at 1 ms: stable because brake_speed_scale > T*h/J (3000*0.001/98 = 0.03 rad/s).
    """
    driveline = Driveline(van(), brake_speed_scale=0.5)
    inertia, h = 1.3 + 750 * RADIUS ** 2, 1e-3
    push = 750 * 9.81 * 0.1 * RADIUS  # 265 N m downhill
    omega = 2.0
    history = []
    for _ in range(3000):
        _, brake = driveline.wheel_torques(0.0, 1.0, [0, 0, omega, omega], h)
        omega += h * (push + brake[2]) / inertia
        history.append(omega)
    settled = np.array(history[1000:])
    creep = 0.5 * math.atanh(push / 3000.0)  # where the regularised law balances the push
    assert settled == pytest.approx(creep, rel=1e-3) and creep * RADIUS < 0.02  # creeps below 2 cm/s
    assert np.all(np.diff(history) <= 0)  # decelerates monotonically: no sign changes, no chatter
    omega = 0.0
    for _ in range(100):  # standing still without a push it stays still
        _, brake = driveline.wheel_torques(0.0, 1.0, [0, 0, omega, omega], h)
        omega += h * brake[2] / inertia
    assert omega == 0.0


# ---------------------------------------------------------------- parameters

@pytest.mark.parametrize("changes, message", [
    (dict(downshift_speed=np.array([2000, 1100, 1150, 1200, 1200]) * RPM), "no hysteresis between gears 1 and 2"),
    (dict(engine_torque=TORQUE.T), "engine_torque: shape"),
    (dict(gear_ratios=[5.10, 2.90, 3.0, 1.32, 1.00, 0.79]), "gear_ratios"),
    (dict(upshift_speed=np.full(4, 3400 * RPM)), "upshift_speed: expected 5 values"),
    (dict(engine_speed=SPEEDS[::-1]), "engine_speed: expected at least 2 strictly increasing"),
    (dict(efficiency=1.2), "efficiency"),
])
def test_invalid_parameters_are_rejected(changes, message):
    with pytest.raises(ValueError, match=message):
        van(**changes)


def test_one_shift_speed_for_every_gear_change():
    p = van(upshift_speed=3200 * RPM, downshift_speed=1300 * RPM)
    assert p.upshift_speed == pytest.approx(np.full(5, 3200 * RPM))
    assert p.downshift_speed == pytest.approx(np.full(5, 1300 * RPM))


def test_parameters_field_names():
    assert [f.name for f in dataclasses.fields(DrivelineParameters)] == [
        "engine_speed", "throttle", "engine_torque", "idle_speed", "max_speed", "engine_inertia", "gear_ratios",
        "final_drive", "efficiency", "upshift_speed", "downshift_speed", "front_brake_torque_per_pedal",
        "rear_brake_torque_per_pedal"]
