"""`make demo` on a fresh clone in a clean environment: wall time and the final index errors.

Clones the repository (the committed HEAD) into a temporary folder, runs `make demo` there (which
creates its own .venv and installs the project), and records:
- the wall time of `make demo` in total and of the demo itself, step by step (the run's run.yaml);
- the fitness and every index error, nominal and optimized, objective and validation manoeuvres
  (the run's comparison.yaml);
into benchmarks/results/demo.json. Run by hand on an otherwise idle machine:

    .venv/bin/python benchmarks/demo_fresh_clone.py [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from demo_vehicle import index_table
from machine import cpu_name

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="clone into this folder and keep it (default: a temporary one)")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="demo-clone-"))
    clone = root / "main"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip()
    if not (root / "shared").exists() and (REPO.parent / "shared").exists():
        os.symlink(REPO.parent / "shared", root / "shared")  # the layout the repository lives in
    start = time.perf_counter()
    make = subprocess.run(["make", "demo"], cwd=clone, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if make.returncode != 0:
        print(make.stdout[-3000:], make.stderr[-3000:], sep="\n")
        print(f"make demo failed with exit code {make.returncode} in {clone}")
        return 1
    run = clone / "out" / "demo"
    info = yaml.safe_load((run / "run.yaml").read_text())
    result = yaml.safe_load((run / "result.yaml").read_text())
    indices, within = index_table(yaml.safe_load((run / "comparison.yaml").read_text()))
    record = {
        "benchmark": "make demo on a fresh clone (new .venv, pip install, native FMU build, pybridge demo)",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"), "commit": commit, "cpu": cpu_name(), "cores": os.cpu_count(),
        "make_demo_wall_s": round(wall, 1), "demo_wall_s": info["total_wall_s"],
        "steps_wall_s": {s["step"]: s["wall_s"] for s in info["steps"]},
        "settings": info["settings"],
        "evaluations": result["evaluations"], "stopped_because": result["stopped_because"],
        "fitness": {"nominal": result["nominal"]["fitness"], "optimized": result["optimized"]["fitness"]},
        "within_tp": within,
        "parameters": {n: p["change_percent"] for n, p in result["parameters"].items()},
        "indices_percent": indices,
    }
    out = HERE / "results" / "demo.json"
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps({k: record[k] for k in ("make_demo_wall_s", "demo_wall_s", "steps_wall_s", "fitness",
                                             "within_tp")}, indent=1))
    print(f"-> {out}; run folder {run}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
