"""The state observer (issue 32) on the validation logs, with both baselines side by side.

1. Makes the validation logs from the reference MBM (pybridge.onboard.validation_logs: slalom, double
   lane change, random steer (15 s), braking in a turn, slalom on a road of friction 0.5; log i seeded
   i) unless LOGS already holds them (about 4 min on one core; needs the reference extra, Exudyn).
2. Converts the shipped MBM data set into the van's parameter set (or takes --params) and builds the
   native RTM FMU with Model Exchange (or takes --fmu).
3. Runs ``pybridge.onboard.observe.observe`` on each log into OUT/<log>/ and collects the errors of the
   observer, the linear bicycle KF and the kinematic integration, and the observer's cost per update.

Writes benchmarks/results/observer_validation.json. Run by hand (about 20 s per simulated 10 s):

    .venv/bin/python benchmarks/observer_validation.py [--logs out/observer_logs] [--out out/observe]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from machine import write_record  # noqa: E402


def best_bicycle(log_path: Path, parameters: dict) -> dict:
    """The bicycle KF's sideslip RMS error (deg) at its best process noise of a grid chosen on the truth
    (an oracle tuning: the baseline at its best, so the comparison does not hinge on its tuning)."""
    import numpy as np

    from pybridge.onboard.baselines import BicycleParameters, bicycle_kf
    from pybridge.onboard.sensors import read_log

    log, _ = read_log(log_path)
    p = BicycleParameters(**parameters)
    grid = {}
    for q_vy in (0.1, 0.3, 1.0, 3.0, 10.0):
        for r_ay in (0.03, 0.1, 0.25, 0.5):
            error = np.degrees(bicycle_kf(log, p, q_vy=q_vy, r_ay=r_ay) - log["true_sideslip"].to_numpy())
            grid[(q_vy, r_ay)] = float(np.sqrt(np.mean(error ** 2)))
    (q_vy, r_ay), best = min(grid.items(), key=lambda item: item[1])
    return {"sideslip_rms_error_deg": best, "q_vy": q_vy, "r_ay": r_ay}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", default="out/observer_logs", help="folder of the validation logs (made if missing)")
    parser.add_argument("--out", default="out/observe", help="run folders, one per log")
    parser.add_argument("--params", help="RTM parameter set (default: convert the shipped MBM data set)")
    parser.add_argument("--fmu", help="native RTM FMU with Model Exchange (default: build it)")
    parser.add_argument("--only", nargs="*", help="log names to run (default: all)")
    args = parser.parse_args(argv)
    from fmu_build import build_fmu
    from pybridge.onboard.observe import observe
    from pybridge.onboard.validation_logs import LOGS, make_log

    names = args.only or list(LOGS)
    logs = Path(args.logs)
    for seed, name in enumerate(LOGS):
        if name in names and not (logs / f"{name}.csv.gz").exists():
            make_log(name, logs, seed)
    fmu = args.fmu or build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native", fmi_type="me_cs",
                                out_dir=Path(args.out) / "fmu")
    params = args.params
    if params is None:
        from pybridge.convert import convert_mbm
        params = Path(args.out) / "params_converted"
        convert_mbm(REPO / "scenarios/mbm/lcv35/mbm", fmu=fmu).write(params)
    results = {}
    for name in names:
        summary = observe(logs / f"{name}.csv.gz", params, Path(args.out) / name, fmu)
        best = best_bicycle(logs / f"{name}.csv.gz", summary["bicycle_parameters"])
        results[name] = {"errors": summary["errors"], "cost_per_update_us": summary["cost_per_update_us"],
                         "bicycle_kf_best_of_grid": best}
        print(name, results[name])
    write_record(HERE / "results" / "observer_validation.json", "observer_validation", logs=results,
                 load_average=os.getloadavg()[0], params=str(params))
    return 0


if __name__ == "__main__":
    sys.exit(main())
