"""The RTM driven by a recorded vehicle log, in parallel with the vehicle: ``pybridge replay``.

``replay(log, fmu, params)`` reads the log's inputs (:mod:`pybridge.onboard.log_inputs`: steering,
rear hub torque or throttle, brake line pressure or pedal), runs the RTM FMU on them at its 1 ms step
in one call of the native runner (``wheelTorqueInput`` set when the log has the hub torque), records
the RTM's channels at ``rate`` and puts the log's own channels beside them::

    result.rtm          RTM trace (time from the log's first input sample)
    result.measured     the log's channels on the same times (those the RTM also gives)
    result.difference   rtm - measured, per channel
    result.indices      channel -> index error in % (pybridge.evaluate.kpi: the manoeuvre's indices when
                        the log is a trace of a known manoeuvre, else RMSE in % of the measured range)

:func:`write_replay` writes them to a run folder (rtm.csv, measured.csv, difference.csv, replay.yaml,
replay.png); every file is written atomically.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from pybridge.evaluate.channels import SUFFIX, matching, variants
from pybridge.evaluate.kpi import KpiError, index_functions, time_trace_index
from pybridge.fileio import write_text_atomically
from pybridge.mbm.channel_map import ChannelMap
from pybridge.mbm.measured_log import MDF_SUFFIXES, read_measured_log
from pybridge.onboard.log_inputs import STEP, LogInputs, log_inputs, read_log_signals
from pybridge.parameters import ParameterSet
from pybridge.simulate.fmu import FMUSession
from pybridge.simulate.manoeuvres import FMU_CHANNELS, INITIAL_SPEED
from pybridge.simulate.scenarios import OUTPUT_CHANNELS

__all__ = ["CHANNELS", "ReplayError", "ReplayResult", "replay", "write_replay"]

CHANNELS = ("speed", "ax", "ay", "yaw_rate", "roll", "pitch", "sideslip")  # RTM channels recorded
STEERING_RATIO = "chassis.steeringRatio"
WHEEL_TORQUE_INPUT = "wheelTorqueInput"


class ReplayError(ValueError):
    """A log, FMU or flag that replay cannot use; one line naming the file and the place."""


@dataclass
class ReplayResult:
    """The RTM beside the log; see the module docstring."""
    rtm: pd.DataFrame
    measured: pd.DataFrame
    difference: pd.DataFrame
    indices: dict[str, float]
    inputs: LogInputs
    manoeuvre: str | None
    log: Path


def _steering_ratio(session: FMUSession, params: ParameterSet | None) -> float:
    if params is not None and STEERING_RATIO in params.scalars:
        return float(params.scalars[STEERING_RATIO])
    return float(session.get(STEERING_RATIO)[STEERING_RATIO])


def _run(session: FMUSession, inputs: LogInputs, params: ParameterSet | None, every: int) -> pd.DataFrame:
    """The RTM on the inputs; its CHANNELS every ``every`` steps (and the inputs it was given)."""
    base = params if params is not None else ParameterSet(model=session.model_name)
    scalars = {**base.scalars, INITIAL_SPEED: inputs.initial_speed,
               WHEEL_TORQUE_INPUT: 1 if inputs.mode == "wheel_torque" else 0}
    session.apply(ParameterSet(model=base.model, scalars=scalars, tables=base.tables, source=base.source))
    names = list(inputs.values)
    table = np.column_stack([inputs.values[n] for n in names])
    recorded = [v for c in CHANNELS for v in variants(c)]  # every definition, matched to the log's after
    rows, _ = session.run_points(inputs.time, names, table, [FMU_CHANNELS[c] for c in recorded], record_every=every)
    times = inputs.time[::every][:len(rows)]
    frame = pd.DataFrame(rows, columns=recorded)
    frame.insert(0, "time", times)
    return frame


def _measured(log: Path, channel_map: ChannelMap | None, inputs: LogInputs, times: np.ndarray):
    """The log's CHANNELS at ``times`` (RTM time, from the first input sample) and its manoeuvre name."""
    from pybridge.traces import read_trace

    at = times + inputs.start
    if channel_map is not None or log.suffix.lower() in MDF_SUFFIXES:
        if channel_map is None:
            raise ReplayError(f"{log}: an MDF4 log needs a channel map (--map) for its measured channels")
        trace, manoeuvre = read_measured_log(log, channel_map, at), None
    else:
        trace, metadata = read_trace(log)
        manoeuvre = metadata.get("manoeuvre")
    columns = {"time": at}
    for channel in CHANNELS:
        if channel in trace:
            source = trace["time"].to_numpy(float)
            columns[channel] = np.interp(at, source, trace[channel].to_numpy(float), left=np.nan, right=np.nan)
    frame = pd.DataFrame(columns)
    frame = frame[np.all(np.isfinite(frame.to_numpy(float)), axis=1)].reset_index(drop=True)
    frame["time"] -= inputs.start
    frame.attrs["definitions"] = trace.attrs.get("definitions", {})
    return frame, manoeuvre


