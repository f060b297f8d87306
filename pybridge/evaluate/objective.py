"""Fitness of the LCV paper, Eq. 9-10, over the indices of ``pybridge.evaluate.kpi``.

    f = 1/N * sum_j ( 1/M * sum_k w_jk * e'_jk )                       (Eq. 9)
    e'_jk = e_jk + PF * (e_jk - TP)   if e_jk > TP,   else e_jk        (Eq. 10)

e_jk is the error in % of index j in manoeuvre k (``pybridge.evaluate.kpi``), w_jk its weight, TP the tolerance
in %, PF the penalty factor. j runs over the N index names and k over the M manoeuvres that have a
positive weight; a pair the configuration does not list has w_jk = 0 (an index with weight 0 is
computed and reported but changes nothing). A manoeuvre whose simulation failed or diverged
(an exception, no result, NaN, a trace shorter than ``min_duration_fraction`` of the reference, an
index that cannot be computed) makes the fitness ``failure.value`` and logs a warning; ``fitness``
does not raise for it.

Configuration (``scenarios/objective.yaml``, read strictly, every key required but ``near_zero``)::

    format: vehiclertm-objective 1
    tolerance_percent: 5.0        # TP
    penalty_factor: 2.0           # PF
    failure: {value: 1.0e6, min_duration_fraction: 0.5}
    weights:                      # manoeuvre -> index -> w_jk (names of pybridge.evaluate.kpi.index_functions)
      ramp_steer: {steering_wheel_angle: 1.0, sideslip: 1.0}
    near_zero:                    # optional: scalar indices scored by an absolute difference when the
      step_steer:                 # reference value is below the floor (pybridge.evaluate.near_zero)
        ay_overshoot: {floor: 10.0, tolerance: 1.0}
"""
from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from pybridge.evaluate.kpi import IndexResult, column, evaluate_indices, index_functions
from pybridge.evaluate.near_zero import NearZeroRule, parse_near_zero
from pybridge.fileio import read_yaml
from pybridge.simulate.divergence import diverged

__all__ = ["FORMAT", "FitnessResult", "IndexScore", "Objective", "ObjectiveConfigError", "corrected_error"]

FORMAT = "vehiclertm-objective 1"
DEFAULT_FILE = Path(__file__).resolve().parents[2] / "scenarios" / "objective.yaml"
log = logging.getLogger(__name__)


class ObjectiveConfigError(ValueError):
    """An objective configuration that cannot be used; the message names the file and the key."""


def corrected_error(error: float, tolerance: float, penalty_factor: float) -> float:
    """Eq. 10: the error raised by PF times its excess over the tolerance TP (all in %)."""
    return error + penalty_factor * (error - tolerance) if error > tolerance else error


@dataclass(frozen=True)
class IndexScore:
    """One term of Eq. 9: weight w_jk, error e_jk and corrected error e'_jk (both in %); ``sign``: the sign
    of candidate - reference for a scalar index (None for a curve index, which has none)."""

    manoeuvre: str
    name: str
    weight: float
    error: float
    corrected: float
    sign: float | None = None


def _sign(result: IndexResult) -> float | None:
    """The sign of candidate - reference of a scalar index; None for a curve index or a NaN value."""
    if result.candidate_value is None or result.reference_value is None:
        return None
    difference = float(result.candidate_value) - float(result.reference_value)
    return None if math.isnan(difference) else float((difference > 0) - (difference < 0))


@dataclass(frozen=True)
class FitnessResult:
    """Fitness value, the scores per (manoeuvre, index) and the failed manoeuvres with their reasons."""

    value: float
    per_index: dict[tuple[str, str], IndexScore]
    failed: dict[str, str]


def _span(trace: pd.DataFrame) -> float:
    """The time a trace spans (s; 0 without a time column or rows)."""
    time = column(trace, "time") if "time" in trace.columns else ()
    return float(time[-1] - time[0]) if len(time) else 0.0


class _Failure(Exception):
    """A manoeuvre that yields no usable indices; scored with the failure value."""


def _key(where: str, key) -> str:
    return f"{where}.{key}" if where else str(key)


