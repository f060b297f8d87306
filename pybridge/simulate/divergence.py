"""A simulation that diverged, said as such: "diverged at t = T s: STATE = VALUE".

The native FMUs refuse a Co-Simulation step whose states or derivatives are no longer finite and log
the first such state (``fmu_build/native/runtime``); :func:`diverged` reads that log out of the
session's error. A run can also end early, before the FMU sees a non-finite state, when a growing
state trips one of the scenario's end conditions (``ay_above`` on a lateral acceleration that has
grown without bound): :func:`run_checked` runs such a manoeuvre once more without its end conditions,
and a divergence then found is reported instead of a short trace.
"""
from __future__ import annotations

import dataclasses
import re

__all__ = ["SimulationDiverged", "diverged", "divergence_behind_end", "run_checked"]

_LOGGED = re.compile(r"diverged at t = ([-+0-9.eEinfa]+) s: ([^\s=]+) = ([^\s,]+)")


class SimulationDiverged(RuntimeError):
    """A simulation whose states stopped being finite at ``time``: ``variable`` = ``value``."""

    def __init__(self, time: float, variable: str, value: str):
        super().__init__(f"diverged at t = {time:.6g} s: {variable} = {value}")
        self.time, self.variable, self.value = time, variable, value

    def __reduce__(self):
        return SimulationDiverged, (self.time, self.variable, self.value)


def diverged(error: BaseException) -> SimulationDiverged | None:
    """The divergence an FMU error reports (None: the error is something else)."""
    if isinstance(error, SimulationDiverged):
        return error
    match = _LOGGED.search(str(error))
    if match is None:
        return None
    return SimulationDiverged(float(match.group(1)), match.group(2), match.group(3))


def run_checked(run, scenario, min_span: float):
    """``run(scenario)``'s trace; an FMU error that reports a divergence raises SimulationDiverged, and
    so does a trace that an end condition cut shorter than ``min_span`` seconds if the same manoeuvre
    run without end conditions diverges (else the short trace is returned as it is)."""
    try:
        trace = run(scenario)
    except Exception as error:
        found = diverged(error)
        if found is None:
            raise
        raise found from None
    stopped = trace.attrs.get("stopped_at")
    if stopped is None or not scenario.end or stopped >= min_span:
        return trace
    found = divergence_behind_end(run, scenario)
    if found is not None:
        raise found
    return trace


def divergence_behind_end(run, scenario) -> SimulationDiverged | None:
    """The divergence that ``run`` (a function of a scenario) meets on ``scenario`` without its end
    conditions (None: it runs to the end, or fails otherwise): why an end condition cut a run short."""
    try:
        run(dataclasses.replace(scenario, end={}))
    except Exception as error:
        return diverged(error)
    return None
