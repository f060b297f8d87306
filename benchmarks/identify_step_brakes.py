"""The identification's internal step on both shipped vans, and what it costs: the step ``choose_step`` picks and
the thread CPU of a nominal evaluation (every manoeuvre of the shipped objective) at 10 ms and at 5 ms.

Why: with the released pressure brakes' friction state relaxing at 1/stictionLag (3 ms) at speed, RK4's 10 ms
step was unstable on it (|h*lambda| 3.2): the state overflowed after 12.8 s of the ramp steer and the sine
sweep, so the step choice fell back to 5 ms. PressureBrakes.slidingLag (10 ms) bounds that rate.

For each van: builds its RK4 Co-Simulation FMU (the variant its data set asks for; cached by fmu_build),
converts its MBM data set, chooses the step, then ``--rounds`` alternating rounds of one nominal evaluation
at 10 ms and one at 5 ms (thread CPU, this process runs the native FMU in its own thread). Writes
benchmarks/results/identify_step_brakes.json. Run by hand (about 2 min cold, then 10 s per round and van):

    nice -n 5 .venv/bin/python benchmarks/identify_step_brakes.py [--rounds 5]

With ``--demo-step ROUNDS``: instead, the demo's identification step on lcv35 (identify_pool.py's problem:
the Morris step's parameters; ``identify_vehicle`` with the standard preset, 2 workers, lanes as the demo)
with the internal step fixed at 10 ms and at 5 ms (the set's fixedStepSize), alternating, into
results/identify_step_brakes_demo.json (about 1.5 min per round).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import write_record  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
VANS = ("lcv35", "lcv70")
STEPS = (10e-3, 5e-3)


def _problem(van: str, out: Path):
    """The van's identification problem on its RK4 FMU."""
    from fmu_build import build_fmu
    from pybridge.convert import convert_mbm
    from pybridge.convert_variant import choose_variant
    from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR, VehicleProblem
    from pybridge.mbm.dataset import read_mbm

    data = REPO / "scenarios" / "mbm" / van
    model = choose_variant(read_mbm(data / "mbm")).model
    fmu = build_fmu(model, backend="native", fmi_type="cs", integrator=IDENTIFICATION_INTEGRATOR,
                    out_dir=out / van)
    return VehicleProblem(convert_mbm(data / "mbm", fmu=fmu), data, fmu)


def _timed(problem, step: float) -> tuple[float, float]:
    """(thread CPU s, fitness) of one nominal evaluation at ``step``."""
    problem.internal_step = step
    start = time.thread_time()
    result = problem.evaluate(problem.nominal)
    if result.failed:
        raise SystemExit(f"nominal evaluation at {1e3 * step:g} ms failed: {result.failed}")
    return time.thread_time() - start, float(result.value)


def measure(van: str, rounds: int, out: Path) -> dict:
    problem = _problem(van, out)
    choice = problem.choose_step()
    cpu = {step: [] for step in STEPS}
    fitness = {}
    for _ in range(rounds):
        for step in STEPS:
            seconds, fitness[step] = _timed(problem, step)
            cpu[step].append(seconds)
    median = {step: statistics.median(cpu[step]) for step in STEPS}
    return {"chosen_step_s": choice["step_s"], "checked": choice["checked"], "rule_s": choice.get("rule_s"),
            "modes": choice.get("modes"),
            "reference_fitness_1ms": choice.get("reference_fitness"),
            "fitness": {f"{1e3 * s:g} ms": fitness[s] for s in STEPS},
            "evaluation_thread_cpu_s": {f"{1e3 * s:g} ms": [round(x, 4) for x in cpu[s]] for s in STEPS},
            "median_ratio_5ms_over_10ms": round(median[5e-3] / median[10e-3], 3)}


def demo_step(rounds: int, out: Path) -> None:
    """The demo's identification step at 10 ms and at 5 ms, alternating (see the module)."""
    from fmu_build.native_backend import STEP_VARIABLE
    from identify_lanes import _step
    from identify_pool import _problem

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        problem, settings = _problem(Path(folder))
        runs = []
        for number in range(rounds):
            for step in STEPS:
                problem.params.scalars[STEP_VARIABLE] = step
                figures, _ = _step(problem, settings, None, Path(folder), None)
                runs.append({"round": number, "step_s": step, **figures})
                print(runs[-1], flush=True)
    median = {s: statistics.median(r["step_wall_s"] for r in runs if r["step_s"] == s) for s in STEPS}
    write_record(out, "identify_step_brakes_demo", rounds=rounds, parameters=sorted(problem.bounds), runs=runs,
                 median_step_wall_s={f"{1e3 * s:g} ms": median[s] for s in STEPS},
                 load_average_before_after=[round(x, 2) for x in (*load_before, *os.getloadavg())])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results" / "identify_step_brakes.json")
    parser.add_argument("--demo-step", type=int, metavar="ROUNDS")
    args = parser.parse_args()
    if args.demo_step:
        return demo_step(args.demo_step, args.out.with_name("identify_step_brakes_demo.json"))
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        vans = {van: measure(van, args.rounds, Path(folder)) for van in VANS}
    write_record(args.out, "identify_step_brakes", rounds=args.rounds, vans=vans,
                 load_average_before_after=[round(x, 2) for x in (*load_before, *os.getloadavg())])


if __name__ == "__main__":
    main()
