"""pybridge: command line of the MBM-to-RTM bridge.

Every command takes ``--config FILE`` (YAML; its keys are the command's long flags, and for demo and
identify also the preset sections), ``--quiet`` and ``--debug``. Flags on the command line win over
the config file, which wins over the preset.
"""
from __future__ import annotations

import argparse
import sys
import traceback
import warnings
from pathlib import Path

from pybridge import flags

REPO_DIR = Path(__file__).resolve().parent.parent
SHIPPED_SET = REPO_DIR / "scenarios" / "mbm" / "lcv35"
DEFAULT_OBJECTIVE = REPO_DIR / "scenarios" / "objective.yaml"

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_RUNTIME, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CODES = """Exit codes:
  0    success
  1    the command ran but some of its jobs failed (e.g. an example that did not simulate)
  2    bad input: command line, config file, data file (the message names the file and the place)
  3    run-time failure: FMU build, simulation or an internal error (--debug shows the traceback)
  130  interrupted (Ctrl-C); a run folder keeps what was written (identify/demo: --resume)
A command that writes a run folder (demo, identify, compare, convert, report, mbm generate) holds it locked
(RUN/.pybridge.lock) while it runs: a second one on the same folder exits 2 naming the holder.
Resource limits (raise with the environment variable named in the message): YAML alias expansion
PYBRIDGE_YAML_ALIAS_NODES, scenario samples PYBRIDGE_MAX_SAMPLES, trace size PYBRIDGE_MAX_TRACE_BYTES,
FMU archive entry / total FMU_BUILD_MAX_ENTRY_BYTES / FMU_BUILD_MAX_TOTAL_BYTES, SSP archive entry / total
PYBRIDGE_MAX_SSP_ENTRY_BYTES / PYBRIDGE_MAX_SSP_TOTAL_BYTES, co-simulation values PYBRIDGE_MAX_COSIM_VALUES.
Numeric flags have upper bounds too (pybridge.flags), named when exceeded."""


def _say(args, text: str) -> None:
    if not args.quiet:
        print(text, flush=True)   # a pipe (tee, a CI log, a test) sees each step as it starts


def _examples(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from fmu_build.examples import example_names, run_example, save_run, user_classes
    from fmu_build.modelica import use_modelica_path

    use_modelica_path(args.modelica_path)
    names = example_names()
    if args.names:
        names += user_classes([n for n in args.names if "." in n and n not in names])
        unknown = [n for n in args.names if not any(full.endswith("." + n) or full == n for full in names)]
        if unknown:
            raise ValueError(f"unknown example(s) {', '.join(unknown)}; available: "
                             f"{', '.join(n.rsplit('.', 1)[-1] for n in names)}")
        names = [full for full in names if any(full.endswith("." + n) or full == n for n in args.names)]
    failures = 0
    rows = []
    for name in tqdm(names, desc="examples", unit="run", disable=args.quiet):
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
    return EXIT_FAILED if failures else EXIT_OK


def _mbm_import(args: argparse.Namespace) -> int:
    from pybridge.mbm.channel_map import ChannelMap, load_channel_map
    from pybridge.mbm.importer import import_results

    channel_map = ChannelMap.default()
    if args.map:
        channel_map = channel_map.overlaid(load_channel_map(args.map))
    report = import_results(args.results_dir, args.out, channel_map)
    _say(args, f"K&C tests: {', '.join(report.kc) or 'none'}\ntraces: {', '.join(report.traces) or 'none'}")
    for line in report.ignored:
        _say(args, f"not recognised (no K&C test or manoeuvre by its name): {line}")
    for kind, names in report.absent_everywhere().items():
        _say(args, f"{kind} channels of the map found in no file: {', '.join(names)}")
    _say(args, f"data set: {report.dataset} (manifest.yaml records every source file)")
    return EXIT_OK


def _mbm_show(args: argparse.Namespace) -> int:
    from pybridge.mbm.xrf import read_xrf
    from pybridge.mbm.xrf_show import describe, plot

    results = read_xrf(args.file, [*args.plot, "time.TIME"] if args.plot else ())
    print(describe(results))
    if args.plot:
        _say(args, f"plot: {plot(results, args.plot, args.out or Path(args.file).with_suffix('.png'))}")
    return EXIT_OK


def _mbm_generate(args: argparse.Namespace) -> int:
    from pybridge.reference import require_exudyn

    require_exudyn()
    from pybridge.reference.generate import COMPRESS_ABOVE, TESTS, generate

    tests = tuple(args.tests) if args.tests else TESTS
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        raise ValueError(f"unknown test(s) {', '.join(unknown)}; available: {', '.join(TESTS)}")
    manifest = generate(args.vehicle, Path(args.out), tests=tests, workers=args.workers, progress=not args.quiet,
                        compress_above=0 if args.gzip else COMPRESS_ABOVE)
    for name, entry in manifest["traces"].items():
        _say(args, f"{name:24s} {entry['simulated']:6.1f} s simulated in {entry['wall_time']:6.1f} s wall "
                   f"-> {entry['file']}")
    print(f"manifest: {Path(args.out) / 'manifest.yaml'}")
    return EXIT_OK


def _convert(args: argparse.Namespace) -> int:
    from pybridge.convert import convert_mbm
    from pybridge.convert_variant import parse_override

    variant = parse_override(args.variant) if args.variant else None
    params = convert_mbm(args.mbm_dir, model=args.model, fmu=args.fmu, extra_uncertain=tuple(args.uncertain or ()),
                         variant=variant)
    _say(args, params.metadata["variant"]["summary"])
    path = params.write(args.out)
    print(f"{len(params.scalars)} scalars, {len(params.tables)} tables, {len(params.uncertain)} uncertain -> {path}")
    for name, (nominal, low, high) in params.uncertain.items():
        _say(args, f"  uncertain {name:26s} {nominal:10.4g} in [{low:.4g}, {high:.4g}]: {params.reasons.get(name, '')}")
    for name, entry in params.metadata.get("derived", {}).items():
        value = "-" if entry["value"] is None else f"{entry['value']:.4f} {entry['unit']}"
        _say(args, f"  {name:36s} {value}  ({entry['origin']})")
    if "lateral_only" in params.metadata:
        print(f"lateral manoeuvres only: {params.metadata['lateral_only']}")
    return EXIT_OK


def _simulate(args: argparse.Namespace) -> int:
    import tempfile
    import time

    from fmu_build import build_fmu
    from pybridge.simulate.manoeuvres import ManifestReferences, plot_trace, run_scenario
    from pybridge.parameters import read_parameter_set
    from pybridge.simulate.scenarios import load_scenario
    from pybridge.traces import write_trace

    scenario = load_scenario(args.scenario)
    if args.replay:  # the inputs a reference trace or log recorded (pybridge.simulate.recorded)
        from pybridge.simulate.recorded import recorded_inputs
        from pybridge.traces import read_trace

        scenario = recorded_inputs(scenario, read_trace(args.replay)[0], source=args.replay)
    params = read_parameter_set(args.params) if args.params else None
    if params is not None:
        from pybridge.plausibility import check_parameter_set

        check_parameter_set(params)
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
    print(f"{scenario.name}: {trace['time'].iloc[-1]:g} s simulated in {wall:.2f} s wall, {len(trace)} samples -> "
          f"{path}" + (f", {png}" if png else ""))
    return EXIT_OK


def _replay(args: argparse.Namespace) -> int:
    import tempfile

    from fmu_build import build_fmu
    from pybridge.mbm.channel_map import load_channel_map
    from pybridge.onboard.replay import replay, write_replay
    from pybridge.parameters import read_parameter_set

    params = read_parameter_set(args.params) if args.params else None
    channel_map = load_channel_map(args.map) if args.map else None
    with tempfile.TemporaryDirectory(prefix="replay-") as folder:
        fmu = Path(args.fmu) if args.fmu else build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native",
                                                        fmi_type="cs", out_dir=folder)
        result = replay(args.log, fmu, params, channel_map=channel_map, rate=args.rate)
    write_replay(result, args.out, args.params or "FMU defaults")
    _say(args, f"inputs ({result.inputs.mode}): " + ", ".join(f"{k} <- {v}" for k, v in result.inputs.sources.items()))
    errors = ", ".join(f"{c} {v:.2f} %" for c, v in result.indices.items())
    errors = errors or "none (no channel in common)"
    print(f"replay of {args.log}: {result.rtm['time'].iloc[-1]:g} s; index errors: {errors} -> "
          f"{Path(args.out) / 'replay.yaml'}")
    return EXIT_OK


