"""One full-vehicle scenario for N parameter sets on lanes: ``run_scenario`` of each set, LANES at a time.

``run_scenario_lanes(lanes, scenario, param_sets, resolve)`` repeats :func:`pybridge.simulate.manoeuvres.
run_scenario`'s native path for every set in two lane runs (pybridge.simulate.lanes): the feed-forward
probe of the PI speed driver (each set's own feed-forward), then the scenario with its inputs, PI and end
conditions. Each set's trace equals its scalar run's to round-off. A set whose lane failed (a diverged or
refused step) gives None: the caller runs it on the scalar path, which says why in the scalar runner's words.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from pybridge.parameters import ParameterSet
from pybridge.simulate.lanes import LaneSession
from pybridge.simulate.manoeuvres import (FMU_CHANNELS, INITIAL_SPEED, PROBE_INPUTS, SPEED, ManoeuvreError, _channels,
                                          _check, _feeds, _recorded, hold_from_speeds, native_plan, probe_table,
                                          refusal)
from pybridge.simulate.scenarios import Scenario

__all__ = ["run_scenario_lanes"]


def _filled(params: ParameterSet, scenario: Scenario) -> ParameterSet:
    return ParameterSet(model=params.model, scalars={**params.scalars, INITIAL_SPEED: scenario.initial_speed},
                        tables=params.tables, source=params.source)


def _holds(lanes: LaneSession, sets: list[ParameterSet], step: float) -> list[float | None]:
    """Each set's feed-forward throttle from the probe on lanes (None: its probe failed)."""
    times, table = probe_table(step)
    results = lanes.run(sets, times, PROBE_INPUTS, table, [SPEED], stop_time=times[-1])
    return [None if r.failed else hold_from_speeds(r.rows[:, 0], step) for r in results]


def run_scenario_lanes(lanes: LaneSession, scenario: Scenario, param_sets: list[ParameterSet],
                       resolve: Callable[[str, float | None], float] | None = None,
                       probes: dict | None = None) -> list[pd.DataFrame | None]:
    """The trace of ``scenario`` for each of ``param_sets`` (as run_scenario at the sample period), None for a
    set whose lane failed; a scenario the sets cannot run raises as run_scenario does. ``probes``: the caller's
    store of the feed-forward probes of these ``param_sets`` by (initial speed, sample period), for its scenarios
    that share them (the van's ramp steer and sine sweep: the same probe)."""
    for params in param_sets:
        refused = refusal(scenario, params)
        if refused:
            raise ManoeuvreError(refused)
    _check(lanes.session, scenario)
    step = 1.0 / scenario.sample_rate
    count = round(scenario.duration * scenario.sample_rate)
    recorded = _recorded(scenario.outputs)
    names = [FMU_CHANNELS[c] for c in FMU_CHANNELS if c in recorded or _feeds(c, scenario.outputs)]
    sets = [_filled(p, scenario) for p in param_sets]
    traces: list[pd.DataFrame | None] = [None] * len(sets)
    probes = {} if probes is None else probes
    if scenario.speed_control and (scenario.initial_speed, step) not in probes:
        probes[scenario.initial_speed, step] = _holds(lanes, sets, step)
    holds = probes[scenario.initial_speed, step] if scenario.speed_control else [0.0] * len(sets)
    live = [k for k, h in enumerate(holds) if h is not None]
    if not live:
        return traces
    times, inputs, table, speed, end = native_plan(scenario, resolve, step, count, 1, 0.0)
    results = lanes.run([sets[k] for k in live], times, inputs, table, names, speed=speed, end=end,
                        stop_time=count * step, holds=[holds[k] for k in live] if speed else None)
    signals: dict[int, dict] = {}   # the inputs at the samples, per run length: the same for every lane
    for k, result in zip(live, results):
        if result.failed is None:
            n = len(result.rows)
            frame = {"time": times[:n], **dict(zip(names, np.ascontiguousarray(result.rows.T)))}
            if n not in signals:
                signals[n] = {name: scenario.signal(name, resolve)(times[:n]) for name in scenario.inputs}
            traces[k] = _channels(frame, scenario, resolve, result.stopped_at, signals[n])
    return traces
