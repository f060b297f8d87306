"""The figure of a replay: per channel the log's measurement and the RTM driven by the log's inputs, with
the index error in each panel's title, on the report's panel grid (:func:`pybridge.report.figures.panel_axes`)."""
from __future__ import annotations

from pathlib import Path

from pybridge.report.figures import _channel_unit, _save, _title_and_legend, panel_axes

__all__ = ["draw_replay"]


def draw_replay(result, path: str | Path) -> Path:
    """``path`` (PNG): every channel of ``result`` (a :class:`pybridge.onboard.replay.ReplayResult`) that
    the log has, measured vs RTM, against time."""
    channels = [c for c in result.rtm.columns if c != "time" and c in result.measured]
    fig, axes = panel_axes(max(len(channels), 1), row_height=2.6)
    for ax, channel in zip(axes, channels):
        unit, factor = _channel_unit(channel)
        ax.plot(result.measured["time"], result.measured[channel] * factor, color="black", lw=1.5, label="log")
        ax.plot(result.rtm["time"], result.rtm[channel] * factor, color="C0", lw=1.0, label="RTM on the log's inputs")
        error = result.indices.get(channel)
        ax.set_title(channel + (f": index error {error:.2f} %" if error is not None else ""), fontsize=8.5, loc="left")
        ax.set_ylabel(f"{channel} [{unit}]", fontsize=8)
        ax.set_xlabel("time [s]", fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.3)
    _title_and_legend(fig, axes[0], f"replay of {Path(result.log).name} ({result.inputs.mode} inputs)")
    return _save(fig, Path(path))
