"""Physics of the 14-DoF RTM, simulated with rumoca: equilibrium, a linear bicycle model, ISO 8855 signs."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fmu_helpers import rumoca_vehicle_example
from mf_reference import coefficients, reference

G = 9.81
# The 3.5 t LCV of Data.LCV35t (the RTM14DoF defaults), as written in that record.
WHEELBASE, COG_TO_FRONT, COG_HEIGHT = 3.45, 1.70, 0.85
SPRUNG_MASS = 2590 + 22 + 25 + 8            # Eq. 7 with the record's split factors
FRONT_UNSPRUNG = 28 + 9 + 6 + 8 + 0.5 * 22   # Eq. 5
REAR_UNSPRUNG = 28 + 8 + 5 + 0.8 * 40 / 2 + 45 + 0.5 * 25  # Eq. 6
STEERING_RATIO = 0.008                      # m of rack per rad of steering wheel
RACK_TO_WHEEL = 6.0                         # rad of road-wheel angle per m of rack in the flat map below


def _settled(result, name: str, seconds: float = 0.5) -> float:
    t = np.asarray(result.time)
    return float(np.mean(np.asarray(result[name])[t >= t[-1] - seconds]))


EQUILIBRIUM_HARNESS = """
model Equilibrium
  parameter Real payload(unit = "kg") = 400 "Extra sprung mass at the sprung centre of gravity";
  VehicleRTM.Vehicles.RTM14DoF vehicle(chassis(sprungBodies = 2590 + payload));
  Real frontTravel[9](each unit = "m") = vehicle.frontAxleData.stiffness.travel;
  Real frontForce[9](each unit = "N") = vehicle.frontAxleData.stiffness.parallelForce;
  Real rearTravel[9](each unit = "m") = vehicle.rearAxleData.stiffness.travel;
  Real rearForce[9](each unit = "N") = vehicle.rearAxleData.stiffness.parallelForce;
equation
  vehicle.steeringWheelAngle = 0;
  vehicle.throttle = 0;
  vehicle.brakePedal = 0;
  vehicle.brakePressure = 0;
  vehicle.rearWheelTorque = zeros(2);
  vehicle.roadFriction = ones(4);
  vehicle.roadHeight = zeros(4);
