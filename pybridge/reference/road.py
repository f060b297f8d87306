"""Full-vehicle manoeuvres of the reference multibody vehicle on a flat road.

Fixed-step co-simulation of the Exudyn model (generalized-alpha, step ``h``) with the Python parts
evaluated once per step in Exudyn's pre-step hook: the driver (scenario inputs, PI speed control),
the driveline and brakes, the four contact-patch Magic Formula tyres and the aerodynamic drag. The
vehicle starts from its static equilibrium on the tyres, moving at the scenario's initial speed.
Outputs (the scenario vocabulary of ``pybridge.simulate.scenarios``) are sampled at the scenario's rate,
with the signals an instrumented vehicle's sensors give an on-board model (``pybridge replay``): the
rear hub torques ``wheel_torque_rl``/``wheel_torque_rr`` (drive plus brake, as a wheel torque sensor
measures them) and the brake line pressure ``brake_pressure`` (pedal x ``BRAKE_LINE_PRESSURE``; the
reference's brake torque is proportional to it).
"""
from __future__ import annotations

import contextlib
import io
import math
import time as clock
from typing import Callable

import exudyn as exu
import numpy as np
import pandas as pd

from pybridge.mbm.driveline_data import driveline_from_dict
from pybridge.reference.driveline import Driveline, DrivelineParameters
from pybridge.reference.model import CORNERS, ReferenceVehicle
from pybridge.reference.statics import leaf_offsets, pad_force, static_equilibrium
from pybridge.reference.dual_tyre import corner_tyre
from pybridge.reference.vehicle_data import VehicleData
from pybridge.simulate.manoeuvres import ManoeuvreError
from pybridge.simulate.scenarios import OUTPUT_CHANNELS, Scenario

STEP = 1e-3  # s, integrator step and tyre/driver update
BRAKE_LINE_PRESSURE = 16e6  # Pa, the reference's brake line pressure at full pedal (its torque per pedal at it)


class MultibodySolverError(RuntimeError):
    """The multibody solver gave up on a manoeuvre of the reference vehicle (diverged, did not converge)."""


def driveline_parameters(data: VehicleData) -> DrivelineParameters:
    """The data file's driveline section as the driveline model's parameters (SI)."""
    d = driveline_from_dict(data["driveline"], source=str(data.source), where="driveline")
    e, g, b = d.engine, d.gearbox, d.brakes
    return DrivelineParameters(
        engine_speed=np.asarray(e.speed), throttle=np.asarray(e.throttle), engine_torque=np.asarray(e.torque),
        idle_speed=e.idle_speed, max_speed=e.max_speed, engine_inertia=e.inertia,
        gear_ratios=np.asarray(g.ratios), final_drive=g.final_drive, efficiency=g.efficiency,
        upshift_speed=np.full(len(g.ratios) - 1, g.upshift_speed),
        downshift_speed=np.full(len(g.ratios) - 1, g.downshift_speed),
        front_brake_torque_per_pedal=b.front_torque_per_pedal, rear_brake_torque_per_pedal=b.rear_torque_per_pedal)


def dynamic_settings(end_time: float, h: float, spectral_radius: float = 0.8) -> exu.SimulationSettings:
    """Quiet fixed-step generalized-alpha settings with a sparse solver."""
    s = exu.SimulationSettings()
    s.solution.file.write = False
    s.show.statistics = False
    s.show.computationTime = False
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    t = s.timeIntegration
    t.endTime = end_time
    t.numberOfSteps = max(1, round(end_time / h))
    t.verboseMode = 0
    t.generalizedAlpha.spectralRadius = spectral_radius
    t.newton.relativeTolerance = 1e-8
    t.newton.absoluteTolerance = 1e-6
    return s


def start_from(vehicle: ReferenceVehicle, static: ReferenceVehicle) -> None:
    """Put ``vehicle`` in the solved static state of ``static`` (the same bodies in another setup): its
    coordinates become the initial and the current ones, the initial velocities stay the vehicle's own."""
    data = vehicle.mbs.systemData
    coordinates = static.mbs.systemData.GetODE2Coordinates(exu.ConfigurationType.Current)
    velocities = data.GetODE2Coordinates_t(exu.ConfigurationType.Initial)
    for configuration in (exu.ConfigurationType.Initial, exu.ConfigurationType.Current):
        data.SetODE2Coordinates(coordinates, configuration)
        data.SetODE2Coordinates_t(velocities, configuration)