def _compare(args: argparse.Namespace) -> int:
    from pybridge.compare_command import format_table, run_compare

    comparison, figures = run_compare(args.params, args.reference, args.out, fmu=args.fmu,
                                      manoeuvres=args.manoeuvres, objective_file=args.objective,
                                      workers=args.workers, progress=not args.quiet)
    print(format_table(comparison))
    print(f"comparison: {Path(args.out) / 'comparison.yaml'}; figures: {', '.join(p.name for p in figures)}")
    failed = {m: e["failed"] for m, e in comparison["manoeuvres"].items() if e["failed"]}
    return EXIT_FAILED if failed else EXIT_OK


def _export(args: argparse.Namespace) -> int:
    import copy
    import tempfile

    from fmu_build import build_fmu
    from pybridge.rig.export import ExportError, export_fmu
    from pybridge.rig.export_build import SourceBuild, describe_build, identification_build
    from pybridge.rig.export_system import system_from_flags
    from pybridge.parameters import read_parameter_set
    from pybridge.rig.ssp import Component, write_ssp

    if not args.out and not args.ssp:
        args.parser.error("give -o/--out (an FMU), --ssp (an SSP archive) or both")
    for target in (args.out, args.ssp):
        if target and Path(target).is_dir():
            raise IsADirectoryError(f"{target}: is a folder; expected the path of a file to write")
    params = read_parameter_set(args.params)
    vehicle = Component("vehicle", Path(), copy.deepcopy(params))
    components, connections = system_from_flags(vehicle, args.component, args.set, args.connect) if args.ssp \
        else ({}, [])
    chosen = SourceBuild(Path(args.fmu), None, "given by --fmu") if args.fmu else identification_build(args.params)
    with tempfile.TemporaryDirectory(prefix="export-") as folder:
        source = chosen.fmu or build_fmu(params.model, backend="native", fmi_type="cs", out_dir=folder)
        vehicle.fmu = Path(args.out) if args.out else Path(folder) / "vehicle.fmu"
        build = f"build {describe_build(source, chosen.step)}: {chosen.reason}"
        try:
            export_fmu(params, source, vehicle.fmu, params_path=args.params, internal_step=chosen.step,
                       build_reason=chosen.reason)
            if args.out:
                print(f"{args.out}: {params.model} with {len(params.scalars)} scalars and {len(params.tables)} "
                      f"tables of {args.params} as start values; {build}")
        except ExportError:
            if args.out:
                raise
            vehicle.fmu = source   # an FMU that cannot be baked goes into the SSP as it is: the .ssv carries the set
            print(f"{source}: not a native FMU; the SSP holds it unchanged and the set as its .ssv ({build})")
        if not args.ssp:
            return EXIT_OK
        path = write_ssp(args.ssp, list(components.values()), connections, name=Path(args.ssp).stem,
                         stop_time=args.stop, step=args.step)
        print(f"{path}: SSP 1.0 with {len(components)} component(s), {len(connections)} connection(s) "
              "(valid against the SSP 1.0 schemas; one writer per input, units matched)")
    return EXIT_OK


def _ssv(args: argparse.Namespace) -> int:
    from pybridge.rig.ssp import read_ssv

    params = read_ssv(args.ssv)
    path = params.write(args.out)
    print(f"{args.ssv}: {len(params.scalars)} scalars, {len(params.tables)} tables of {params.model} -> {path}")
    return EXIT_OK


def _cosim(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from pybridge.rig.cosim import cosimulate
    from pybridge.traces import write_trace

    bars, shown = [], [0.0]

    def progress(t):   # the bar appears once the system has loaded and stepped
        if not bars:
            bars.append(tqdm(total=args.stop, unit="s", disable=args.quiet, desc="cosim",
                             bar_format="{l_bar}{bar}| {n:.1f}/{total} s"))
        if t - shown[0] >= args.stop / 100 or t >= args.stop:
            bars[0].update(t - shown[0])
            shown[0] = t
    result = cosimulate(args.system, args.stop, args.step, real_time=args.real_time, progress=progress,
                        log_level=args.log_level)
    for bar in bars:
        bar.close()
    end = float(result.trace["time"].iloc[-1])
    line = (f"{args.system}: {end:g} s simulated in {result.wall_time:.2f} s wall (real-time factor "
            f"{result.real_time_factor:.2f}), {len(result.trace.columns) - 1} channels")
    if args.real_time:
        line += f"; paced to the wall clock: {result.overruns} overrun(s), largest lag {result.max_lag * 1e3:.2f} ms"
    if args.out:
        write_trace(result.trace, args.out, {"system": str(args.system), "source": "libcosim (pybridge cosim)",
                                             "step": f"{result.step:g} s"}, units=result.units)
        line += f" -> {args.out}"
    if args.report:
        from pybridge.report.cosim import write_cosim_report

        line += f"; report: {write_cosim_report(result, args.system, args.report)}"
    print(line)
    return EXIT_FAILED if args.real_time and result.overruns else EXIT_OK


def _rt_check(args: argparse.Namespace) -> int:
    import json

    from pybridge.rig.rtcheck import format_report, plot_report, rt_check

    check = rt_check(args.fmu, args.scenario, args.step, args.duration, args.runs, args.references, args.budget,
                     args.cpu, args.mlock)
    print(format_report(check.report))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(check.report, indent=2) + "\n")
        print(f"report -> {args.json}")
    if args.plot:
        print(f"plot -> {plot_report(check.report, check.wall, check.cpu, args.plot)}")
    return EXIT_OK if check.fits else EXIT_FAILED


def _observe(args: argparse.Namespace) -> int:
    import tempfile

    from fmu_build import build_fmu
    from pybridge.onboard.observe import observe

    with tempfile.TemporaryDirectory(prefix="observe-") as folder:
        fmu = Path(args.fmu) if args.fmu else build_fmu("VehicleRTM.Vehicles.RTM14DoF", backend="native",
                                                        fmi_type="me_cs", out_dir=folder)
        summary = observe(args.log, args.params, args.out, fmu)
    cost, errors = summary["cost_per_update_us"], summary["errors"]
    line = f"{summary['samples']} samples; {cost['median']:.0f} us thread CPU per update (median)"
    if "sideslip_rms_error_deg" in errors:
        line += (f"; sideslip RMS error {errors['sideslip_rms_error_deg']:.3f} deg (bicycle KF "
                 f"{errors['sideslip_bicycle_kf_rms_error_deg']:.3f}, "
                 f"kinematic {errors['sideslip_kinematic_rms_error_deg']:.3f})")
    print(f"{line} -> {args.out}")
    return EXIT_OK