end Equilibrium;
"""


def test_static_ride_height_matches_the_stiffness_maps(compile_source):
    """400 kg more sprung mass: each wheel settles where the parallel-travel map carries its new load.

    The body pitches nose down a little (the front is softer), which moves the centre of gravity
    forward by h*sin(pitch) over the contact points; the expected corner loads include that.
    """
    result = compile_source(EQUILIBRIUM_HARNESS, "Equilibrium").simulate(t=(0, 6), dt=0.01)
    sprung = SPRUNG_MASS + 400
    shift = COG_HEIGHT * math.sin(_settled(result, "vehicle.pitch"))
    assert 0 < shift < 0.01
    loads = {"front": sprung * G * (WHEELBASE - COG_TO_FRONT + shift) / (2 * WHEELBASE),
             "rear": sprung * G * (COG_TO_FRONT - shift) / (2 * WHEELBASE)}
    for axle, wheels in (("front", (1, 2)), ("rear", (3, 4))):
        travel = np.array([result[f"{axle}Travel[{k}]"][0] for k in range(1, 10)])
        force = np.array([result[f"{axle}Force[{k}]"][0] for k in range(1, 10)])
        for wheel in wheels:
            # The contact patch scrubs sideways along its kinematic path while the suspension
            # compresses; parked, the tyre keeps that lateral preload, whose jacking force the
            # spring carries too (a few tens of N here).
            jacking = _settled(result, f"vehicle.jackingForce[{wheel}]")
            assert abs(jacking) < 0.01 * loads[axle]
            expected = float(np.interp(loads[axle] + jacking, force, travel))   # the map is monotonic: invert it
            assert expected > 0.01, "the payload must compress the suspension noticeably"
            settled = _settled(result, f"vehicle.wheelTravel[{wheel}]")
            assert settled == pytest.approx(expected, rel=0.01), (axle, wheel, settled, expected)
    # Parked, the wheels come to rest: the tyres' low-speed damping kills the standstill
    # oscillation of tyre spring and wheel inertia (undamped it keeps about 0.1 rad/s amplitude).
    t = np.asarray(result.time)
    for wheel in range(1, 5):
        assert float(np.max(np.abs(np.asarray(result[f"vehicle.omega[{wheel}]"])[t > 5]))) < 0.01
    # The tyres carry the whole weight.
    total_load = sum(_settled(result, f"vehicle.Fz[{k}]") for k in range(1, 5))
    total_mass = sprung + 2 * FRONT_UNSPRUNG + 2 * REAR_UNSPRUNG
    assert total_load == pytest.approx(total_mass * G, rel=1e-3)


BICYCLE_HARNESS = """
package Bicycle
  record FlatFront "QuadLeaf with pure rack steering: no bump steer, no camber change, no compliance"
    extends VehicleRTM.Suspensions.QuadLeaf(
      kinematics(toe = {{6.0*kinematics.u2[j] for j in 1:size(kinematics.u2, 1)} for i in 1:size(kinematics.u1, 1)},
        camber = zeros(9, 9)),
      compliance(txFxOwn = zeros(7), toeFxOwn = zeros(7), tyFyOwn = zeros(7), toeFyOwn = zeros(7),
        camberFyOwn = zeros(7), toeMzOwn = zeros(5), toeFyOpposite = zeros(7), toeMzOpposite = zeros(5)));
    annotation (Documentation(info = "<html><p>Test record.</p></html>"));
  end FlatFront;
  record FlatRear "Single-leaf axle without roll steer, roll camber or compliance"
    extends VehicleRTM.Suspensions.SolidAxleSingleLeaf(
      kinematics(toe = zeros(9, 9), camber = zeros(9, 9)),
      compliance(txFxOwn = zeros(7), toeFxOwn = zeros(7), tyFyOwn = zeros(7), toeFyOwn = zeros(7),
        camberFyOwn = zeros(7), tyFyOpposite = zeros(7), toeFyOpposite = zeros(7)));
    annotation (Documentation(info = "<html><p>Test record.</p></html>"));
  end FlatRear;
  model Harness
    parameter Real steer(unit = "rad") = 15*3.14159265358979/180;
    parameter Real targetSpeed(unit = "m/s") = 80/3.6;
    VehicleRTM.Vehicles.RTM14DoF vehicle(redeclare parameter FlatFront frontAxleData,
      redeclare parameter FlatRear rearAxleData, initialSpeed = targetSpeed);
  equation
    vehicle.steeringWheelAngle = steer*min(1, max(0, time - 1));
    vehicle.throttle = min(1, max(0, 0.12 + 0.5*(targetSpeed - vehicle.vx)));
    vehicle.brakePedal = 0;
    vehicle.brakePressure = 0;
    vehicle.rearWheelTorque = zeros(2);
    vehicle.roadFriction = ones(4);
    vehicle.roadHeight = zeros(4);
  end Harness;
  annotation (Documentation(info = "<html><p>Test package.</p></html>"));
