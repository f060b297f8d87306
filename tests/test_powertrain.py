"""Behaviour of the Steering, Powertrain, Brakes and Aerodynamics blocks of VehicleRTM.

Four harnesses (one rumoca compile each, through ``compile_source``) hold all checks:
drivelines at fixed operating points; brakes, drag, steering and the regularised brake law under
input ramps; wheel-speed ramps up and down at two throttles (shift order and thresholds); a wheel
speed dithering around a threshold (no chatter) and a stop from speed (downshift cascade).
Expected values are computed here independently: the engine table is read from the record's
source text and interpolated with NumPy.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent

RPM = math.pi / 30
ENGINE_FILE = REPO / "modelica" / "VehicleRTM" / "Powertrain" / "Engine30Diesel.mo"

# Driveline defaults (Driveline.mo), restated so that a silent change of a default fails a test: six gears
# in use of twelve slots (the slots above hold the top gear and are never engaged).
GEARS = np.array([5.10, 2.90, 1.87, 1.32, 1.00, 0.79])
FINAL = 3.92
ETA = 0.93
UP_FULL = np.full(5, 3400.0) * RPM
UP_ZERO = np.array([2200, 1900, 1800, 1700, 1650.0]) * RPM
DOWN = np.array([1000, 1100, 1150, 1200, 1200.0]) * RPM
MIN_GEAR_TIME = 0.5
IDLE = 800 * RPM


def _engine_table():
    """Speed grid [rad/s], throttle grid and torque table of Engine30Diesel, parsed from its source."""
    text = ENGINE_FILE.read_text()
    speed = re.search(r"speed\s*=\s*\{([^}]*)\}\s*\*\s*\(3\.14159265358979/30\)", text).group(1)
    throttle = re.search(r"throttle\s*=\s*\{([^}]*)\}", text).group(1)
    torque = re.search(r"torque\s*=\s*\{(\{.*?\})\}", text, re.S).group(1)
    rows = [[float(v) for v in row.split(",")] for row in re.findall(r"\{([^{}]*)\}", torque)]
    return (np.array([float(v) for v in speed.split(",")]) * RPM,
            np.array([float(v) for v in throttle.split(",")]), np.array(rows))


def _bilinear(x1, x2, y, u1, u2):
    """Clamped bilinear interpolation (independent of VehicleRTM.Tables.interp2)."""
    u1 = min(max(u1, x1[0]), x1[-1])
    u2 = min(max(u2, x2[0]), x2[-1])
    col = np.array([np.interp(u1, x1, y[:, j]) for j in range(len(x2))])
    return float(np.interp(u2, x2, col))


def _wheel_speed(engine_rpm, gear):
    """Mean rear-wheel speed at which the given gear turns the engine at engine_rpm."""
    return float(engine_rpm * RPM / (GEARS[gear - 1] * FINAL))


# Operating points, each below the upshift speed of its gear at its throttle, so the initial
# gear is known: full throttle at 2000 rpm in first gear (a grid point), throttle 0.6 at 1125 rpm
# in first gear (inside a cell: bilinear), no throttle at 2500 rpm in top gear (overrun).
W_FULL = _wheel_speed(2000, 1)
W_PART = _wheel_speed(1125, 1)
W_OVERRUN = _wheel_speed(2500, 6)

DRIVELINE = f"""
model DrivelineHarness
  VehicleRTM.Powertrain.Driveline full(torqueGain = 1.15);
  VehicleRTM.Powertrain.Driveline part(torqueGain = 0.9);
  VehicleRTM.Powertrain.Driveline overrun;
  VehicleRTM.Powertrain.Driveline launch;
  VehicleRTM.Powertrain.Driveline rest;
  VehicleRTM.Powertrain.Driveline hd(redeclare VehicleRTM.Powertrain.Engine30DieselHD engine);
equation
  full.throttle = 1;
  full.wheelSpeedRL = {W_FULL!r} - 1;
  full.wheelSpeedRR = {W_FULL!r} + 1;
  part.throttle = 0.6;
  part.wheelSpeedRL = {W_PART!r};
  part.wheelSpeedRR = {W_PART!r};
  overrun.throttle = 0;
  overrun.wheelSpeedRL = {W_OVERRUN!r};
  overrun.wheelSpeedRR = {W_OVERRUN!r};
  launch.throttle = 1;
  launch.wheelSpeedRL = 0;
  launch.wheelSpeedRR = 0;
  rest.throttle = 0;
  rest.wheelSpeedRL = 0;
  rest.wheelSpeedRR = 0;
  hd.throttle = 1;
  hd.wheelSpeedRL = {W_FULL!r};
  hd.wheelSpeedRR = {W_FULL!r};