def _settings(args: argparse.Namespace) -> dict:
    """The preset's settings with the config file's sections and the flags merged in."""
    from pybridge.config import settings

    result = settings(args.preset or "standard", args.config_sections, args.config or "<command line>")
    if args.workers is not None:
        result["workers"] = args.workers
    if args.max_evaluations is not None:
        result["pattern_search"]["max_evaluations"] = args.max_evaluations
    if getattr(args, "method", None) is not None:
        result["pattern_search"]["method"] = args.method
    if getattr(args, "sensitivity_samples", None) is not None:
        result["sensitivity"]["samples"] = args.sensitivity_samples
    return result


def _settings_source(args: argparse.Namespace) -> str:
    """Where the optimizer settings came from, for an error message: the flags given, the config file."""
    flags = [flag for flag, dest in (("--max-evaluations", "max_evaluations"), ("--method", "method"))
             if getattr(args, dest, None) is not None]
    return " or ".join(flags + [args.config or f"the preset '{args.preset or 'standard'}'"])


def _write_config(args: argparse.Namespace, settings: dict) -> int:
    import yaml

    from pybridge.config import PRESET_FORMAT

    text = (f"# pybridge {args.command} settings: preset '{args.preset or 'standard'}'"
            + (f" + {args.config}" if args.config else "") + " + flags. Edit and pass with --config.\n"
            + yaml.safe_dump({"format": PRESET_FORMAT, **settings}, sort_keys=False))
    Path(args.write_config).write_text(text)
    print(f"settings -> {args.write_config}")
    return EXIT_OK


def _print_determined(section: dict) -> None:
    """What the data determine (result.yaml's identifiability), one line per parameter and flag."""
    if "error" in section:
        print(f"identifiability: {section['error']}")
        return
    print(f"what the data determine (95 % intervals, {section['evaluations']} evaluations, condition number "
          f"{section['condition_number']}):")
    for name, p in section["parameters"].items():
        low, high = ("-inf" if p["lower_95"] is None else f"{p['lower_95']:.5g}",
                     "inf" if p["upper_95"] is None else f"{p['upper_95']:.5g}")
        print(f"  {name:28s} {p['value']:12.5g}  [{low}, {high}]")
        for flag in p["flags"]:
            print(f"    {flag['flag']}: {flag['reason']}")
    counts = section["within_tp"]
    print(f"objective indices within TP: {counts['nominal']}/{counts['of']} -> {counts['optimized']}/{counts['of']}"
          + (f"; worse: {', '.join(counts['worse'])}" if counts["worse"] else ""))


def _analyse(args: argparse.Namespace, settings: dict) -> int:
    """pybridge identify --analyse RUN [--posterior]: what the data determine at a finished run's optimum."""
    from pybridge.identify.executor import make_executor
    from pybridge.identify.run_analysis import analyse_run, posterior_run
    from pybridge.runlock import run_folder_lock

    with run_folder_lock(args.analyse, "pybridge identify --analyse"), \
            make_executor(workers=settings["workers"], address=args.scheduler) as executor:
        analyse_run(args.analyse, executor=executor)
        if args.posterior:
            posterior_run(args.analyse, executor=executor, steps=args.posterior_steps, progress=not args.quiet)
    _print_posterior_and_determined(args.analyse)
    return EXIT_OK


def _print_posterior_and_determined(run: str) -> None:
    from pybridge.fileio import read_yaml

    summary = read_yaml(Path(run) / "result.yaml")
    _print_determined(summary.get("identifiability", {"error": "not analysed"}))
    posterior = summary.get("posterior")
    if posterior:
        print(f"posterior (emcee): {posterior['evaluations']} evaluations, {posterior['minutes']} min; "
              f"{posterior['convergence']}")
        for name, p in posterior["parameters"].items():
            print(f"  {name:28s} median {p['median']:.5g}  [{p['lower_95']:.5g}, {p['upper_95']:.5g}]")


def _identify(args: argparse.Namespace) -> int:
    from pybridge.identify.vehicle import SearchOptions, check_stage_coverage, identify_vehicle
    from pybridge.parameters import read_parameter_set

    settings = _settings(args)
    if args.write_config:
        return _write_config(args, settings)
    if args.analyse:
        return _analyse(args, settings)
    _require(args, "params", "reference", "out")
    options = SearchOptions.from_settings(settings["pattern_search"], _settings_source(args))
    params = read_parameter_set(args.params)
    stages = None
    if args.stages:
        from pybridge.identify.staged import load_stages
        stages = load_stages(args.stages, parameters=params.uncertain)
        check_stage_coverage(stages, Path(args.reference), params, source=args.stages)
    fmu = args.fmu
    if fmu is None:
        from fmu_build import build_fmu
        from pybridge.identify.problem import IDENTIFICATION_INTEGRATOR
        fmu = build_fmu(params.model, out_dir=Path(args.out), fmi_type="cs", integrator=IDENTIFICATION_INTEGRATOR)
    result = identify_vehicle(params, args.reference, fmu, args.out, options=options, objective_file=args.objective,
                              workers=settings["workers"], address=args.scheduler, resume=args.resume,
                              progress=not args.quiet, stages=stages)
    summary = result.extra["summary"]
    for name, reason in summary["skipped"].items():
        print(f"skipped {name}: {reason}")
    step = summary["identification_step"]
    size = "of the FMU" if step["step_s"] is None else f"{1e3 * step['step_s']:g} ms"
    _say(args, f"internal step {size}: {step['reason']}")
    print(f"fitness {summary['nominal']['fitness']:.4g} (nominal) -> {summary['optimized']['fitness']:.4g} "
          f"after {result.evaluations} evaluations ({result.stopped_because}), {summary['wall_time_s']} s")
    for name, p in summary["parameters"].items():
        percent = "nominal 0" if p["change_percent"] is None else f"{p['change_percent']:+.1f} %"
        print(f"  {name:28s} {p['nominal']:12.5g} -> {p['optimized']:12.5g} ({percent}, change {p['change']:+.4g})")
    if args.posterior:
        from pybridge.identify.executor import make_executor
        from pybridge.identify.run_analysis import posterior_run
        with make_executor(workers=settings["workers"], address=args.scheduler) as executor:
            posterior_run(args.out, executor=executor, steps=args.posterior_steps, progress=not args.quiet)
    _print_posterior_and_determined(args.out)
    print(f"run folder: {args.out}  (report: pybridge report {args.out})")
    return EXIT_OK


def _identify_corner(args: argparse.Namespace) -> int:
    from pybridge.identify.corner import identify_corner

    summary = identify_corner(args.reference, args.corner, args.out, method=args.method, fmu=args.fmu,
                              max_evaluations=args.max_evaluations, duration=args.duration,
                              workers=args.workers, resume=args.resume, progress=not args.quiet)
    nrmse, fitness = summary["wheel_travel_nrmse_percent"], summary["fitness"]
    print(f"{args.corner} by {args.method}: Eq. 6 fitness {fitness['start']:.4g} (start) -> {fitness['identified']:.4g}, "
          f"wheel-travel NRMSE {nrmse['start']:.2f} % -> {nrmse['identified']:.2f} % after {summary['evaluations']} "
          f"evaluations ({summary['stopped_because']}), {summary['wall_time_s']} s")
    for name, p in summary["parameters"].items():
        print(f"  {name:18s} {p['start']:12.5g} -> {p['identified']:12.5g}")
    print(f"represents: {summary['represents']}")
    print(f"run folder: {args.out}")
    return EXIT_OK


def _four_post(args: argparse.Namespace) -> int:
    from pybridge.four_post import validate_four_post

    summary = validate_four_post(args.front, args.rear, args.reference, args.out, fmu=args.fmu, duration=args.duration)
    for test, variants in summary["tests"].items():
        for variant, result in variants.items():
            cells = ", ".join(f"{k} {v['rmse_percent']:.1f} ({v['rmse_at_rest_percent']:.1f}) %"
                              for k, v in result["indices"].items())
            print(f"{test:16s} {variant:16s} {cells}")
    print("RMSE index % of the MBM range (in brackets: after the MBM's rest offset); TP = 5 %")
    print(f"summary: {Path(args.out) / 'four_post.yaml'}")
    return EXIT_OK


