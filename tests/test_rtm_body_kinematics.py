"""RTM14DoF: the tyre slip follows the body's motion, the model is power-consistent, and the sensor
channels read what a sensor of that definition reads.

The model is evaluated in Model Exchange at prescribed states (fmpy's FMU2Model): the contact-point
velocities, the generalized forces and the accelerations are then compared with hand computations.
"""
from __future__ import annotations

import ctypes
import math

import numpy as np
import pandas as pd
import pytest
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Model
from scipy.spatial.transform import Rotation

from pybridge.evaluate.channels import DEFINITIONS
from pybridge.evaluate.kpi import evaluate_indices
from pybridge.parameters import ParameterSet

G = 9.81


def _pointer(array: np.ndarray):
    return array.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


class MEState:
    """The RTM FMU in continuous-time mode: set states by name, read any real variable."""

    def __init__(self, fmu, tmp_path, parameters: dict[str, float] | None = None):
        self.md = read_model_description(fmu)
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.model = FMU2Model(guid=self.md.guid, unzipDirectory=extract(fmu, unzipdir=tmp_path),
                               modelIdentifier=self.md.modelExchange.modelIdentifier, instanceName="me")
        self.model.instantiate()
        self.model.setupExperiment(startTime=0.0)
        types = {v.name: v.type for v in self.md.modelVariables}
        for name, value in (parameters or {}).items():
            if types[name] == "Boolean":
                self.model.setBoolean([self.vr[name]], [bool(value)])
            else:
                self.model.setReal([self.vr[name]], [value])
        self.model.enterInitializationMode()
        self.model.exitInitializationMode()
        self.model.enterEventMode()
        self.model.newDiscreteStates()
        self.model.enterContinuousTimeMode()
        self.states = [d.variable.derivative.name for d in self.md.derivatives]
        self.derivatives = [d.variable.name for d in self.md.derivatives]
        self.x0 = np.zeros(len(self.states))
        self.model.getContinuousStates(_pointer(self.x0), len(self.x0))

    def evaluate(self, **states: float) -> None:
        """Set the named states (``wheelVerticalVelocity_3`` for ``wheelVerticalVelocity[3]``); others at start."""
        x = self.x0.copy()
        for key, value in states.items():
            name = key.replace("__", ".")
            if "_" in name and name.rsplit("_", 1)[1].isdigit():
                stem, index = name.rsplit("_", 1)
                name = f"{stem}[{index}]"
            x[self.states.index(name)] = value
        self.model.setContinuousStates(_pointer(x), len(x))
        dx = np.zeros(len(x))
        self.model.getDerivatives(_pointer(dx), len(dx))
        self.dx = dict(zip(self.states, dx))

    def __getitem__(self, name: str) -> float:
        if name.startswith("der("):
            return float(self.dx[name[4:-1]])
        return float(self.model.getReal([self.vr[name]])[0])

    def vector(self, name: str, n: int = 4) -> np.ndarray:
        return np.array([self[f"{name}[{k}]"] for k in range(1, n + 1)])

    def close(self) -> None:
        self.model.terminate()
        self.model.freeInstance()


@pytest.fixture
def me(rtm_fmu, tmp_path):
    states = []

    def _open(parameters=None) -> MEState:
        states.append(MEState(rtm_fmu, tmp_path / f"me{len(states)}", parameters))
        return states[-1]

    yield _open
    for state in states:
        state.close()


def _map_slope(m: MEState, axle: str, argument: int) -> float:
    """d ty / d (first or second map argument) of the axle's kinematic map at the origin, from the
    table itself (central difference of the bilinear interpolant over one cell)."""
    u1 = np.array([m[f"{axle}AxleData.kinematics.u1[{k}]"] for k in range(1, 100)
                   if f"{axle}AxleData.kinematics.u1[{k}]" in m.vr])
    u2 = np.array([m[f"{axle}AxleData.kinematics.u2[{k}]"] for k in range(1, 100)
                   if f"{axle}AxleData.kinematics.u2[{k}]" in m.vr])
    ty = np.array([[m[f"{axle}AxleData.kinematics.ty[{i},{j}]"] for j in range(1, len(u2) + 1)]
                   for i in range(1, len(u1) + 1)])
    grid = u1 if argument == 1 else u2
    k = int(np.argmin(np.abs(grid)))
    assert abs(grid[k]) < 1e-12, "the design position must be a breakpoint"
    other = int(np.argmin(np.abs(u2 if argument == 1 else u1)))
    line = ty[:, other] if argument == 1 else ty[other, :]
    return float((line[k + 1] - line[k - 1]) / (grid[k + 1] - grid[k - 1]))


