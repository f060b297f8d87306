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


def _convert(args: argparse.Namespace) -> int:
    from pybridge.convert import convert_mbm

    try:
        params = convert_mbm(args.mbm_dir, model=args.model, fmu=args.fmu)
        path = params.write(args.out)
    except (ValueError, OSError) as error:   # ConversionError and the readers' errors name file and place
        print(f"pybridge convert: error: {error}", file=sys.stderr)
        return 2
    print(f"{len(params.scalars)} scalars, {len(params.tables)} tables, {len(params.uncertain)} uncertain "
          f"(nominal ±20 %) -> {path}")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    import tempfile
    import time

    from fmu_build import BuildError, build_fmu
    from pybridge.manoeuvres import ManifestReferences, plot_trace, run_scenario
    from pybridge.parameters import read_parameter_set
    from pybridge.scenarios import load_scenario
    from pybridge.traces import write_trace

    try:
        scenario = load_scenario(args.scenario)
        params = read_parameter_set(args.params) if args.params else None
        resolve = ManifestReferences(args.references) if scenario.references() else None
        with tempfile.TemporaryDirectory(prefix="simulate-") as folder:
            fmu = Path(args.fmu) if args.fmu else build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native",
                                                            fmi_type="cs", out_dir=folder)
            start = time.perf_counter()
            trace = run_scenario(fmu, scenario, params, resolve)
            wall = time.perf_counter() - start
        end = trace.attrs["stopped_at"]
        path = write_trace(trace, args.out, {
            "manoeuvre": scenario.name, "source": f"RTM FMU {args.fmu or 'VehicleRTM.Vehicles.RTM14DoF (native)'}",
            "params": args.params or "FMU defaults", "step": f"{1 / scenario.sample_rate:g} s",
            "end": f"end condition at {end:g} s" if end is not None else "full duration"})
        png = plot_trace(trace, args.plot, f"{scenario.name} on the RTM ({args.params or 'FMU defaults'})") \
            if args.plot else None
    except (ValueError, OSError, RuntimeError, BuildError) as error:  # each names its file and place
        print(f"pybridge simulate: error: {error}", file=sys.stderr)
        return 2
    print(f"{scenario.name}: {trace['time'].iloc[-1]:g} s simulated in {wall:.2f} s wall, {len(trace)} samples -> "
          f"{path}" + (f", {png}" if png else ""))
    return 0


