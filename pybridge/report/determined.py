"""The report's section "What the data determine": result.yaml's ``identifiability`` (and ``posterior``)
in words, the intervals as a table, the correlation matrix as a figure, the posterior's corner plot.

A lower fitness is not success by itself: where the count of objective indices within TP did not
improve although the fitness fell, the section says so and names the indices that got worse.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from pybridge.report.html import Figure, escape, figure_html, fmt_number, html_table  # noqa: E402
from pybridge.report.run_folder import Run  # noqa: E402

__all__ = ["CHAIN_FILE", "determined_figures", "determined_section"]

CHAIN_FILE = Path("posterior") / "chain.npz"


def _correlation_figure(section: dict, path: Path) -> Path:
    names = list(section["parameters"])
    matrix = np.array([[section["correlation"][a][b] for b in names] for a in names])
    fig, ax = plt.subplots(figsize=(1.3 * len(names) + 3, 1.1 * len(names) + 2))
    image = ax.imshow(matrix, vmin=-1, vmax=1, cmap="RdBu_r")
    for i in range(len(names)):
        for j in range(len(names)):
            ax.text(j, i, f"{matrix[i, j]:+.2f}", ha="center", va="center",
                    color="white" if abs(matrix[i, j]) > 0.6 else "black")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    fig.colorbar(image, ax=ax, label="correlation r")
    ax.set_title("Correlation of the identified parameters")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _corner_figure(chain_file: Path, path: Path) -> Path:
    """Pairwise scatter and marginal histograms of the posterior samples (after burn-in, thinned)."""
    data = np.load(chain_file)
    names, samples = [str(n) for n in data["names"]], data["samples"]
    n = len(names)
    fig, axes = plt.subplots(n, n, figsize=(2.2 * n + 1, 2.2 * n + 1), squeeze=False)
    for i in range(n):
        for j in range(n):
            ax = axes[i, j]
            if j > i:
                ax.axis("off")
            elif i == j:
                ax.hist(samples[:, i], bins=30, color="tab:blue")
                ax.set_yticks([])
            else:
                ax.plot(samples[:, j], samples[:, i], ".", markersize=1.5, alpha=0.4, color="tab:blue")
            if i == n - 1:
                ax.set_xlabel(names[j], fontsize=8)
            if j == 0 and i > 0:
                ax.set_ylabel(names[i], fontsize=8)
    fig.suptitle("Posterior samples (emcee): marginals and pairs")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def determined_figures(run: Run, out: Path) -> list[Figure]:
    """The section's figures: the correlation matrix, and the corner plot when the run has a posterior."""
    section = run.summary.get("identifiability") or {}
    figures = []
    if "correlation" in section:
        figures.append(Figure(
            _correlation_figure(section, out / "correlation.png"),
            "Matrix of the correlation coefficients between the identified parameters, red positive, blue negative.",
            "Correlation of the identified parameters (linearised residuals at the optimum): |r| near 1 means the data "
            "cannot separate the pair."))
    chain = run.folder / CHAIN_FILE
    if chain.is_file():
        figures.append(Figure(
            _corner_figure(chain, out / "posterior_corner.png"),
            "Corner plot: histograms of each parameter's posterior samples and scatter plots of every pair.",
            "Posterior of the identified parameters (emcee, the fitness as likelihood): marginals and pairs."))
    return figures


def _count_statement(run: Run, section: dict) -> str:
    counts = section.get("within_tp")
    if not counts:
        return ""
    fell = run.summary["optimized"]["fitness"] < run.summary["nominal"]["fitness"]
    text = (f"Objective indices within TP = {counts['tolerance_percent']:g} %: {counts['nominal']}/{counts['of']} "
            f"nominal, {counts['optimized']}/{counts['of']} optimized.")
    if fell and counts["optimized"] <= counts["nominal"]:
        left = ", ".join(f"{k} ({a:.2f} % -> {b:.2f} %)" for k, (a, b) in counts["left_tp"].items())
        worse = ", ".join(f"{k} ({a:.2f} % -> {b:.2f} %)" for k, (a, b) in counts["worse"].items())
        text += (" The fitness fell, but the count within TP did not improve"
                 + (f": {left} left the tolerance" if left else "")
                 + (f". Indices that got worse: {worse}" if worse else "") + ". The lower fitness comes from "
                 "trading these indices against others, not from a better model.")
    return f"<p><strong>{escape(text)}</strong></p>"


def _interval_rows(run: Run, section: dict) -> list[list[str]]:
    posterior = (run.summary.get("posterior") or {}).get("parameters", {})
    rows = []
    for name, p in section["parameters"].items():
        low, high = p["lower_95"], p["upper_95"]
        flags = ", ".join(f["flag"] + (f" ({f['partner']})" if "partner" in f else "") for f in p["flags"]) or "–"
        mcmc = posterior.get(name)
        rows.append([name, fmt_number(p["value"]), "–" if low is None else fmt_number(low),
                     "–" if high is None else fmt_number(high),
                     f"{fmt_number(mcmc['lower_95'])} … {fmt_number(mcmc['upper_95'])}" if mcmc else "–", flags])
    return rows


def determined_section(run: Run, figures: list[Figure]) -> str | None:
    """Section 4.1; None when result.yaml has no ``identifiability`` (a run from before it existed)."""
    section = run.summary.get("identifiability")
    if not section:
        return None
    if "error" in section:
        return (f'<section id="determined"><h2>4.1 What the data determine</h2><p>The analysis did not finish: '
                f'{escape(section["error"])}</p></section>')
    reasons, pairs = [], set()
    for name, p in section["parameters"].items():
        for flag in p["flags"]:
            pair = frozenset((name, flag.get("partner")))
            if flag["flag"] != "correlated" or pair not in pairs:
                pairs.add(pair)
                reasons.append(f"<li>{escape(flag['reason'])}</li>")
    posterior = run.summary.get("posterior")
    note = ""
    if posterior:
        note = (f"<p>Posterior (emcee): {posterior['evaluations']} evaluations in {posterior['minutes']:.1f} min, "
                f"acceptance fraction {posterior['acceptance_fraction']:.2f}, autocorrelation time "
                f"{fmt_number(posterior['autocorrelation_time'])} steps; {escape(posterior['convergence'])}.</p>")
    singular = ", ".join(f"{s:.3g}" for s in section["singular_values"])
    return f"""<section id="determined">
<h2>4.1 What the data determine</h2>
<p>Each index's residual vector linearised (Gauss-Newton) from the optimum and two points {section['step']:g} of
the range apart along each parameter ({section['evaluations']} new evaluations, the rest from the analysis's
record); the fitness of the linearised residuals, norms and Eq. 10 kept, sampled as the posterior's likelihood
over the box without further simulations: singular values of its curvature at the optimum {escape(singular)},
condition number {fmt_number(section['condition_number'])}; residual variance
{fmt_number(section['residual_variance'])} with {section['degrees_of_freedom']} degrees of freedom. 95 %
intervals (marginal percentiles):</p>
{html_table(['parameter', 'identified', 'lower 95 %', 'upper 95 %', 'posterior 95 %', 'flags'],
            _interval_rows(run, section))}
{_count_statement(run, section)}
<ul>{''.join(reasons) or '<li>No flags: every parameter is determined within its range.</li>'}</ul>
{note}
{''.join(figure_html(f) for f in figures)}
</section>"""