def test_a_rolling_body_slips_the_tyres_by_its_height_above_the_roll_centre(me):
    """At speed, a body rolling over standing wheels moves each contact point sideways by the
    roll rate times (CoG height - roll-centre height); the roll centre is where the contact path's
    lateral slope puts it: h_RC = half track x d ty / d travel (front: own travel; rear solid axle:
    opposite travel)."""
    m = me({"initialSpeed": 20.0})
    p = 0.2
    m.evaluate(rollRate=p)
    h = m["chassis.cogHeight"]
    centres = {"front": m["frontAxleData.track"] / 2 * _map_slope(m, "front", 1),
               "rear": m["rearAxleData.track"] / 2 * _map_slope(m, "rear", 2)}
    for wheel, axle in ((1, "front"), (2, "front"), (3, "rear"), (4, "rear")):
        assert m[f"contactVy[{wheel}]"] == pytest.approx(p * (h - centres[axle]), rel=0.02, abs=1e-4)
    # the van's geometry: a low front roll centre, a high rear one (solid axle on leaves)
    assert -0.05 < centres["front"] < 0.15 and 0.15 < centres["rear"] < 0.45
    # roll moves the contact points fore and aft only along their paths, antisymmetrically left/right;
    # a pitching body slips all four tyres longitudinally (the contact points lie below the CoG)
    vx = m.vector("contactVx")
    assert vx[0] + vx[1] == pytest.approx(40.0, abs=1e-9) and vx[2] + vx[3] == pytest.approx(40.0, abs=1e-9)
    m.evaluate(pitchRate=0.1)
    assert np.all(m.vector("contactVx") < 20.0 - 0.1 * 0.5)


@pytest.mark.parametrize("travel_along_body", [True, False])
def test_a_wheel_travels_along_the_rolled_and_pitched_body_axis(me, travel_along_body):
    """The K&C travel is along the body's z axis: in a body rolled by phi and pitched by theta, a wheel
    moving at travel rate w (at design travel) moves its contact point sideways by (d ty/d travel -
    sin phi) w and fore and aft by sin(theta) w, and the tyre forces act on the travel through that
    tilt (jacking Fy (d ty/d travel - sin phi) + Fx sin theta). In a 0.4 g turn of the van, -Fy sin(roll)
    is about -370 N on the front axle, 4 mm of heave."""
    m = me({"initialSpeed": 20.0, "travelAlongBody": travel_along_body})
    phi, theta, w = 0.06, 0.02, 0.1
    design = {f"wheelHeight_{k}": m[f"designWheelHeight[{k}]"] + m[f"cornerY[{k}]"] * phi - m[f"cornerX[{k}]"] * theta
              for k in range(1, 5)}
    loaded = dict(roll=phi, pitch=theta, tireFL__tanAlpha=-0.04, tireFL__kappa=0.02, **design)
    m.evaluate(**loaded)
    assert m["wheelTravel[1]"] == pytest.approx(0.0, abs=1e-12)
    vx0, vy0 = m["contactVx[1]"], m["contactVy[1]"]
    axle_jacking = m["frontAxle.jackingForce[1]"]
    Fx, Fy = m["Fx[1]"], m["Fy[1]"]
    assert Fy > 1000 and Fx > 100, "the state must load the tyre"
    tilt = (math.sin(phi), math.sin(theta)) if travel_along_body else (0.0, 0.0)
    assert m["jackingForce[1]"] == pytest.approx(axle_jacking - Fy * tilt[0] + Fx * tilt[1], rel=1e-9)
    m.evaluate(wheelVerticalVelocity_1=w, bodyVerticalVelocity=0.0, **loaded)
    assert m["travelRate[1]"] == pytest.approx(w, rel=1e-12)
    path = m["frontAxle.contactPathVy[1]"] / w       # the map's lateral slope (the bilinear cell's), times w
    assert 0.0 < path < 0.2
    assert (m["contactVy[1]"] - vy0) / w == pytest.approx(path - tilt[0], abs=1e-9)
    assert (m["contactVx[1]"] - vx0) / w == pytest.approx(m["frontAxle.contactPathVx[1]"] / w + tilt[1], abs=1e-9)


