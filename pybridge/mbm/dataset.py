"""The MBM data set of ``docs/mbm_formats.md``: read every file and check that they agree.

``read_mbm(dir)`` reads ``kc/*.csv``, ``masses.csv``, ``driveline.yaml`` (optional),
``mbm_summary.yaml``, the ``.dpr/.bum/.reb`` files of each axle, every ``.spr`` (optional; its force must
rise with the compression) and the one ``.tir`` into an :class:`MBMData`, then cross-checks them (total
mass, static loads, design loads of the K&C tests, tracks, wheelbase). Problems raise
:class:`ConversionError` naming the file, the place and what is expected; the readers' own errors
(MBMDataError, PropertyFileError, TirError) pass through.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import warnings

import numpy as np

from pybridge.fileio import read_yaml
from pybridge.mbm.driveline_data import DrivelineData, read_driveline
from pybridge.mbm.kc_results import KCResults, read_kc_results
from pybridge.mbm.mass_table import MassTable, read_mass_table
from pybridge.mbm.property_files import PropertyCurve, read_property_file
from pybridge.mbm.tir import TirData, read_tir

__all__ = ["AXLES", "LOADS", "SIDES", "ConversionError", "MBMData", "along", "read_mbm"]

AXLES = ("front", "rear")
SIDES = ("left", "right")
LOADS = ("fx", "fy", "mz")
SUMMARY_FORMAT = "vehiclertm-mbm-summary 1"


class ConversionError(ValueError):
    """A data set that cannot be read or converted; the message names the file, the place and the expectation."""


@dataclass
class MBMData:
    """The MBM data set, read and checked: K&C tests keyed by file stem (``front_parallel_travel``),
    property curves keyed ``<axle>_<damper|bump_stop|rebound_stop>``."""

    directory: Path
    summary: dict
    masses: MassTable
    driveline: DrivelineData | None   # None: no driveline.yaml (lateral manoeuvres only)
    tir: TirData
    tir_path: Path
    kc: dict[str, KCResults] = field(default_factory=dict)
    curves: dict[str, PropertyCurve] = field(default_factory=dict)
    springs: dict[str, PropertyCurve] = field(default_factory=dict)   # the .spr files by file name (checked only)

    def file(self, name: str) -> Path:
        return self.directory / name

    def number(self, key: str) -> float:
        """A number of mbm_summary.yaml by its dotted key (``track.front``)."""
        value = self.summary
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
            raise ConversionError(f"{self.file('mbm_summary.yaml')}: {key}: {value!r} — expected a finite number")
        return float(value)


def _need(directory: Path, name: str, what: str) -> Path:
    path = directory / name
    if not path.is_file():
        problem = ("a directory" if path.is_dir() else "a symbolic link that does not lead to a file "
                   "(a loop or a missing target)" if path.is_symlink() else "missing")
        raise ConversionError(f"{path}: {problem} — expected {what} (docs/mbm_formats.md)")
    return path


def _read_kc(path: Path, axle: str, test: str, side: str | None) -> KCResults:
    result = read_kc_results(path)
    if (result.axle, result.test, result.loaded_side) != (axle, test, side):
        loaded = f", loaded_side '{side}'" if side else ""
        raise ConversionError(f"{path}: header says axle '{result.axle}', test '{result.test}'"
                              + (f", loaded_side '{result.loaded_side}'" if result.loaded_side else "")
                              + f" — expected axle '{axle}', test '{test}'{loaded} (from the file name)")
    values = result.data[result.sweep]
    if not values.min() <= 0 <= values.max():
        raise ConversionError(f"{path}: {result.sweep} runs from {values.min():g} to {values.max():g} (SI) — "
                              "expected a sweep through the design position (0)")
    return result


def _read_spring(path: Path) -> PropertyCurve:
    """A ``.spr`` file, read and checked: its spring rate over the [CURVE] must be positive."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        curve = read_property_file(path)
    x, force = curve.x, curve.force
    if not (force[-1] - force[0]) / (x[-1] - x[0]) > 0:
        rows = np.flatnonzero(np.diff(force) <= 0)
        line = curve.row_lines[rows[0] + 1] if rows.size and curve.row_lines else (curve.row_lines or (1,))[-1]
        raise ConversionError(f"{path}:{line}: spring rate {(force[-1] - force[0]) / (x[-1] - x[0]):.4g} N/m over "
                              "the [CURVE] (the force does not rise from this row on) — expected a force that rises "
                              "with the compression (a positive spring rate)")
    for warning in caught:  # the reader's plausibility warnings, once the file is known to be usable
        warnings.warn(warning.message, warning.category, stacklevel=3)
    return curve