end DrivelineHarness;
"""


def _at(result, name):
    return np.asarray(result[name], dtype=float)


def _simulate(compile_source, source, name, t_end, dt):
    model = compile_source(source, name)
    assert model.structure().is_balanced
    return model.simulate(t=(0.0, t_end), dt=dt)


def test_driveline_operating_points(compile_source):
    res = _simulate(compile_source, DRIVELINE, "DrivelineHarness", 0.2, 0.1)
    speed, throttle, torque = _engine_table()

    # Engine torque = table x gain. Full throttle on a grid point: 400 N.m at 2000 rpm x 1.15.
    assert _at(res, "full.gearNumber")[0] == 1
    assert _at(res, "full.engineSpeed")[0] == pytest.approx(2000 * RPM, rel=1e-9)
    assert _bilinear(speed, throttle, torque, 2000 * RPM, 1.0) == pytest.approx(400)
    assert _at(res, "full.engineTorque")[0] == pytest.approx(400 * 1.15, rel=1e-9)
    # Part throttle inside a cell: bilinear value x 0.9.
    assert _at(res, "part.gearNumber")[0] == 1
    expected = 0.9 * _bilinear(speed, throttle, torque, 1125 * RPM, 0.6)
    assert expected == pytest.approx(0.9 * (148.0 + 212.0) / 2)  # by hand: 1000 and 1250 rpm rows
    assert _at(res, "part.engineTorque")[0] == pytest.approx(expected, rel=1e-9)
    # Heavy-duty engine swapped in by redeclare: 470 N.m plateau.
    assert _at(res, "hd.engineTorque")[0] == pytest.approx(470, rel=1e-9)

    # Wheel torque = engine torque x i_g x i_f x eta, split 50/50 by the open differential
    # although the two wheel speeds differ by 2 rad/s.
    total = 400 * 1.15 * GEARS[0] * FINAL * ETA
    assert _at(res, "full.driveTorqueRL")[0] == pytest.approx(total / 2, rel=1e-9)
    assert _at(res, "full.driveTorqueRR")[0] == pytest.approx(total / 2, rel=1e-9)
    part = _at(res, "part.engineTorque")[0] * GEARS[0] * FINAL * ETA / 2
    assert _at(res, "part.driveTorqueRL")[0] == pytest.approx(part, rel=1e-9)
    # Overrun: engine braking; the losses add to it (divided by the efficiency).
    assert _at(res, "overrun.gearNumber")[0] == 6
    t_drag = _at(res, "overrun.engineTorque")[0]
    assert t_drag == pytest.approx(-38, rel=1e-9)
    assert _at(res, "overrun.driveTorqueRR")[0] == pytest.approx(t_drag * GEARS[5] * FINAL / ETA / 2)
    # Reflected inertia per rear wheel with the clutch closed: J_e (i_g i_f)^2 / 2.
    assert _at(res, "full.reflectedInertia")[0] == pytest.approx(0.45 * (GEARS[0] * FINAL) ** 2 / 2)

    # Standing start: engine at idle, the full-throttle idle torque passes the slipping clutch.
    assert _at(res, "launch.gearNumber")[0] == 1
    assert _at(res, "launch.engineSpeed")[0] == pytest.approx(IDLE)
    assert _at(res, "launch.driveTorqueRL")[0] == pytest.approx(180 * GEARS[0] * FINAL * ETA / 2)
    # At rest without throttle the driveline neither drives nor holds the vehicle.
    assert np.allclose(_at(res, "rest.driveTorqueRL"), 0.0)
    assert np.allclose(_at(res, "rest.reflectedInertia"), 0.0)


CHASSIS = """
model ChassisHarness
  VehicleRTM.Brakes.PedalBrakes brakes(torqueGainFront = 9000, torqueGainRear = 5000);
  VehicleRTM.Aerodynamics.AeroDrag drag(dragArea = 1.5, airDensity = 1.2);
  VehicleRTM.Steering.RigidSteering steering(ratio = 0.0085);
  Real wheelBrake(unit = "N.m") = VehicleRTM.Brakes.wheelBrakeTorque(1000, 4*time - 2, 0.5);
equation
  brakes.pedal = 2*time - 0.25;
  drag.vx = 60*time - 20;
  steering.steeringWheelAngle = 8*time - 4;
end ChassisHarness;
"""


def test_brakes_drag_steering(compile_source):
    res = _simulate(compile_source, CHASSIS, "ChassisHarness", 1.0, 0.05)
    t = np.asarray(res.time)
    pedal = np.clip(2 * t - 0.25, 0, 1)  # covers below 0 and above 1 (clamped)
    for i, gain in ((1, 9000), (2, 9000), (3, 5000), (4, 5000)):
        assert np.allclose(_at(res, f"brakes.brakeTorque[{i}]"), gain / 2 * pedal)
    vx = 60 * t - 20
    assert np.allclose(_at(res, "drag.force"), 0.5 * 1.2 * 1.5 * vx * np.abs(vx))
    assert np.allclose(_at(res, "steering.rackTravel"), 0.0085 * (8 * t - 4))
    assert np.allclose(_at(res, "wheelBrake"), 1000 * np.tanh((4 * t - 2) / 0.5))


RAMP = """
model RampHarness
  VehicleRTM.Powertrain.Driveline full;
  VehicleRTM.Powertrain.Driveline half;
