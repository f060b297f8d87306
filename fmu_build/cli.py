"""fmu-build: check the Modelica library, build FMI 2.0 FMUs of its models, inspect FMUs."""
from __future__ import annotations

import argparse
import sys
import time

from fmu_build.errors import BuildError
from fmu_build.modelica import LIBRARY_DIR, LIBRARY_NAME, find_class, load_model, package_classes, use_modelica_path

_CHECKED_KINDS = ("model", "block")
COMMANDS = ("build", "check", "list", "inspect")

EPILOG = """\
examples:
  fmu-build VehicleRTM.QuarterCars.KCRig -o out            build an FMU (ME + CS), print its path
  fmu-build build VehicleRTM.Vehicles.RTM14DoF --backend native --fmi-type cs --step 5e-4 -o out
  fmu-build build VehicleRTM.Vehicles.RTM14DoF --backend native --native -o out   for this CPU only
  fmu-build build VehicleRTM.Vehicles.FourPost10DoF --backend openmodelica --docker openmodelica/openmodelica:v1.24.0-ompython
  fmu-build inspect out/VehicleRTM_QuarterCars_KCRig.fmu   inputs, outputs, table parameters and their grids
  fmu-build check VehicleRTM.Vehicles.RTM14DoF             compile with rumoca, check the balance
  fmu-build list --kind model                              classes of the library
  fmu-build list --native                                  classes the native backend builds
  fmu-build list BarSingle --modelica-path DIR             classes of a user's package (DIR/BarSingle.mo)
  MODELICAPATH=examples fmu-build MyVan.MyVan -o out       a user's package (examples/MyVan)
  fmu-build MyVan.MyVan --modelica-path examples -o out

backends:
  native        the model's C generated from the Modelica (rumoca's flattening -> sorted, solved
                equations; no C written by hand) + shared FMI 2.0 wrapper, compiled by gcc (no Python
                at run time). Co-Simulation: IMEX2 (or --integrator heun | rk4 | ab2) at the fixed
                internal step --step (default 1 ms). Portable C (-O3, the compiler's generic
                target); --native compiles for this machine's CPU only (-march=native: not
                portable to other CPUs, results differ at round-off through FMA contraction).
                Refuses algebraic loops, implicit equations and unsupported constructs (reinit,
                external functions) with the Modelica file:line. A user's own class (MODELICAPATH,
                --modelica-path) builds the same way, equations and all.
  openmodelica  OMPython + omc (local, or in Docker with --docker IMAGE or $VEHICLERTM_OMC_DOCKER).
                Co-Simulation: forward Euler per communication step (or --integrator cvode).

  auto          openmodelica when omc is found, else native (default).

packages: a model name's top-level package P is looked up in the --modelica-path directories, then in
$MODELICAPATH (':'-separated), then in the project library, the first directory holding P/package.mo or
the single file P.mo winning, as Modelica tools do (§13.3). Classes nested in a file, short class
definitions (model Heavy = Corner(m = 600)) and package.order are read from the parse of the files.

The build cache ($VEHICLERTM_FMU_CACHE, default ~/.cache/vehiclertm-fmu) is keyed by the hash of the
Modelica sources, the C sources and the options: a repeated build is a copy. Errors are one line
"fmu-build: error: ..." with exit code 1; nothing is written into -o DIR unless the build succeeds.
"""


def _checkable(name_filter: list[str]) -> list[str]:
    if name_filter:
        return [find_class(name).name for name in name_filter]
    return [c.name for c in package_classes(LIBRARY_NAME) if c.kind in _CHECKED_KINDS and not c.partial]


def check(names: list[str]) -> int:
    """Compile each model with rumoca and report whether it is balanced; return the failure count."""
    failures = 0
    for name in _checkable(names):
        start = time.perf_counter()
        try:
            info = load_model(name).structure()
        except Exception as error:  # rumoca raises its own error types; report them all the same way
            from fmu_build.diagnostics import rumoca_error

            failures += 1
            print(f"FAIL  {name}: {rumoca_error(error, find_class(name))}")   # FILE:LINE:COLUMN: what — expected
            continue
        status = "ok  " if info.is_balanced else "FAIL"
        failures += not info.is_balanced
        print(f"{status}  {name}: {info.n_states} states, {info.n_equations} equations, "
              f"{info.n_unknowns} unknowns ({time.perf_counter() - start:.1f} s)")
    return failures


