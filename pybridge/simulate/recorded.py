"""Scenario inputs from the reference trace: the input the MBM's driver or the test driver actually applied.

``recorded_inputs(scenario, reference)`` returns the scenario with each input marked
``{from_reference: true}`` and, with ``carried=True`` (the comparison's and the identification's
default), every other input whose channel the reference carries, replaced by a ``table`` signal of the
recorded channel (linear between the recorded samples), and its duration cut to the recording's. A
table reaches the native
manoeuvre runner like any scenario input (the open-loop inputs are one table per run), so the RTM sees
the recorded values at the recorded samples and the trace's input channel equals the recorded one there.
Inputs under ``speed_control`` (throttle, brake) stay the RTM's own driver's; with
``speed_control: {target: {from_reference: true}}`` its target follows the recorded ``speed`` (a speed
profile, a table per point for the native runner), listed as ``speed`` in ``Scenario.recorded``.

``input_differences`` says how far the recorded input is from the nominal one (max and RMS over the
values the RTM is fed, at the middle of each communication step), for the comparison's record and
the report's figure.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pandas as pd

from pybridge.simulate.scenarios import Scenario, ScenarioError

__all__ = ["input_differences", "recorded_inputs"]


def recorded_inputs(scenario: Scenario, reference: pd.DataFrame, *, carried: bool = True,
                    source: str = "the reference trace") -> Scenario:
    """``scenario`` with its from_reference inputs (and, when ``carried``, every input ``reference`` carries)
    as tables of the recorded channels; ``Scenario.recorded`` names them. ``source`` names the trace in errors."""
    inputs, recorded, control = dict(scenario.inputs), [], scenario.speed_control
    for name, spec in scenario.inputs.items():
        if spec["type"] == "from_reference" or (carried and name in reference.columns):
            times, values = _channel(scenario, reference, name, f"inputs.{name}", source)
            inputs[name] = {"type": "table", "time": times, "value": values}
            recorded.append(name)
    if control is not None and control.from_reference:
        control = dataclasses.replace(control, profile=_channel(scenario, reference, "speed", "speed_control.target",
                                                                source))
        recorded.append("speed")
    if not recorded:
        return scenario
    end = round(float(reference["time"].iloc[-1]) * scenario.sample_rate) / scenario.sample_rate
    return dataclasses.replace(scenario, inputs=inputs, speed_control=control, recorded=tuple(recorded),
                               duration=min(scenario.duration, end))  # no recorded input beyond the recording


def _channel(scenario: Scenario, reference: pd.DataFrame, name: str, key: str, source: str):
    """(times, values) of the recorded channel ``name``, checked."""
    if name not in reference.columns:
        raise ScenarioError(f"{scenario.path}: {key}: from the reference, but {source} has no channel "
                            f"'{name}' (it has {', '.join(c for c in reference.columns if c != 'time')})")
    times, values = reference["time"].to_numpy(float), reference[name].to_numpy(float)
    if len(times) < 2 or not np.all(np.isfinite(values)):
        raise ScenarioError(f"{scenario.path}: {key}: {source}'s channel '{name}' needs at least 2 finite samples")
    return times, values


def input_differences(nominal: Scenario, replayed: Scenario,
                      resolve: Callable[[str, float | None], float] | None = None) -> dict[str, dict[str, float]]:
    """Per recorded input of ``replayed`` that ``nominal`` defines by a signal: the max and RMS of
    recorded - nominal (SI) at the mid-steps of ``replayed``'s samples, the values the RTM is fed."""
    times = replayed.time()[:-1] + 0.5 / replayed.sample_rate
    differences = {}
    for name in replayed.recorded:
        if name == "speed":
            if nominal.speed_control.from_reference:
                continue
            delta = replayed.speed_control.target_at(times) - nominal.speed_control.target
        elif nominal.inputs[name]["type"] == "from_reference":
            continue
        else:
            delta = replayed.signal(name)(times) - nominal.signal(name, resolve)(times)
        differences[name] = {"max": float(np.max(np.abs(delta))), "rms": float(np.sqrt(np.mean(delta ** 2)))}
    return differences
