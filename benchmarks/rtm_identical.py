"""Do two RTM14DoF Co-Simulation FMUs give bit for bit the same outputs on every shipped manoeuvre?

The check of a generator change that must not change a single result (e.g. a value computed once instead
of three times): every output channel of every shipped full-vehicle manoeuvre (rtm_accuracy.py's list,
the converted van, 1 ms internal step) from a reference FMU (e.g. main's build) and a candidate, each
pair run three ways: run_scenario's default runner, its fmpy runner, and a rig's order with a new input
at every 1 ms step (rtm_accuracy.run_rig_order). Per manoeuvre the largest absolute difference (NaN
positions must match too) and both fitness values; the verdict is max |difference| exactly 0 everywhere.

    .venv/bin/python benchmarks/rtm_identical.py LABEL=MAIN.fmu,THIS.fmu [LABEL=...] [--out FILE]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import rtm_accuracy  # noqa: E402
from machine import write_record  # noqa: E402

STEP = 1e-3
RUNNERS = {"default": (None, None), "fmpy": ("fmpy", None), "rig, inputs every 1 ms": ("rig", STEP)}


def parse_pair(text: str) -> tuple[str, Path, Path]:
    """LABEL=REFERENCE.fmu,CANDIDATE.fmu; an argparse type, so a bad one is a usage error naming it."""
    label, _, files = text.partition("=")
    paths = [Path(p) for p in files.split(",")]
    if not label or len(paths) != 2:
        raise argparse.ArgumentTypeError(f"{text!r}: expected LABEL=REFERENCE.fmu,CANDIDATE.fmu")
    for path in paths:
        if not path.is_file():
            raise argparse.ArgumentTypeError(f"{text}: {path}: no such FMU file")
    return label, paths[0], paths[1]


def differences(reference: dict, candidate: dict) -> dict:
    """Per manoeuvre: channels, samples, the largest absolute difference and whether the NaNs coincide."""
    out = {}
    for name, ref in reference.items():
        got = candidate[name]
        if list(ref.columns) != list(got.columns) or len(ref) != len(got):
            out[name] = {"same_shape": False}
            continue
        a, b = ref.to_numpy(float), got.to_numpy(float)
        nan_equal = bool((np.isnan(a) == np.isnan(b)).all())
        out[name] = {"same_shape": True, "channels": a.shape[1], "samples": a.shape[0], "nan_positions_equal": nan_equal,
                     "max_abs_difference": float(np.nanmax(np.abs(a - b))) if nan_equal else float("nan")}
    return out


def identical(result: dict) -> bool:
    return all(m.get("same_shape") and m["nan_positions_equal"] and m["max_abs_difference"] == 0.0
               for m in result["manoeuvres"].values()) and result["fitness_reference"] == result["fitness_candidate"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", type=parse_pair, help="LABEL=REFERENCE.fmu,CANDIDATE.fmu")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "rtm_identical.json")
    args = parser.parse_args(argv)

    from pybridge.convert import convert_mbm

    load_before = os.getloadavg()
    results, verdict = {}, True
    for label, reference, candidate in args.pairs:
        params = convert_mbm(rtm_accuracy.DATA_SET / "mbm", fmu=reference)
        for runner, (name, communication) in RUNNERS.items():
            ref, fit_ref, _ = rtm_accuracy.run_all(reference, params, STEP, communication, name)
            got, fit_got, _ = rtm_accuracy.run_all(candidate, params, STEP, communication, name)
            result = {"reference": str(reference), "candidate": str(candidate), "fitness_reference": fit_ref,
                      "fitness_candidate": fit_got, "manoeuvres": differences(ref, got)}
            result["bit_identical"] = identical(result)
            verdict &= result["bit_identical"]
            results[f"{label} | {runner}"] = result
            worst = max((m.get("max_abs_difference", float("inf")) for m in result["manoeuvres"].values()))
            print(f"{label} | {runner}: {len(result['manoeuvres'])} manoeuvres, largest |difference| {worst:g}, "
                  f"fitness {fit_ref!r} / {fit_got!r}: {'bit-identical' if result['bit_identical'] else 'DIFFERENT'}",
                  flush=True)
    write_record(args.out, "RTM14DoF FMUs compared bit for bit, every shipped full-vehicle manoeuvre",
                 load_average_before_after=[load_before, os.getloadavg()], internal_step=STEP,
                 bit_identical=verdict, pairs=results)
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