def read_mbm(mbm_dir: str | Path) -> MBMData:
    """Read the MBM data set in ``mbm_dir`` and check that its files agree with each other."""
    directory = Path(mbm_dir)
    if not directory.is_dir():
        raise ConversionError(f"{directory}: not a directory — expected an MBM data set (docs/mbm_formats.md)")
    summary_path = _need(directory, "mbm_summary.yaml", "the MBM summary (wheelbase, tracks, static loads, rack gain)")
    summary = read_yaml(summary_path, ConversionError)
    if not isinstance(summary, dict) or summary.get("format") != SUMMARY_FORMAT:
        raise ConversionError(f"{summary_path}: format: expected '{SUMMARY_FORMAT}'")
    tirs = sorted(directory.glob("*.tir"))
    if len(tirs) != 1:
        raise ConversionError(f"{directory}: {len(tirs)} .tir files {[p.name for p in tirs]} — "
                              "expected exactly one tyre property file (used on every wheel)")
    driveline = directory / "driveline.yaml"
    data = MBMData(directory, summary, read_mass_table(_need(directory, "masses.csv", "the mass table")),
                   read_driveline(driveline) if driveline.is_file() else None, read_tir(tirs[0]), tirs[0])
    for path in sorted(directory.glob("*.spr")):
        data.springs[path.name] = _read_spring(path)
    for axle in AXLES:
        for element, ext in (("damper", "dpr"), ("bump_stop", "bum"), ("rebound_stop", "reb")):
            path = _need(directory, f"{axle}_{element}.{ext}", f"the {axle} {element.replace('_', ' ')} property file")
            data.curves[f"{axle}_{element}"] = read_property_file(path)
        tests = [("parallel_travel", None), ("opposite_travel", None)]
        tests += [(f"compliance_{load}", side) for load in LOADS for side in SIDES]
        for test, side in tests:
            name = f"{axle}_{test}" + (f"_{side}" if side else "")
            path = _need(directory, f"kc/{name}.csv", f"the K&C {test} test of the {axle} axle")
            data.kc[name] = _read_kc(path, axle, test, side)
        rack = directory / f"kc/{axle}_rack_travel.csv"
        if rack.is_file():
            data.kc[f"{axle}_rack_travel"] = _read_kc(rack, axle, "rack_travel", None)
    _check_consistency(data)
    return data


def along(x, y, at):
    """y(x) of a sweep (any direction) at ``at``, linear."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    order = np.argsort(x)
    return np.interp(at, x[order], y[order])


def _check_consistency(data: MBMData) -> None:
    summary = data.file("mbm_summary.yaml")
    total = data.number("total_mass")
    if abs(data.masses.total_mass - total) > 1e-3 * total:
        raise ConversionError(f"{data.file('masses.csv')}: bodies sum to {data.masses.total_mass:.2f} kg — "
                              f"expected total_mass {total:g} kg of {summary.name} (within 0.1 %)")
    loads = sum(data.number(f"static_corner_load.{c}") for c in ("FL", "FR", "RL", "RR"))
    if not 9.7 < loads / total < 9.9:
        raise ConversionError(f"{summary}: static_corner_load sums to {loads:.0f} N = {loads / total:.3f} m/s^2 "
                              f"x total_mass — expected the weight of the vehicle (g about 9.81 m/s^2)")
    for axle in AXLES:
        if not ((data.masses.data["axle"] == axle) & (data.masses.data["class"] == "unsprung")).any():
            raise ConversionError(f"{data.file('masses.csv')}: no unsprung body on the {axle} axle — "
                                  "expected its wheels (class unsprung, axle " + axle + ")")
        par, opp = data.kc[f"{axle}_parallel_travel"], data.kc[f"{axle}_opposite_travel"]
        load_par = along(par.data.wheel_travel_left, par.data.wheel_load_left, 0.0)
        load_opp = along(opp.data.wheel_travel_left, opp.data.wheel_load_left, 0.0)
        if abs(load_par - load_opp) > 0.01 * abs(load_par):
            raise ConversionError(f"{opp.path}: wheel_load_left at zero travel {load_opp:.0f} N — expected the "
                                  f"design load of {par.path.name}, {load_par:.0f} N (within 1 %)")
        if {"wheel_centre_y_left", "wheel_centre_y_right"} <= set(par.data):
            track = sum(along(par.data.wheel_travel_left, par.data[f"wheel_centre_y_{s}"], 0.0) for s in SIDES)
            if abs(track - data.number(f"track.{axle}")) > 0.01:
                raise ConversionError(f"{par.path}: wheel_centre_y_left + wheel_centre_y_right at design = "
                                      f"{track:.4f} m — expected track.{axle} = {data.number(f'track.{axle}'):g} m "
                                      f"of {summary.name} (within 10 mm)")
    if all("wheel_centre_x_left" in data.kc[f"{a}_parallel_travel"].data for a in AXLES):
        x = [along(data.kc[f"{a}_parallel_travel"].data.wheel_travel_left,
                    data.kc[f"{a}_parallel_travel"].data.wheel_centre_x_left, 0.0) for a in AXLES]
        if abs(x[0] - x[1] - data.number("wheelbase")) > 0.01:
            raise ConversionError(f"{data.kc['rear_parallel_travel'].path}: front - rear wheel_centre_x_left at "
                                  f"design = {x[0] - x[1]:.4f} m — expected wheelbase {data.number('wheelbase'):g} m "
                                  f"of {summary.name} (within 10 mm)")
