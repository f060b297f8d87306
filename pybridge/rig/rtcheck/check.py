"""Run the real-time check: plan the manoeuvre, run the C harness, read what it measured."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pybridge.rig.rtcheck.harness import harness_executable
from pybridge.rig.rtcheck.plan import Plan, RTCheckError, make_plan
from pybridge.rig.rtcheck.report import summarize


@dataclass
class RTCheck:
    """The report (a JSON-ready dict) and the time of every step [s], shape (runs, steps)."""
    report: dict
    wall: np.ndarray
    cpu: np.ndarray
    cycle: np.ndarray

    @property
    def fits(self) -> bool:
        return bool(self.report["fits"])


def rt_check(fmu: str | Path, scenario: str = "step_steer", step: float = 1e-3, duration: float | None = None,
             runs: int = 1, references: str | Path | None = None, budget: float | None = None,
             cpu: int | None = None, mlock: bool = False) -> RTCheck:
    """Run ``fmu`` fixed-step at ``step`` on ``scenario`` ``runs`` times in the C harness (a fresh instance
    each run), then once more traced for system calls; the step-time distribution against ``budget``
    (default: the step), the first-call and initialization costs, allocations and system calls inside
    fmi2DoStep. RTCheckError (a ValueError) on bad input, RuntimeError when the FMU fails in the harness."""
    if runs < 1:
        raise RTCheckError(f"--runs {runs}: expected at least 1")
    if budget is not None and not budget > 0:
        raise RTCheckError(f"--budget {budget}: expected a time > 0 s")
    with tempfile.TemporaryDirectory(prefix="rtcheck-") as folder:
        work = Path(folder)
        plan = make_plan(fmu, work / "fmu", scenario, step, duration, references)
        plan_file, inputs_file = plan.write(work, runs, cpu, mlock, trace=True)
        raw, times, load = _run_harness(plan, plan_file, inputs_file, work / "times.bin", runs)
    wall, cpu_time, cycle = times
    return RTCheck(summarize(plan, raw, wall, cpu_time, cycle, budget or step, load), wall, cpu_time, cycle)


def _run_harness(plan: Plan, plan_file: Path, inputs_file: Path, times_file: Path, runs: int):
    executable = harness_executable()
    load_before = os.getloadavg()
    result = subprocess.run([str(executable), str(plan_file), str(plan.library), str(inputs_file), str(times_file)],
                            capture_output=True, text=True)
    load_after = os.getloadavg()
    message = (result.stderr.strip().splitlines() or [""])[-1]
    if result.returncode == 2:
        raise RTCheckError(f"{plan.fmu}: {message}")
    if result.returncode != 0:
        how = f"was killed by signal {-result.returncode}" if result.returncode < 0 else \
            f"exited with status {result.returncode}"
        raise RuntimeError(f"{plan.fmu}: the FMU failed in the rt-check harness, which {how}: {message}")
    raw = json.loads(result.stdout)
    times = np.fromfile(times_file, dtype="<f8").reshape(3, runs, plan.steps)
    return raw, times, {"before": [round(x, 2) for x in load_before], "after": [round(x, 2) for x in load_after]}