@pytest.mark.parametrize("gyroscopic", [True, False])
def test_a_rolling_spinning_front_wheel_loads_its_steering_compliance(me, gyroscopic):
    """A front wheel (independent axle) rolls with the body: turning its spin momentum I w about x at the
    roll rate p takes the moment I w p about z from the knuckle, so the steering compliance feels the tyre's
    Mz less I w p, and the toe moves by that moment times the map's toe-per-Mz (own and opposite wheel). The
    rear solid axle's wheels roll with the axle, not the body. In the van's step steer (p up to 0.23 rad/s,
    w 77 rad/s) this is 23 N m per wheel, -1.6 points of yaw-rate overshoot, as in the MBM."""
    m = me({"initialSpeed": 25.0, "wheelGyroscopicSteer": gyroscopic})
    m.evaluate()
    still = m.vector("frontAxle.wheelMz", 2), m.vector("wheelSteerAngle")
    p = 0.2
    m.evaluate(rollRate=p)
    spin = m.vector("omega")
    assert spin[0] > 60
    moment = m["chassis.frontWheelInertia"] * spin[:2] * p if gyroscopic else np.zeros(2)
    assert m.vector("frontAxle.wheelMz", 2) == pytest.approx(m.vector("wheelMz")[:2] - moment, abs=1e-9)
    assert m.vector("rearAxle.wheelMz", 2) == pytest.approx(m.vector("wheelMz")[2:], abs=1e-9)
    assert np.all(np.abs(m.vector("wheelMz")[:2] - still[0]) < 1e-9), "roll rate alone loads no tyre"
    moment_grid = np.array([m[f"frontAxleData.compliance.moment[{k}]"] for k in range(1, 6)])
    per_moment = -sum(np.interp(-1.0, moment_grid, [m[f"frontAxleData.compliance.toeMz{w}[{k}]"] for k in range(1, 6)])
                      for w in ("Own", "Opposite"))       # toe per N m on the side of the gyroscopic moment
    # both wheels' moments are equal and opposite in their mirrored frames: the toe moves like one steer
    left_steer = m["wheelSteerAngle[1]"] - still[1][0]
    assert left_steer == pytest.approx(-moment[0] * per_moment, rel=0.01, abs=1e-12)


