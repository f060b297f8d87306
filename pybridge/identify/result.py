"""The result every identification method returns (the same fields for all, as in SciPy's optimize)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["IdentificationResult"]


@dataclass
class IdentificationResult:
    """Outcome of one identification run.

    ``parameters`` is the best point in physical units; ``history`` has one dict per iteration with at
    least ``iteration``, ``evaluations``, ``fitness`` (best so far), ``mesh`` and ``time`` (s since the
    start); ``extra`` holds what only one method knows.
    """

    method: str
    parameters: dict[str, float]
    fitness: float
    evaluations: int
    iterations: int
    history: list[dict] = field(default_factory=list)
    stopped_because: str = ""
    wall_time: float = 0.0
    record_path: Path | None = None
    extra: dict = field(default_factory=dict)
