"""What fmu_build adds: build times (cold and from the cache) and the FMI wrapper's cost per step.

For each native model of the SLEKQ family (and, with --rtm, the RTM14DoF):

1. build time with an empty cache (rumoca flattening + parameter probe + gcc) and the time of the
   same build again (cache hit: a file copy);
2. with benchmarks/fmu_overhead.c (dlopen, no Python in the loop): one model evaluation through
   Model Exchange, one 1 ms fmi2DoStep (RK4: four evaluations) and their difference (an estimate of
   the wrapper's bookkeeping per internal step, noisy), and fmi2Reset + a full parameter fill +
   initialization.

Writes benchmarks/results/fmu_overhead.json. Run by hand:

    .venv/bin/python benchmarks/fmu_overhead.py [--rtm] [--steps 200000]
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import cpu_name

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

MODELS = ["VehicleRTM.QuarterCars.KCRig", "VehicleRTM.Vehicles.FourPost10DoF",
          "VehicleRTM.Examples.QuarterCarFreeVibration"]


def measure(model: str, work: Path, harness: Path, steps: int) -> dict:
    from fmpy import extract, read_model_description

    from fmu_build import build_fmu

    cache = work / "cache"
    start = time.perf_counter()
    fmu = build_fmu(model, backend="native", fmi_type="me_cs", out_dir=work / "out", cache_dir=cache)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    build_fmu(model, backend="native", fmi_type="me_cs", out_dir=work / "out2", cache_dir=cache)
    cached = time.perf_counter() - start

    description = read_model_description(str(fmu))
    params = work / f"{fmu.stem}.params"
    params.write_text("".join(f"{v.valueReference} {float(v.start)!r}\n" for v in description.modelVariables
                              if v.causality == "parameter" and v.type == "Real"))
    states = sum(1 for v in description.modelVariables if v.derivative is not None)
    folder = Path(extract(str(fmu)))
    library = next((folder / "binaries").rglob(description.coSimulation.modelIdentifier + ".*"))
    out = subprocess.run([str(harness), str(library), description.guid, str(params), str(steps), str(states)],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    result.update(model=model, states=states, build_cold_s=round(cold, 3), build_cached_s=round(cached, 4),
                  fmu_bytes=fmu.stat().st_size)
    result["real_time_factor_1ms"] = round(1e-3 / (1e-9 * result["dostep_ns"]), 1)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rtm", action="store_true", help="also the RTM14DoF (cold build ~20 s)")
    parser.add_argument("--steps", type=int, default=200000, help="evaluations / doSteps timed per model")
    args = parser.parse_args()
    models = MODELS + (["VehicleRTM.Vehicles.RTM14DoF"] if args.rtm else [])
    results = []
    with tempfile.TemporaryDirectory(prefix="fmu-overhead-") as work:
        work = Path(work)
        harness = work / "fmu_overhead"
        subprocess.run(["gcc", "-O2", "-o", str(harness), str(HERE / "fmu_overhead.c"), "-ldl"], check=True)
        for model in models:
            row = measure(model, work / model.rsplit(".", 1)[-1], harness, args.steps)
            results.append(row)
            print(f"{model}: build cold {row['build_cold_s']:.2f} s, cached {row['build_cached_s'] * 1e3:.0f} ms; "
                  f"eval {row['eval_ns']:.0f} ns, doStep(1 ms) {row['dostep_ns']:.0f} ns "
                  f"(minus 4 evals: {row['dostep_minus_4_evals_ns']:.0f} ns), reset+fill({row['parameters']}) {row['reset_fill_ns'] / 1e3:.1f} us, "
                  f"{row['real_time_factor_1ms']:.0f}x real time")
    report = {"cpu": cpu_name(), "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
              "results": results}
    target = HERE / "results" / "fmu_overhead.json"
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