end Bicycle;
"""


def _axle_tyre(fz: float) -> tuple[float, float]:
    """Cornering stiffness |dFy/dalpha| [N/rad] and pneumatic trail -dMz/dFy [m] of one tyre at zero slip.

    Taken from the independent Python Magic Formula (tests/mf_reference.py) by central differences.
    """
    p = coefficients()
    step = 1e-4
    plus, minus = reference(p, fz, 0.0, step, 0.0, 20.0), reference(p, fz, 0.0, -step, 0.0, 20.0)
    d_fy, d_mz = plus["Fy"] - minus["Fy"], plus["Mz"] - minus["Mz"]
    return abs(d_fy) / (2 * step), -d_mz / d_fy


def test_linear_range_yaw_rate_gain_matches_a_bicycle_model(compile_source):
    """Steady-state yaw-rate gain against the linear single-track model with the same parameters.

    The single-track model has the masses, centre of gravity and wheelbase of Data.LCV35t, the
    cornering stiffness of the Magic Formula at the static axle loads, and the pneumatic trails
    (the aligning moments move each axle's force back by t): r/delta = V / (L + m V^2 (b'/Cf - a'/Cr)/L')
    with a' = a - tf, b' = b + tr, L' = a' + b'.
    """
    result = compile_source(BICYCLE_HARNESS, "Bicycle.Harness").simulate(t=(0, 8), dt=0.01)
    mass = SPRUNG_MASS + 2 * FRONT_UNSPRUNG + 2 * REAR_UNSPRUNG
    # Centre of gravity of the whole vehicle: sprung mass at its CoG, unsprung masses at the axles.
    cog_x = (SPRUNG_MASS * COG_TO_FRONT + 2 * REAR_UNSPRUNG * WHEELBASE) / mass
    a, b = cog_x, WHEELBASE - cog_x
    stiffness_front, trail_front = _axle_tyre(mass * G * b / WHEELBASE / 2)
    stiffness_rear, trail_rear = _axle_tyre(mass * G * a / WHEELBASE / 2)
    a_eff, b_eff = a - trail_front, b + trail_rear
    understeer = mass * (b_eff / (2 * stiffness_front) - a_eff / (2 * stiffness_rear)) / (a_eff + b_eff)
    speed = _settled(result, "vehicle.vx", 1.0)
    expected_gain = speed / (WHEELBASE + understeer * speed**2)     # yaw rate per road-wheel angle
    road_wheel_angle = RACK_TO_WHEEL * STEERING_RATIO * 15 * math.pi / 180
    yaw_rate = _settled(result, "vehicle.yawRate", 1.0)
    assert abs(_settled(result, "vehicle.ay", 1.0)) < 0.2 * G, "the test must stay in the linear range"
    assert yaw_rate / road_wheel_angle == pytest.approx(expected_gain, rel=0.05)


@pytest.fixture(scope="module")
def step_steer():
    return rumoca_vehicle_example("StepSteer")


def test_left_step_steer_signs_follow_iso_8855(step_steer):
    # Steering wheel to the left: the vehicle turns left (yaw rate and ay positive), the body rolls
    # to the right (roll positive), load goes to the right wheels, the right wheels go into bump.
    assert _settled(step_steer, "vehicle.steeringWheelAngle") > 0
    assert _settled(step_steer, "vehicle.yawRate") > 0.05
    assert _settled(step_steer, "vehicle.ay") > 1.0
    assert _settled(step_steer, "vehicle.roll") > 0.005
    assert _settled(step_steer, "vehicle.lateralLoadTransfer") > 1000
    assert _settled(step_steer, "vehicle.wheelTravel[2]") > 0 > _settled(step_steer, "vehicle.wheelTravel[1]")
    # At 80 km/h a van's rear slides out a little: sideslip at the CoG is negative in a left turn.
    assert _settled(step_steer, "vehicle.sideslip") < 0


def test_step_steer_is_kinematically_consistent(step_steer):
    # In a steady turn ay = r * v: the lateral acceleration comes from the yaw rate.
    ay = _settled(step_steer, "vehicle.ay")
    assert ay == pytest.approx(_settled(step_steer, "vehicle.yawRate") * _settled(step_steer, "vehicle.vx"), rel=0.02)
    # Total lateral load transfer balances the roll moment of the whole mass: dFz * track ~ m*ay*h.
    transfer = _settled(step_steer, "vehicle.lateralLoadTransfer")
    mass = SPRUNG_MASS + 2 * FRONT_UNSPRUNG + 2 * REAR_UNSPRUNG
    mean_track = (1.72 + 1.54) / 2
    assert transfer * mean_track == pytest.approx(mass * ay * 0.85, rel=0.15)


def test_braking_dives_and_acceleration_squats():
    braking = rumoca_vehicle_example("Braking")
    t = np.asarray(braking.time)
    hold = (t > 2.5) & (t < 4.0)            # pedal held, vehicle still rolling
    assert float(np.min(np.asarray(braking["vehicle.vx"])[hold])) > 1.0
    assert float(np.mean(np.asarray(braking["vehicle.ax"])[hold])) < -3.0
    assert float(np.mean(np.asarray(braking["vehicle.pitch"])[hold])) > 0.002      # nose down
    assert float(np.mean(np.asarray(braking["vehicle.Fz[1]"])[hold])) > float(np.mean(np.asarray(braking["vehicle.Fz[3]"])[hold]))
    accelerating = rumoca_vehicle_example("Acceleration")
    assert float(np.max(accelerating["vehicle.ax"])) > 1.5
    t = np.asarray(accelerating.time)
    launch = (t > 1.0) & (t < 3.0)
    assert float(np.mean(np.asarray(accelerating["vehicle.pitch"])[launch])) < 0   # nose up
    gears = np.asarray(accelerating["vehicle.driveline.gearNumber"])
    assert gears[-1] > gears[0] and np.all(np.diff(gears) >= 0), "full throttle only shifts up"


LCV70T_HARNESS = """
model Heavy
  VehicleRTM.Vehicles.RTM14DoF vehicle(
    redeclare parameter VehicleRTM.Data.LCV70t chassis,
    redeclare parameter VehicleRTM.Suspensions.QuadTor frontAxleData,
    redeclare parameter VehicleRTM.Suspensions.SolidAxleMultiLeaf rearAxleData,
    redeclare parameter VehicleRTM.Data.Tires.LCV7t_225_75R16C frontTire,
    redeclare parameter VehicleRTM.Data.Tires.LCV7t_225_75R16C rearTire,
    redeclare parameter VehicleRTM.Powertrain.Engine30DieselHD engine);
