"""`pybridge demo --vehicle NAME` (standard preset): a shipped van's nominal -> optimized index table.

Runs the demo under `nice -n 5` into out/demo_NAME (or reads a finished run folder with --from-run)
and records into benchmarks/results/demo_NAME.json:
- the fitness, the objective and validation indices within TP (nominal -> optimized) and every index;
- the parameter changes (percent of nominal; the mass-table parameters against the +-5 % bar);
- the nominal sine-sweep FRF errors and step-steer indices against the issue's bars (8 %, 10 %);
- the four-post check of the SLEKQ corners (RUN/corners/four_post/four_post.yaml) as written;
- the wall time, the CPU time of the demo's processes and the load (`uptime`) before and after.

    .venv/bin/python benchmarks/demo_vehicle.py [--vehicle lcv70] [--from-run out/demo_lcv70]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import yaml
from machine import cpu_name

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MASS_TABLE = ("chassis.cogHeight", "chassis.cogToFrontAxle", "chassis.Ixx", "chassis.Iyy", "chassis.Izz",
              "chassis.Ixz", "chassis.sprungBodies")
BARS = {"sine_sweep": 8.0, "step_steer": 10.0}  # nominal converted set, issue 31


def load_average() -> float:
    return os.getloadavg()[0]


def run_demo(vehicle: str, out: Path) -> dict:
    """The demo in a child process; wall and CPU time of it and its workers, load before and after."""
    load, start, cpu = load_average(), time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    command = ["nice", "-n", "5", str(REPO / ".venv" / "bin" / "pybridge"), "demo", "--vehicle", vehicle,
               "-o", str(out)]
    done = subprocess.run(command, cwd=REPO)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"pybridge demo --vehicle {vehicle} failed with exit code {done.returncode}")
    return {"wall_s": round(time.perf_counter() - start, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime, 1),
            "load_before": round(load, 2), "load_after": round(load_average(), 2)}


def index_table(comparison: dict) -> tuple[dict, dict]:
    """A run's comparison.yaml as every index ('manoeuvre/index': role, weight, nominal, optimized) and the
    counts within TP, nominal and optimized, of the scored ones (weight > 0, or validation) per role."""
    tp = comparison["tolerance_percent"]
    indices = {f"{m}/{name}": {"role": entry["role"], "weight": v["weight"], "nominal": v["nominal"],
                               "optimized": v["optimized"]}
               for m, entry in comparison["manoeuvres"].items() for name, v in entry["indices"].items()}
    scored = {k: v for k, v in indices.items() if v["weight"] > 0 or v["role"] == "validation"}
    within = {role: {s: sum(v[s] <= tp for v in scored.values() if v["role"] == role) for s in ("nominal", "optimized")}
              | {"of": sum(v["role"] == role for v in scored.values())} for role in ("objective", "validation")}
    return indices, within


def summarize(run: Path) -> dict:
    """Fitness, within-TP counts, indices, parameter changes, bars and four-post check of a run folder."""
    result = yaml.safe_load((run / "result.yaml").read_text())
    comparison = yaml.safe_load((run / "comparison.yaml").read_text())
    tp = comparison["tolerance_percent"]
    indices, within = index_table(comparison)
    changes = {n: p["change_percent"] for n, p in result["parameters"].items()}
    bars = {k: {"nominal": v["nominal"], "bar": BARS[k.split("/")[0]], "met": v["nominal"] <= BARS[k.split("/")[0]]}
            for k, v in indices.items() if k.split("/")[0] in BARS and v["weight"] > 0
            and (k.startswith("step_steer") or k.endswith("_frf"))}
    four_post = run / "corners" / "four_post" / "four_post.yaml"
    return {"tolerance_percent": tp, "evaluations": result["evaluations"], "stopped_because": result["stopped_because"],
            "fitness": {"nominal": result["nominal"]["fitness"], "optimized": result["optimized"]["fitness"]},
            "within_tp": within, "parameters_change_percent": changes,
            "mass_table_over_5_percent": {n: c for n, c in changes.items() if n in MASS_TABLE and abs(c) > 5.0},
            "nominal_bars": bars, "indices_percent": indices,
            "four_post": yaml.safe_load(four_post.read_text()) if four_post.is_file() else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vehicle", default="lcv70", help="shipped data set (scenarios/mbm/NAME), default lcv70")
    parser.add_argument("--from-run", type=Path, help="summarize a finished demo run folder instead of running one")
    args = parser.parse_args()
    run = args.from_run or REPO / "out" / f"demo_{args.vehicle}"
    timing = None if args.from_run else run_demo(args.vehicle, run)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    record = {"benchmark": f"pybridge demo --vehicle {args.vehicle} (standard preset), nice -n 5",
              "date": time.strftime("%Y-%m-%d %H:%M:%S"), "commit": commit, "cpu": cpu_name(),
              "cores": os.cpu_count(), "timing": timing, **summarize(run)}
    out = HERE / "results" / f"demo_{args.vehicle}.json"
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps({k: record[k] for k in ("timing", "fitness", "within_tp", "mass_table_over_5_percent")}, indent=1))
    print(f"-> {out}; run folder {run}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
