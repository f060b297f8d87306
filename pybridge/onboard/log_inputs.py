"""The RTM's inputs from a recorded vehicle log, on the RTM's fixed step (1 ms).

::

    from pybridge.onboard.log_inputs import read_log_inputs
    inputs = read_log_inputs("drive.mf4", channel_map, steering_ratio=0.008)
    inputs.time            # s, 0, 0.001, ... over the span every input channel covers
    inputs.values          # FMU input name -> values at inputs.time (SI), e.g. "rearWheelTorque[1]"
    inputs.mode            # "wheel_torque" (rear axle from the hub torque sensor) or "pedals"
    inputs.start           # log time (s) of inputs.time[0]; the log's other channels align with it
    inputs.initial_speed   # m/s, the log's speed at inputs.start (the RTM's initialSpeed)
    inputs.sources         # FMU input name -> the log channel it came from

Log channels (the trace vocabulary of ``pybridge.simulate.scenarios.OUTPUT_CHANNELS``; a channel map
names them in an MDF4 or CSV log, a trace file of the project's format carries them by name):

=====================  ====================================================================
steering               ``steering_wheel_angle``, else ``rack_travel`` / ``steering_ratio``
                       (the pinion-to-rack ratio, m/rad, of the parameter set)
rear axle              ``wheel_torque_rl`` and ``wheel_torque_rr`` (N m at the hub, drive minus
                       brake; one of them alone drives both wheels, as behind an open
                       differential): mode ``wheel_torque``; else ``throttle`` (the RTM's own
                       engine, gearbox and shift schedule): mode ``pedals``
front brakes           ``brake_pressure`` (Pa, through the RTM's brake model), else ``brake``
                       (pedal 0..1); in mode ``pedals`` the pressure brakes the rear axle too
speed                  ``speed``: the initial speed only
road friction          none: ``roadFriction[1..4]`` is 1 (the tyre file's road) unless
                       :func:`log_inputs` is given another ``road_friction``
=====================  ====================================================================

Each channel keeps its own time base and rate (500 Hz sensors, 50 Hz GPS); a map entry's ``rate``
(Hz) is checked against it and its ``resample`` (``hold`` or ``linear``, default ``linear``) says how
it reaches the step (:mod:`pybridge.onboard.resample`). :func:`log_inputs` does the same from signals
already in SI (e.g. a sensor model's output). Problems raise :class:`LogInputError`, one line naming
the file and the channel.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pybridge.mbm.channel_map import ChannelMap, ChannelSpec
from pybridge.mbm.errors import MBMDataError
from pybridge.mbm.measured_log import _UNIT_CELL, MDF_SUFFIXES, _open_mdf, read_log_channels, si_factor
from pybridge.onboard.resample import RateError, check_rate, resample
from pybridge.simulate.scenarios import OUTPUT_CHANNELS

__all__ = ["INPUT_CHANNELS", "STEP", "LogInputError", "LogInputs", "Signal", "log_inputs", "read_log_inputs",
           "read_log_signals"]

STEP = 1e-3  # s, the RTM's step
#: log channels the inputs come from (with ``speed``, the initial speed)
INPUT_CHANNELS = ("steering_wheel_angle", "rack_travel", "wheel_torque_rl", "wheel_torque_rr", "brake_pressure",
                  "throttle", "brake", "speed")
REAR_TORQUE = ("rearWheelTorque[1]", "rearWheelTorque[2]")  # FMU inputs, RL and RR
ROAD_FRICTION = tuple(f"roadFriction[{i}]" for i in range(1, 5))  # FMU inputs FL..RR, 1 = the tyre file's road


class LogInputError(MBMDataError):
    """A log whose channels cannot drive the RTM; one line naming the file and the channel."""


@dataclass(frozen=True)
class Signal:
    """One channel as sampled: times (s) and values (SI), and how it reaches the step."""
    times: np.ndarray
    values: np.ndarray
    method: str = "linear"


@dataclass(frozen=True)
class LogInputs:
    """The RTM's inputs on its step; see the module docstring."""
    time: np.ndarray
    values: dict[str, np.ndarray]
    mode: str
    start: float
    initial_speed: float
    sources: dict[str, str] = field(default_factory=dict)


