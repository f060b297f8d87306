"""Identification of the shipped reference van: sensitivity, pattern search, figures, numbers.

1. Builds the native RTM CS FMU and converts the MBM data set `scenarios/mbm/lcv35/mbm`.
2. Morris sensitivity of every index to the uncertain parameters (SALib, 2 workers); drops the
   parameters without influence (`propose`).
3. Pattern search (GPS 2N) on the rest against the MBM traces, Eq. 9-10 with TP = 5 %.
4. Writes the run folder (out/identify_van), the figures (parameter changes as the LCV paper's
   Fig. 13, index errors nominal vs optimized with the TP line, convergence, sensitivity) and
   benchmarks/results/identify_van.json.

Run by hand (about 10 minutes on 2 cores):

    .venv/bin/python benchmarks/identify_van.py [--evaluations 200] [--trajectories 4]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from machine import cpu_name

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


def main() -> int:
    from fmu_build import build_fmu
    from pybridge.convert import convert_mbm
    from pybridge.identify.executor import make_executor
    from pybridge.report.figures import plot_convergence, plot_index_errors, plot_parameter_changes
    from pybridge.identify.problem import VehicleProblem
    from pybridge.identify.sensitivity import plot_sensitivity, sensitivity_analysis
    from pybridge.identify.vehicle import SearchOptions, identify_vehicle

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluations", type=int, default=200)
    parser.add_argument("--trajectories", type=int, default=4)
    parser.add_argument("--out", type=Path, default=REPO / "out" / "identify_van")
    args = parser.parse_args()
    reference = REPO / "scenarios" / "mbm" / "lcv35"
    start = time.perf_counter()
    fmu = build_fmu("VehicleRTM.Vehicles.RTM14DoF", out_dir=REPO / "out" / "fmu", fmi_type="cs")
    params = convert_mbm(reference / "mbm", fmu=fmu)
    problem = VehicleProblem(params, reference, fmu)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with make_executor(workers=2) as executor:
        sensitivity = sensitivity_analysis(problem.index_errors, problem.bounds, method="morris",
                                           n=args.trajectories, map_function=executor.map)
    sensitivity_time = time.perf_counter() - t0
    plot_sensitivity(sensitivity, args.out / "sensitivity.png")
    tunable, ranges = sensitivity.propose()
    params.uncertain = {name: (params.uncertain[name][0], *ranges[name]) for name in tunable}
    result = identify_vehicle(params, reference, fmu, args.out / "run",
                              options=SearchOptions(max_evaluations=args.evaluations), workers=2)
    summary = result.extra["summary"]
    plot_parameter_changes(summary, args.out / "parameter_changes.png")
    plot_index_errors(summary, args.out / "index_errors.png")
    plot_convergence(summary, args.out / "convergence.png")
    weighted = {n: v for n, v in summary["optimized"]["indices"].items() if v["weight"] > 0}
    record = {
        "cpu": cpu_name(), "workers": 2, "total_wall_s": round(time.perf_counter() - start, 1),
        "sensitivity": {"method": "morris", "trajectories": args.trajectories, "evaluations": len(sensitivity.outputs),
                        "wall_s": round(sensitivity_time, 1), "ranking": sensitivity.ranking(),
                        "tunable": tunable},
        "search": {"evaluations": result.evaluations, "stopped_because": result.stopped_because,
                   "wall_s": summary["wall_time_s"]},
        "fitness": {"nominal": summary["nominal"]["fitness"], "optimized": summary["optimized"]["fitness"]},
        "parameters": summary["parameters"],
        "indices": {n: {"nominal": summary["nominal"]["indices"][n]["error_percent"],
                        "optimized": v["error_percent"]} for n, v in weighted.items()},
        "above_tp_after": sorted(n for n, v in weighted.items() if v["error_percent"] > 5.0),
    }
    out = HERE / "results" / "identify_van.json"
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps({k: record[k] for k in ("total_wall_s", "sensitivity", "search", "fitness", "above_tp_after")},
                     indent=1))
    print(f"-> {out}, figures in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