def _demo(args: argparse.Namespace) -> int:
    from pybridge.demo import run_demo

    settings = _settings(args)
    if args.write_config:
        return _write_config(args, settings)
    from pybridge.identify.vehicle import SearchOptions
    SearchOptions.from_settings(settings["pattern_search"], _settings_source(args))  # checked before any step
    named = settings["validation"] if "validation" in args.config_sections else ()
    if args.vehicle:
        from pybridge.demo import shipped_data_set
        args.reference = shipped_data_set(args.vehicle, SHIPPED_SET.parent)
    data = run_demo(args.reference, args.out, settings, workers=settings["workers"], fmu=args.fmu,
                    objective_file=args.objective, resume=args.resume, progress=not args.quiet,
                    log=lambda text: _say(args, text), named=named)
    print(f"demo finished in {data['total_wall_s']:.0f} s; report: {Path(args.out) / 'report' / 'report.html'}")
    return EXIT_OK


def _report(args: argparse.Namespace) -> int:
    from pybridge.report import write_report

    path = write_report(args.run, args.out, workers=args.workers, progress=not args.quiet)
    print(f"report: {path}")
    return EXIT_OK


def _require(args: argparse.Namespace, *dests: str) -> None:
    missing = [d for d in dests if getattr(args, d) is None]
    if missing:
        actions = {a.dest: a for a in args.parser._actions}
        flags = ", ".join("/".join(actions[d].option_strings) or d for d in missing)
        args.parser.error(f"{flags} required (on the command line or as a key of --config)")


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="FILE",
                        help="YAML file of settings: the long flags of this command as keys (flags win)")
    common.add_argument("--quiet", action="store_true", help="no progress bars or step messages")
    common.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    return common


def _optimizer_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", choices=("standard", "expert"),
                   help="settings preset (LCV paper's user modes): standard (default) or expert")
    p.add_argument("--workers", type=flags.workers, help="parallel evaluations (default: the preset's, 2)")
    p.add_argument("--method", choices=("pattern-search", "nomad", "differential-evolution"),
                   help="optimizer (default: the preset's pattern_search.method, nomad). nomad: NOMAD 4 (MADS "
                        "with quadratic models), blocks of --workers points, a median 38 evaluations to the van's "
                        "target against the pattern search's 112 (benchmarks/optimizers.py); pattern-search: the "
                        "project's GPS/MADS (LCV paper), deterministic; both write RUN/record.jsonl, "
                        "resume with --resume and stop at --max-evaluations (distinct points); "
                        "differential-evolution: SciPy's, a generation per executor call (LMS paper), a median 268")
    p.add_argument("--max-evaluations", type=flags.evaluations, help="optimizer budget in evaluations (default: the preset's)")
    p.add_argument("--objective", default=str(DEFAULT_OBJECTIVE),
                   help="objective weights, TP and PF (YAML; default: scenarios/objective.yaml)")
    p.add_argument("--fmu", help="RTM14DoF Co-Simulation FMU (default: build the native one into the run folder, "
                                 "RK4; a native FMU that locates its events runs at a step chosen for the parameter "
                                 "set, at most the validated step of its integrator, RK4 10 ms, Heun 2 ms: "
                                 "pybridge.identify.step_choice)")
    p.add_argument("--resume", action="store_true", help="continue the run recorded in the run folder")
    p.add_argument("--write-config", metavar="FILE",
                   help="write the effective settings (preset + config + flags) to FILE and exit")


def _parser() -> argparse.ArgumentParser:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="pybridge", formatter_class=formatter,
        description="Bridge from a multibody vehicle model (MBM) to the real-time model (RTM): convert the MBM "
                    "data, simulate the RTM FMU, identify its uncertain parameters, report.",
        epilog="Workflow:\n"
               "  pybridge demo                                   everything on the shipped 3.5 t van (~10 min)\n"
               "  pybridge convert MBM_DIR -o PARAMS              MBM data set -> RTM parameter set\n"
               "  pybridge simulate --params PARAMS --scenario step_steer -o trace.csv\n"
               "  pybridge compare --params PARAMS [PARAMS...] --reference SET -o OUT   score sets against the MBM\n"
               "  pybridge identify --params PARAMS --reference SET -o RUN\n"
               "  pybridge identify-corner --corner FL -o RUN     SLEKQ corner vs the MBM corner sweep (homotopy)\n"
               "  pybridge report RUN                             RUN/report/report.html\n"
               "  pybridge export --params SET -o van.fmu --ssp van.ssp   to the HIL rig: FMU + SSP\n"
               "  pybridge cosim SYSTEM.ssp --stop 20 -o traces.csv   closed loop on libcosim\n"
               "  pybridge rt-check van.fmu --duration 20          does it fit a 1 ms HIL task?\n"
               "  fmu-build VehicleRTM.Vehicles.RTM14DoF -o out/fmu   build an FMU (native or OpenModelica)\n"
               "Each command: pybridge COMMAND --help.\n\n" + EXIT_CODES)
    common = _common()
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, help_text, epilog, func, *, required=(), preset=False, parent=sub, run_folder=None):
        """A sub-command; ``run_folder``: the dest of the folder it writes, held locked while it runs."""
        p = parent.add_parser(name, help=help_text, description=help_text, epilog=epilog, parents=[common],
                              formatter_class=formatter)
        p.set_defaults(func=func, parser=p, required=required, preset_sections=preset, run_folder=run_folder)
        return p

    for add in (_add_demo, _add_convert, _add_simulate, _add_replay, _add_compare, _add_export,
                _add_ssv, _add_cosim, _add_rt_check, _add_observe, _add_identify, _add_identify_corner,
                _add_four_post, _add_report, _add_examples):
        add(command)
    _add_mbm(sub, command)
    return parser


def _add_demo(command) -> None:
    """pybridge demo: its sub-parser and flags."""
    p = command("demo", "the main job on an MBM data set: build, convert, compare, sensitivity, identify, "
                        "validate, report",
                "Examples:\n  pybridge demo                                   shipped van, standard preset\n"
                "  pybridge demo --max-evaluations 40 -o out/quick  a quick look\n"
                "  pybridge demo --preset expert --write-config my.yaml   write every setting, edit, then\n"
                "  pybridge demo --config my.yaml -o out/mine\n"
                "  pybridge demo -o out/demo --resume              continue a killed run\n"
                "  pybridge demo --vehicle lcv70 -o out/demo70     the 7 t van's shipped data set\n"
                "The run folder holds the FMU, the parameter sets, the run record and report/report.html.",
                _demo, preset=True, run_folder="out")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--reference", default=str(SHIPPED_SET),
                        help="MBM data set (mbm/, traces/, manifest.yaml; default: the shipped lcv35 van)")
    source.add_argument("--vehicle", help="a shipped data set by name: scenarios/mbm/NAME (lcv35, lcv70)")
    p.add_argument("-o", "--out", default="out/demo", help="run folder (default: out/demo)")
    p.add_argument("--sensitivity-samples", type=flags.samples, help="Morris trajectories (default: the preset's)")
    _optimizer_flags(p)


