"""Figures of an identification run (from its ``result.yaml``), as the LCV paper draws them."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot_parameter_changes(summary: dict, path: str | Path) -> Path:
    """Optimized parameters in % of nominal, with the search bounds (LCV paper, Figure 13)."""
    params = summary["parameters"]
    names = list(params)
    change = [p["change_percent"] for p in params.values()]
    lower = [100 * (p["lower"] / p["nominal"] - 1) for p in params.values()]
    upper = [100 * (p["upper"] / p["nominal"] - 1) for p in params.values()]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(names) + 1.5))
    y = range(len(names))
    ax.barh(y, change, color=["tab:red" if c < 0 else "tab:blue" for c in change])
    for i, (lo, hi) in enumerate(zip(lower, upper)):
        ax.plot([min(lo, hi), max(lo, hi)], [i, i], "|", color="grey", markersize=12)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(list(y), names)
    ax.invert_yaxis()
    ax.set_xlabel("change from the converted (nominal) value [%]  (| = search bounds)")
    ax.set_title("Identified parameters (LCV paper, Fig. 13)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)


def plot_index_errors(summary: dict, path: str | Path, tolerance: float = 5.0) -> Path:
    """Error of every weighted index, nominal vs optimized, with the TP line (LCV paper, Figs. 14, 16, 18)."""
    nominal, optimized = summary["nominal"]["indices"], summary["optimized"]["indices"]
    names = [n for n, v in nominal.items() if v["weight"] > 0 and n in optimized]
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(names) + 1.5))
    y = list(range(len(names)))
    ax.barh([i - 0.2 for i in y], [nominal[n]["error_percent"] for n in names], height=0.4, label="nominal")
    ax.barh([i + 0.2 for i in y], [optimized[n]["error_percent"] for n in names], height=0.4, label="optimized")
    ax.axvline(tolerance, color="tab:red", linestyle="--", label=f"TP = {tolerance:g} %")
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlabel("index error e [%] (RMSE normalised, Tables 1-2)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)


def plot_convergence(summary: dict, path: str | Path) -> Path:
    """Best fitness over evaluations."""
    history = summary["history"]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([h["evaluations"] for h in history], [h["fitness"] for h in history], marker=".")
    ax.set_xlabel("evaluations")
    ax.set_ylabel("fitness (Eq. 9)")
    ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