def _number(data: Mapping, key: str, where: str, low: float, high: float = math.inf,
            low_open: bool = False) -> float:
    value, here = data[key], _key(where, key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ObjectiveConfigError(f"{here}: {value!r}, expected a finite number")
    if value < low or value > high or (low_open and value == low):
        bracket = "(" if low_open else "["
        raise ObjectiveConfigError(f"{here}: {value}, expected a number in {bracket}{low}, {high}]")
    return float(value)


def _mapping(value, where: str, required: set[str] | None = None) -> Mapping:
    if not isinstance(value, Mapping):
        raise ObjectiveConfigError(f"{where or 'top level'}: expected a mapping, got {type(value).__name__}")
    if required is not None:
        unknown = sorted(set(map(str, value)) - required)
        missing = sorted(required - set(value))
        if unknown:
            raise ObjectiveConfigError(f"{where or 'top level'}: unknown key(s) {unknown}, "
                                       f"expected {sorted(required)}")
        if missing:
            raise ObjectiveConfigError(f"{where or 'top level'}: missing key(s) {missing}")
    return value


def _weights(value, where: str) -> dict[str, dict[str, float]]:
    weights: dict[str, dict[str, float]] = {}
    for manoeuvre, indices in _mapping(value, where).items():
        if manoeuvre not in index_functions:
            raise ObjectiveConfigError(f"{where}.{manoeuvre}: unknown manoeuvre, expected one of "
                                       f"{sorted(index_functions)}")
        here = f"{where}.{manoeuvre}"
        if not _mapping(indices, here):
            raise ObjectiveConfigError(f"{here}: empty, expected index: weight entries")
        for name in indices:
            if name not in index_functions[manoeuvre]:
                raise ObjectiveConfigError(f"{here}.{name}: unknown index, expected one of "
                                           f"{list(index_functions[manoeuvre])}")
        weights[manoeuvre] = {name: _number(indices, name, here, 0.0) for name in indices}
    if not any(w > 0 for ws in weights.values() for w in ws.values()):
        raise ObjectiveConfigError(f"{where}: expected at least one positive weight")
    return weights


@dataclass(frozen=True)
class Objective:
    """Eq. 9-10 with its weights, TP, PF and failure handling; ``references``: manoeuvre -> MBM trace."""

    weights: Mapping[str, Mapping[str, float]]
    tolerance_percent: float
    penalty_factor: float
    failure_value: float
    min_duration_fraction: float
    references: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    source: str = "<objective>"
    near_zero: Mapping[tuple[str, str], NearZeroRule] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, data, source: str = "<objective>",
                     references: Mapping[str, pd.DataFrame] | None = None) -> Objective:
        """Validate a parsed configuration strictly; errors name ``source`` and the key."""
        try:
            top = dict(_mapping(data, ""))
            near_zero = parse_near_zero(top.pop("near_zero"), "near_zero", ObjectiveConfigError) \
                if "near_zero" in top else {}
            top = _mapping(top, "", {"format", "tolerance_percent", "penalty_factor", "failure", "weights"})
            if top["format"] != FORMAT:
                raise ObjectiveConfigError(f"format: {top['format']!r}, expected '{FORMAT}'")
            failure = _mapping(top["failure"], "failure", {"value", "min_duration_fraction"})
            return cls(weights=_weights(top["weights"], "weights"),
                       tolerance_percent=_number(top, "tolerance_percent", "", 0.0),
                       penalty_factor=_number(top, "penalty_factor", "", 0.0),
                       failure_value=_number(failure, "value", "failure", 0.0, low_open=True),
                       min_duration_fraction=_number(failure, "min_duration_fraction", "failure", 0.0, 1.0,
                                                     low_open=True),
                       references=dict(references or {}), source=source, near_zero=near_zero)
        except ObjectiveConfigError as exc:
            raise ObjectiveConfigError(f"{source}: {exc}") from None

    @classmethod
    def from_yaml(cls, path: str | Path = DEFAULT_FILE,
                  references: Mapping[str, pd.DataFrame] | None = None) -> Objective:
        """Read and validate an objective YAML file (default: the shipped ``scenarios/objective.yaml``)."""
        return cls.from_mapping(read_yaml(path, ObjectiveConfigError), str(path), references)

    def restricted(self, manoeuvres: list[str]) -> Objective:
        """The objective over ``manoeuvres`` only (Eq. 9's N and M shrink with it); at least one positive
        weight must remain."""
        weights = {m: w for m, w in self.weights.items() if m in manoeuvres}
        if not any(w > 0 for ws in weights.values() for w in ws.values()):
            raise ObjectiveConfigError(f"{self.source}: no weighted manoeuvre left among {sorted(manoeuvres)}; "
                                       f"expected the data set to offer some of {sorted(self.weights)}")
        return dataclasses.replace(self, weights=weights,
                                   references={m: r for m, r in self.references.items() if m in weights})

    @property
    def active(self) -> tuple[list[str], list[str]]:
        """(index names j, manoeuvres k) with at least one positive weight: N and M of Eq. 9."""
        pairs = [(m, n) for m, ws in self.weights.items() for n, w in ws.items() if w > 0]
        return sorted({n for _, n in pairs}), sorted({m for m, _ in pairs})

    def _indices(self, manoeuvre: str, outcome) -> list[IndexResult]:
        names = list(self.weights[manoeuvre])
        if outcome is None:
            raise _Failure("no simulation result")
        if isinstance(outcome, BaseException):
            found = diverged(outcome)
            raise _Failure(str(found) if found else f"simulation raised {type(outcome).__name__}: {outcome}")
        if isinstance(outcome, pd.DataFrame):
            reference = self.references[manoeuvre]
            span = [_span(outcome), _span(reference)]
            if not span[0] >= self.min_duration_fraction * span[1]:
                raise _Failure(f"trace too short: {span[0]:.3g} s, expected at least "
                               f"{self.min_duration_fraction:g} x the reference's {span[1]:.3g} s")
            results = evaluate_indices(manoeuvre, outcome, reference, names)
        else:
            results = [r for r in outcome if r.name in names]
            missing = sorted(set(names) - {r.name for r in results})
            if missing:
                raise _Failure(f"index results lack {missing}")
        results = [self.scored(r) for r in results]
        bad = [r.name for r in results if not math.isfinite(r.value_percent)]
        if bad:
            raise _Failure(f"non-finite index values for {bad}")
        return results

    def scored(self, result: IndexResult) -> IndexResult:
        """``result`` scored by its near-zero rule when its reference value is below the rule's floor."""
        rule = self.near_zero.get((result.manoeuvre, result.name))
        return rule.score(result, self.tolerance_percent) if rule else result

    def fitness(self, results_by_manoeuvre: Mapping[str, object]) -> FitnessResult:
        """Eq. 9-10 over ``results_by_manoeuvre``: manoeuvre -> candidate trace (DataFrame, compared with
        ``references``), a list of ``IndexResult``, or the exception / None of a failed simulation."""
        without_reference = [m for m, o in results_by_manoeuvre.items()
                             if m in self.weights and isinstance(o, pd.DataFrame) and m not in self.references]
        if without_reference:
            raise ObjectiveConfigError(f"{self.source}: no reference traces for {without_reference}, "
                                       "expected them in Objective.references")
        ignored = sorted(set(results_by_manoeuvre) - set(self.weights))
        if ignored:
            log.warning("%s: results for %s ignored: no weights configured", self.source, ignored)
        scores: dict[tuple[str, str], IndexScore] = {}
        failed: dict[str, str] = {}
        for manoeuvre, weights in self.weights.items():
            try:
                results = self._indices(manoeuvre, results_by_manoeuvre.get(manoeuvre))
            except Exception as exc:  # a failed or diverged simulation costs the failure value, never raises
                failed[manoeuvre] = str(exc) if isinstance(exc, _Failure) else f"{type(exc).__name__}: {exc}"
                log.warning("%s: manoeuvre '%s' failed (%s); fitness = failure value %g",
                            self.source, manoeuvre, failed[manoeuvre], self.failure_value)
                continue
            for r in results:
                e = r.value_percent
                scores[(manoeuvre, r.name)] = IndexScore(
                    manoeuvre, r.name, weights[r.name], e,
                    corrected_error(e, self.tolerance_percent, self.penalty_factor), _sign(r))
        if failed:
            return FitnessResult(self.failure_value, scores, failed)
        index_names, manoeuvres = self.active
        total = sum(s.weight * s.corrected for s in scores.values())
        return FitnessResult(total / (len(index_names) * len(manoeuvres)), scores, failed)