def _add_convert(command) -> None:
    """pybridge convert: its sub-parser and flags."""
    p = command("convert", "convert an MBM data set into an RTM parameter set (LCV paper Eq. 1-7)",
                "Example:\n  pybridge convert scenarios/mbm/lcv35/mbm -o out/params/lcv35\n"
                "  (writes out/params/lcv35/params.yaml and its tables/*.csv; every value's origin is in the YAML;\n"
                "   the formats are in docs/mbm_formats.md)", _convert, required=("mbm_dir", "out"),
                run_folder="out")
    p.add_argument("mbm_dir", nargs="?", help="MBM data set: kc/*.csv, masses.csv, driveline.yaml, mbm_summary.yaml, "
                                              "property files, one .tir")
    p.add_argument("-o", "--out", help="parameter set directory (created)")
    p.add_argument("--model", help="RTM class whose FMU grids the tables fill (default: the RTM14DoF class of the "
                                   "data set's variant, VehicleRTM.Vehicles.RTM14DoF or one of Vehicles.Variants)")
    p.add_argument("--variant", metavar="KEY=VALUE,...",
                   help="override the variant the data set states: front=quadleaf|quadtor, rear=singleleaf|multileaf, "
                        "rear_tyres_per_wheel=1|2 (default: mbm_summary.yaml suspension, else the data set's files)")
    p.add_argument("--fmu", help="an FMU of the model to take the grid sizes from (default: build it, cached)")
    p.add_argument("--uncertain", action="append", metavar="NAME",
                   help="also identify this scalar (repeatable; e.g. chassis.Ixx). By default only what the MBM data "
                        "do not state is uncertain: split factors, CoG height, engine map gain")


def _add_simulate(command) -> None:
    """pybridge simulate: its sub-parser and flags."""
    p = command("simulate", "run a full-vehicle scenario on the RTM FMU; write the trace (CSV) and a plot",
                "Example:\n  pybridge simulate --params out/params/lcv35 --scenario step_steer -o out/rtm/step_steer.csv "
                "--plot out/rtm/step_steer.png\n  (the step steer's amplitude comes from --references, "
                "default scenarios/mbm/lcv35/manifest.yaml)", _simulate, required=("scenario", "out"))
    p.add_argument("--scenario", help="scenario file, or the name of a shipped one (e.g. ramp_steer)")
    p.add_argument("--params", help="RTM parameter set directory (default: the FMU's own values)")
    p.add_argument("--fmu", help="RTM14DoF Co-Simulation FMU (default: build the native one, cached)")
    p.add_argument("--references", default=str(SHIPPED_SET / "manifest.yaml"),
                   help="data-set manifest with the scenario's references (default: the shipped lcv35 one)")
    p.add_argument("-o", "--out", help="trace file to write (.csv or .csv.gz)")
    p.add_argument("--plot", help="PNG of the main channels to write")
    p.add_argument("--replay", help="reference trace (or a data set's measured log) whose recorded inputs drive the "
                                    "run: the scenario's from_reference inputs and every input the trace carries")


def _add_replay(command) -> None:
    """pybridge replay: its sub-parser and flags."""
    p = command("replay", "drive the RTM with a recorded vehicle log's inputs; compare it with the log",
                "Examples:\n"
                "  pybridge replay scenarios/mbm/lcv35/traces/slalom.csv --params out/params -o out/replay/slalom\n"
                "  pybridge replay drive.mf4 --map drive_map.yaml --params out/demo/params_optimized -o out/replay/drive\n"
                "The RTM runs at 1 ms on the log's inputs (README, 'Run it in parallel with the vehicle', lists the\n"
                "channels): steering_wheel_angle or rack_travel; the rear hub torques wheel_torque_rl/rr (else\n"
                "throttle and the RTM's own engine); brake_pressure through the RTM's brake model (else the brake\n"
                "pedal); speed for the start. Each log channel keeps its rate; the map declares it (rate: 500) and\n"
                "how it reaches the 1 ms step (resample: hold | linear). A trace file of the project's format\n"
                "needs no map; an MDF4 or CSV log takes one (format vehiclertm-map 1, docs/mbm_formats.md).\n"
                "Writes OUT/rtm.csv, measured.csv, difference.csv (rtm - measured), replay.yaml (inputs used,\n"
                "index errors in %) and replay.png.", _replay, required=("log", "out"), run_folder="out")
    p.add_argument("log", nargs="?", help="the log: a trace (.csv, .csv.gz), an MDF4 (.mf4) or a CSV log")
    p.add_argument("--params", help="RTM parameter set directory (default: the FMU's own values)")
    p.add_argument("--map", help="channel map of the log (format vehiclertm-map 1; rate and resample per channel)")
    p.add_argument("--fmu", help="RTM14DoF Co-Simulation FMU (default: build the native one, cached)")
    p.add_argument("--rate", type=flags.rate, default=100.0,
                   help="rate of the RTM's trace in Hz, a whole number of 1 ms steps per sample (default: 100)")
    p.add_argument("-o", "--out", help="run folder to write")


def _add_compare(command) -> None:
    """pybridge compare: its sub-parser and flags."""
    p = command("compare", "simulate parameter sets on the manoeuvres of an MBM data set and score them against it",
                "Examples:\n"
                "  pybridge compare --params out/demo/params_converted out/demo/params_optimized \\\n"
                "      --reference scenarios/mbm/lcv35 -o out/compare\n"
                "  pybridge compare --params mine=out/params --reference MY_SET -o out/cmp --manoeuvres step_steer slalom\n"
                "The demo's comparison step as a command: every set on every manoeuvre the data set offers and the\n"
                "sets can run (others are skipped with the reason), the index errors of the objective's indices\n"
                "(near-zero ones by their absolute rule) printed as a table and written to OUT/comparison.yaml,\n"
                "the traces to OUT/traces/<set>/, figures OUT/index_errors.png and OUT/curves_<manoeuvre>.png.\n"
                "A set is named after its folder, or NAME=FOLDER. Exit status 1 when a simulation failed.",
                _compare, required=("params", "reference", "out"), run_folder="out")
    p.add_argument("--params", nargs="+", metavar="SET", help="parameter set folders, FOLDER or NAME=FOLDER")
    p.add_argument("--reference", help="MBM data set (traces/, manifest.yaml)")
    p.add_argument("-o", "--out", help="output folder (created)")
    p.add_argument("--manoeuvres", nargs="+", metavar="NAME", help="manoeuvres to run (default: all the data set "
                   "offers; a manoeuvre named here and missing is an error)")
    p.add_argument("--objective", default=str(DEFAULT_OBJECTIVE),
                   help="objective weights, TP, near-zero rules (YAML; default: scenarios/objective.yaml)")
    p.add_argument("--fmu", help="RTM14DoF Co-Simulation FMU (default: build the identification's native one, as "
                                 "the demo does, into OUT)")
    p.add_argument("--workers", type=flags.workers, default=2, help="parallel simulations (default: 2)")


