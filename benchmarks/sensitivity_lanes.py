"""The demo's sensitivity step with lanes on and off, side by side: wall time, workers' CPU, same indices.

The problem is the demo's before its sensitivity step (identify_pool.py's FMU and converted van, every uncertain
parameter); each round runs the standard preset's Morris design through the demo's map (2 workers, chunks of
two points per worker and lane) with ``lane_objective(problem, "indices", lanes=...)``, off and on in
alternating order, and compares every index value of every point between the sides. Run by hand:

    nice -n 10 .venv/bin/python benchmarks/sensitivity_lanes.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from machine import write_record

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


def _side(problem, settings, lanes: str) -> tuple[dict, list]:
    from pybridge.demo import progress_map
    from pybridge.identify.executor import make_executor
    from pybridge.identify.lane_batch import lane_objective
    from pybridge.identify.sensitivity import sensitivity_analysis

    s = settings["sensitivity"]
    load = os.getloadavg()[0]
    wall, children = time.monotonic(), os.times()
    with make_executor(workers=2) as executor:
        result = sensitivity_analysis(lane_objective(problem, "indices", lanes=lanes), problem.bounds,
                                      method=s["method"], n=s["samples"], seed=s["seed"],
                                      map_function=progress_map(executor, "sensitivity", False))
    wall, after = time.monotonic() - wall, os.times()
    cpu = after.children_user + after.children_system - children.children_user - children.children_system
    return {"lanes": lanes, "load_1min": load, "wall_s": round(wall, 3), "children_cpu_s": round(cpu, 3),
            "evaluations": len(result.outputs)}, result.outputs.to_numpy()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "sensitivity_lanes.json")
    args = parser.parse_args()
    from fmu_build import build_fmu
    from pybridge.config import load_preset
    from pybridge.convert import convert_mbm
    from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR, VehicleProblem

    reference = REPO / "scenarios" / "mbm" / "lcv35"
    fmu = build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native", fmi_type="cs",
                    integrator=IDENTIFICATION_INTEGRATOR, out_dir=REPO / "out" / "identify_lanes")
    problem = VehicleProblem(convert_mbm(reference / "mbm", fmu=fmu), reference, fmu)
    problem.choose_step()
    settings = load_preset("standard")
    rounds = []
    for number in range(args.rounds):
        order = ["off", "auto"] if number % 2 == 0 else ["auto", "off"]
        sides, values = {}, {}
        for lanes in order:
            sides[lanes], values[lanes] = _side(problem, settings, lanes)
        worst = float(abs(values["auto"] - values["off"]).max() / abs(values["off"]).max())
        rounds.append({"round": number, "order": f"{order[0]} first", **sides,
                       "wall_ratio": round(sides["off"]["wall_s"] / sides["auto"]["wall_s"], 4),
                       "cpu_ratio": round(sides["off"]["children_cpu_s"] / sides["auto"]["children_cpu_s"], 4),
                       "worst_index_difference_relative_to_largest": worst})
        print(rounds[-1], flush=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    write_record(args.out, "sensitivity_lanes", commit=commit, workers=2, parameters=sorted(problem.bounds),
                 internal_step_s=problem.internal_step, rounds=rounds, load_end=os.getloadavg())
    return 0


if __name__ == "__main__":
    sys.exit(main())
