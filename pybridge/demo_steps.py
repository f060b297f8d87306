"""Which of the demo's steps a data set has the data for: a step without them is skipped, not failed.

A demo step that needs traces the data set does not offer raises :class:`StepSkipped` with the reason;
the demo logs it in one line, records it in ``run.yaml`` (the step's ``skipped``, and ``skipped_steps``:
step or part -> reason) and goes on, and the report's verdict names what was skipped and why. A step
that can run in part (one corner of two, the corners without the four-post traces) returns the parts it
left out under ``skipped`` in its summary. A data set offers a trace when its ``manifest.yaml`` lists it
under ``traces`` (a manifest without that section: any trace file) and the file ``traces/NAME.csv[.gz]``
exists, as for the manoeuvres (``pybridge.coverage``).
"""
from __future__ import annotations

from pathlib import Path

from pybridge.fileio import read_yaml
from pybridge.traces import find_trace

__all__ = ["CORNERS", "FOUR_POST_TESTS", "StepSkipped", "corner_parts", "trace_missing"]

CORNERS = ("FL", "RL")                                  # the demo's SLEKQ corners: one per axle
FOUR_POST_TESTS = ("four_post_heave", "four_post_pitch")
FOUR_POST_CHECK = "four-post check"


class StepSkipped(Exception):
    """A demo step that the data set gives no data for; the message says which and why."""


def trace_missing(reference_dir: str | Path, name: str) -> str | None:
    """Why the data set has no usable trace ``name`` (None when it has one)."""
    manifest = Path(reference_dir) / "manifest.yaml"
    data = read_yaml(manifest, ValueError) if manifest.is_file() else None
    listed = data.get("traces") if isinstance(data, dict) else None
    if isinstance(listed, dict) and name not in listed:
        return f"no trace {name} among the traces of {manifest}"
    try:
        find_trace(reference_dir, name)
    except FileNotFoundError:
        return f"no trace {Path(reference_dir) / 'traces' / name}.csv[.gz]"
    return None


def corner_parts(reference_dir: str | Path) -> tuple[list[str], dict[str, str]]:
    """(the corners the data set has sweeps for, part -> why it is skipped). The four-post check needs a front
    and a rear corner and both four-post traces. :class:`StepSkipped` when no corner can run."""
    skipped = {}
    for corner in CORNERS:
        why = trace_missing(reference_dir, f"corner_force_sweep_{corner}")
        if why:
            skipped[f"{corner} corner"] = why
    corners = [c for c in CORNERS if f"{c} corner" not in skipped]
    if not corners:
        raise StepSkipped("; ".join(skipped.values()))
    missing = [why for why in (trace_missing(reference_dir, t) for t in FOUR_POST_TESTS) if why]
    if len(corners) < len(CORNERS):
        missing.insert(0, "it needs a front and a rear corner")
    if missing:
        skipped[FOUR_POST_CHECK] = "; ".join(missing)
    return corners, skipped
