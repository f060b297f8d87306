"""Which manoeuvres a run uses: those the reference data set offers and every parameter set can run.

A data set offers a manoeuvre with indices (``pybridge.evaluate.kpi.index_functions``) when its ``manifest.yaml``
lists it under ``traces`` and the trace file exists (a manifest without a ``traces`` section: every
trace file in ``traces/``). :func:`choose` intersects a wanted list (the objective's, the validation
list) with that, and with what the parameter sets can run (``pybridge.simulate.manoeuvres.refusal``: a set
converted without driveline data runs no acceleration or braking). A wanted manoeuvre that is not
there is skipped with its reason; only one the user asked for by name is an error.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pybridge.evaluate.kpi import index_functions
from pybridge.simulate.manoeuvres import refusal
from pybridge.parameters import ParameterSet
from pybridge.simulate.scenarios import load_scenario
from pybridge.traces import find_trace
from pybridge.fileio import read_yaml

__all__ = ["CoverageError", "choose", "offered"]


class CoverageError(ValueError):
    """A manoeuvre asked for by name that the data set or the parameter set cannot give."""


def offered(reference_dir: str | Path) -> dict[str, str | None]:
    """Manoeuvre -> None if the data set offers it, else why not; every manoeuvre with indices."""
    manifest = Path(reference_dir) / "manifest.yaml"
    listed = read_yaml(manifest, CoverageError).get("traces") if manifest.is_file() else None
    result = {}
    for manoeuvre in index_functions:
        if isinstance(listed, dict) and manoeuvre not in listed:
            result[manoeuvre] = f"not among the traces of {manifest}"
            continue
        try:
            find_trace(reference_dir, manoeuvre)
        except FileNotFoundError:
            result[manoeuvre] = f"no trace {Path(reference_dir) / 'traces' / manoeuvre}.csv[.gz]"
            continue
        result[manoeuvre] = None
    return result


def choose(wanted: Iterable[str], reference_dir: str | Path, sets: Iterable[ParameterSet] = (),
           named: Iterable[str] = ()) -> tuple[list[str], dict[str, str]]:
    """(the wanted manoeuvres the run can use, in order; skipped manoeuvre -> reason). A manoeuvre in
    ``named`` (asked for by the user) that would be skipped raises :class:`CoverageError`."""
    available, sets, named = offered(reference_dir), list(sets), set(named)
    kept, skipped = [], {}
    for manoeuvre in dict.fromkeys(wanted):
        reason = available.get(manoeuvre, f"no indices for {manoeuvre} in pybridge.evaluate.kpi")
        if reason is None:
            scenario = load_scenario(manoeuvre)
            reason = next((r for r in (refusal(scenario, p) for p in sets) if r), None)
        if reason is None:
            kept.append(manoeuvre)
        elif manoeuvre in named:
            raise CoverageError(f"{manoeuvre}: asked for by name, but {reason}")
        else:
            skipped[manoeuvre] = reason
    return kept, skipped