def _first(signals: dict, names: tuple[str, ...]) -> str | None:
    return next((n for n in names if n in signals), None)


def _plan(signals: dict[str, Signal], where: str, steering_ratio: float | None) -> dict[str, tuple[str, float]]:
    """FMU input -> (log channel, factor) chosen by the table of the module docstring."""
    steer = _first(signals, ("steering_wheel_angle", "rack_travel"))
    if steer is None:
        raise LogInputError(f"{where}: no steering channel; expected steering_wheel_angle or rack_travel")
    if steer == "rack_travel" and not steering_ratio:
        raise LogInputError(f"{where}: channel rack_travel: needs the steering ratio (m/rad) of the parameter set "
                            "to give the steering-wheel angle")
    plan = {"steeringWheelAngle": (steer, 1.0 if steer == "steering_wheel_angle" else 1.0 / steering_ratio)}
    rl = _first(signals, ("wheel_torque_rl", "wheel_torque_rr"))
    rr = _first(signals, ("wheel_torque_rr", "wheel_torque_rl"))
    if rl is not None:
        plan[REAR_TORQUE[0]], plan[REAR_TORQUE[1]] = (rl, 1.0), (rr, 1.0)
    elif "throttle" in signals:
        plan["throttle"] = ("throttle", 1.0)
    else:
        raise LogInputError(f"{where}: no rear-axle channel; expected wheel_torque_rl / wheel_torque_rr "
                            "(hub torque sensor) or throttle")
    brake = _first(signals, ("brake_pressure", "brake"))
    if brake is not None:
        plan["brakePressure" if brake == "brake_pressure" else "brakePedal"] = (brake, 1.0)
    if "speed" not in signals:
        raise LogInputError(f"{where}: no channel speed; expected it for the RTM's initial speed")
    return plan


def log_inputs(signals: dict[str, Signal], where: str, *, steering_ratio: float | None = None,
               step: float = STEP, road_friction: float = 1.0) -> LogInputs:
    """The RTM's inputs from ``signals`` (log channel -> Signal, SI); ``where`` names the log in errors.
    ``road_friction``: the RTM's roadFriction under all four wheels (no log channel measures it)."""
    plan = _plan(signals, where, steering_ratio)
    used = sorted({channel for channel, _ in plan.values()} | {"speed"})
    for name in used:
        s = signals[name]
        if len(s.times) < 2 or np.any(np.diff(s.times) <= 0):
            raise LogInputError(f"{where}: channel {name}: expected at least 2 samples on an increasing time base")
        if not np.all(np.isfinite(s.values)):
            k = int(np.flatnonzero(~np.isfinite(s.values))[0])
            raise LogInputError(f"{where}: channel {name}: sample {k} at t = {s.times[k]:.6g} s is {s.values[k]}; "
                                "expected a finite number")
    start = max(float(signals[n].times[0]) for n in used if n != "speed")
    end = min(float(signals[n].times[-1]) for n in used if n != "speed")
    count = int(np.floor((end - start) / step + 1e-9))
    if count < 1:
        raise LogInputError(f"{where}: the input channels ({', '.join(used)}) overlap from {start:.6g} to "
                            f"{end:.6g} s; expected at least one step of {step:g} s")
    grid = start + step * np.arange(count + 1)
    values = {}
    for fmu_name, (channel, factor) in plan.items():
        s = signals[channel]
        try:
            values[fmu_name] = factor * resample(s.times, s.values, grid, s.method)
        except RateError as error:
            raise LogInputError(f"{where}: channel {channel}: {error}") from None
    values.update({name: np.full(len(grid), float(road_friction)) for name in ROAD_FRICTION})
    speed = signals["speed"]
    initial = float(resample(speed.times, speed.values, grid[:1], speed.method)[0])
    mode = "wheel_torque" if REAR_TORQUE[0] in plan else "pedals"
    return LogInputs(grid - start, values, mode, start, initial, {k: c for k, (c, _) in plan.items()})


