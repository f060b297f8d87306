"""Each objective index as a residual vector whose norm is the index's error e (%), for the identifiability.

A curve index is 100 RMSE(candidate, reference) / scale over n samples (``pybridge.evaluate.kpi``), so it is
the norm of the vector (candidate - reference) * e / |candidate - reference| (that factor is 100 / (sqrt(n)
scale), the same at every point); a scalar index (a gain, an overshoot, a time, also when the near-zero rule
scores it) is the one-element vector sign * e, sign that of candidate - reference (+1 when it has none).
``IndexResiduals(problem)`` evaluates like ``VehicleProblem.evaluate`` and adds these vectors, keyed
'manoeuvre/index', rounded to ``DIGITS`` significant digits for the run record.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pybridge.evaluate.kpi import IndexResult, evaluate_indices
from pybridge.evaluate.objective import FitnessResult

__all__ = ["DIGITS", "IndexResiduals", "ResidualResult", "residual_vector"]

DIGITS = 7


def residual_vector(result: IndexResult) -> np.ndarray:
    """The vector whose norm is ``result.value_percent`` (module docstring)."""
    error = float(result.value_percent)
    if result.reference_value is not None:
        difference = (result.candidate_value or 0.0) - result.reference_value
        return np.array([-error if difference < 0 else error])
    difference = np.asarray(result.candidate_curve, float) - np.asarray(result.reference_curve, float)
    norm = float(np.linalg.norm(difference))
    return difference * (error / norm) if norm > 0 else difference


@dataclass(frozen=True)
class ResidualResult(FitnessResult):
    """A ``FitnessResult`` with each weighted index's residual vector (lists, for the run record)."""
    residuals: dict[str, list[float]] | None = None


def _rounded(vector: np.ndarray) -> list[float]:
    return [float(f"{v:.{DIGITS}g}") for v in vector]


class IndexResiduals:
    """``evaluate(values)`` of a ``VehicleProblem`` that also returns the residual vectors; pickles with it."""

    def __init__(self, problem, lanes: int = 1):
        self.problem, self.lanes = problem, lanes

    def __call__(self, values: dict[str, float]) -> ResidualResult:
        return self._scored(*self.problem.simulate(values))

    def batch(self, items: list[dict[str, float]]) -> list:
        """Each point's outcome (its exception where it raised), the manoeuvres run on ``lanes`` lanes
        (pybridge.identify.lane_batch; executor.map_batched hands the chunks out)."""
        from pybridge.identify.lane_batch import LaneObjective

        return LaneObjective(self.problem, lanes=self.lanes).scored(items, self, self._scored)

    def _scored(self, objective, traces: dict) -> ResidualResult:
        result = objective.fitness(traces)
        residuals = None
        if not result.failed:
            residuals = {}
            for manoeuvre, weights in objective.weights.items():
                names = [n for n, w in weights.items() if w > 0]
                for index in evaluate_indices(manoeuvre, traces[manoeuvre], objective.references[manoeuvre], names):
                    scored = objective.scored(index)
                    residuals[f"{manoeuvre}/{index.name}"] = _rounded(residual_vector(scored))
        return ResidualResult(result.value, result.per_index, result.failed, residuals)

