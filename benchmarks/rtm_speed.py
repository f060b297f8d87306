"""Speed of the native RTM14DoF FMU: the model's own cost per 1 ms step, and fmpy's overhead apart.

1. Builds the native Co-Simulation FMU of VehicleRTM.Vehicles.RTM14DoF (1 ms internal step).
2. Compiles benchmarks/rtm_speed.c, a HIL-rig-like C harness: dlopen the FMU's library, one instance,
   a 20 s step steer with fmi2DoStep every 1 ms, fmi2Reset and a full parameter fill between runs.
3. Runs the same manoeuvre through fmpy.simulate_fmu (instance reused) twice: with a 1 ms
   communication step (what a Python identification loop pays per step) and with one 20 s
   communication step (the model's cost seen through fmpy); the difference is fmpy's own cost.
4. Optionally (--profile) records a perf profile of the harness and keeps the top symbols.
5. Optionally (--against FMU [FMU ...]) times other RTM14DoF CS FMUs (e.g. main's RK4 build) and this
   build side by side: ROUNDS alternating rounds of 3 harness runs each, thread CPU time per 1 ms step,
   the ratio of each to this build per round and its median (results/rtm_speed_compare.json); with
   --instructions also each build's instructions per step under callgrind (deterministic, load-free).

Writes benchmarks/results/rtm_speed.json and prints a summary. Run by hand:

    .venv/bin/python benchmarks/rtm_speed.py [--runs 5] [--profile] [--integrator heun]
    .venv/bin/python benchmarks/rtm_speed.py --integrator heun --against OLD.fmu [--rounds 9] [--instructions]

results/rtm_speed_generated_vs_native.json records the measurement that retired the hand-written
model C (generated RTM against the last hand-written build, alternating rounds of this harness).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import cpu_name

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

MODEL = "VehicleRTM.Vehicles.RTM14DoF"
STEP = 1e-3
STOP = 20.0
TARGET_REAL_TIME_FACTOR = 2000.0


def step_steer_inputs(stop: float, step: float) -> np.ndarray:
    time_ = np.arange(0.0, stop + step / 2, step)
    names = ["steeringWheelAngle", "throttle", "brakePedal"] + [f"roadHeight[{k}]" for k in range(1, 5)]
    signals = np.zeros(len(time_), dtype=[("time", float)] + [(name, float) for name in names])
    signals["time"] = time_
    signals["steeringWheelAngle"] = 0.6981317007977318 * np.clip((time_ - 1.0) / 0.2, 0.0, 1.0)
    signals["throttle"] = 0.12
    return signals


def build(out_dir: Path, integrator: str) -> Path:
    from fmu_build.build import build_fmu

    return build_fmu(MODEL, backend="native", fmi_type="cs", step=STEP, out_dir=out_dir, integrator=integrator)


def harness_inputs(fmu: Path, unzipped: Path, vr_file: Path) -> tuple[Path, str, int]:
    """The FMU's library, GUID and the value-reference file of the harness (inputs, outputs, parameter fill)."""
    from fmpy import read_model_description

    description = read_model_description(str(fmu))
    names = {v.name: v for v in description.modelVariables}
    lines = [f"{name} {names[name].valueReference}" for name in
             ("steeringWheelAngle", "throttle", "brakePedal", "initialSpeed", "yawRate", "ay")]
    fill = [v for v in description.modelVariables
            if v.causality == "parameter" and v.type == "Real" and v.start is not None]
    lines += [f"param {v.valueReference} {float(v.start)!r}" for v in fill]
    vr_file.write_text("\n".join(lines) + "\n")
    identifier = description.coSimulation.modelIdentifier
    suffix = {"Linux": ".so", "Darwin": ".dylib", "Windows": ".dll"}[platform.system()]
    libraries = list((unzipped / "binaries").rglob(identifier + suffix))
    if not libraries:
        raise SystemExit(f"no {identifier}{suffix} in {fmu}")
    return libraries[0], description.guid, len(fill)


def compile_harness(work: Path) -> Path:
    compiler = os.environ.get("CC", "gcc")
    exe = work / "rtm_speed"
    subprocess.run([compiler, "-O2", "-std=c11", "-Wall", "-o", str(exe), str(HERE / "rtm_speed.c"), "-ldl", "-lm"],
                   check=True)
    return exe


