"""What limits the internal step of the RTM: the gear-shift instants or the smooth dynamics?

For each candidate INTEGRATOR:STEP[=FMU] (on FMU, e.g. main's build whose events act at the step's end;
default: this tree's build of INTEGRATOR, which locates them), every shipped full-vehicle manoeuvre is run as in rtm_accuracy.py and
compared with RK4 at 0.25 ms (this tree's build): per channel the NRMSE over the whole run and over the
samples outside windows [t - 0.05 s, t + 0.5 s] around every gear change of the reference and of the
candidate. If the error falls far outside the windows, the shift instants dominate; if not, the
dynamics between events do. The gear channel is recorded in every manoeuvre for this.

Writes benchmarks/results/rtm_event_diagnosis.json. Run by hand (a minute or two per candidate):

    .venv/bin/python benchmarks/rtm_event_diagnosis.py rk4:5e-3 rk4:5e-3=OLD_RK4.fmu heun:2e-3
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import rtm_accuracy as accuracy  # noqa: E402
from machine import write_record  # noqa: E402

WINDOW = (0.05, 0.5)   # s before and after a gear change


def parse_candidate(text: str) -> tuple[str, float, Path | None]:
    """'rk4:5e-3=old.fmu' -> ('rk4', 0.005, Path('old.fmu')); the FMU part is optional."""
    candidate, _, fmu = text.partition("=")
    integrator, step = accuracy.parse_candidate(candidate)
    if fmu and not Path(fmu).is_file():
        raise argparse.ArgumentTypeError(f"{text!r}: no FMU file {fmu}")
    return integrator, step, Path(fmu) if fmu else None


def traces(fmu: Path, params, step: float) -> dict:
    """Every manoeuvre's trace with the gear (and engine speed) recorded."""
    from pybridge.simulate.fmu import FMUSession
    from pybridge.simulate.manoeuvres import ManifestReferences, run_scenario
    from pybridge.simulate.scenarios import load_scenario

    stepped = accuracy.with_step(params, step)
    resolve = ManifestReferences(accuracy.DATA_SET / "manifest.yaml")
    out = {}
    with FMUSession(fmu) as session:
        for path in accuracy.manoeuvres():
            scenario = load_scenario(path)
            extra = [o for o in ("gear", "engine_speed") if o not in scenario.outputs]
            scenario = dataclasses.replace(scenario, outputs=type(scenario.outputs)([*scenario.outputs, *extra]))
            out[path.stem] = run_scenario(session, scenario, stepped, resolve)
    return out


def shift_times(trace) -> np.ndarray:
    gear, t = trace["gear"].to_numpy(), trace["time"].to_numpy()
    return t[np.nonzero(np.diff(gear))[0] + 1]


def split_errors(reference, candidate) -> dict:
    """Per channel: NRMSE over the run and outside the shift windows; the shift times of both."""
    n = min(len(reference), len(candidate))
    t = reference["time"].to_numpy()[:n]
    shifts_ref, shifts_cand = shift_times(reference), shift_times(candidate)
    outside = np.ones(n, bool)
    for ts in np.concatenate([shifts_ref, shifts_cand]):
        outside &= ~((t > ts - WINDOW[0]) & (t < ts + WINDOW[1]))
    channels = {}
    for c in reference.columns:
        if c in ("time", "gear") or c not in candidate.columns:
            continue
        x, y = reference[c].to_numpy()[:n], candidate[c].to_numpy()[:n]
        span = float(np.ptp(x))
        scale = span if span > 1e-9 else 1.0
        channels[c] = {"nrmse": accuracy.nrmse(x, y),
                       "nrmse_outside_shift_windows": float(np.sqrt(np.mean((x[outside] - y[outside]) ** 2))) / scale}
    worst = max(channels, key=lambda c: channels[c]["nrmse"])
    return {"shifts_reference": shifts_ref.tolist(), "shifts_candidate": shifts_cand.tolist(),
            "worst_channel": worst, **channels[worst], "channels": channels}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidates", nargs="+", type=parse_candidate,
                        help="INTEGRATOR:STEP[=FMU]: FMU (of that integrator) instead of this tree's build")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "rtm_event_diagnosis.json")
    args = parser.parse_args(argv)

    from fmu_build.build import build_fmu
    from pybridge.convert import convert_mbm

    def build(integrator: str) -> Path:
        return build_fmu(accuracy.MODEL, backend="native", fmi_type="cs", integrator=integrator,
                         out_dir=REPO_OUT / integrator)

    reference_fmu = build(accuracy.REFERENCE[0])
    params = convert_mbm(accuracy.DATA_SET / "mbm", fmu=reference_fmu)
    reference = traces(reference_fmu, params, accuracy.REFERENCE[1])
    results = []
    for integrator, step, fmu in args.candidates:
        got = traces(fmu or build(integrator), params, step)
        per = {name: split_errors(reference[name], got[name]) for name in reference}
        results.append({"integrator": integrator, "step": step, "fmu": str(fmu or "built from this tree"),
                        "manoeuvres": per})
        print(f"{integrator} at {step * 1e3:g} ms ({fmu or 'this tree'}):")
        for name, m in per.items():
            print(f"    {name:20s} {m['worst_channel']:14s} {m['nrmse']:.2e}, outside the shift windows "
                  f"{m['nrmse_outside_shift_windows']:.2e} ({len(m['shifts_reference'])} shifts)", flush=True)
    write_record(args.out, "RTM14DoF error near the gear shifts vs elsewhere, against RK4 at 0.25 ms",
                 window_s=WINDOW, candidates=results)
    return 0


REPO_OUT = HERE.parent / "out" / "rtm_event_diagnosis"

if __name__ == "__main__":
    sys.exit(main())
