"""The measurement uncertainty an MBM data set declares for the quantities it states.

An optional ``<data set>/mbm/uncertainty.yaml`` names, per RTM parameter that carries a quantity the
MBM data state (e.g. the CoG height from the mass table), how far the value may be off::

    format: vehiclertm-mbm-uncertainty 1
    parameters:
      chassis.cogHeight: {absolute: 0.025, source: "masses.csv: tilt-table CoG height"}   # or relative: 0.03

An identified value further than that from the stated one is flagged ``compensating``
(``pybridge.identify.identifiability``). A parameter not listed is not stated by the data (a split
factor, a map gain) and is never flagged so.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from pybridge.fileio import read_yaml

__all__ = ["FILE", "FORMAT", "DeclaredUncertaintyError", "declared_uncertainty"]

FILE = "uncertainty.yaml"
FORMAT = "vehiclertm-mbm-uncertainty 1"


class DeclaredUncertaintyError(ValueError):
    """An uncertainty file that cannot be used; the message names the file and the key."""


def _entry(path: Path, name: str, entry, nominal: float) -> tuple[float, str]:
    where = f"{path}: parameters.{name}"
    if not isinstance(entry, Mapping) or len(set(entry) & {"absolute", "relative"}) != 1 \
            or set(entry) - {"absolute", "relative", "source"}:
        raise DeclaredUncertaintyError(f"{where}: expected a mapping with one of 'absolute' or 'relative' "
                                       "and an optional 'source'")
    kind = "absolute" if "absolute" in entry else "relative"
    value = entry[kind]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise DeclaredUncertaintyError(f"{where}.{kind}: {value!r}, expected a finite number > 0")
    allowed = float(value) if kind == "absolute" else float(value) * abs(nominal)
    source = str(entry.get("source", f"{kind} {value:g} declared in {path.name}"))
    return allowed, source


def declared_uncertainty(reference_dir: str | Path, nominal: Mapping[str, float]) -> dict[str, tuple[float, str]]:
    """parameter -> (allowed change from its stated value, source) for the parameters of ``nominal`` that
    ``reference_dir/mbm/uncertainty.yaml`` lists; empty without the file."""
    path = Path(reference_dir) / "mbm" / FILE
    if not path.is_file():
        return {}
    data = read_yaml(path, DeclaredUncertaintyError)
    if not isinstance(data, Mapping) or data.get("format") != FORMAT or set(data) - {"format", "parameters"}:
        raise DeclaredUncertaintyError(f"{path}: expected the keys format ('{FORMAT}') and parameters")
    parameters = data.get("parameters") or {}
    if not isinstance(parameters, Mapping):
        raise DeclaredUncertaintyError(f"{path}: parameters: expected a mapping of parameter name to uncertainty")
    return {name: _entry(path, name, entry, nominal[name]) for name, entry in parameters.items() if name in nominal}
