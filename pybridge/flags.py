"""The checked numeric command-line flags: argparse ``type=`` functions with a sign, finiteness and a
documented upper bound, the bound named in the message (``argument --stop: 1e9: ...``).

=====================  ========================================================  ==================
kind                   flags                                                     accepted
=====================  ========================================================  ==================
simulated time         cosim/export --stop, rt-check/identify-corner/four-post   > 0, <= 86 400 s
                       --duration
step, budget           cosim/export/rt-check --step, rt-check --budget           > 0, <= 1 s
workers                --workers of every command                                1 .. 256
evaluations            --max-evaluations                                         1 .. 1 000 000
samples                --sensitivity-samples                                     1 .. 100 000
runs                   rt-check --runs                                           1 .. 1 000
CPU                    rt-check --cpu                                            a CPU this process may run on
=====================  ========================================================  ==================

A day of simulated time bounds every run a rig or an identification makes; besides, a co-simulation
keeps every step (``pybridge.limits.COSIM_VALUES``) and a scenario every sample (``SCENARIO_SAMPLES``).
The same functions check the values of a ``--config`` file.
"""
from __future__ import annotations

import argparse
import math
import os

__all__ = ["MAX_COUNT", "MAX_EVALUATIONS", "MAX_RUNS", "MAX_SAMPLES", "MAX_SIMULATED", "MAX_STEP", "MAX_STEPS", "MAX_WORKERS",
           "checked_count", "checked_cpu", "checked_seconds", "cpu", "evaluations", "runs", "samples", "simulated",
           "step", "steps", "workers"]

MAX_SIMULATED = 86_400.0    # s: a day of simulated time
MAX_STEP = 1.0              # s: a communication step or a task budget
MAX_WORKERS = 256
MAX_EVALUATIONS = 1_000_000
MAX_SAMPLES = 100_000
MAX_RUNS = 1_000
MAX_STEPS = 100_000        # MCMC steps per walker
MAX_COUNT = {"workers": MAX_WORKERS, "evaluations": MAX_EVALUATIONS, "samples": MAX_SAMPLES, "runs": MAX_RUNS,
             "steps": MAX_STEPS}


def _number(text, expected: str = "a number") -> float:
    if isinstance(text, bool):
        raise argparse.ArgumentTypeError(f"{text!r}; expected {expected}")
    try:
        return float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r}; expected {expected}") from None


def _checked_quantity(upper: float, unit: str, noun: str, bound: str, note: str, name: str):
    """A type function: a finite ``noun`` > 0 ``unit`` and <= ``upper`` (``bound`` and ``note`` say what the
    bound is and where it is set)."""
    def quantity(text) -> float:
        value = _number(text)
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{text}: expected a finite {noun} > 0 {unit}")
        if value > upper:
            raise argparse.ArgumentTypeError(f"{text} {unit} is above {bound} ({note})")
        return value
    quantity.__name__ = name
    quantity.checks_numbers = True
    return quantity


def checked_seconds(upper: float, what: str):
    """A type function: a finite time > 0 s and <= ``upper`` s (``what`` names the bound)."""
    return _checked_quantity(upper, "s", "time", f"the upper bound of {upper:g} s", f"{what}; pybridge.flags",
                             "seconds")


def checked_rate(upper: float):
    """A type function: a sample rate in Hz, finite, > 0 and <= ``upper`` (the model's 1 ms step: 1000 Hz)."""
    return _checked_quantity(upper, "Hz", "rate", f"the model step's rate of {upper:g} Hz", "pybridge.flags", "hertz")


def checked_count(kind: str):
    """A type function: a whole number from 1 to ``MAX_COUNT[kind]``."""
    upper = MAX_COUNT[kind]

    def count(text) -> int:
        value = _number(text, "an integer")
        if not math.isfinite(value) or value != int(value) or value < 1:
            raise argparse.ArgumentTypeError(f"{text}: expected a whole number of {kind} >= 1")
        if value > upper:
            raise argparse.ArgumentTypeError(f"{text} is above the upper bound of {upper:,} {kind} (pybridge.flags)")
        return int(value)
    count.__name__ = "count"
    count.checks_numbers = True
    return count


def checked_cpu(text) -> int:
    """A type function: a CPU number this process may run on (``os.sched_getaffinity``)."""
    allowed = sorted(os.sched_getaffinity(0))
    value = _number(text, "an integer")
    if not math.isfinite(value) or value != int(value) or int(value) not in allowed:
        raise argparse.ArgumentTypeError(f"{text}: not a CPU of this machine that this process may use "
                                         f"(CPUs {', '.join(map(str, allowed))})")
    return int(value)


checked_cpu.checks_numbers = True
simulated = checked_seconds(MAX_SIMULATED, "a day of simulated time")
step = checked_seconds(MAX_STEP, "a communication step or task budget of at most a second")
workers = checked_count("workers")
evaluations = checked_count("evaluations")
samples = checked_count("samples")
runs = checked_count("runs")
steps = checked_count("steps")
rate = checked_rate(1000.0)
cpu = checked_cpu