def _add_export(command) -> None:
    """pybridge export: its sub-parser and flags."""
    p = command("export", "bake a parameter set into the RTM FMU for a HIL rig; write an SSP 1.0 package",
                "Examples:\n"
                "  pybridge export --params out/demo/params_optimized -o van.fmu       the FMU alone\n"
                "  pybridge export --params out/demo/params_optimized -o van.fmu --ssp van.ssp\n"
                "  pybridge export --params SET --ssp acc.ssp --stop 20 --step 0.001 \\\n"
                "      --component acc=out/fmu/VehicleRTM_ADAS_AdaptiveCruise.fmu --set vehicle.initialSpeed=20 \\\n"
                "      --connect vehicle.speed=acc.speed --connect acc.throttle=vehicle.throttle \\\n"
                "      --connect acc.brakePedal=vehicle.brakePedal                        a closed loop for cosim\n"
                "The FMU's start values and compiled-in defaults are the set (native FMUs: rebuilt from their\n"
                "sources/); its description and VendorAnnotations record the set's path and sha256, the\n"
                "source FMU's GUID and the date. The SSP holds the FMU(s) under resources/, SystemStructure.ssd\n"
                "(component 'vehicle' plus each --component, connectors with units, connections) and every\n"
                "parameter set as resources/<component>.ssv (tables element by element).", _export,
                required=("params",))
    p.add_argument("--params", help="parameter set directory (pybridge convert / identify)")
    p.add_argument("--fmu", help="RTM Co-Simulation FMU to start from (default: the FMU of the identification whose "
                                 "run folder holds --params, at its identification step; else build the native one)")
    p.add_argument("-o", "--out", help="FMU to write, with the set baked in")
    p.add_argument("--ssp", help="SSP archive to write (.ssp)")
    p.add_argument("--component", action="append", metavar="NAME=FMU",
                   help="another FMU in the SSP system, e.g. an ADAS function (repeatable)")
    p.add_argument("--connect", action="append", metavar="A.OUTPUT=B.INPUT",
                   help="a connection of the SSP system, output to input (repeatable); A.OUTPUT=B.INPUT*FACTOR "
                        "converts units (ssc:LinearTransformation): connectors of different units need it")
    p.add_argument("--set", action="append", metavar="COMPONENT.PARAMETER=VALUE",
                   help="a parameter value of a component in the SSP (repeatable; SI units)")
    p.add_argument("--stop", type=flags.simulated, help="stop time of the SSP's default experiment [s]")
    p.add_argument("--step", type=flags.step, default=1e-3,
                   help="co-simulation step in the SSP (libcosim's fixed-step annotation) [s] (default: 0.001)")


def _add_ssv(command) -> None:
    """pybridge ssv: its sub-parser and flags."""
    p = command("ssv", "read an SSP parameter file (.ssv) back into a parameter set",
                "Example:\n  unzip van.ssp resources/vehicle.ssv\n"
                "  pybridge ssv resources/vehicle.ssv -o out/params_from_rig\n"
                "Tables come back from their name[i,j] elements (their shapes from the annotation pybridge\n"
                "writes, or from the largest indices in an SSV written by another SSP tool).", _ssv,
                required=("ssv", "out"))
    p.add_argument("ssv", nargs="?", help="SSV file (ssv:ParameterSet, SSP 1.0)")
    p.add_argument("-o", "--out", help="parameter set directory to write (params.yaml + tables/)")


def _add_cosim(command) -> None:
    """pybridge cosim: its sub-parser and flags."""
    p = command("cosim", "run an SSP system of FMUs in a closed loop on libcosim; write the traces and a report",
                "Examples:\n"
                "  pybridge cosim acc.ssp --stop 20 -o out/acc.csv --report out/acc_report\n"
                "  pybridge cosim acc.ssp --stop 20 --real-time       paced to the wall clock: overruns\n"
                "Every component steps from t to t + STEP, then every connection passes an output to an input\n"
                "(libcosim's fixed-step algorithm: one step of delay in every connection). The trace has the\n"
                "format of pybridge simulate, one column component.output per Real output, from t = 0.\n"
                "With --real-time the exit code is 1 when a step ended later than one step behind the wall clock.",
                _cosim, required=("system", "stop"))
    p.add_argument("system", nargs="?", help="SSP archive (pybridge export --ssp, or any SSP 1.0 system)")
    p.add_argument("--stop", type=flags.simulated, help="stop time [s]")
    p.add_argument("--step", type=flags.step, help="communication step [s] (default: the SSP's, else 0.001)")
    p.add_argument("-o", "--out", help="trace file to write (.csv or .csv.gz)")
    p.add_argument("--report", metavar="DIR", help="write DIR/report.html with the traces plotted")
    p.add_argument("--real-time", action="store_true", help="pace the run to the wall clock, report overruns")
    p.add_argument("--log-level", choices=("trace", "debug", "info", "warning", "error", "fatal"), default="error",
                   help="libcosim's own log on standard output (default: error); a system libcosim cannot load is "
                        "one error line with libcosim's reason either way")


def _add_rt_check(command) -> None:
    """pybridge rt-check: its sub-parser and flags."""
    p = command("rt-check", "does the FMU fit a real-time task? time every fmi2DoStep, look for allocations and "
                            "system calls inside it",
                "Examples:\n"
                "  pybridge rt-check out/fmu/VehicleRTM_Vehicles_RTM14DoF.fmu --duration 20 --json rt.json --plot rt.png\n"
                "  pybridge rt-check van.fmu --runs 5 --cpu 1         5 fresh instances, pinned to CPU 1\n"
                "  pybridge rt-check other.fmu --scenario none --duration 10   any FMI 2.0 CS FMU, its start values\n"
                "What is measured: a C harness (compiled with gcc on first use) loads the FMU's binary as a HIL rig\n"
                "does, instantiates it, sets the scenario's initial speed, initializes, and calls fmi2DoStep every STEP\n"
                "with the scenario's inputs set before each step (the PI speed driver runs in C, without pybridge\n"
                "simulate's feed-forward probe) and every Real output read after it. Each fmi2DoStep is timed on the\n"
                "monotonic wall clock and on the thread's CPU clock; 'cycle' adds setting inputs and getting outputs.\n"
                "Inside fmi2DoStep it counts calls to malloc/calloc/realloc/free/posix_memalign/aligned_alloc/\n"
                "memalign (interposed by the harness) and to the FMI allocateMemory/freeMemory callbacks; then the\n"
                "manoeuvre runs once more in a child traced with ptrace, and every system call made inside\n"
                "fmi2DoStep is counted by name. Also reported: the first fmi2DoStep, fmi2Instantiate and\n"
                "initialization times, page faults and involuntary context switches while stepping, the load average.\n"
                "How to read it: a 1 ms task budget means the rig calls fmi2DoStep once per millisecond and the call\n"
                "must return well inside that millisecond, every time: look at p99.9 and max of the wall time, not\n"
                "the mean. An allocation or system call inside the step can block for an unbounded time on a real-\n"
                "time OS, so any is a failure even when the times look fine. On a shared desktop machine a wall-time\n"
                "outlier whose thread-CPU time is small is a preemption by other work, not the model: rerun on an\n"
                "idle or isolated CPU (--cpu) before concluding; the target rig's CPU decides in the end.\n"
                "Exit status: 0 fits (max wall time below the budget, no allocation or system call in fmi2DoStep),\n"
                "1 does not fit, 2 bad input (not an FMU, Model Exchange only, no binary for this machine), 3 the FMU\n"
                "failed in the harness or no C compiler.", _rt_check, required=("fmu",))
    p.add_argument("fmu", nargs="?", help="FMI 2.0 Co-Simulation FMU (.fmu)")
    p.add_argument("--scenario", default="step_steer",
                   help="scenario file or shipped name driving the RTM's inputs (default: step_steer); 'none': set no "
                        "inputs (any FMU)")
    p.add_argument("--step", type=flags.step, default=1e-3, help="communication step = task period [s] (default: 0.001)")
    p.add_argument("--duration", type=flags.simulated, help="simulated time [s] (default: the scenario's; inputs hold their "
                   "last value beyond it)")
    p.add_argument("--runs", type=flags.runs, default=1, help="runs of the manoeuvre, each on a fresh instance (default: 1)")
    p.add_argument("--budget", type=flags.step, help="time the task may spend in fmi2DoStep [s] (default: the step)")
    p.add_argument("--cpu", type=flags.cpu, help="pin the harness to this CPU (sched_setaffinity; reported)")
    p.add_argument("--mlock", action="store_true", help="lock the harness's memory after initialization (mlockall; "
                   "the report says whether it succeeded)")
    p.add_argument("--references", default=str(SHIPPED_SET / "manifest.yaml"),
                   help="data-set manifest with the scenario's references (default: the shipped lcv35 one)")
    p.add_argument("--json", metavar="OUT", help="write the report as JSON")
    p.add_argument("--plot", metavar="OUT.png", help="write a histogram and tail plot of the step times")


