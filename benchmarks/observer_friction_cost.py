"""The observer model's friction route, side by side: fmi2SetReal on the RTM's roadFriction input (now) against
writing LMUX/LMUY into the native instance's memory (main before issue 32's follow-up), on one FMU.

Loads the old ``pybridge/onboard/rtm_model.py`` from git (``--old-ref``, default d063679: main when this work
branched) as a module, builds both models on the same native FMU (the old one still works on it: the parameters
are there), and times alternating rounds of one filter stage's worth of FMU work (``propagate`` and
``outputs`` of 67 points, each with its own friction; the filter has 75) in thread CPU time. Also checks that both
give the same numbers. Writes benchmarks/results/observer_friction_cost.json with the load and the CPU:

    .venv/bin/python benchmarks/observer_friction_cost.py --fmu F [--params P] [--rounds 40]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from machine import write_record  # noqa: E402


def _old_model_class(ref: str):
    source = subprocess.run(["git", "-C", str(REPO), "show", f"{ref}:pybridge/onboard/rtm_model.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="old-rtm-model-")) / "old_rtm_model.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_rtm_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.RTMModel


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmu", required=True, help="native RTM FMU (ME + CS) with the roadFriction input")
    parser.add_argument("--params", help="parameter set (default: the FMU's own values)")
    parser.add_argument("--old-ref", default="d063679", help="git commit of the old rtm_model.py")
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args(argv)
    from pybridge.onboard.rtm_model import RTMModel
    from pybridge.parameters import ParameterSet, read_parameter_set

    params = read_parameter_set(args.params) if args.params else ParameterSet("VehicleRTM.Vehicles.RTM14DoF")
    models = {"set_real_input": RTMModel(args.fmu, params, 20.0),
              "instance_memory": _old_model_class(args.old_ref)(args.fmu, params, 20.0)}
    rng = np.random.default_rng(1)
    x0 = models["set_real_input"].x0
    X = x0 + 1e-3 * rng.standard_normal((67, len(x0))) * np.maximum(np.abs(x0), 1.0)
    mu = rng.uniform(0.4, 1.1, 67)
    same = [np.concatenate([m.propagate(X, mu, 2e-3).ravel(), m.outputs(X, mu).ravel()]) for m in models.values()]
    times = {name: [] for name in models}
    load_before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, model in models.items():
            start = time.thread_time()
            model.propagate(X, mu, 2e-3)
            model.outputs(X, mu)
            times[name].append((time.thread_time() - start) * 1e6)
    for model in models.values():
        model.close()
    median = {name: float(np.median(t)) for name, t in times.items()}
    ratio = median["set_real_input"] / median["instance_memory"]
    record = {"median_us_per_stage": median, "ratio_set_real_over_memory": ratio,
              "rounds": args.rounds, "points": 67, "evaluations_per_stage": 67 * 3,
              "max_abs_difference": float(np.max(np.abs(same[0] - same[1]))),
              "clock": "thread CPU time", "load_before": load_before, "load_after": os.getloadavg()[0]}
    print(record)
    write_record(HERE / "results" / "observer_friction_cost.json", "observer_friction_cost", **record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
