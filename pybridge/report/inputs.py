"""The report's figure of the recorded against the nominal driver inputs, where they differ.

A comparison run on the recorded inputs (``pybridge.simulate.recorded``) lists them per manoeuvre in
``comparison.yaml`` (``inputs``, with the max and RMS of recorded - nominal). One figure shows, for every
manoeuvre and input where the recorded one differs from the scenario's nominal one by more than
``DIFFERS`` (SI), both as the RTM is fed them (mid-step values) and their difference, so an index
change can be traced to the input.
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


def _figure(rows: list[tuple[str, str]], references: dict, resolve, path: Path) -> Path:
    """One row per (manoeuvre, input): nominal and recorded as fed to the RTM, and their difference."""
    fig, axes = plt.subplots(len(rows), 2, figsize=(10.0, 1.9 * len(rows) + 0.8), squeeze=False)
    replayed = {}
    for k, (manoeuvre, name) in enumerate(rows):
        nominal = load_scenario(manoeuvre)
        if manoeuvre not in replayed:
            replayed[manoeuvre] = recorded_inputs(nominal, references[manoeuvre])
        scenario = replayed[manoeuvre]
        times = scenario.time()[:-1] + 0.5 / scenario.sample_rate  # the mid-steps: what the RTM is fed
        unit, factor = DISPLAY.get(OUTPUT_CHANNELS[name][0], (OUTPUT_CHANNELS[name][0], 1.0))
        recorded, nominal_values = _fed(scenario, name, times, None), _fed(nominal, name, times, resolve)
        axes[k, 0].plot(times, nominal_values * factor, color="tab:blue", lw=1.2, ls="--", label="nominal (scenario)")
        axes[k, 0].plot(times, recorded * factor, color="black", lw=1.0, label="recorded (reference)")
        axes[k, 0].set_ylabel(f"{manoeuvre}\n{name} [{unit}]", fontsize=8)
        axes[k, 1].plot(times, (recorded - nominal_values) * factor, color="tab:red", lw=1.0)
        axes[k, 1].set_ylabel(f"recorded - nominal [{unit}]", fontsize=8)
        for ax in axes[k]:
            ax.grid(True, alpha=0.3)
    axes[0, 0].legend(fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    fig.suptitle("Recorded vs nominal inputs, as the RTM is fed them", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def recorded_input_figures(comparison: dict, references: dict, out: Path) -> list[Figure]:
    """The figure of every (manoeuvre, input) whose recorded input differs from the nominal one
    (``comparison.yaml``); no figure when none does."""
    rows = [(m, n) for m, entry in comparison["manoeuvres"].items() for n, record in entry.get("inputs", {}).items()
            if record.get("max_difference", 0.0) > DIFFERS]
    if not rows:
        return []
    resolve = ManifestReferences(Path(comparison["reference"]) / "manifest.yaml")
    path = _figure(rows, references, resolve, out / "recorded_inputs.png")
    largest = "; ".join(f"{m} {n} {comparison['manoeuvres'][m]['inputs'][n]['max_difference']:.3g}" for m, n in rows)
    return [Figure(path, f"Line plots, one row per manoeuvre and input ({len(rows)}): the nominal and the recorded "
                         "input against time, and their difference on the right.",
                   "The RTM ran on the inputs the reference recorded, not on the scenarios' nominal ones; where they "
                   f"differ, both as the RTM is fed them (mid-step values). Largest difference (SI): {largest}.")]
