"""Accuracy of an RTM14DoF integrator choice: every shipped manoeuvre against RK4 at 0.25 ms, and the van's fitness.

The judge of every speed idea (issue 15): a candidate (integrator of the native Co-Simulation FMU and
its internal step, the FMU parameter ``fixedStepSize``) must stay within NRMSE 0.1 % on every output
channel of every shipped full-vehicle manoeuvre (scenarios/manoeuvres/*.yaml) against the reference,
the same model integrated by RK4 at 0.25 ms, and keep the van's fitness (Eq. 9-10 of the shipped
objective, pybridge.identify.problem.VehicleProblem at the nominal values) within 0.5 % of the
reference's.

1. Converts the shipped MBM data set (scenarios/mbm/lcv35/mbm) into the van's parameter set.
2. Builds one FMU per integrator named by the candidates (cached by fmu_build) and the reference.
3. Runs every manoeuvre (communication step: the scenario's sample period, or ``--communication-step``,
   e.g. 1e-3: the inputs change at every 1 ms internal step as on a rig) with each candidate's internal step; NRMSE per channel = RMS(candidate - reference) / range(reference) (the plain RMS
   for a channel whose range is below 1e-9).

4. With ``--box``: the fitness also at every corner of the box of the van's uncertain parameters (the
   identification's search space: 2^4 = 16 points), each against the reference's at the same point;
   a candidate the search may use must keep it within 0.5 % there too, with no failed manoeuvre
   (a stiffer corner must not make the step unstable).

Writes benchmarks/results/rtm_accuracy.json. Run by hand (about a minute per candidate on one core;
--box: about 10 s CPU per corner for the reference, 1-2 s per candidate):

    .venv/bin/python benchmarks/rtm_accuracy.py rk4:1e-3 heun:1e-3 [--reference-fmu FMU] [--box]
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from machine import write_record  # noqa: E402

MODEL = "VehicleRTM.Vehicles.RTM14DoF"
DATA_SET = REPO / "scenarios" / "mbm" / "lcv35"
REFERENCE = ("rk4", 0.25e-3)
NRMSE_BAR = 1e-3          # 0.1 % on every channel of every manoeuvre
FITNESS_BAR = 5e-3        # 0.5 % of the reference's fitness


def parse_candidate(text: str) -> tuple[str, float, Path | None]:
    """'heun:1e-3' -> ('heun', 0.001, None); 'imex2:1e-3=OLD.fmu': that FMU (e.g. another commit's build) instead
    of this tree's; an argparse type, so a bad one is a usage error naming it."""
    text, _, fmu = text.partition("=")
    integrator, _, step = text.partition(":")
    try:
        value = float(step)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected INTEGRATOR:STEP, e.g. heun:1e-3") from None
    if not integrator or not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected INTEGRATOR:STEP with a step > 0 s")
    if fmu and not Path(fmu).is_file():
        raise argparse.ArgumentTypeError(f"{text}={fmu}: no such FMU file")
    return integrator, value, Path(fmu) if fmu else None


def nrmse(reference: np.ndarray, values: np.ndarray) -> float:
    rms = float(np.sqrt(np.mean((values - reference) ** 2)))
    span = float(np.ptp(reference))
    return rms / span if span > 1e-9 else rms


def manoeuvres() -> list[Path]:
    from pybridge.simulate.scenarios import load_scenario

    return [p for p in sorted((REPO / "scenarios" / "manoeuvres").glob("*.yaml"))
            if load_scenario(p).kind == "full_vehicle"]


def with_step(params, step: float):
    from pybridge.parameters import ParameterSet

    return ParameterSet(model=params.model, scalars={**params.scalars, "fixedStepSize": step}, tables=params.tables,
                        units=params.units, origins=params.origins, uncertain=params.uncertain,
                        metadata=params.metadata, reasons=params.reasons, source=params.source)


def run_rig_order(session, path: Path, params, resolve, step: float):
    """A manoeuvre driven in a rig's order at every communication point: fmi2DoStep, the outputs read, then
    the next inputs set, so that no evaluation happens at the new inputs before the step (run_scenario
    reads a sample's outputs after setting its inputs: an evaluation there starts that step exactly).
    run_scenario's fmpy driver (signals mid-step, the PI pedals, the end conditions at the samples) and
    FMU channels; every point after the first, the outputs with the inputs of the step before."""
    import pandas as pd

    from pybridge.parameters import ParameterSet
    from pybridge.simulate import manoeuvres as runs
    from pybridge.simulate.scenarios import load_scenario

    scenario = load_scenario(path)
    session.apply(ParameterSet(model=params.model, scalars={**params.scalars, runs.INITIAL_SPEED: scenario.initial_speed},
                               tables=params.tables, source=params.source))
    count = round(scenario.duration / step)
    every = round(1.0 / (scenario.sample_rate * step))
    recorded = runs._recorded(scenario.outputs)
    channels = [c for c in runs.FMU_CHANNELS if c in recorded or runs._feeds(c, scenario.outputs)]
    names = [runs.FMU_CHANNELS[c] for c in channels]
    hold = runs._holding_throttle(session, step, False) if scenario.speed_control else 0.0
    driver = runs._Driver(session, scenario, resolve, step, count, every, hold, True)
    rows = []

    def rig(t: float) -> dict:
        if t > 0:
            values = session.get(names)
            rows.append([values[n] for n in names])
        return driver(t)

    try:
        session.simulate(rig, count * step, step, [], runner="fmpy")
    except runs._EndReached:
        pass
    return pd.DataFrame(rows, columns=channels)


def run_all(fmu: Path, params, step: float, communication: float | None = None,
            runner: str | None = None) -> tuple[dict, float, float]:
    """Traces of every manoeuvre (``communication``: the communication step, None: the sample period;
    ``runner``: run_scenario's, or "rig": :func:`run_rig_order`), the van's nominal fitness, and the CPU
    seconds the manoeuvres took."""
    from pybridge.simulate.fmu import FMUSession
    from pybridge.identify.problem import VehicleProblem
    from pybridge.simulate.manoeuvres import ManifestReferences, run_scenario

    stepped = with_step(params, step)
    resolve = ManifestReferences(DATA_SET / "manifest.yaml")
    traces = {}
    t0 = time.process_time()
    with FMUSession(fmu) as session:
        for path in manoeuvres():
            traces[path.stem] = (run_rig_order(session, path, stepped, resolve, communication) if runner == "rig" else
                                 run_scenario(session, path, stepped, resolve, communication, runner=runner))
    seconds = time.process_time() - t0
    problem = VehicleProblem(stepped, DATA_SET, fmu)
    return traces, problem.fitness(problem.nominal), seconds


def box_corners(params) -> list[dict]:
    """Every corner of the box of ``params``' uncertain parameters (lower/upper bounds)."""
    names = sorted(params.uncertain)
    if len(names) > 6:
        raise SystemExit(f"--box: {len(names)} uncertain parameters give {2 ** len(names)} corners; at most 6")
    return [{n: params.uncertain[n][1 + bit] for n, bit in zip(names, bits)}
            for bits in itertools.product((0, 1), repeat=len(names))]


def box_fitness(fmu: Path, params, step: float, points: list[dict]) -> list[tuple[float, list]]:
    """(fitness, failed manoeuvres) at each point."""
    from pybridge.identify.problem import VehicleProblem

    problem = VehicleProblem(with_step(params, step), DATA_SET, fmu)
    return [(r.value, sorted(r.failed)) for r in map(problem.evaluate, points)]


def box_summary(reference: list, candidate: list) -> dict:
    changes = [abs(c - r) / abs(r) for (r, _), (c, _) in zip(reference, candidate)]
    failed = sum(bool(f) for _, f in candidate)
    return {"corners": len(changes), "max_fitness_relative_change": max(changes), "failed_corners": failed,
            "meets_bar": max(changes) <= FITNESS_BAR and failed == 0}


def compare(reference: dict, candidate: dict) -> dict:
    """Per manoeuvre: the NRMSE of every channel and the worst one."""
    result = {}
    for name, ref in reference.items():
        got = candidate[name]
        n = min(len(ref), len(got))
        channels = {c: nrmse(ref[c].to_numpy()[:n], got[c].to_numpy()[:n]) for c in ref.columns if c in got.columns}
        worst = max(channels, key=channels.get)
        result[name] = {"worst_channel": worst, "worst_nrmse": channels[worst], "samples": n,
                        "same_length": len(ref) == len(got), "channels": channels}
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidates", nargs="+", type=parse_candidate, help="INTEGRATOR:STEP[=FMU], e.g. rk4:1e-3 heun:1e-3 "
                                                                                      "imex2:1e-3=MAIN.fmu")
    parser.add_argument("--reference-fmu", type=Path, help="FMU integrated by RK4 at 0.25 ms as the reference "
                                                         "(default: build it from this tree)")
    parser.add_argument("--box", action="store_true", help="also the fitness at every corner of the uncertain "
                                                             "parameters' box, against the reference's")
    parser.add_argument("--communication-step", type=float, metavar="SECONDS",
                        help="communication step of the manoeuvres, reference included (default: each scenario's "
                             "sample period); 1e-3 sets new inputs at every 1 ms internal step, as a rig does")
    parser.add_argument("--runner", choices=["native", "fmpy", "rig"],
                        help="run_scenario's runner for the traces (default: its own choice; both read a sample's "
                             "outputs after setting its inputs, an evaluation at the new inputs), or 'rig': the "
                             "outputs read before the next inputs are set, at every point (needs "
                             "--communication-step)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "rtm_accuracy.json")
    args = parser.parse_args(argv)
    if args.runner == "rig" and not args.communication_step:
        parser.error("--runner rig needs --communication-step")

    from fmu_build.build import build_fmu
    from pybridge.convert import convert_mbm

    load_before = os.getloadavg()
    work = REPO / "out" / "rtm_accuracy"
    fmus = {name: build_fmu(MODEL, backend="native", fmi_type="cs", out_dir=work / name, integrator=name)
            for name in {REFERENCE[0], *(c[0] for c in args.candidates if c[2] is None)}}
    reference_fmu = args.reference_fmu or fmus[REFERENCE[0]]
    params = convert_mbm(DATA_SET / "mbm", fmu=reference_fmu)
    ref_traces, ref_fitness, ref_seconds = run_all(reference_fmu, params, REFERENCE[1], args.communication_step,
                                                   args.runner)
    print(f"reference {REFERENCE[0]} at {REFERENCE[1] * 1e3:g} ms: fitness {ref_fitness:.6g} ({ref_seconds:.1f} s CPU)")
    corners = box_corners(params) if args.box else []
    ref_box = box_fitness(reference_fmu, params, REFERENCE[1], corners) if corners else []
    if any(f for _, f in ref_box):
        print(f"reference: failed manoeuvres at corners {[f for _, f in ref_box if f]}")
    results = []
    for integrator, step, given in args.candidates:
        fmu = given or fmus[integrator]
        traces, fitness, seconds = run_all(fmu, params, step, args.communication_step, args.runner)
        per_manoeuvre = compare(ref_traces, traces)
        worst = max(per_manoeuvre, key=lambda m: per_manoeuvre[m]["worst_nrmse"])
        fitness_change = abs(fitness - ref_fitness) / abs(ref_fitness)
        meets = (per_manoeuvre[worst]["worst_nrmse"] <= NRMSE_BAR and fitness_change <= FITNESS_BAR
                 and all(m["same_length"] for m in per_manoeuvre.values()))
        results.append({"integrator": integrator, "step": step, "fmu": str(given or "built from this tree"),
                        "fitness": fitness,
                        "fitness_relative_change": fitness_change, "worst_manoeuvre": worst,
                        "worst_nrmse": per_manoeuvre[worst]["worst_nrmse"], "meets_bar": meets,
                        "cpu_seconds_all_manoeuvres": round(seconds, 2), "manoeuvres": per_manoeuvre})
        print(f"{integrator} at {step * 1e3:g} ms{f' ({given})' if given else ''}: worst NRMSE {per_manoeuvre[worst]['worst_nrmse']:.2e} "
              f"({worst}/{per_manoeuvre[worst]['worst_channel']}), fitness {fitness:.6g} "
              f"({100 * fitness_change:.3f} %), {seconds:.1f} s CPU: bar {'met' if meets else 'NOT met'}", flush=True)
        for name, m in per_manoeuvre.items():
            print(f"    {name:20s} {m['worst_nrmse']:.2e} {m['worst_channel']}")
        if corners:
            box = box_summary(ref_box, box_fitness(fmu, params, step, corners))
            results[-1]["box"] = box
            print(f"    box corners: fitness within {100 * box['max_fitness_relative_change']:.3f} %, "
                  f"{box['failed_corners']} failed: {'met' if box['meets_bar'] else 'NOT met'}")
    write_record(args.out, "RTM14DoF integrators against RK4 at 0.25 ms, every shipped full-vehicle manoeuvre",
                 bars={"nrmse_every_channel": NRMSE_BAR, "fitness_relative": FITNESS_BAR},
                 communication_step=args.communication_step or "the scenario's sample period",
                 runner=args.runner or "run_scenario's default",
                 load_average_before_after=[load_before, os.getloadavg()],
                 reference={"integrator": REFERENCE[0], "step": REFERENCE[1], "fitness": ref_fitness,
                            "fmu": str(args.reference_fmu) if args.reference_fmu else "built from this tree",
                            "box_corners": [{"point": p, "fitness": f, "failed": m} for p, (f, m) in zip(corners, ref_box)]},
                 candidates=results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