def test_the_tyre_forces_do_the_same_work_on_the_body_as_at_the_contact_points(me):
    """Power balance: sum of F . v at the four contact points equals the generalized forces of the
    tyres (roll, pitch, yaw moments, jacking on wheels and body) times the generalized velocities."""
    m = me({"initialSpeed": 22.0})
    m.evaluate(vy=0.4, yawRate=0.25, rollRate=0.15, pitchRate=-0.08, bodyVerticalVelocity=0.05,
               roll=0.03, pitch=-0.01, wheelVerticalVelocity_1=0.1, wheelVerticalVelocity_3=-0.07,
               tireFL__tanAlpha=0.03, tireFR__tanAlpha=0.02, tireRL__tanAlpha=0.01, tireRR__tanAlpha=0.015,
               tireRL__kappa=0.02, tireRR__kappa=0.01)
    Fx, Fy = m.vector("Fx"), m.vector("Fy")
    assert np.max(np.abs(Fy)) > 500, "the state must load the tyres laterally"
    at_contacts = float(Fx @ m.vector("contactVx") + Fy @ m.vector("contactVy"))
    x, y = m.vector("cornerX"), m.vector("cornerY")
    susp, jack = m.vector("suspensionForce"), m.vector("jackingForce")
    grav = m["sprungMass"] * m["g"] * m["chassis.cogHeight"]
    aero = m["aero.force"] * (m["aero.height"] - m["bodyHeight"])
    roll_tyres = m["rollMoment"] - y @ susp - grav * math.sin(m["roll"])
    pitch_tyres = m["pitchMoment"] + x @ susp - aero - grav * math.sin(m["pitch"])
    yaw_tyres = m["yawMoment"] - m.vector("wheelMz").sum()
    generalized = (Fx.sum() * m["vx"] + Fy.sum() * m["vy"] + yaw_tyres * m["yawRate"]
                   + roll_tyres * m["rollRate"] + pitch_tyres * m["pitchRate"]
                   + jack @ (m.vector("wheelVerticalVelocity") - m["bodyVerticalVelocity"]))
    assert generalized == pytest.approx(at_contacts, rel=1e-9, abs=1e-6)
    # the slip the model uses is that velocity, rotated into wheel axes
    steer = m.vector("wheelSteerAngle")
    vy_wheel = -np.sin(steer) * m.vector("contactVx") + np.cos(steer) * m.vector("contactVy")
    assert np.allclose(vy_wheel, [m[f"tire{c}.vy"] for c in ("FL", "FR", "RL", "RR")], atol=1e-12)


def test_the_accelerometer_reads_the_specific_force_of_its_point_on_body_axes(me):
    """A body-fixed accelerometer off the CoG, body rolled, pitched and turning: its reading equals
    a + alpha x r + omega x (omega x r) - g, rotated into body axes (computed here with numpy)."""
    position = np.array([0.6, -0.3, 0.25])
    m = me({"initialSpeed": 20.0, **{f"accelerometerPosition[{k + 1}]": v for k, v in enumerate(position)}})
    m.evaluate(vy=0.3, yawRate=0.3, rollRate=0.2, pitchRate=0.1, roll=0.05, pitch=0.02,
               tireFL__tanAlpha=0.03, tireFR__tanAlpha=0.03)
    omega = np.array([m["rollRate"], m["pitchRate"], m["yawRate"]])
    alpha = np.array([m["der(rollRate)"], m["der(pitchRate)"], m["der(yawRate)"]])
    a_cog = np.array([m["axSprung"], m["aySprung"], m["der(bodyVerticalVelocity)"]])
    a_point = a_cog + np.cross(alpha, position) + np.cross(omega, np.cross(omega, position))
    body = Rotation.from_euler("YX", [m["pitch"], m["roll"]])          # yaw frame <- body axes
    reading = body.inv().apply(a_point - np.array([0, 0, -G]))
    assert m["axSensor"] == pytest.approx(reading[0], rel=1e-9)
    assert m["aySensor"] == pytest.approx(reading[1], rel=1e-9)
    # the sprung CoG's acceleration is what the whole vehicle's momentum and the mass matrix give
    assert m["ay"] == pytest.approx(m.vector("Fy").sum() / m["totalMass"], rel=1e-12)
    row = [m["totalMass"], m["unsprungRollMoment"], m["unsprungXMoment"]]
    assert row[0] * m["aySprung"] + row[1] * alpha[0] + row[2] * alpha[2] == pytest.approx(m.vector("Fy").sum(),
                                                                                           rel=1e-9)