def _indices(rtm: pd.DataFrame, measured: pd.DataFrame, manoeuvre: str | None) -> dict[str, float]:
    """Index error (%) per channel the log has: the manoeuvre's own indices where it is known."""
    functions = index_functions.get(manoeuvre, {}) if manoeuvre else {}
    indices = {}
    for channel in (c for c in CHANNELS if c in measured):
        function = functions.get(channel)
        try:
            result = function(rtm, measured) if function else \
                time_trace_index(rtm, measured, manoeuvre=manoeuvre or "replay", name=channel, channel=channel)
        except KpiError:
            continue  # a channel without spread (e.g. a constant speed) has no index
        indices[channel] = round(result.value_percent, 4)
    return indices


def replay(log: str | Path, fmu: str | Path, params: ParameterSet | None = None, *,
           channel_map: ChannelMap | None = None, rate: float = 100.0) -> ReplayResult:
    """Run the RTM FMU ``fmu`` on the inputs of ``log``; ``rate`` (Hz) is the rate of the RTM's trace."""
    log = Path(log)
    every = round(1.0 / (rate * STEP)) if rate > 0 else 0
    if every < 1 or abs(every * rate * STEP - 1.0) > 1e-9:
        raise ReplayError(f"--rate {rate:g} Hz: expected a rate whose period is a whole number of 1 ms steps "
                          "(e.g. 1000, 500, 100, 50)")
    signals = read_log_signals(log, channel_map)
    with FMUSession(fmu) as session:
        inputs = log_inputs(signals, str(log), steering_ratio=_steering_ratio(session, params))
        rtm = _run(session, inputs, params, every)
    measured, manoeuvre = _measured(log, channel_map, inputs, rtm["time"].to_numpy())
    rtm = matching(rtm, measured.attrs["definitions"])[["time", *CHANNELS]]  # the log's definitions (ay_sensor...)
    rtm.attrs["definitions"] = measured.attrs["definitions"]
    both = [c for c in CHANNELS if c in measured]
    difference = pd.DataFrame({"time": measured["time"],
                               **{c: np.interp(measured["time"], rtm["time"], rtm[c]) - measured[c] for c in both}})
    return ReplayResult(rtm, measured, difference, _indices(rtm, measured, manoeuvre), inputs, manoeuvre, log)


def write_replay(result: ReplayResult, out_dir: str | Path, params_label: str = "FMU defaults") -> list[Path]:
    """rtm.csv, measured.csv, difference.csv (pybridge.traces format), replay.yaml and replay.png in ``out_dir``."""
    from pybridge.onboard.replay_figures import draw_replay
    from pybridge.traces import write_trace

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"manoeuvre": result.manoeuvre or "replay", "params": params_label,
            "comment": f"log {result.log}; inputs ({result.inputs.mode}) "
                       + ", ".join(f"{k} <- {v}" for k, v in result.inputs.sources.items()),
            **{f"{c}{SUFFIX}": d for c, d in result.measured.attrs.get("definitions", {}).items()}}
    paths = [write_trace(result.rtm, out / "rtm.csv", {**meta, "source": "RTM FMU driven by the log's inputs"}),
             write_trace(result.measured, out / "measured.csv", {**meta, "source": f"the log {result.log.name}"}),
             write_trace(result.difference, out / "difference.csv", {**meta, "source": "rtm - measured"})]
    summary = {"format": "vehiclertm-replay 1", "log": str(result.log), "params": params_label,
               "manoeuvre": result.manoeuvre, "mode": result.inputs.mode,
               "inputs": dict(result.inputs.sources), "log_start_s": float(result.inputs.start),
               "initial_speed_m_per_s": round(result.inputs.initial_speed, 6),
               "duration_s": float(result.rtm["time"].iloc[-1]), "index_errors_percent": result.indices,
               "units": {c: OUTPUT_CHANNELS[c][0] for c in result.rtm.columns}}
    paths.append(write_text_atomically(out / "replay.yaml", yaml.safe_dump(summary, sort_keys=False)))
    paths.append(draw_replay(result, out / "replay.png"))
    return paths
