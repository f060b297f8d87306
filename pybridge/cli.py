"""pybridge: command line of the MBM-to-RTM bridge."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _examples(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from pybridge.examples import example_names, run_example, save_run

    names = example_names()
    if args.names:
        unknown = [n for n in args.names if not any(full.endswith("." + n) or full == n for full in names)]
        if unknown:
            print(f"pybridge: error: unknown example(s) {', '.join(unknown)}; available: "
                  f"{', '.join(n.rsplit('.', 1)[-1] for n in names)}", file=sys.stderr)
            return 2
        names = [full for full in names if any(full.endswith("." + n) or full == n for n in args.names)]
    failures = 0
    rows = []
    for name in tqdm(names, desc="examples", unit="run"):
        try:
            run = run_example(name)
        except Exception as error:  # one failing example must not stop the others
            failures += 1
            rows.append(f"FAIL {name}: {str(error).splitlines()[0]}")
            continue
        csv_path, png_path = save_run(run, Path(args.out))
        rows.append(f"ok   {name}: {len(run.time)} samples, {run.wall_time:.1f} s -> {csv_path}"
                    + (f", {png_path}" if png_path else ""))
    print("\n".join(rows))
    return 1 if failures else 0


def _mbm_generate(args: argparse.Namespace) -> int:
    from pybridge.mbm.reference.generate import TESTS, generate

    tests = tuple(args.tests) if args.tests else TESTS
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        print(f"pybridge: error: unknown test(s) {', '.join(unknown)}; available: {', '.join(TESTS)}", file=sys.stderr)
        return 2
    manifest = generate(args.vehicle, Path(args.out), tests=tests, workers=args.workers, progress=not args.quiet)
    for name, entry in manifest["traces"].items():
        print(f"{name:24s} {entry['simulated']:6.1f} s simulated in {entry['wall_time']:6.1f} s wall -> {entry['file']}")
    print(f"manifest: {Path(args.out) / 'manifest.yaml'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="pybridge",
        description="Bridge from a multibody vehicle model (MBM) to the real-time model (RTM).",
        epilog="Example: pybridge examples StepSteer --out out/examples",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_ex = sub.add_parser("examples", help="simulate the Modelica Examples harnesses with rumoca; write CSV and PNG")
    p_ex.add_argument("names", nargs="*", help="example names (e.g. StepSteer); default: all")
    p_ex.add_argument("--out", default="out/examples", help="output folder (default: out/examples)")
    p_ex.set_defaults(func=_examples)
    p_mbm = sub.add_parser("mbm", help="the reference multibody vehicle (virtual MBM on Exudyn)")
    mbm_sub = p_mbm.add_subparsers(dest="mbm_command", required=True)
    p_gen = mbm_sub.add_parser(
        "generate", help="regenerate the MBM data set: K&C results, property files, masses, manoeuvre traces",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n  pybridge mbm generate --vehicle lcv35 -o scenarios/mbm/lcv35\n"
               "  pybridge mbm generate -o /tmp/mbm ramp_steer step_steer   (the step steer needs the ramp steer)")
    p_gen.add_argument("tests", nargs="*", help="tests to run (default: all)")
    p_gen.add_argument("--vehicle", default="lcv35", help="vehicle name or data-file path (default: lcv35)")
    p_gen.add_argument("-o", "--out", required=True, help="output folder (created)")
    p_gen.add_argument("--workers", type=int, default=2, help="parallel worker processes (default: 2)")
    p_gen.add_argument("--quiet", action="store_true", help="no progress bar")
    p_gen.set_defaults(func=_mbm_generate)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