def list_classes(kind: str | None, native: bool = False, packages: list[str] | None = None) -> None:
    """Classes of the library (or of ``packages`` on the Modelica path); ``native``: the ones the native
    backend builds (non-partial models, blocks)."""
    for cls in (c for package in packages or [LIBRARY_NAME] for c in package_classes(package)):
        if kind is not None and cls.kind != kind:
            continue
        if native and (cls.kind not in _CHECKED_KINDS or cls.partial):
            continue
        flag = " (partial)" if cls.partial else ""
        print(f"{cls.kind:9s} {cls.name}{flag}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fmu-build",
        description=f"Build FMI 2.0 FMUs of the VehicleRTM Modelica library ({LIBRARY_DIR}), inspect FMUs, "
                    "check the library. 'fmu-build MODEL ...' is short for 'fmu-build build MODEL ...'.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="{build,inspect,check,list}")
    path = argparse.ArgumentParser(add_help=False)   # every subcommand takes --modelica-path
    path.add_argument("--modelica-path", action="append", default=[], metavar="DIR",
                      help="directory holding Modelica packages (DIR/Pkg/package.mo or DIR/Pkg.mo), searched "
                           "before $MODELICAPATH and the project library; repeat for several")

    p_build = sub.add_parser("build", help="build an FMU of a library class and print its path", parents=[path],
                             epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p_build.add_argument("model", help="full class name, e.g. VehicleRTM.QuarterCars.KCRig")
    p_build.add_argument("--backend", choices=["auto", "openmodelica", "native"], default="auto",
                         help="compiler: OpenModelica (OMPython) or the native C backend; auto = OpenModelica "
                              "if omc is found, else native (default: auto)")
    p_build.add_argument("--fmi-type", choices=["cs", "me", "me_cs"], default="me_cs",
                         help="Co-Simulation, Model Exchange or both in one FMU (default: me_cs)")
    p_build.add_argument("--step", type=float, default=None,
                         help="internal fixed step of the native Co-Simulation integrator, seconds: the default of the "
                              "FMU parameter fixedStepSize (default: 1e-3). Refused for OpenModelica: its CS FMU "
                              "steps once per communication step (Euler) or by CVODE's own steps")
    p_build.add_argument("--integrator", choices=["heun", "rk4", "ab2", "imex2", "euler", "cvode"], default=None,
                         help="Co-Simulation integrator. native: imex2 (default: two-step Adams-Bashforth, stiff "
                              "states found at run time integrated by linearly implicit BDF2, ~1 evaluation per step), "
                              "heun (explicit trapezoidal rule, 2 evaluations per step), rk4 (classic Runge-Kutta, 4 "
                              "evaluations per step) or ab2 (plain two-step Adams-Bashforth, 1 evaluation per step, "
                              "smaller stability range); openmodelica: "
                              "euler (default) or cvode, passed to omc as --fmiFlags=s:euler|s:cvode")
    p_build.add_argument("--native", action="store_true",
                         help="native backend: compile for this machine's CPU (gcc -march=native: FMA, AVX2, ... "
                              "where it has them) instead of the portable default (the compiler's generic target, "
                              "e.g. x86-64, for HIL rigs). The FMU is NOT portable to other CPUs (it may crash "
                              "with an illegal instruction there) and its results differ from the portable build's "
                              "at round-off (FMA contraction); its description and VendorAnnotations (cpu=\"native\", "
                              "march) say so, and the build cache keeps the two apart")
    p_build.add_argument("-o", "--output-dir", default=".", metavar="DIR",
                         help="directory for the FMU, created if needed (default: current directory)")
    p_build.add_argument("--docker", metavar="IMAGE",
                         help="run OpenModelica in this Docker image through OMPython (implies the "
                              "openmodelica backend; default: $VEHICLERTM_OMC_DOCKER)")
    p_build.add_argument("--no-cache", action="store_true", help="rebuild even if the cache has this build")
    p_build.add_argument("--cache-dir", metavar="DIR", help="build cache (default: $VEHICLERTM_FMU_CACHE or "
                                                            "~/.cache/vehiclertm-fmu)")

    p_inspect = sub.add_parser("inspect", help="inputs, outputs, parameters and table grids of an FMU", parents=[path])
    p_inspect.add_argument("fmu", help="path of an .fmu file")
    p_inspect.add_argument("--parameters", action="store_true", help="also list every parameter with its start value")

    p_check = sub.add_parser("check", help="compile models with rumoca and check that each is balanced", parents=[path])
    p_check.add_argument("models", nargs="*", help="full class names (default: every non-partial model and block)")
    p_list = sub.add_parser("list", help="list the classes of the library or of packages on the Modelica path",
                            parents=[path])
    p_list.add_argument("packages", nargs="*", help=f"top-level packages (default: {LIBRARY_NAME})")
    p_list.add_argument("--kind", choices=["model", "block", "function", "record", "package", "type", "connector",
                                           "class"],
                        help="only classes of this kind")
    p_list.add_argument("--native", action="store_true",
                        help="only classes the native backend builds (non-partial models and blocks; their C is generated)")
    return parser


def _normalise(argv: list[str]) -> list[str]:
    """Accept 'fmu-build MODEL ...' as 'fmu-build build MODEL ...'."""
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        return ["build", *argv]
    return argv


def main(argv: list[str] | None = None) -> int:
    argv = _normalise(list(sys.argv[1:] if argv is None else argv))
    args = _parser().parse_args(argv)
    try:
        use_modelica_path(args.modelica_path)
        if args.command == "check":
            failures = check(args.models)
            return 1 if failures else 0
        if args.command == "list":
            list_classes(args.kind, args.native, args.packages)
            return 0
        if args.command == "inspect":
            from fmu_build.inspect import format_summary, read_fmu

            print(format_summary(read_fmu(args.fmu), all_parameters=args.parameters))
            return 0
        from fmu_build import build as build_module

        path = build_module.build_fmu(args.model, backend=args.backend, fmi_type=args.fmi_type, step=args.step, integrator=args.integrator,
                                      out_dir=args.output_dir, cache=not args.no_cache, cache_dir=args.cache_dir,
                                      docker_image=args.docker, modelica_path=args.modelica_path,
                                      native_cpu=args.native)
        info = build_module.last_build
        if info is not None:
            print(f"fmu-build: {info.backend} backend, {'from the cache' if info.cached else 'built'} "
                  f"in {info.seconds:.2f} s", file=sys.stderr)
            for note in info.notes:
                print(f"fmu-build: note: {note}", file=sys.stderr)
        print(path)
        return 0
    except (BuildError, ValueError) as error:
        print(f"fmu-build: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("fmu-build: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
