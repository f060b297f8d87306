"""The state observer's cost per 2 ms update (500 Hz), measured like ``pybridge rt-check``: thread CPU time
of every update (predict + correct), its median, p99.9 and max in us; and where the time goes.

Runs ``pybridge.onboard.observer.run_observer`` on the first seconds of a validation log with the RTM
model's batch calls timed apart (``propagate``: 2 derivative evaluations per sigma point; ``outputs``:
1 evaluation per point), so the update splits into the FMU evaluations (a Python loop over the points,
each point 2-3 ctypes calls into the FMU) and the filter's algebra (numpy/scipy). The ctypes cost of
one call is measured on a call that does nothing (fmi2SetTime), and the model's own cost of one
evaluation (fmi2SetContinuousStates + fmi2GetDerivatives less two such calls), side by side.

Writes benchmarks/results/observer_cost.json (with the load average before and after, and the CPU):

    .venv/bin/python benchmarks/observer_cost.py --log out/observer_logs/slalom.csv.gz --params P --fmu F
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from machine import write_record  # noqa: E402


def _timed_model(base, spent: dict):
    """A subclass of the observer's RTMModel that adds the thread CPU time of its batch calls to ``spent``."""
    class Timed(base):
        def propagate(self, X, mu, dt):
            start = time.thread_time()
            try:
                return super().propagate(X, mu, dt)
            finally:
                spent["propagate"].append(time.thread_time() - start)

        def outputs(self, X, mu):
            start, spent["points"] = time.thread_time(), len(X)
            try:
                return super().outputs(X, mu)
            finally:
                spent["outputs"].append(time.thread_time() - start)
    return Timed


def _call_costs(fmu, params, calls: int = 2000, rounds: int = 5) -> tuple[float, float]:
    """(us of one ctypes call that does nothing, us of one model evaluation inside the FMU): a loop of
    fmi2SetContinuousStates + fmi2GetDerivatives against a loop of two fmi2SetTime calls, alternating rounds."""
    from pybridge.onboard.rtm_model import RTMModel

    model = RTMModel(fmu, params, 20.0)
    empty, evaluation = [], []
    try:
        for _ in range(rounds):
            start = time.thread_time()
            for _ in range(calls):
                model._SetTime(model._c, 0.0)
                model._SetTime(model._c, 0.0)
            empty.append(time.thread_time() - start)
            start = time.thread_time()
            for _ in range(calls):
                model._SetContinuousStates(model._c, model._x_p, model.n)
                model._GetDerivatives(model._c, model._dx_p, model.n)
            evaluation.append(time.thread_time() - start)
    finally:
        model.close()
    call = float(np.median(empty)) / (2 * calls) * 1e6
    return call, float(np.median(evaluation)) / calls * 1e6 - 2 * call


def _stats(values_s) -> dict:
    us = np.asarray(values_s) * 1e6
    return {"median": float(np.median(us)), "p99.9": float(np.percentile(us, 99.9)), "max": float(us.max()),
            "mean": float(us.mean())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", default="out/observer_logs/slalom.csv.gz")
    parser.add_argument("--params", required=True)
    parser.add_argument("--fmu", required=True)
    parser.add_argument("--seconds", type=float, default=4.0, help="log time to run (default 4 s: 2000 updates)")
    args = parser.parse_args(argv)
    from pybridge.onboard import observer
    from pybridge.onboard.sensors import read_log
    from pybridge.parameters import read_parameter_set

    log, _ = read_log(args.log)
    log = log[log["time"] <= log["time"].iloc[0] + args.seconds].reset_index(drop=True)
    params = read_parameter_set(args.params)
    load_before = os.getloadavg()
    spent, timer = {"propagate": [], "outputs": []}, []
    original = observer.RTMModel
    observer.RTMModel = _timed_model(original, spent)
    try:
        observer.run_observer(log, args.fmu, params, timer=timer)
    finally:
        observer.RTMModel = original
    call_us, model_us = _call_costs(args.fmu, params)
    total, fmu_part = np.array(timer), np.array(spent["propagate"]) + np.array(spent["outputs"])
    points = spent["points"]
    evaluations = 3 * points  # propagate: 2 per point (Heun), outputs: 1
    record = {
        "update_us": _stats(total), "fmu_evaluations_us": _stats(fmu_part),
        "filter_algebra_us": _stats(total - fmu_part), "updates": len(total), "sigma_points": points,
        "fmu_evaluations_per_update": evaluations,
        "us_per_fmu_evaluation": float(np.median(fmu_part) * 1e6 / evaluations),
        "ctypes_call_us": call_us, "model_evaluation_in_c_us": model_us, "budget_us": {"500 Hz": 2000, "1 kHz": 1000},
        "clock": "thread CPU time (time.thread_time)", "log": args.log,
        "load_average_before": load_before, "load_average_after": os.getloadavg()}
    print({k: record[k] for k in ("update_us", "fmu_evaluations_us", "filter_algebra_us", "us_per_fmu_evaluation",
                                  "ctypes_call_us", "model_evaluation_in_c_us")})
    write_record(HERE / "results" / "observer_cost.json", "observer_cost", **record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