def _add_observe(command) -> None:
    """pybridge observe: its sub-parser and flags."""
    p = command("observe", "estimate sideslip, axle lateral forces and road friction from a vehicle log: an "
                           "unscented Kalman filter on the RTM FMU, beside a linear bicycle KF",
                "Example:\n"
                "  pybridge observe tests/data/observer/slalom_short.csv.gz --params out/params -o out/observe\n"
                "Writes RUN/estimates.csv, RUN/summary.yaml (errors against the log's truth channels, if any; cost "
                "per update) and RUN/observe.png. Log channels: README, 'Run it in parallel with the vehicle'.",
                _observe, required=("log", "params", "out"), run_folder="out")
    p.add_argument("log", nargs="?", help="vehicle log (# format: vehiclertm-log 1; .csv or .csv.gz)")
    p.add_argument("--params", help="RTM parameter set directory")
    p.add_argument("--fmu", help="native RTM14DoF FMU with Model Exchange (default: build it, cached)")
    p.add_argument("-o", "--out", help="run folder to write")


def _add_identify(command) -> None:
    """pybridge identify: its sub-parser and flags."""
    p = command("identify", "identify the uncertain parameters against MBM traces (NOMAD, or the LCV paper's pattern search)",
                "Examples:\n"
                "  pybridge convert scenarios/mbm/lcv35/mbm -o out/params\n"
                "  pybridge identify --params out/params --reference scenarios/mbm/lcv35 -o out/run\n"
                "  pybridge identify ... -o out/run --resume      continue a killed run from its record\n"
                "  pybridge identify ... --method pattern-search -o out/run   the LCV paper's pattern search\n"
                "  pybridge identify --preset expert --write-config id.yaml   every setting, to edit\n"
                "  pybridge identify ... --stages scenarios/stages_van.yaml   staged: mass, then roll, then yaw\n"
                "  pybridge identify --analyse out/run --posterior   intervals, correlations, flags, emcee posterior\n"
                "  pybridge report out/run                        the report of the run", _identify,
                required=(), preset=True, run_folder="out")
    p.add_argument("--params", help="parameter set folder (pybridge convert) with uncertain parameters")
    p.add_argument("--reference", help="MBM data set folder with traces/ and manifest.yaml")
    p.add_argument("-o", "--out", help="run folder (created)")
    p.add_argument("--scheduler", help="Dask scheduler address instead of local processes")
    p.add_argument("--stages", metavar="FILE",
                   help="staged optimization (LMS paper): a stage file, see pybridge.identify.staged; "
                        "stages without max_evaluations share the budget, stages without method run with --method")
    p.add_argument("--analyse", metavar="RUN", help="what the data determine at the optimum of the finished run RUN "
                   "(intervals, correlations, flags; 2N+1 evaluations; done after every identification anyway)")
    p.add_argument("--posterior", action="store_true", help="also sample the posterior with emcee around the "
                   "optimum (RUN/posterior/; resumable; walkers x (steps + 1) evaluations)")
    p.add_argument("--posterior-steps", type=flags.steps, default=300, help="emcee steps per walker (default: 300)")
    _optimizer_flags(p)


def _add_identify_corner(command) -> None:
    """pybridge identify-corner: its sub-parser and flags."""
    p = command("identify-corner", "identify a SLEKQ quarter-car corner against the MBM's swept-sine corner-force trace "
                                   "(SLEKQ paper)",
                "The corner starts from the MBM data set (kinematic polynomials fitted to the K&C sweeps, strut along\n"
                "the damper, spring from the single-wheel K&C rate, damper fitted to the .dpr, unsprung mass from the\n"
                "mass table) and its unsprung mass, spring k1..k3 (Eq. 2) and damper d1..d6 (Eq. 1) are identified\n"
                "on the KCRig FMU against traces/corner_force_sweep_<CORNER>.csv (chassis held, the other wheel held).\n"
                "homotopy: observer coupling lambda = 1 -> 0 (Eq. 3-6, Table 1 gains scaled to the corner),\n"
                "Nelder-Mead in each stage; nelder-mead: lambda = 0 only; pattern-search: GPS on lambda = 0.\n"
                "A corner of a solid axle (or of an axle whose spring couples the wheels) is the single-wheel\n"
                "corner: its rate is the mean of the K&C parallel and opposite rates, not the heave rate.\n\n"
                "Examples:\n"
                "  pybridge identify-corner --corner FL -o out/corner_FL              homotopy, 400 evaluations\n"
                "  pybridge identify-corner --corner RL --method pattern-search --workers 2 -o out/corner_RL\n"
                "  pybridge identify-corner --corner FL -o out/corner_FL --resume     continue a killed run\n"
                "  pybridge identify-corner --corner FL --duration 10 --max-evaluations 60 -o out/quick\n"
                "The run folder holds corner.yaml (K&C fits and residuals), params_start/, params_identified/,\n"
                "record.jsonl, result.yaml (NRMSE, rates, lambda path) and sweep.csv.", _identify_corner,
                required=("corner", "out"))
    p.add_argument("--reference", default=str(SHIPPED_SET),
                   help="MBM data set with mbm/ and traces/ (default: the shipped lcv35 van)")
    p.add_argument("--corner", choices=("FL", "FR", "RL", "RR"), help="corner to identify (the data set needs its "
                   "trace corner_force_sweep_<CORNER>)")
    p.add_argument("--method", choices=("homotopy", "nelder-mead", "pattern-search"), default="homotopy",
                   help="optimizer (default: homotopy)")
    p.add_argument("--max-evaluations", type=flags.evaluations, default=400, help="evaluation budget (default: 400; one "
                   "evaluation simulates the sweep, ~0.3 s for 30 s)")
    p.add_argument("--duration", type=flags.simulated, help="use the first DURATION s of the sweep (default: all of it)")
    p.add_argument("--workers", type=flags.workers, default=1, help="parallel evaluations of pattern search's polls (default: 1)")
    p.add_argument("--fmu", help="KCRig Co-Simulation FMU (default: build the native one into the run folder)")
    p.add_argument("--resume", action="store_true", help="continue the run recorded in the run folder")
    p.add_argument("-o", "--out", help="run folder (created)")


def _add_four_post(command) -> None:
    """pybridge four-post: its sub-parser and flags."""
    p = command("four-post", "validate identified SLEKQ corners on the MBM's four-post heave and pitch tests",
                "Builds VehicleRTM.Vehicles.FourPost10DoF from a front and a rear corner (run folders of\n"
                "pybridge identify-corner; right corners mirror the left) and the body of the MBM data set, drives\n"
                "it with the MBM's post inputs and compares body heave, pitch and tyre loads (RMSE % of the MBM\n"
                "range against TP) and the FRFs of heave and pitch over the post displacement; both with the\n"
                "corners as identified and as axle equivalents (springs scaled to the K&C parallel rate).\n\n"
                "Example:\n"
                "  pybridge four-post --front out/corner_FL --rear out/corner_RL -o out/four_post", _four_post,
                required=("front", "rear", "out"))
    p.add_argument("--front", help="run folder of pybridge identify-corner for a front corner")
    p.add_argument("--rear", help="run folder of pybridge identify-corner for a rear corner")
    p.add_argument("--reference", default=str(SHIPPED_SET), help="MBM data set (default: the shipped lcv35 van)")
    p.add_argument("--duration", type=flags.simulated, help="use the first DURATION s of the tests (default: all, 40 s)")
    p.add_argument("--fmu", help="FourPost10DoF Co-Simulation FMU (default: build the native one)")
    p.add_argument("-o", "--out", help="output folder (created): four_post.yaml and the model traces")


