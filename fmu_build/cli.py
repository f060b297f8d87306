"""fmu-build: command line for checking the Modelica library (and, later, building FMUs)."""
from __future__ import annotations

import argparse
import sys
import time

from fmu_build.modelica import LIBRARY_DIR, find_class, library_classes, load_model

_CHECKED_KINDS = ("model", "block")


def _checkable(name_filter: list[str]) -> list[str]:
    if name_filter:
        return [find_class(name).name for name in name_filter]
    return [c.name for c in library_classes() if c.kind in _CHECKED_KINDS and not c.partial]


def check(names: list[str]) -> int:
    """Compile each model with rumoca and report whether it is balanced; return the failure count."""
    failures = 0
    for name in _checkable(names):
        start = time.perf_counter()
        try:
            info = load_model(name).structure()
        except Exception as error:  # rumoca raises its own error types; report them all the same way
            failures += 1
            print(f"FAIL  {name}: {str(error).splitlines()[0]}")
            continue
        status = "ok  " if info.is_balanced else "FAIL"
        failures += not info.is_balanced
        print(f"{status}  {name}: {info.n_states} states, {info.n_equations} equations, "
              f"{info.n_unknowns} unknowns ({time.perf_counter() - start:.1f} s)")
    return failures


def list_classes(kind: str | None) -> None:
    for cls in library_classes():
        if kind is None or cls.kind == kind:
            flag = " (partial)" if cls.partial else ""
            print(f"{cls.kind:9s} {cls.name}{flag}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="fmu-build",
        description=f"Check and build the VehicleRTM Modelica library ({LIBRARY_DIR}).",
        epilog="Example: fmu-build check VehicleRTM.Vehicles.RTM14DoF",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p_check = sub.add_parser("check", help="compile models with rumoca and check that each is balanced")
    p_check.add_argument("models", nargs="*", help="full class names (default: every non-partial model and block)")
    p_list = sub.add_parser("list", help="list the classes of the library")
    p_list.add_argument("--kind", choices=["model", "block", "function", "record", "package", "type"],
                        help="only classes of this kind")
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            failures = check(args.models)
            return 1 if failures else 0
        list_classes(args.kind)
        return 0
    except ValueError as error:
        print(f"fmu-build: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