def load_tyres(vehicle: ReferenceVehicle, tyres: dict, road: dict | None = None) -> dict:
    """Evaluate the tyres in the vehicle's current state and apply their forces; returns them per corner.

    ``road``: corner -> (height, vertical velocity) of the road under it (default flat, still). Called
    once before the solve too: the integrator's initial accelerations are computed from the loads
    present then, and without the tyre loads the standing vehicle would start in free fall.
    """
    forces = {}
    for name, tyre in tyres.items():
        c = vehicle.corners[name]
        height, rate = (0.0, 0.0) if road is None else road[name]
        f = tyre.evaluate(vehicle.position(c.wheel), vehicle.rotation(c.wheel), vehicle.velocity(c.wheel),
                          vehicle.angular_velocity(c.wheel), road_height=height, road_velocity=rate)
        vehicle.mbs.SetLoadParameter(c.elements["tyre_force"], "loadVector", list(f.force))
        vehicle.mbs.SetLoadParameter(c.elements["tyre_torque"], "loadVector", list(f.torque))
        forces[name] = f
    return forces


def running_loads(data: VehicleData, standing: ReferenceVehicle, speed: float) -> tuple[Callable, float]:
    """The loads of straight running at ``speed`` besides gravity, to add to a pads vehicle, and the drive
    torque per rear wheel (N m) they hold.

    Drag at the aerodynamic centre, each tyre's rolling-resistance moment (Magic Formula at the
    standing loads), and the rear drive torque, reacted by the axle, that balances both: with them the
    static solution is the steady straight run, so a manoeuvre at held speed starts in equilibrium.
    """
    aero = data["aerodynamics"]
    drag = 0.5 * aero["air_density"] * aero["drag_area"] * speed ** 2
    moments = {}
    for name, c in standing.corners.items():
        tyre = corner_tyre(data, name)
        radius = tyre.evaluate(*_rest(standing, c.wheel)).rolling_radius
        rolling = tyre.evaluate(standing.position(c.wheel), standing.rotation(c.wheel), np.array([speed, 0.0, 0.0]),
                                np.array([0.0, speed / radius, 0.0]))
        moments[name] = rolling.My
    lever = float(standing.tir["UNLOADED_RADIUS"])   # the pads' contact point below the wheel centre
    drive = (drag * lever - sum(moments.values())) / 2

    def add(vehicle: ReferenceVehicle) -> None:
        chassis = vehicle.bodies["chassis"]
        vehicle.mbs.CreateForce(itemNumber=chassis.index, loadVector=[-drag, 0.0, 0.0],
                                localPosition=[0.0, 0.0, aero["centre_height"] - chassis.cg[2]])
        for name, c in vehicle.corners.items():
            axis = np.array([0.0, 1.0, 0.0])
            shaft = drive if name.startswith("R") else 0.0
            vehicle.mbs.CreateTorque(itemNumber=c.wheel, loadVector=list((moments[name] + shaft) * axis))
            if shaft:
                vehicle.mbs.CreateTorque(itemNumber=c.carrier, loadVector=list(-shaft * axis))
    return add, drive


def _add_lateral_velocity(vehicle: ReferenceVehicle, vy: float) -> None:
    """Add ``vy`` (m/s, global y) to the initial velocity of every body."""
    data = vehicle.mbs.systemData
    velocities = np.array(data.GetODE2Coordinates_t(exu.ConfigurationType.Initial))
    for body in vehicle.bodies.values():
        node = vehicle.mbs.GetObject(body.index)["nodeNumber"]
        velocities[vehicle.mbs.GetNodeODE2Index(node) + 1] += vy
    for configuration in (exu.ConfigurationType.Initial, exu.ConfigurationType.Current):
        data.SetODE2Coordinates_t(velocities, configuration)


def hold_tyres(tyres: dict, static: ReferenceVehicle) -> None:
    """Give each tyre the slip states that carry its pad's horizontal force in the static solution."""
    for name, tyre in tyres.items():
        wheel = static.corners[name].wheel
        tyre.hold(pad_force(static, name), static.position(wheel), static.rotation(wheel))


def run_dynamic(vehicle: ReferenceVehicle, settings: exu.SimulationSettings) -> None:
    """SolveDynamic, quiet; raises MultibodySolverError when the solver gives up."""
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            ok = vehicle.mbs.SolveDynamic(settings, solverType=exu.DynamicSolverType.GeneralizedAlpha)
        except exu.SolverError as err:
            raise MultibodySolverError(f"the multibody solver failed: {err}") from None
    if not ok:
        raise MultibodySolverError("the multibody solver did not converge")