def _add_report(command) -> None:
    """pybridge report: its sub-parser and flags."""
    p = command("report", "write the report of a run folder: self-contained HTML and PNG figures",
                "Example:\n  pybridge report out/demo            -> out/demo/report/report.html\n"
                "Simulates the nominal and optimized sets on every manoeuvre first when the run folder has\n"
                "no comparison.yaml (a pybridge identify run).\n"
                "  pybridge report out/observe         the observer's estimates against the log's truth\n"
                "  pybridge report out/replay          the RTM on a log's inputs against the log\n",
                _report, required=("run",), run_folder="run")
    p.add_argument("run", nargs="?", help="run folder of pybridge identify, demo, observe or replay")
    p.add_argument("-o", "--out", help="report folder (default: RUN/report)")
    p.add_argument("--workers", type=flags.workers, default=2, help="parallel simulations (default: 2)")


def _add_examples(command) -> None:
    """pybridge examples: its sub-parser and flags."""
    p = command("examples", "simulate the Modelica Examples harnesses with rumoca; write CSV and PNG",
                "Example:\n  pybridge examples StepSteer --out out/examples", _examples)
    p.add_argument("names", nargs="*", help="example names (e.g. StepSteer), or full names of classes with an "
                                            "experiment annotation in packages on the Modelica path; default: all")
    p.add_argument("--out", default="out/examples", help="output folder (default: out/examples)")
    p.add_argument("--modelica-path", action="append", default=[], metavar="DIR",
                   help="directory holding Modelica packages (DIR/Pkg/package.mo or DIR/Pkg.mo); repeat for several")


def _add_mbm(sub, command) -> None:
    """pybridge mbm generate | import | show: the reference multibody vehicle and Adams result files."""
    p_mbm = sub.add_parser("mbm", help="the reference multibody vehicle (virtual MBM on Exudyn)",
                           description="The reference multibody vehicle (virtual MBM on Exudyn).")
    mbm_sub = p_mbm.add_subparsers(dest="mbm_command", required=True, metavar="COMMAND")
    p = command("generate", "regenerate the MBM data set: K&C results, property files, masses, manoeuvre traces",
                "Examples:\n  pybridge mbm generate --vehicle lcv35 -o scenarios/mbm/lcv35\n"
                "  pybridge mbm generate -o /tmp/mbm ramp_steer step_steer   (the step steer needs the ramp steer)",
                _mbm_generate, required=("out",), parent=mbm_sub, run_folder="out")
    p.add_argument("tests", nargs="*", help="tests to run (default: all)")
    p.add_argument("--vehicle", default="lcv35", help="vehicle name or data-file path (default: lcv35)")
    p.add_argument("-o", "--out", help="output folder (created)")
    p.add_argument("--workers", type=flags.workers, default=2, help="parallel worker processes (default: 2)")
    p.add_argument("--gzip", action="store_true", help="gzip every trace (default: those above 1 MB of CSV)")
    p = command("import", "turn a folder of Adams/Car or VI-CarRealTime result files (.res) into an MBM data set",
                "Examples:\n  pybridge mbm import ~/adams/van_results -o data/van\n"
                "  pybridge mbm import results/ -o data/van --map my_names.yaml   (other request names, sides, signs)\n"
                "K&C tests and manoeuvres are recognised by their analysis names, channels by Adams/Car's request\n"
                "names (docs/mbm_formats.md); the property files, masses.csv, driveline.yaml and mbm_summary.yaml\n"
                "in the folder are copied to DATASET/mbm.", _mbm_import, required=("results_dir", "out"),
                parent=mbm_sub)
    p.add_argument("results_dir", nargs="?", help="folder of .res files (searched recursively) and property files")
    p.add_argument("-o", "--out", help="data-set folder to write (new or empty)")
    p.add_argument("--map", help="mapping file (format vehiclertm-map 1) laid over the built-in Adams/Car names")
    p = command("show", "list the analyses and channels (with units) of an Adams result file (.res); plot some",
                "Examples:\n  pybridge mbm show results/van_step_steer.res\n"
                "  pybridge mbm show van.res --plot chassis_accelerations.lateral -o ay.png   (SI units)",
                _mbm_show, required=("file",), parent=mbm_sub)
    p.add_argument("file", nargs="?", help="xrf result file (.res)")
    p.add_argument("--plot", action="append", metavar="ENTITY.COMPONENT", help="channel to plot (repeatable)")
    p.add_argument("-o", "--out", help="PNG to write the plot to (default: FILE with .png)")


def _apply_config(parser: argparse.ArgumentParser, args: argparse.Namespace, argv) -> argparse.Namespace:
    """Re-parse with the config file's flag values as defaults; keep its other keys as sections."""
    from pybridge.config import ConfigError, read_yaml_mapping, split_config, unknown_keys_error

    args.config_sections = {}
    if not args.config:
        return args
    sub = args.parser
    actions = {a.dest: a for a in sub._actions if a.dest not in ("help", "config")}
    values, sections = split_config(read_yaml_mapping(args.config), actions, args.config)
    if sections and not args.preset_sections:
        raise unknown_keys_error(sections, actions, args.config)
    for dest, value in values.items():
        action = actions[dest]
        expected = "an integer" if action.type is int else f"a {getattr(action.type, '__name__', 'value')}"
        if action.type is not None and (isinstance(value, str) or getattr(action.type, "checks_numbers", False)):
            try:
                value = action.type(value)
            except ValueError:
                raise ConfigError(f"{args.config}: {dest}: {value!r}; expected {expected}") from None
            except argparse.ArgumentTypeError as error:   # a checked flag (pybridge.flags)
                raise ConfigError(f"{args.config}: {dest}: {error}") from None
        if action.type is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ConfigError(f"{args.config}: {dest}: {value!r}; expected {expected}")
        if action.choices is not None and value not in action.choices:
            raise ValueError(f"{args.config}: {dest}: {value!r}; expected one of {', '.join(action.choices)}")
        values[dest] = value
    sub.set_defaults(**values)
    config, args = args.config, parser.parse_args(argv)
    args.config, args.config_sections = config, sections
    return args


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    name = f"pybridge {args.command}"

    def one_line_warning(message, category, filename, lineno, file=None, line=None):
        print(f"{name}: warning: {message}", file=sys.stderr)

    from pybridge.workers import interrupts_kept

    with warnings.catch_warnings(), interrupts_kept():
        warnings.showwarning = one_line_warning
        return _run(args, parser, argv, name)


def _finished(code: int) -> int:
    """``code``, unless a Ctrl-C came during the command (one a callback swallowed): then KeyboardInterrupt."""
    from pybridge.workers import raise_if_interrupted

    raise_if_interrupted()
    return code


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser, argv: list[str], name: str) -> int:
    """The command of ``args``, its errors as exit codes and one-line messages."""
    try:
        args = _apply_config(parser, args, argv)
        _require(args, *args.required)
        folder = getattr(args, args.run_folder) if args.run_folder and not getattr(args, "write_config", None) \
            else None
        if folder is None:
            return _finished(args.func(args))
        from pybridge.runlock import run_folder_lock

        with run_folder_lock(folder, name):
            return _finished(args.func(args))
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # every error ends here: one line, or the traceback with --debug
        if args.debug:
            traceback.print_exc()
        from fmu_build import BuildError

        if isinstance(error, BuildError) or not isinstance(error, (ValueError, OSError)):
            print(f"{name}: failed: {type(error).__name__}: {error}"
                  + ("" if args.debug else "  (--debug shows the traceback)"), file=sys.stderr)
            return EXIT_RUNTIME
        print(f"{name}: error: {error}", file=sys.stderr)
        return EXIT_INPUT


if __name__ == "__main__":
    sys.exit(main())