def _trace_signals(path: Path) -> dict[str, Signal]:
    from pybridge.traces import read_trace
    trace, _ = read_trace(path)
    times = trace["time"].to_numpy(float)
    return {c: Signal(times, trace[c].to_numpy(float)) for c in INPUT_CHANNELS if c in trace}


def read_log_signals(path: str | Path, channel_map: ChannelMap | None = None) -> dict[str, Signal]:
    """The input channels (INPUT_CHANNELS) a log holds, in SI on their own time bases, rates checked.

    A trace of the project's format (``# format: vehiclertm-trace 1``) needs no map; an MDF4 or CSV log
    without one is read with the channel names of the vocabulary as its sources."""
    path = Path(path)
    if channel_map is None and path.suffix.lower() not in MDF_SUFFIXES and _is_trace(path):
        return _trace_signals(path)
    traces = channel_map.traces if channel_map is not None else {}
    time_spec = traces.get("time")
    mdf = path.suffix.lower() in MDF_SUFFIXES
    time_source = "time" if mdf or time_spec is None else time_spec.source
    sources = _sources(path, traces)
    raw = read_log_channels(path, [s.source for s in sources.values()], time_source)
    time_unit = "s" if mdf else (time_spec.unit if time_spec else None) or raw[time_source].unit or "s"
    time_factor = si_factor("time", time_unit, f"{path}: time")
    scale, offset = (time_spec.scale, time_spec.offset) if time_spec else (1.0, 0.0)
    signals = {}
    for name, spec in sources.items():
        channel = raw[spec.source]
        where = f"{path}: channel '{spec.source}' ({name})"
        unit = spec.unit if spec.unit is not None else channel.unit or ("1" if OUTPUT_CHANNELS[name][0] == "1" else "")
        if not unit:
            raise LogInputError(f"{where}: no unit in the file; expected the map to give one (unit: ...)")
        times = channel.times * time_factor * scale + offset
        if spec.rate is not None:
            try:
                check_rate(times, spec.rate, where)
            except RateError as error:
                raise LogInputError(str(error)) from None
        values = channel.values * si_factor(name, unit, where) * spec.scale + spec.offset
        signals[name] = Signal(times, values, spec.resample or "linear")
    return signals


def _is_trace(path: Path) -> bool:
    from pybridge.traces import FORMAT, _open_text
    try:
        return _open_text(path).startswith(f"# format: {FORMAT}")
    except MBMDataError:
        return False


def _sources(path: Path, traces: dict[str, ChannelSpec]) -> dict[str, ChannelSpec]:
    """Input channel -> its spec: the map's entries, else the log's channels named as the vocabulary."""
    given = {name: spec for name, spec in traces.items() if name in INPUT_CHANNELS}
    if given:
        return given
    if path.suffix.lower() in MDF_SUFFIXES:
        mdf = _open_mdf(path)
        try:
            names = set(mdf.channels_db)
        finally:
            mdf.close()
    else:
        try:
            with open(path, newline="", encoding="utf-8") as handle:
                header = next(csv.reader(handle), [])
        except (OSError, UnicodeDecodeError) as error:
            raise LogInputError(f"{path}: cannot read the CSV log ({error})") from None
        names = {m.group(1) if (m := _UNIT_CELL.fullmatch(c)) else c.strip() for c in header}
    return {name: ChannelSpec(name) for name in INPUT_CHANNELS if name in names}


def read_log_inputs(path: str | Path, channel_map: ChannelMap | None = None, *, steering_ratio: float | None = None,
                    step: float = STEP) -> LogInputs:
    """The RTM's inputs from the log at ``path`` (see the module docstring)."""
    return log_inputs(read_log_signals(path, channel_map), str(path), steering_ratio=steering_ratio, step=step)
