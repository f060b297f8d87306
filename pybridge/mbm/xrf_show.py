"""``pybridge mbm show FILE.res``: what a result file holds (every channel with its unit) and plots of some.

:func:`describe` lists each analysis (tool, version, kind, steps) and its channels as
``ENTITY.COMPONENT [unit]`` (the plot label where the file gives one); :func:`plot` draws channels
(SI) against time, or against the step number where an analysis has no ``time.TIME``.
"""
from __future__ import annotations

from pathlib import Path

from pybridge.mbm.xrf import TIME, XrfError, XrfResults

__all__ = ["describe", "plot"]


def describe(results: XrfResults) -> str:
    """Text listing of the file's analyses and channels."""
    lines = [f"{results.path}: {len(results.analyses)} analys{'is' if len(results.analyses) == 1 else 'es'}"]
    for analysis in results.analyses:
        lines.append(f"analysis {analysis.name}: {analysis.tool} {analysis.version}, {analysis.kind}, "
                     f"{analysis.steps} steps, {len(analysis.channels)} channels")
        for channel in sorted(analysis.channels.values(), key=lambda c: c.id):
            label = f"  ({channel.plot_label})" if channel.plot_label else ""
            lines.append(f"  {channel.source} [{channel.unit or 'no unit'}]{label}")
    return "\n".join(lines)


def plot(results: XrfResults, channels: list[str], path: str | Path) -> Path:
    """PNG of ``channels`` (read into ``results``) for every analysis that has them, one panel each."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    found = [(a, c) for c in channels for a in results.analyses if c in a.data]
    missing = [c for c in channels if not any(c in a.data for a in results.analyses)]
    if missing:
        raise XrfError(f"{results.path}: no channel {', '.join(missing)} — expected ENTITY.COMPONENT names "
                       "as listed by pybridge mbm show")
    fig, axes = plt.subplots(len(found), 1, figsize=(8, 2.6 * len(found)), squeeze=False)
    for ax, (analysis, channel) in zip(axes[:, 0], found):
        x = analysis.data.get(TIME)
        ax.plot(range(1, analysis.steps + 1) if x is None else x, analysis.data[channel])
        ax.set_xlabel("step" if x is None else "time [s]")
        ax.set_ylabel(f"{channel.rsplit('.', 1)[-1]} [{analysis.data_units[channel]}]")
        ax.set_title(f"{analysis.name}: {channel}", fontsize=9)
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
