"""The report's figure of the recorded against the nominal driver inputs, where they differ.

A comparison run on the recorded inputs (``pybridge.simulate.recorded``) lists them per manoeuvre in
``comparison.yaml`` (``inputs``, with the max and RMS of recorded - nominal). For every manoeuvre where
some recorded input differs from the scenario's nominal one by more than ``DIFFERS`` (SI), one figure
shows both as the RTM is fed them (mid-step values) and their difference, so an index change can be
traced to the input.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from pybridge.report.html import Figure  # noqa: E402
from pybridge.simulate.manoeuvres import ManifestReferences  # noqa: E402
from pybridge.simulate.recorded import recorded_inputs  # noqa: E402
from pybridge.simulate.scenarios import OUTPUT_CHANNELS, load_scenario  # noqa: E402

__all__ = ["DIFFERS", "recorded_input_figures"]

DIFFERS = 1e-6  # SI (rad, pedal 0..1, m/s): below this the recorded input is the nominal one to round-off
DPI = 110
DISPLAY = {"rad": ("deg", 180.0 / np.pi)}


def _fed(scenario, name: str, times: np.ndarray, resolve) -> np.ndarray:
    """The input ``name`` (or the speed target) of ``scenario`` at ``times``."""
    if name == "speed":
        return scenario.speed_control.target_at(times)
    return scenario.signal(name, resolve)(times)


def _figure(manoeuvre: str, names: list[str], reference, resolve, path: Path) -> Path:
    nominal = load_scenario(manoeuvre)
    replayed = recorded_inputs(nominal, reference)
    times = replayed.time()[:-1] + 0.5 / replayed.sample_rate  # the mid-steps: what the RTM is fed
    fig, axes = plt.subplots(2, len(names), figsize=(4.2 * len(names) + 1.0, 4.6), squeeze=False, sharex=True)
    for k, name in enumerate(names):
        unit, factor = DISPLAY.get(OUTPUT_CHANNELS[name][0], (OUTPUT_CHANNELS[name][0], 1.0))
        recorded, nominal_values = _fed(replayed, name, times, None), _fed(nominal, name, times, resolve)
        axes[0, k].plot(times, nominal_values * factor, color="tab:blue", lw=1.2, ls="--", label="nominal (scenario)")
        axes[0, k].plot(times, recorded * factor, color="black", lw=1.0, label="recorded (reference)")
        axes[0, k].set_title(f"{name} [{unit}]", fontsize=9)
        axes[1, k].plot(times, (recorded - nominal_values) * factor, color="tab:red", lw=1.0)
        axes[1, k].set_ylabel(f"recorded - nominal [{unit}]", fontsize=8)
        axes[1, k].set_xlabel("time [s]")
        for ax in axes[:, k]:
            ax.grid(True, alpha=0.3)
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(f"{manoeuvre}: recorded vs nominal inputs", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def recorded_input_figures(comparison: dict, references: dict, out: Path) -> list[Figure]:
    """One figure per manoeuvre whose recorded inputs differ from the nominal ones (``comparison.yaml``)."""
    figures, resolve = [], None
    for manoeuvre, entry in comparison["manoeuvres"].items():
        names = [n for n, record in entry.get("inputs", {}).items() if record.get("max_difference", 0.0) > DIFFERS]
        if not names:
            continue
        if resolve is None:
            resolve = ManifestReferences(Path(comparison["reference"]) / "manifest.yaml")
        path = _figure(manoeuvre, names, references[manoeuvre], resolve, out / f"inputs_{manoeuvre}.png")
        largest = ", ".join(f"{n} {entry['inputs'][n]['max_difference']:.3g}" for n in names)
        figures.append(Figure(
            path, f"Line plots for {manoeuvre}: the nominal and the recorded {', '.join(names)} against time, "
                  "and their difference below.",
            f"{manoeuvre}: the RTM ran on the inputs the reference recorded, not on the scenario's nominal ones; "
            f"largest difference (SI, at the RTM's communication steps) {largest}."))
    return figures
