"""``pybridge observe LOG --params SET -o RUN``: the state observer and its baselines on a vehicle log.

Writes into RUN: ``estimates.csv`` (per log sample: sideslip, lateral tyre force per axle and road
friction with their standard deviations, the IMU biases, and the baselines' sideslip), ``summary.yaml``
(settings, cost per update, and where the log carries the truth, the errors of the observer and of
both baselines) and ``observe.png`` (estimates against the truth). Every file is written atomically.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from pybridge.fileio import write_text_atomically
from pybridge.onboard.baselines import bicycle_kf, bicycle_parameters, kinematic_sideslip
from pybridge.onboard.observer import ObserverSettings, run_observer
from pybridge.onboard.sensors import read_log
from pybridge.parameters import read_parameter_set
from pybridge.runinfo import cpu_name

__all__ = ["EXCITATION_AY", "observe", "score"]

EXCITATION_AY = 1.0   # m/s^2: the log's |ay| from which the manoeuvre counts as exciting the tyres
SETTLE = 3.0          # s of excitation after which the friction estimate is judged


def score(log: pd.DataFrame, estimates: pd.DataFrame) -> dict:
    """Errors against the log's truth channels (those it carries): RMS and max, sideslip in deg."""
    truth = log.set_index("time").reindex(estimates["time"], method="nearest")
    result = {}
    if "true_sideslip" in truth:
        for name in ("sideslip", "sideslip_bicycle_kf", "sideslip_kinematic"):
            error = np.degrees(estimates[name].to_numpy() - truth["true_sideslip"].to_numpy())
            result[f"{name}_rms_error_deg"] = float(np.sqrt(np.mean(error ** 2)))
            result[f"{name}_max_error_deg"] = float(np.max(np.abs(error)))
        result["sideslip_true_rms_deg"] = float(np.degrees(np.sqrt(np.mean(truth["true_sideslip"] ** 2))))
    for axle in ("front", "rear"):
        if f"true_fy_{axle}" in truth:
            error = estimates[f"fy_{axle}"].to_numpy() - truth[f"true_fy_{axle}"].to_numpy()
            result[f"fy_{axle}_rms_error_N"] = float(np.sqrt(np.mean(error ** 2)))
            result[f"fy_{axle}_true_rms_N"] = float(np.sqrt(np.mean(truth[f"true_fy_{axle}"] ** 2)))
    if "true_mu" in truth:
        result.update(_friction_score(log, estimates, truth))
    return result


def _friction_score(log: pd.DataFrame, estimates: pd.DataFrame, truth: pd.DataFrame) -> dict:
    excited = np.flatnonzero(np.abs(log["ay"].to_numpy()) > EXCITATION_AY)
    if excited.size == 0:
        return {"mu_judged_from_s": None}
    start = float(log["time"].iloc[excited[0]]) + SETTLE
    window = estimates["time"].to_numpy() >= start
    if not window.any():
        return {"mu_judged_from_s": None}
    error = estimates["mu"].to_numpy()[window] - truth["true_mu"].to_numpy()[window]
    return {"mu_judged_from_s": start, "mu_max_error": float(np.max(np.abs(error))),
            "mu_rms_error": float(np.sqrt(np.mean(error ** 2))), "mu_final": float(estimates["mu"].iloc[-1]),
            "mu_true": float(truth["true_mu"].iloc[-1])}


def observe(log_path: str | Path, params_path: str | Path, out_dir: str | Path, fmu: str | Path,
            settings: ObserverSettings | None = None) -> dict:
    """Run the observer and the baselines on a log; write RUN's files; returns the summary."""
    log, metadata = read_log(log_path)
    params = read_parameter_set(params_path)
    settings = settings or ObserverSettings()
    timer: list[float] = []
    estimates = run_observer(log, fmu, params, settings, timer=timer, where=str(log_path))
    bicycle = bicycle_parameters(fmu, params, speed=float(log["gps_speed"].iloc[0]))
    at = log["time"].searchsorted(estimates["time"])
    estimates["sideslip_bicycle_kf"] = bicycle_kf(log, bicycle)[at]
    estimates["sideslip_kinematic"] = kinematic_sideslip(log, bicycle.radius)[at]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomically(out / "estimates.csv", estimates.to_csv(index=False, float_format="%.9g"))
    cost = np.array(timer) * 1e6
    summary = {"log": str(log_path), "manoeuvre": metadata.get("manoeuvre"), "params": str(params_path),
               "fmu": str(fmu), "samples": len(log), "settings": dataclasses.asdict(settings),
               "bicycle_parameters": {k: float(v) for k, v in dataclasses.asdict(bicycle).items()},
               "cost_per_update_us": {"median": float(np.median(cost)), "p99.9": float(np.percentile(cost, 99.9)),
                                      "max": float(cost.max()), "clock": "thread CPU time",
                                      "cpu": cpu_name(), "load": os.getloadavg()[0]},
               "errors": score(log, estimates)}
    write_text_atomically(out / "summary.yaml", yaml.safe_dump(summary, sort_keys=False))
    _figure(log, estimates, out / "observe.png")
    return summary


def _figure(log: pd.DataFrame, estimates: pd.DataFrame, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    t = estimates["time"]
    ax = axes[0]
    if "true_sideslip" in log:
        ax.plot(log["time"], np.degrees(log["true_sideslip"]), "k", lw=2, label="truth")
    ax.plot(t, np.degrees(estimates["sideslip"]), label="observer (UKF on the RTM)")
    ax.fill_between(t, np.degrees(estimates["sideslip"] - 2 * estimates["sideslip_sd"]),
                    np.degrees(estimates["sideslip"] + 2 * estimates["sideslip_sd"]), alpha=0.3)
    ax.plot(t, np.degrees(estimates["sideslip_bicycle_kf"]), "--", label="linear bicycle KF")
    ax.set_ylabel("sideslip [deg]")
    ax.legend(fontsize=8)
    for axle, style in (("front", "-"), ("rear", "-.")):
        if f"true_fy_{axle}" in log:
            axes[1].plot(log["time"], log[f"true_fy_{axle}"] / 1e3, "k" + style, lw=2, label=f"{axle} truth")
        axes[1].plot(t, estimates[f"fy_{axle}"] / 1e3, style, label=f"{axle} observer")
    axes[1].set_ylabel("axle lateral force [kN]")
    axes[1].legend(fontsize=8)
    if "true_mu" in log:
        axes[2].plot(log["time"], log["true_mu"], "k", lw=2, label="truth")
    axes[2].plot(t, estimates["mu"], label="observer")
    axes[2].fill_between(t, estimates["mu"] - 2 * estimates["mu_sd"], estimates["mu"] + 2 * estimates["mu_sd"],
                         alpha=0.3)
    axes[2].set_ylabel("road friction [1]")
    axes[2].set_xlabel("time [s]")
    axes[2].legend(fontsize=8)
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    tmp.replace(path)
