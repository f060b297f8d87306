"""Indices whose reference value is near zero: scored by an absolute difference with its own tolerance.

A relative error explodes when the reference value is small: an ISO 7401 overshoot of 1.22 % in the
MBM against 2.34 % in the RTM is a 91 % error, although the two responses are alike. The objective
(``scenarios/objective.yaml``, key ``near_zero``) names such indices with a floor and a tolerance, both in
the unit of the characteristic the index compares (overshoot: %, times: s, gains: SI)::

    near_zero:
      step_steer:
        ay_overshoot: {floor: 10.0, tolerance: 1.0}

When the reference value's magnitude is below ``floor``, the index is scored by the absolute difference
|candidate - reference| against ``tolerance`` instead of the relative error. So that Eq. 9-10 keep one TP,
the difference is expressed on the TP scale: e = TP * |difference| / tolerance, within TP exactly when the
difference is within its tolerance. (``tolerance = floor * TP / 100`` would make e continuous as the reference
crosses the floor; the shipped objective allows more, see its comments.) At or above the floor the relative
error stays. Only scalar indices (``IndexResult.reference_value`` set: the step steer's gains, overshoots,
peak and response times) can have the rule.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

from pybridge.evaluate.kpi import IndexResult, index_functions

__all__ = ["ABSOLUTE", "NearZeroRule", "parse_near_zero"]

ABSOLUTE = "absolute"


@dataclass(frozen=True)
class NearZeroRule:
    """Below ``floor`` (magnitude of the reference value) the index is |difference| against ``tolerance``."""

    floor: float
    tolerance: float

    def applies(self, result: IndexResult) -> bool:
        """Whether ``result``'s reference value is near zero (below the floor)."""
        return result.reference_value is not None and abs(result.reference_value) < self.floor

    def score(self, result: IndexResult, tolerance_percent: float) -> IndexResult:
        """``result`` with its error on the TP scale from the absolute difference, when the rule applies."""
        if not self.applies(result):
            return result
        difference = abs(result.candidate_value - result.reference_value)
        if math.isnan(difference):   # a peak time that one trace lacks: as the relative rule, the full error
            return result
        return dataclasses.replace(result, value_percent=tolerance_percent * difference / self.tolerance)

    def describe(self, result: IndexResult) -> dict:
        """What comparison.yaml records of an index scored by this rule."""
        return {"rule": ABSOLUTE, "reference_value": round(float(result.reference_value), 4),
                "floor": self.floor, "tolerance": self.tolerance}


def _positive(value, where: str, error: type[Exception]) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise error(f"{where}: {value!r}, expected a positive number")
    return float(value)


def parse_near_zero(value, where: str, error: type[Exception]) -> dict[tuple[str, str], NearZeroRule]:
    """The ``near_zero`` section: manoeuvre -> index -> {floor, tolerance}; ``error`` names ``where`` and the key."""
    if not isinstance(value, Mapping):
        raise error(f"{where}: expected a mapping manoeuvre -> index -> {{floor, tolerance}}")
    rules = {}
    for manoeuvre, indices in value.items():
        if manoeuvre not in index_functions or not isinstance(indices, Mapping):
            raise error(f"{where}.{manoeuvre}: expected a manoeuvre of pybridge.evaluate.kpi with a mapping of "
                        f"indices (one of {sorted(index_functions)})")
        for name, entry in indices.items():
            here = f"{where}.{manoeuvre}.{name}"
            function = index_functions[manoeuvre].get(name)
            if function is None or function.keywords.get("metric") in (None, "trace"):
                scalar = [n for n, f in index_functions[manoeuvre].items() if f.keywords.get("metric") not in
                          (None, "trace")]
                raise error(f"{here}: not a scalar index; expected one of {scalar or 'none for ' + manoeuvre}")
            if not isinstance(entry, Mapping) or set(entry) != {"floor", "tolerance"}:
                raise error(f"{here}: expected {{floor: NUMBER, tolerance: NUMBER}}")
            rules[(manoeuvre, name)] = NearZeroRule(_positive(entry["floor"], f"{here}.floor", error),
                                                    _positive(entry["tolerance"], f"{here}.tolerance", error))
    return rules