class RoadRun:
    """One full-vehicle manoeuvre: build, start from statics, drive the scenario, sample outputs."""

    def __init__(self, data: VehicleData, scenario: Scenario, *, resolve: Callable | None = None,
                 h: float = STEP, offsets: dict | None = None, duration: float | None = None):
        if scenario.kind != "full_vehicle":
            raise ManoeuvreError(f"{scenario.path}: kind '{scenario.kind}' is not a full-vehicle manoeuvre")
        self.data, self.scenario, self.h = data, scenario, h
        self.duration = scenario.duration if duration is None else min(duration, scenario.duration)
        offsets = leaf_offsets(data) if offsets is None else offsets
        standing = static_equilibrium(data, offsets)
        speed = scenario.initial_speed
        self.tyres = {c: corner_tyre(data, c) for c in CORNERS}
        running, drive = (running_loads(data, standing.vehicle, speed) if scenario.speed_control is not None
                          else (None, 0.0))
        static = standing if running is None else static_equilibrium(data, offsets, running)
        hold_tyres(self.tyres, static.vehicle)
        radius = {c: float(self.tyres[c].evaluate(*_rest(static.vehicle, static.vehicle.corners[c].wheel)).rolling_radius)
                  for c in CORNERS}
        self.vehicle = ReferenceVehicle(data, "road", leaf_offsets=offsets, speed=speed,
                                        spin={c: speed * (1 + self.tyres[c].kappa) / radius[c] for c in CORNERS})
        start_from(self.vehicle, static.vehicle)
        if running is not None:  # crabbing at the slip angles the held tyre states stand for
            drift = speed * float(np.mean([t.tan_alpha for t in self.tyres.values()]))
            _add_lateral_velocity(self.vehicle, drift)
        self.driveline = Driveline(driveline_parameters(data))
        self.driveline.select_gear(speed, np.mean([radius["RL"], radius["RR"]]))
        self.steer = scenario.signal("steering_wheel_angle", resolve)
        if scenario.speed_control is not None:
            hold = self._holding_throttle(speed, np.mean([radius["RL"], radius["RR"]]), 2 * drive)
            self.controller = scenario.speed_controller(feedforward=lambda t, v: hold)
            self.pedals = None
        else:
            self.controller = None
            self.pedals = (scenario.signal("throttle", resolve), scenario.signal("brake", resolve))
        chassis = self.vehicle.bodies["chassis"]
        masses = self.vehicle.bodies.values()
        total = sum(b.mass for b in masses)
        self.cg_local = sum(b.mass * b.cg for b in masses) / total - chassis.cg
        self.static_cg_height = float(standing.vehicle.position(chassis.index, self.cg_local)[2])
        self.rows: list[dict] = []
        self.next_sample = 0.0
        self.stopped_at: float | None = None
        self.wall_time = 0.0

    def _holding_throttle(self, speed: float, radius: float, axle_torque: float) -> float:
        """Throttle that gives ``axle_torque`` (N m at the rear wheels) at ``speed`` (the controller's feed-forward)."""
        line = self.driveline
        needed = axle_torque / (line.overall_ratio * line.parameters.efficiency)
        engine = max(line.parameters.idle_speed, speed / radius * line.overall_ratio)
        curve = [line.engine_torque_at(engine, u) for u in line.parameters.throttle]
        return float(np.interp(needed, curve, line.parameters.throttle))

    def simulate(self) -> pd.DataFrame:
        """Run the manoeuvre; returns the sampled outputs (SI units, see ``units``)."""
        self.vehicle.mbs.SetPreStepUserFunction(self._pre_step)
        load_tyres(self.vehicle, self.tyres)  # the loads the integrator's initial accelerations see
        start = clock.perf_counter()
        run_dynamic(self.vehicle, dynamic_settings(self.duration, self.h))
        self.wall_time = clock.perf_counter() - start
        return pd.DataFrame(self.rows)

    # --- one step -----------------------------------------------------------------------
    def _pre_step(self, mbs, t: float) -> bool:
        v = self.vehicle
        v.commit_friction()   # the leaf pack's slip states after the last converged step
        chassis = v.bodies["chassis"].index
        rotation = v.rotation(chassis)
        yaw = math.atan2(rotation[1, 0], rotation[0, 0])
        heading = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        lateral = np.array([-heading[1], heading[0], 0.0])
        velocity = v.velocity(chassis, self.cg_local)
        speed = float(velocity @ heading)
        sw = float(self.steer(np.array([t]))[0])
        v.rack_target = self.data["steering"]["rack_gain"] * sw
        if self.controller is not None:
            throttle, brake = self.controller.update(t, speed, self.h)
        else:
            throttle, brake = (float(p(np.array([t]))[0]) for p in self.pedals)
        forces = load_tyres(v, self.tyres)
        spins = [float((v.angular_velocity(c.wheel) - v.angular_velocity(c.carrier)) @ v.rotation(c.wheel)[:, 1])
                 for c in (v.corners[name] for name in CORNERS)]
        drive, braking = self.driveline.wheel_torques(throttle, brake, spins, self.h)
        for i, name in enumerate(CORNERS):
            c, f = v.corners[name], forces[name]
            axis = v.rotation(c.wheel)[:, 1]
            shaft = (drive[i] + braking[i]) * axis
            mbs.SetLoadParameter(c.elements["tyre_torque"], "loadVector", list(f.torque + shaft))
            mbs.SetLoadParameter(c.elements["reaction_torque"], "loadVector", list(-shaft))
            self.tyres[name].advance(self.h)
        aero = self.data["aerodynamics"]
        drag = 0.5 * aero["air_density"] * aero["drag_area"] * speed * abs(speed)
        mbs.SetLoadParameter(v.aero_load, "loadVector", list(-drag * heading))
        if t + 1e-9 >= self.next_sample:
            self._sample(t, rotation, heading, lateral, velocity, speed, sw, throttle, brake, forces,
                         drive + braking)
            self.next_sample += 1.0 / self.scenario.sample_rate
            row = self.rows[-1]
            if self.scenario.end_reached(t, row) and t < self.duration - 0.5 * self.h:
                self.stopped_at = t
                return False
        return True

    def _sample(self, t, rotation, heading, lateral, velocity, speed, sw, throttle, brake, forces, hub) -> None:
        v = self.vehicle
        chassis = v.bodies["chassis"].index
        acc = np.asarray(v.mbs.GetObjectOutputBody(chassis, exu.OutputVariableType.Acceleration, list(self.cg_local)))
        omega = v.angular_velocity(chassis)
        fz = {name.lower(): forces[name].Fz for name in CORNERS}
        front, rear = (fz["fr"] - fz["fl"]) / 2, (fz["rr"] - fz["rl"]) / 2
        self.rows.append({
            "time": t, "speed": speed, "ax": float(acc @ heading), "ay": float(acc @ lateral),
            "yaw_rate": float(omega[2]), "roll": math.atan2(rotation[2, 1], rotation[2, 2]),
            "pitch": -math.asin(max(-1.0, min(1.0, rotation[2, 0]))),
            "sideslip": math.atan2(float(velocity @ lateral), speed),
            "steering_wheel_angle": sw, "throttle": throttle, "brake": brake,
            "gear": self.driveline.gear, "engine_speed": self.driveline.engine_speed,
            "wheel_torque_rl": float(hub[2]), "wheel_torque_rr": float(hub[3]),
            "brake_pressure": min(max(brake, 0.0), 1.0) * BRAKE_LINE_PRESSURE,
            **{f"fz_{k}": val for k, val in fz.items()},
            "load_transfer_front": front, "load_transfer_rear": rear, "load_transfer_total": front + rear,
            "heave": float(v.position(chassis, self.cg_local)[2]) - self.static_cg_height,
        })


def _rest(vehicle: ReferenceVehicle, wheel: int) -> tuple:
    """Tyre inputs of a wheel at rest in the vehicle's current (static) state."""
    return vehicle.position(wheel), vehicle.rotation(wheel), np.zeros(3), np.zeros(3)


def units(columns) -> dict[str, str]:
    """Units of output columns, from the scenario vocabulary."""
    return {c: OUTPUT_CHANNELS[c][0] for c in columns}


def run_manoeuvre(data: VehicleData, scenario: Scenario, **options) -> tuple[pd.DataFrame, RoadRun]:
    """Simulate one full-vehicle scenario; returns the sampled outputs and the run (wall time etc.)."""
    run = RoadRun(data, scenario, **options)
    return run.simulate(), run