# The harness's steering input (--steer): the ISO 7401 step, or a sine that changes at every step
STEERS = {"step": "step steer", "sine": "sine steer (0.5 Hz, 40 deg from 1 s)",
          "both": "step steer and sine steer (0.5 Hz, 40 deg from 1 s)"}


def run_harness(exe: Path, library: Path, guid: str, unzipped: Path, vr_file: Path, runs: int,
                steer: str = "step") -> dict:
    out = subprocess.run([str(exe), str(library), guid, unzipped.resolve().as_uri(), str(vr_file), str(runs),
                          str(STOP), str(STEP), steer], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def profile_harness(exe: Path, library: Path, guid: str, unzipped: Path, vr_file: Path, work: Path) -> list:
    """Top symbols of a perf profile of two harness runs ([] when perf is not usable here)."""
    perf = shutil.which("perf")
    if not perf:
        return []
    data = work / "perf.data"
    record = subprocess.run([perf, "record", "-q", "-o", str(data), str(exe), str(library), guid,
                             unzipped.resolve().as_uri(), str(vr_file), "2", str(STOP), str(STEP)],
                            capture_output=True, text=True)
    if record.returncode != 0:
        return []
    report = subprocess.run([perf, "report", "-i", str(data), "--no-children", "--stdio", "--sort", "symbol"],
                            capture_output=True, text=True)
    top = []
    for line in report.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].endswith("%") and not line.lstrip().startswith("#"):
            symbol = " ".join(p for p in parts[2:] if p != "-")
            top.append({"percent": float(parts[0].rstrip("%")), "symbol": symbol})
        if len(top) == 15:
            break
    return top


def instructions_per_step(exe: Path, library: Path, guid: str, unzipped: Path, vr_file: Path,
                          stop: float = 2.0, steer: str = "step") -> float | None:
    """Instructions per 1 ms step of the steer under callgrind (None without valgrind): a run of
    ``stop`` seconds minus a run of one step, so the harness's start-up and parameter fill cancel. The
    sine steer starts at 1 s: its runs are 1 s longer (1 to ``stop`` + 1 s)."""
    valgrind = shutil.which("valgrind")
    if not valgrind:
        return None

    def collected(until: float) -> int:
        run = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", str(exe), str(library),
                              guid, unzipped.resolve().as_uri(), str(vr_file), "1", str(until), str(STEP), steer],
                             capture_output=True, text=True, check=True)
        return int(re.search(r"Collected : (\d+)", run.stderr).group(1))

    start = 1.0 if steer == "sine" else 0.0
    return (collected(start + stop) - collected(start + STEP)) / (round(stop / STEP) - 1)


def fmpy_runs(fmu: Path, unzipped: Path, steps: int) -> dict:
    """The same manoeuvre through fmpy.simulate_fmu, one instance reused (extracted, loaded and
    instantiated once): at a 1 ms communication step, and in one 20 s communication step (the
    model's cost seen through fmpy). Their difference per step is fmpy's own cost per step."""
    from fmpy import read_model_description, simulate_fmu
    from fmpy.fmi2 import FMU2Slave

    description = read_model_description(str(fmu))
    slave = FMU2Slave(guid=description.guid, unzipDirectory=str(unzipped),
                      modelIdentifier=description.coSimulation.modelIdentifier, instanceName="fmpy")
    slave.instantiate()
    signals = step_steer_inputs(STOP, STEP)
    options = dict(validate=False, fmi_type="CoSimulation", start_values={"initialSpeed": 80 / 3.6}, input=signals,
                   output=["yawRate", "ay"], model_description=description, fmu_instance=slave, stop_time=STOP)

    def run(interval: float) -> float:
        slave.reset()
        t0 = time.perf_counter()
        simulate_fmu(str(unzipped), output_interval=interval, **options)
        return time.perf_counter() - t0

    try:
        run(STEP)                                   # warm-up
        fine = min(run(STEP) for _ in range(2))
        coarse = min(run(STOP) for _ in range(2))
    finally:
        slave.freeInstance()        # simulate_fmu terminated it
    return {"us_per_step_1ms_communication": 1e6 * fine / steps,
            "us_per_model_step_one_20s_communication_step": 1e6 * coarse / steps,
            "overhead_us_per_communication_step": 1e6 * (fine - coarse) / steps}


