"""Run the Examples harnesses of the Modelica library (or a user's harness on the Modelica path) with rumoca
and save traces and plots."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fmu_build.modelica import find_class, library_classes, simulate_example

EXAMPLES_PACKAGE = "VehicleRTM.Examples"
# Channels plotted for each example, when the result has them (first match per panel wins).
PLOT_PANELS = [
    ("vehicle.steeringWheelAngle", "steering-wheel angle [deg]", np.degrees),
    ("vehicle.yawRate", "yaw rate [deg/s]", np.degrees),
    ("vehicle.ay", "lateral acceleration [m/s2]", None),
    ("vehicle.ax", "longitudinal acceleration [m/s2]", None),
    ("vehicle.roll", "roll [deg]", np.degrees),
    ("vehicle.pitch", "pitch [deg]", np.degrees),
    ("vehicle.speed", "speed [km/h]", lambda v: 3.6 * v),
    ("vehicle.sideslip", "sideslip [deg]", np.degrees),
]


@dataclass
class ExampleRun:
    """The traces of one example: time and the named channels, plus the wall time it took."""

    name: str
    time: np.ndarray
    channels: dict[str, np.ndarray]
    wall_time: float


def example_names() -> list[str]:
    """Full names of the Examples harnesses, in package order."""
    return [c.name for c in library_classes() if c.name.startswith(EXAMPLES_PACKAGE + ".") and c.kind == "model"]


def user_classes(names: list[str]) -> list[str]:
    """The full names of classes on the Modelica path (a user's harnesses), checked to exist."""
    return [find_class(name).name for name in names]


def run_example(name: str) -> ExampleRun:
    """Simulate one example over its experiment annotation."""
    import time

    start = time.perf_counter()
    result = simulate_example(name)
    channels = {n: np.asarray(result[n], dtype=float) for n in result.names}
    return ExampleRun(name, np.asarray(result.time, dtype=float), channels, time.perf_counter() - start)


def save_run(run: ExampleRun, out_dir: Path) -> tuple[Path, Path | None]:
    """Write the traces as CSV and a PNG of the main channels; return both paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    out_dir.mkdir(parents=True, exist_ok=True)
    short = run.name.rsplit(".", 1)[-1]
    csv_path = out_dir / f"{short}.csv"
    pd.DataFrame({"time": run.time, **run.channels}).to_csv(csv_path, index=False)
    panels = [(ch, label, f) for ch, label, f in PLOT_PANELS if ch in run.channels]
    if not panels:
        numeric = [n for n in run.channels if np.ptp(run.channels[n]) > 0][:6]
        panels = [(n, n, None) for n in numeric]
    if not panels:
        return csv_path, None
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 1.8 * len(panels)), sharex=True)
    for ax, (channel, label, convert) in zip(np.atleast_1d(axes), panels):
        values = run.channels[channel]
        ax.plot(run.time, convert(values) if convert else values)
        ax.set_ylabel(label, fontsize=8)
        ax.grid(True, alpha=0.3)
    np.atleast_1d(axes)[-1].set_xlabel("time [s]")
    fig.suptitle(short)
    fig.tight_layout()
    png_path = out_dir / f"{short}.png"
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return csv_path, png_path