equation
  full.throttle = 1;
  full.wheelSpeedRL = if time < 40 then 2.5*time else 200 - 2.5*time;
  full.wheelSpeedRR = full.wheelSpeedRL;
  half.throttle = 0.5;
  half.wheelSpeedRL = full.wheelSpeedRL;
  half.wheelSpeedRR = full.wheelSpeedRL;
end RampHarness;
"""


def _changes(result, prefix):
    """(time, gear before, gear after, mean wheel speed at the shift) for every gear change."""
    t = np.asarray(result.time)
    gear = _at(result, f"{prefix}.gearNumber")
    wheel = (_at(result, f"{prefix}.wheelSpeedRL") + _at(result, f"{prefix}.wheelSpeedRR")) / 2
    idx = np.nonzero(np.diff(gear))[0]
    return [(t[i + 1], gear[i], gear[i + 1], wheel[i + 1]) for i in idx]


def test_ramp_shifts_in_order_at_thresholds(compile_source):
    dt = 0.02
    res = _simulate(compile_source, RAMP, "RampHarness", 80.0, dt)
    tol = 2.5 * dt + 1e-6  # one output interval of the 2.5 rad/s2 ramp
    for prefix, throttle in (("full", 1.0), ("half", 0.5)):
        changes = _changes(res, prefix)
        gears = [(int(a), int(b)) for _, a, b, _ in changes]
        assert gears == [(1, 2), (2, 3), (3, 4), (4, 5), (5, 6),
                         (6, 5), (5, 4), (4, 3), (3, 2), (2, 1)], prefix
        up = UP_ZERO + throttle * (UP_FULL - UP_ZERO)
        for k, (_, _, _, wheel) in enumerate(changes[:5], start=1):
            assert wheel == pytest.approx(up[k - 1] / (GEARS[k - 1] * FINAL), abs=tol)
        for k, (_, _, _, wheel) in zip(range(5, 0, -1), changes[5:]):
            assert wheel == pytest.approx(DOWN[k - 1] / (GEARS[k] * FINAL), abs=tol)
        assert _at(res, f"{prefix}.gearNumber")[-1] == 1


W12 = _wheel_speed(3400, 1)  # full-throttle upshift 1 -> 2
CHATTER = f"""
model ChatterHarness
  VehicleRTM.Powertrain.Driveline dither;
  VehicleRTM.Powertrain.Driveline stop;
equation
  dither.throttle = 1;
  dither.wheelSpeedRL = min({W12!r}, 2*time) + 0.3*sin(25*time);
  dither.wheelSpeedRR = dither.wheelSpeedRL;
  stop.throttle = 0;
  stop.wheelSpeedRL = if time < 5 then 65 else 0;
  stop.wheelSpeedRR = stop.wheelSpeedRL;
end ChatterHarness;
"""


def test_no_chatter_and_downshift_cascade(compile_source):
    res = _simulate(compile_source, CHATTER, "ChatterHarness", 15.0, 0.01)
    # Wheel speed dithering +-0.3 rad/s around the 1 -> 2 threshold: one upshift, never back.
    dither = _changes(res, "dither")
    assert [(int(a), int(b)) for _, a, b, _ in dither] == [(1, 2)]
    # Initial gear from the initial speed (65 rad/s, no throttle: sixth); the stop then cascades
    # one gear per minGearTime down to first.
    assert _at(res, "stop.gearNumber")[0] == 6
    stop = _changes(res, "stop")
    assert [(int(a), int(b)) for _, a, b, _ in stop] == [(6, 5), (5, 4), (4, 3), (3, 2), (2, 1)]
    times = np.array([c[0] for c in stop])
    assert times[0] == pytest.approx(5.0, abs=0.02)
    assert np.all(np.diff(times) >= MIN_GEAR_TIME - 1e-6)


BAD_SCHEDULE = """
model BadScheduleHarness
  VehicleRTM.Powertrain.Driveline bad(downshiftSpeed = {1000, 1100, 1150, 1200, 1400, 1200, 1200, 1200, 1200, 1200,
    1200}*(3.14159265358979/30));
equation
  bad.throttle = 0;
  bad.wheelSpeedRL = 10;
  bad.wheelSpeedRR = 10;
end BadScheduleHarness;
"""


def test_schedule_without_hysteresis_is_rejected(compile_source):
    # 1400 rpm in sixth is 1772 rpm in fifth, above the 1650 rpm light-throttle upshift: would hunt.
    import rumoca

    model = compile_source(BAD_SCHEDULE, "BadScheduleHarness")
    with pytest.raises(rumoca.SimulationError, match="no shift hysteresis between gear 5 and 6"):
        model.simulate(t=(0.0, 0.1), dt=0.05)