def compare_rounds(candidates: dict[str, tuple], rounds: int, steer: str) -> dict:
    """Alternating rounds of the harness over ``candidates`` (label -> (exe, library, guid, unzipped,
    vr_file)): per round each one's median thread CPU time per step (3 runs), and the medians. Steer
    ``both``: each candidate on the step and the sine steer in every round (labels "LABEL | STEER")."""
    steers = ["step", "sine"] if steer == "both" else [steer]
    label_of = (lambda label, s: f"{label} | {s}") if steer == "both" else (lambda label, s: label)
    per_round = {label_of(label, s): [] for label in candidates for s in steers}
    for _ in range(rounds):
        for label, (exe, library, guid, unzipped, vr_file) in candidates.items():
            for s in steers:
                per_round[label_of(label, s)].append(run_harness(exe, library, guid, unzipped, vr_file, 3, s)
                                                     ["cpu_us_per_step_median"])
    return {"rounds": rounds, "cpu_us_per_step": per_round,
            "median_cpu_us_per_step": {k: float(np.median(v)) for k, v in per_round.items()}}


def against(fmus: list[Path], build: tuple, work: Path, rounds: int, integrator: str, steer: str,
            instructions: bool = False) -> dict:
    """This build (``build``: its harness inputs) against the FMUs ``fmus``, alternating rounds (and, with
    ``instructions``, each one's callgrind instructions per step)."""
    from fmpy import extract

    candidates = {f"this build ({integrator})": build}
    for k, fmu in enumerate(fmus):
        unzipped = Path(extract(str(fmu), unzipdir=str(work / f"against{k}")))
        library, guid, _ = harness_inputs(fmu, unzipped, work / f"against{k}.txt")
        candidates[str(fmu)] = (build[0], library, guid, unzipped, work / f"against{k}.txt")
    result = compare_rounds(candidates, rounds, steer)
    steers = ["step", "sine"] if steer == "both" else [steer]
    if instructions:
        result["callgrind_instructions_per_step"] = {
            f"{label} | {s}" if steer == "both" else label: instructions_per_step(*inputs, steer=s)
            for label, inputs in candidates.items() for s in steers}
    times = result["cpu_us_per_step"]
    this = f"this build ({integrator})"
    result["speedup_of_this_build"] = {}
    for s in steers:
        suffix = f" | {s}" if steer == "both" else ""
        mine = times[this + suffix]
        result["speedup_of_this_build"].update({
            label: {"per_round": [o / m for o, m in zip(other, mine)],
                    "median": float(np.median([o / m for o, m in zip(other, mine)]))}
            for label, other in times.items() if label.endswith(suffix) and label != this + suffix})
    if steer == "both":
        result["sine_over_step"] = {label: {"per_round": [a / b for a, b in zip(times[f"{label} | sine"],
                                                                                 times[f"{label} | step"])]}
                                    for label in candidates}
        for ratio in result["sine_over_step"].values():
            ratio["median"] = float(np.median(ratio["per_round"]))
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="harness runs (instance reused)")
    parser.add_argument("--profile", action="store_true", help="record a perf profile of the harness")
    parser.add_argument("--integrator", choices=["rk4", "heun", "ab2", "imex2"], default="rk4",
                        help="the FMU's Co-Simulation integrator (default rk4, the shipped build the issue-15 bar "
                             "compares with)")
    parser.add_argument("--out", type=Path, help="result file (default results/rtm_speed[_heun].json)")
    parser.add_argument("--against", type=Path, nargs="+", metavar="FMU",
                        help="also time these RTM14DoF CS FMUs side by side with this build (alternating rounds)")
    parser.add_argument("--rounds", type=int, default=9, help="alternating rounds of --against (default 9)")
    parser.add_argument("--instructions", action="store_true",
                        help="with --against: also count each build's instructions per step under callgrind "
                             "(2 s of the step steer minus one step)")
    parser.add_argument("--steer", choices=list(STEERS), default="step",
                        help="steering input of the harness: the 20 s step steer (default) or a 0.5 Hz, 40 deg "
                             "sine from 1 s, which sets a new input value at every 1 ms step as a rig does; with "
                             "--against, 'both' times every build on both in each round (and the sine/step ratio)")
    args = parser.parse_args(argv)
    if args.out is None:
        suffix = "" if args.integrator == "rk4" else f"_{args.integrator}"
        args.out = HERE / "results" / f"rtm_speed{suffix}.json"

    from fmpy import extract

    from fmu_build.native_backend import CFLAGS, compiler_version

    with tempfile.TemporaryDirectory(prefix="rtm-speed-") as folder:
        work = Path(folder)
        t0 = time.perf_counter()
        fmu = build(work, args.integrator)
        build_seconds = time.perf_counter() - t0
        unzipped = Path(extract(str(fmu), unzipdir=str(work / "unzipped")))
        library, guid, n_fill = harness_inputs(fmu, unzipped, work / "vrs.txt")
        exe = compile_harness(work)
        harness = run_harness(exe, library, guid, unzipped, work / "vrs.txt", args.runs,
                              "sine" if args.steer == "both" else args.steer)
        profile = profile_harness(exe, library, guid, unzipped, work / "vrs.txt", work) if args.profile else []
        load_before = os.getloadavg()
        side_by_side = (against(args.against, (exe, library, guid, unzipped, work / "vrs.txt"), work, args.rounds,
                                args.integrator, args.steer, args.instructions) if args.against else None)
        if side_by_side:
            side_by_side["load_average_before_after"] = [load_before, os.getloadavg()]
        steps = harness["steps_per_run"]
        through_fmpy = fmpy_runs(fmu, unzipped, steps)

    model_us = harness["us_per_step_median"]
    result = {
        "benchmark": f"native RTM14DoF Co-Simulation FMU, 20 s {STEERS[args.steer]} at 80 km/h, fmi2DoStep every 1 ms",
        "steer": args.steer,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {"cpu": cpu_name(), "cores_used": 1, "system": platform.platform(),
                    "compiler": compiler_version(), "fmu_cflags": " ".join(CFLAGS),
                    "python": platform.python_version()},
        "fmu": {"model": MODEL, "integrator": f"{args.integrator} (wrapper), fixed internal step", "internal_step": STEP,
                "build_seconds": round(build_seconds, 2), "real_parameters_filled_per_run": n_fill},
        "c_harness": harness,
        "model_us_per_step": model_us,
        "real_time_factor": STEP / (1e-6 * model_us),
        "target_real_time_factor": TARGET_REAL_TIME_FACTOR,
        "meets_target": STEP / (1e-6 * model_us) >= TARGET_REAL_TIME_FACTOR,
        "reset_and_parameter_fill_us": harness["reset_and_fill_us"],
        "fmpy": {"manoeuvre": STEERS["step"], **through_fmpy},
        "profile_top_symbols": profile,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    if side_by_side:
        compared = args.out.with_name(args.out.stem + "_compare.json")
        compared.write_text(json.dumps({"benchmark": result["benchmark"] + ", alternating rounds", "date": result["date"],
                                        "machine": result["machine"], **side_by_side}, indent=2) + "\n")
        for label, speedup in side_by_side["speedup_of_this_build"].items():
            print(f"side by side ({args.rounds} rounds): {label} takes {speedup['median']:.2f}x this build's CPU time "
                  f"per step ({side_by_side['median_cpu_us_per_step']})")
        for label, ratio in side_by_side.get("sine_over_step", {}).items():
            print(f"sine steer / step steer ({args.rounds} rounds): {label}: {ratio['median']:.3f}x")
        for label, count in side_by_side.get("callgrind_instructions_per_step", {}).items():
            print(f"callgrind: {label}: {count:,.0f} instructions per step" if count else f"{label}: no valgrind")
        print(f"written {compared}")
    print(f"model: {model_us:.2f} us per 1 ms step (C harness, median of {harness['runs']} runs) "
          f"= {result['real_time_factor']:.0f}x real time (target {TARGET_REAL_TIME_FACTOR:.0f}x: "
          f"{'met' if result['meets_target'] else 'NOT met'})")
    print(f"reset + fill of {n_fill} parameters: {harness['reset_and_fill_us']:.0f} us per run")
    print(f"fmpy: {through_fmpy['us_per_step_1ms_communication']:.1f} us per 1 ms communication step, "
          f"{through_fmpy['us_per_model_step_one_20s_communication_step']:.2f} us per model step in one 20 s step: "
          f"fmpy's own cost {through_fmpy['overhead_us_per_communication_step']:.1f} us per communication step")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