def test_parked_on_a_tilted_road_the_sensor_reads_gravity_and_the_road_relative_roll_is_small(session):
    """At rest on a road sloping 3 % to the right, the body rolls with the road (roll > 0): the lateral
    accelerometer reads g sin(roll), the CoG accelerations are ~0, the road-relative roll is small.
    The braked wheels stand still: their regularised brakes are the model's stiffest modes (h*lambda =
    -7.6 at 1 ms), where an explicit integrator chatters (RK4 at 1 ms: 0.48 rad/s; the default: 1e-4)."""
    track = 1.7
    slope = 0.03
    session.reset()
    frame = session.simulate(lambda t: {"steeringWheelAngle": 0.0, "throttle": 0.0, "brakePedal": 1.0,
                                        "roadHeight[1]": slope * track / 2, "roadHeight[2]": -slope * track / 2,
                                        "roadHeight[3]": slope * track / 2, "roadHeight[4]": -slope * track / 2},
                             4.0, 0.01, ["roll", "rollRelativeToRoad", "aySensor", "ay", "aySprung",
                                         *(f"wheelSpeed[{k}]" for k in range(1, 5))])
    end = frame.iloc[-1]
    assert max(abs(end[f"wheelSpeed[{k}]"]) for k in range(1, 5)) < 0.01
    assert end["roll"] > 0.5 * slope
    assert abs(end["ay"]) < 0.02 and abs(end["aySprung"]) < 0.02
    assert end["aySensor"] == pytest.approx(G * math.sin(end["roll"]), abs=0.02)
    tracks = session.get(["frontAxleData.track", "rearAxleData.track"])
    road_roll = (slope * track / tracks["frontAxleData.track"] + slope * track / tracks["rearAxleData.track"]) / 2
    assert end["rollRelativeToRoad"] == pytest.approx(end["roll"] - road_roll, abs=1e-9)


def test_steady_turn_channels_agree_with_their_definitions(session):
    """Constant steer at 60 km/h: at steady state the whole vehicle's ay is V*yaw rate, the CoG
    accelerometer adds g sin(roll), and the sideslip at the rear axle is atan((vy - r b)/vx)."""
    b = 1.75
    session.reset()
    session.apply(ParameterSet(model=session.model_name,
                               scalars={"initialSpeed": 60 / 3.6, "velocitySensorPosition[1]": -b}))
    frame = session.simulate(lambda t: {"steeringWheelAngle": 0.6, "throttle": 0.25, "brakePedal": 0.0},
                             6.0, 0.01, ["vx", "vy", "yawRate", "ay", "aySprung", "aySensor", "roll", "pitch",
                                         "sideslipSensor", "sideslipSprung", "rollRate"])
    end = frame.iloc[-50:].mean()
    assert end["ay"] > 1.5
    assert end["ay"] == pytest.approx(end["vx"] * end["yawRate"], rel=0.02)
    assert end["aySprung"] == pytest.approx(end["ay"], rel=0.02)
    assert end["aySensor"] == pytest.approx(end["aySprung"] * math.cos(end["roll"]) + G * math.sin(end["roll"]),
                                            rel=0.01)
    last = frame.iloc[-1]
    assert last["sideslipSensor"] == pytest.approx(math.atan2(last["vy"] - last["yawRate"] * b, last["vx"]), abs=1e-9)
    assert last["sideslipSprung"] == pytest.approx(math.atan2(last["vy"], last["vx"]), abs=1e-9)


def test_a_reference_declaring_its_ay_definition_is_scored_against_that_rtm_channel():
    """The step-steer indices of an RTM trace against a reference that declares ay as a sensor
    reading: scored on ay_sensor (identical here, error 0), not on the whole vehicle's ay."""
    t = np.linspace(0, 6, 601)
    yaw = 0.15 * (1 - np.exp(-np.clip(t - 1, 0, None) / 0.3))
    ay_vehicle = 4.0 * (1 - np.exp(-np.clip(t - 1, 0, None) / 0.35))
    rtm = pd.DataFrame({"time": t, "yaw_rate": yaw, "ay": ay_vehicle, "ay_sensor": 1.1 * ay_vehicle,
                        "steering_wheel_angle": np.where(t > 1, 0.5, 0.0)})
    reference = rtm[["time", "yaw_rate", "ay_sensor", "steering_wheel_angle"]].rename(columns={"ay_sensor": "ay"})
    reference.attrs["definitions"] = {"ay": "sensor"}
    names = ["ay_gain", "ay_trace"]
    assert all(r.value_percent < 1e-9 for r in evaluate_indices("step_steer", rtm, reference, names))
    reference.attrs["definitions"] = {}
    assert all(r.value_percent > 5 for r in evaluate_indices("step_steer", rtm, reference, names))
    assert set(DEFINITIONS["ay"]) == {"vehicle_cog", "sprung_cog", "sensor"}