equation
  vehicle.steeringWheelAngle = 0;
  vehicle.throttle = if time > 3 then 1 else 0;
  vehicle.brakePedal = 0;
  vehicle.brakePressure = 0;
  vehicle.rearWheelTorque = zeros(2);
  vehicle.roadFriction = ones(4);
  vehicle.roadHeight = zeros(4);
end Heavy;
"""


def test_the_7t_variant_swaps_in_and_sits_at_its_design_height(compile_source):
    """QuadTor, multi-leaf axle, dual rear tyres, 7 t data: the maps carry the record's corner loads."""
    result = compile_source(LCV70T_HARNESS, "Heavy").simulate(t=(0, 6), dt=0.01)
    t = np.asarray(result.time)
    parked = t < 3
    sprung = 5066 + 30 + 45 + 0.2 * 70                                  # Eq. 7 of Data.LCV70t
    unsprung = 2 * (35 + 12 + 8 + 12 + 0.5 * 30) + 2 * (70 + 12 + 8 + 0.8 * 70 / 2 + 70 + 0.5 * 45)
    total_load = sum(np.asarray(result[f"vehicle.Fz[{k}]"])[parked][-1] for k in range(1, 5))
    assert total_load == pytest.approx((sprung + unsprung) * G, rel=1e-3)
    for wheel in range(1, 5):
        assert abs(float(np.asarray(result[f"vehicle.wheelTravel[{wheel}]"])[parked][-1])) < 0.002
    # Dual tyres: the rear station carries two tyres, each with half the station load.
    assert float(result["vehicle.tireRL.Fz"][-1]) == pytest.approx(float(result["vehicle.Fz[3]"][-1]) / 2, rel=1e-9)
    # The heavy-duty engine (470 N.m; the 3.5 t engine has 400 N.m) drives the truck off from rest.
    assert float(np.max(result["vehicle.driveline.engineTorque"])) > 420
    assert float(result["vehicle.vx"][-1]) > 1.0
