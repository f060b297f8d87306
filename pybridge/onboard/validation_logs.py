"""Validation logs for the state observer: the reference MBM's manoeuvres with truth channels and sensors.

``make_log(name, out_dir, seed)`` runs one manoeuvre of ``LOGS`` on the reference multibody van
(Exudyn; the ``reference`` extra) at 1 ms, samples it at 500 Hz with the channels a production van
measures and the truth no sensor gives (sideslip, lateral tyre force per axle, road friction), passes
the measured channels through the seeded sensor model (:mod:`pybridge.onboard.sensors`) and writes
``out_dir/<name>.csv.gz`` (:func:`pybridge.onboard.sensors.write_log`). The low-friction log scales
the MBM tyres' friction coefficients (LMUX, LMUY of the .tir) by 0.5; the RTM keeps its nominal one.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import exudyn
import numpy as np
import pandas as pd

from pybridge.onboard.sensors import SensorModel, write_log
from pybridge.reference.model import CORNERS
from pybridge.reference.road import RoadRun
from pybridge.reference.tyre import ContactPatchTyre
from pybridge.reference.vehicle_data import load_vehicle
from pybridge.simulate.scenarios import load_scenario

__all__ = ["LOGS", "make_log"]

_HERE = Path(__file__).parent / "scenarios"
LOG_RATE = 500.0  # Hz
# log name: (scenario, road friction of the MBM tyres, duration cut in s or None)
LOGS = {
    "slalom": ("slalom", 1.0, None),
    "double_lane_change": ("double_lane_change", 1.0, None),
    "random_steer": ("random_steer", 1.0, 15.0),
    "braking_in_turn": (str(_HERE / "braking_in_turn.yaml"), 1.0, None),
    "slalom_mu05": (str(_HERE / "slalom_low_friction.yaml"), 0.5, None),
}


class TruthRun(RoadRun):
    """A road run that also samples the wheel spins, the axles' lateral tyre forces and the body's
    specific force along its own axes (what a body-fixed IMU at the sprung CoG reads)."""

    def __init__(self, data, scenario, *, friction: float = 1.0, **options):
        super().__init__(data, scenario, **options)
        self.friction = friction
        if friction != 1.0:
            base = self.tyres["FL"].coefficients
            mods = {"LMUX": base["LMUX"] * friction, "LMUY": base["LMUY"] * friction}
            self.tyres = {c: ContactPatchTyre(data.tyre_file, **mods) for c in CORNERS}

    def _sample(self, t, rotation, heading, lateral, velocity, speed, sw, throttle, brake, forces, hub) -> None:
        super()._sample(t, rotation, heading, lateral, velocity, speed, sw, throttle, brake, forces, hub)
        v, row = self.vehicle, self.rows[-1]
        for name in CORNERS:
            c = v.corners[name]
            axis = v.rotation(c.wheel)[:, 1]
            row[f"wheel_speed_{name.lower()}"] = float((v.angular_velocity(c.wheel)
                                                        - v.angular_velocity(c.carrier)) @ axis)
        row["fy_front"] = float((forces["FL"].force + forces["FR"].force) @ lateral)
        row["fy_rear"] = float((forces["RL"].force + forces["RR"].force) @ lateral)
        chassis = v.bodies["chassis"].index
        acc = np.asarray(v.mbs.GetObjectOutputBody(chassis, exudyn.OutputVariableType.Acceleration, [0.0, 0.0, 0.0]))
        specific = acc + np.array([0.0, 0.0, 9.81])
        row["ax_imu"], row["ay_imu"] = float(specific @ rotation[:, 0]), float(specific @ rotation[:, 1])
        row["yaw_rate_imu"] = float(v.angular_velocity(chassis) @ rotation[:, 2])
        row["mu"] = self.friction


def truth_trace(name: str, vehicle: str = "lcv35", duration: float | None = None) -> pd.DataFrame:
    """The MBM's 500 Hz trace of log ``name`` with the truth channels (SI)."""
    scenario_name, friction, cut = LOGS[name]
    scenario = dataclasses.replace(load_scenario(scenario_name), sample_rate=LOG_RATE)
    limits = [d for d in (cut, duration) if d is not None]
    run = TruthRun(load_vehicle(vehicle), scenario, friction=friction,
                   duration=min(limits) if limits else None)
    return run.simulate()


def make_log(name: str, out_dir: str | Path, seed: int = 0, duration: float | None = None) -> Path:
    """Run log ``name``'s manoeuvre on the MBM, add the sensor model (seeded), write the log; its path."""
    truth = truth_trace(name, duration=duration)
    log = SensorModel(seed=seed).apply(truth)
    path = Path(out_dir) / f"{name}.csv.gz"
    return write_log(log, path, {"manoeuvre": name, "source": f"reference MBM lcv35, road friction "
                                 f"{LOGS[name][1]}", "sensor_model": f"pybridge.onboard.sensors seed {seed}"})


def make_logs(out_dir: str | Path, seed: int = 0, names=None) -> list[Path]:
    """Every log of ``LOGS`` (or ``names``) into ``out_dir``, log i seeded ``seed + i``."""
    return [make_log(name, out_dir, seed + i) for i, name in enumerate(names or LOGS)]
