"""Wall time of the reference multibody vehicle (Exudyn): every manoeuvre of the data set, and a profile.

1. Regenerates the lcv35 data set into a temporary folder (`pybridge mbm generate`, 2 workers), or
   reads the wall times of an existing set (--from-manifest DIR).
2. With --profile, profiles 2 s of the step steer in one process (cProfile) and keeps the top
   functions: how much of a step is the Exudyn solver and how much the Python pre-step (tyres,
   driver, driveline).

Writes benchmarks/results/mbm_generate.json. Run by hand:

    .venv/bin/python benchmarks/mbm_generate.py [--from-manifest scenarios/mbm/lcv35] [--profile]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

import yaml
from machine import cpu_name

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def profile_step_steer(seconds: float = 2.0) -> dict:
    from pybridge.reference.road import run_manoeuvre
    from pybridge.reference.vehicle_data import load_vehicle
    from pybridge.simulate.scenarios import load_scenario

    data = load_vehicle("lcv35")
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    _, run = run_manoeuvre(data, load_scenario("step_steer"), duration=seconds, resolve=lambda n, v: 0.6)
    profiler.disable()
    total = time.perf_counter() - start
    stream = io.StringIO()
    stats = pstats.Stats(profiler, stream=stream).sort_stats("cumulative")
    stats.print_stats(25)
    pre_step = sum(v[3] for k, v in stats.stats.items() if k[2] == "_pre_step")
    return {"simulated_s": seconds, "wall_s_incl_setup": round(total, 2), "solve_wall_s": round(run.wall_time, 2),
            "ms_per_step": round(1e3 * run.wall_time / (seconds / 1e-3), 3),
            "pre_step_share": round(pre_step / run.wall_time, 3), "top": stream.getvalue().splitlines()[:45]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from-manifest", type=Path, help="read the wall times of an existing data set")
    parser.add_argument("--profile", action="store_true", help="profile 2 s of the step steer")
    args = parser.parse_args()
    if args.from_manifest:
        manifest = yaml.safe_load((args.from_manifest / "manifest.yaml").read_text())
        total = None
    else:
        from pybridge.reference.generate import generate
        start = time.perf_counter()
        manifest = generate("lcv35", Path(tempfile.mkdtemp()) / "lcv35")
        total = round(time.perf_counter() - start, 1)
    result = {"cpu": cpu_name(), "exudyn": manifest["exudyn"], "step_s": manifest["step"], "workers": 2,
              "generate_wall_s": total, "manoeuvres": {
                  name: {"simulated_s": round(e["simulated"], 2), "wall_s": e["wall_time"],
                         "real_time_factor": round(e["simulated"] / e["wall_time"], 2)}
                  for name, e in manifest["traces"].items()}}
    if args.profile:
        result["profile"] = profile_step_steer()
    out = HERE / "results" / "mbm_generate.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    for name, e in result["manoeuvres"].items():
        print(f"{name:24s} {e['simulated_s']:6.1f} s in {e['wall_s']:6.1f} s wall ({e['real_time_factor']:.2f}x real time)")
    if args.profile:
        p = result["profile"]
        print(f"step steer: {p['ms_per_step']} ms per 1 ms step, Python pre-step {100 * p['pre_step_share']:.0f} %")
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