def _identify(args: argparse.Namespace) -> int:
    import yaml

    from pybridge.identify.vehicle import SearchOptions, identify_vehicle
    from pybridge.parameters import ParameterSetError, read_parameter_set

    config = {}
    if args.config:
        try:
            config = yaml.safe_load(Path(args.config).read_text()) or {}
            options = SearchOptions(**config.get("pattern_search", {}))
        except (OSError, yaml.YAMLError, TypeError, ValueError) as error:
            print(f"pybridge: error: {args.config}: {error}", file=sys.stderr)
            return 2
    else:
        options = SearchOptions()
    if args.max_evaluations:
        options.max_evaluations = args.max_evaluations
    try:
        params = read_parameter_set(args.params)
    except ParameterSetError as error:
        print(f"pybridge: error: {error}", file=sys.stderr)
        return 2
    fmu = args.fmu
    if fmu is None:
        from fmu_build import build_fmu
        fmu = build_fmu(params.model, out_dir="out/fmu", fmi_type="cs")
    result = identify_vehicle(params, args.reference, fmu, args.out, options=options,
                              objective_file=config.get("objective", args.objective), workers=args.workers,
                              address=args.scheduler, resume=args.resume, progress=not args.quiet)
    summary = result.extra["summary"]
    print(f"fitness {summary['nominal']['fitness']:.4g} (nominal) -> {summary['optimized']['fitness']:.4g} "
          f"after {result.evaluations} evaluations ({result.stopped_because}), {summary['wall_time_s']} s")
    for name, p in summary["parameters"].items():
        print(f"  {name:28s} {p['nominal']:12.5g} -> {p['optimized']:12.5g} ({p['change_percent']:+.1f} %)")
    print(f"run folder: {args.out}")
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
    p_conv = sub.add_parser(
        "convert", help="convert an MBM data set into an RTM parameter set (LCV paper Eq. 1-7)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Example:\n  pybridge convert scenarios/mbm/lcv35/mbm -o out/params/lcv35\n"
               "  (writes out/params/lcv35/params.yaml and its tables/*.csv; every value's origin is in the YAML)")
    p_conv.add_argument("mbm_dir", help="MBM data set: kc/*.csv, masses.csv, driveline.yaml, mbm_summary.yaml, "
                                        "property files, one .tir")
    p_conv.add_argument("-o", "--out", required=True, help="parameter set directory (created)")
    p_conv.add_argument("--model", default="VehicleRTM.Vehicles.RTM14DoF",
                        help="RTM class whose FMU grids the tables fill (default: VehicleRTM.Vehicles.RTM14DoF)")
    p_conv.add_argument("--fmu", default=None, help="an FMU of the model to take the grid sizes from "
                                                     "(default: build it with fmu_build, cached)")
    p_conv.set_defaults(func=_convert)
    p_sim = sub.add_parser(
        "simulate", help="run a full-vehicle scenario on the RTM FMU; write the trace (CSV) and a plot",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Example:\n  pybridge simulate --params out/params/lcv35 --scenario step_steer -o out/rtm/step_steer.csv "
               "--plot out/rtm/step_steer.png\n  (the step steer's amplitude comes from --references, "
               "default scenarios/mbm/lcv35/manifest.yaml)")
    p_sim.add_argument("--scenario", required=True, help="scenario file, or the name of a shipped one (e.g. ramp_steer)")
    p_sim.add_argument("--params", default=None, help="RTM parameter set directory (default: the FMU's own values)")
    p_sim.add_argument("--fmu", default=None, help="RTM14DoF Co-Simulation FMU (default: build the native one, cached)")
    p_sim.add_argument("--references", default=str(Path(__file__).resolve().parent.parent / "scenarios" / "mbm"
                                                   / "lcv35" / "manifest.yaml"),
                       help="data-set manifest with the scenario's references (default: the shipped lcv35 one)")
    p_sim.add_argument("-o", "--out", required=True, help="trace file to write (.csv or .csv.gz)")
    p_sim.add_argument("--plot", default=None, help="PNG of the main channels to write")
    p_sim.set_defaults(func=_simulate)
    p_id = sub.add_parser(
        "identify", help="identify the uncertain parameters against MBM traces (pattern search, LCV paper)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
               "  pybridge convert scenarios/mbm/lcv35/mbm -o out/params\n"
               "  pybridge identify --params out/params --reference scenarios/mbm/lcv35 -o out/run --workers 2\n"
               "  pybridge identify ... -o out/run --resume      (continue a killed run from its record)\n"
               "Config file (YAML): objective: PATH; pattern_search: {poll: gps2n|gpsnp1|mads, initial_mesh: 0.25,\n"
               "  min_mesh: 1e-3, max_evaluations: 200, max_time: null, complete_poll: false, search: null, seed: 0}")
    p_id.add_argument("--params", required=True, help="parameter set folder (pybridge convert) with uncertain parameters")
    p_id.add_argument("--reference", required=True, help="MBM data set folder with traces/ and manifest.yaml")
    p_id.add_argument("--config", help="identification config (YAML), see below")
    p_id.add_argument("--objective", default=str(Path(__file__).resolve().parent.parent / "scenarios" / "objective.yaml"),
                      help="objective weights/TP/PF (YAML; default: scenarios/objective.yaml)")
    p_id.add_argument("--fmu", help="RTM co-simulation FMU (default: build the native one)")
    p_id.add_argument("-o", "--out", required=True, help="run folder (created)")
    p_id.add_argument("--workers", type=int, default=2, help="parallel evaluations (default: 2)")
    p_id.add_argument("--scheduler", help="Dask scheduler address instead of local processes")
    p_id.add_argument("--max-evaluations", type=int, help="evaluation budget (overrides the config)")
    p_id.add_argument("--resume", action="store_true", help="continue the run recorded in the run folder")
    p_id.add_argument("--quiet", action="store_true", help="no progress bar")
    p_id.set_defaults(func=_identify)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
