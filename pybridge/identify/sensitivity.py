"""Sensitivity analysis before identification (LCV paper, step (c) of Fig. 1; LMS paper, Latin hypercube DOE).

``evaluate`` maps parameter values to index values (e.g. the per-index errors of the fitness); the
analysis samples the bounds with SALib, ranks the parameters per index and overall, and ``propose``
gives the tunable parameters and their ranges for the optimization.

Methods and their importance measure (``table["importance"]``):

- ``morris``: elementary effects on a ``levels``-level grid, ``n`` trajectories; mu* (and sigma).
- ``sobol``: Saltelli sampling, ``n`` base samples (a power of 2); first-order S1 and total ST.
- ``lhs``: Latin hypercube of ``n`` points; Spearman rank correlation rho, importance |rho|.

``relative`` (0..1) is mu* over the largest mu* of the same index (morris), ST (sobol, a fraction
of the variance) or |rho| where its p-value is below ``alpha`` and 0 elsewhere (lhs); a parameter's
overall score is its largest ``relative`` over the indices.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["METHODS", "SensitivityError", "SensitivityFailed", "SensitivityResult", "plot_sensitivity", "sensitivity_analysis"]

METHODS = ("morris", "sobol", "lhs")
_PLOT_COLUMNS = {"morris": ("mu_star", "sigma"), "sobol": ("S1", "ST"), "lhs": ("rho",)}


class SensitivityError(ValueError):
    """Bad bounds or method, or an evaluation that gave no usable index values."""


class SensitivityFailed(RuntimeError):
    """Evaluations of the design failed (a simulation failed or diverged): nothing is ranked."""


@dataclass
class SensitivityResult:
    """Measures per (index, parameter) in ``table``; the sampled points and index values."""

    method: str
    bounds: dict[str, tuple[float, float]]
    table: pd.DataFrame
    samples: pd.DataFrame
    outputs: pd.DataFrame

    @property
    def parameters(self) -> list[str]:
        return list(self.bounds)

    @property
    def indices(self) -> list[str]:
        return list(self.outputs.columns)

    def ranking(self, index: str | None = None) -> list[str]:
        """Parameters from most to least influential on ``index`` (overall when None)."""
        if index is None:
            return list(self.overall().index)
        if index not in self.indices:
            raise KeyError(f"unknown index {index!r}; known: {self.indices}")
        return list(self.table.loc[index]["importance"].sort_values(ascending=False, kind="stable").index)

    def overall(self) -> pd.Series:
        """Each parameter's largest relative importance over the indices, in decreasing order (ties: mean)."""
        rel = self.table["relative"].groupby(level="parameter")
        frame = pd.DataFrame({"max": rel.max(), "mean": rel.mean()}).reindex(self.parameters)
        return frame.sort_values(["max", "mean"], ascending=False, kind="stable")["max"].rename("overall")

    def propose(self, threshold: float = 0.05, best_fraction: float = 0.2, margin: float = 0.1,
                alpha: float = 0.05) -> tuple[list[str], dict[str, tuple[float, float]]]:
        """Tunable parameters (overall score >= threshold, in ranking order) and their ranges.

        For each index the parameter influences (relative >= threshold), the best ``best_fraction`` of
        the samples (lowest values: index values are taken as errors) must be distributed differently
        from the rest (Kolmogorov-Smirnov, p < alpha); then the range is the hull of their spans over
        those indices, widened by ``margin`` of the bounds. Otherwise it stays the bounds.
        """
        score = self.overall()
        keep = [p for p in score.index if score[p] >= threshold]
        ranges = {}
        for p in keep:
            lo, hi = self.bounds[p]
            x = self.samples[p].to_numpy()
            spans = []
            for index in self.indices:
                if self.table.loc[(index, p), "relative"] < threshold:
                    continue
                y = self.outputs[index].to_numpy()
                best = y <= np.quantile(y, best_fraction)
                if not 5 <= best.sum() < len(y) or stats.ks_2samp(x[best], x[~best]).pvalue >= alpha:
                    spans = []  # this index needs the whole range
                    break
                spans.append((x[best].min(), x[best].max()))
            if spans:
                pad = margin * (hi - lo)
                lo, hi = max(lo, min(a for a, _ in spans) - pad), min(hi, max(b for _, b in spans) + pad)
            ranges[p] = (float(lo), float(hi))
        return keep, ranges


def _problem(bounds: Mapping) -> dict:
    if not bounds:
        raise SensitivityError("no parameters to analyse")
    out = {}
    for name, b in bounds.items():
        try:
            lo, hi = (float(v) for v in b)
        except (TypeError, ValueError):
            raise SensitivityError(f"bounds[{name!r}]: expected (low, high), got {b!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise SensitivityError(f"bounds[{name!r}]: expected finite low < high, got ({lo}, {hi})")
        out[name] = (lo, hi)
    return out


def _evaluate_all(evaluate, points: list[dict], map_function) -> pd.DataFrame:
    results = list(map_function(evaluate, points))
    failed = [i for i, res in enumerate(results) if isinstance(res, BaseException)]
    if failed:
        first = results[failed[0]]
        why = str(first) if type(first).__name__ in ("EvaluationFailed", "SimulationDiverged") \
            else f"{type(first).__name__}: {first}"
        raise SensitivityFailed(f"{len(failed)} of {len(points)} sensitivity evaluations failed, and no ranking is "
                                f"made from failed evaluations (none may fail: each measure needs every point of "
                                f"its design); the first, evaluation {failed[0]} at {points[failed[0]]}: {why}")
    rows, names = [], None
    for i, (point, res) in enumerate(zip(points, results)):
        if not isinstance(res, Mapping) or not res:
            raise SensitivityError(f"evaluation {i} at {point}: expected a dict of index values, got {res!r}")
        names = names or list(res)
        if list(res) != names:
            raise SensitivityError(f"evaluation {i} at {point}: indices {list(res)} differ from {names}")
        values = [float(res[k]) for k in names]
        bad = [k for k, v in zip(names, values) if not math.isfinite(v)]
        if bad:
            raise SensitivityError(f"evaluation {i} at {point}: non-finite value of {bad}")
        rows.append(values)
    if len(rows) != len(points):
        raise SensitivityError(f"map_function returned {len(rows)} results for {len(points)} points")
    return pd.DataFrame(rows, columns=names)


def _measures(method: str, problem: dict, X: np.ndarray, y: np.ndarray, levels: int, seed: int) -> dict:
    if np.ptp(y) == 0.0:  # an index no parameter moves
        zero = np.zeros(X.shape[1])
        return {"morris": {"mu_star": zero, "mu_star_conf": zero, "sigma": zero, "mu": zero},
                "sobol": {"S1": zero, "S1_conf": zero, "ST": zero, "ST_conf": zero},
                "lhs": {"rho": zero, "p_value": zero + 1.0}}[method]
    if method == "morris":
        from SALib.analyze import morris
        r = morris.analyze(problem, X, y, num_levels=levels, seed=seed)
        return {k: np.asarray(r[k], float) for k in ("mu_star", "mu_star_conf", "sigma", "mu")}
    if method == "sobol":
        from SALib.analyze import sobol
        r = sobol.analyze(problem, y, calc_second_order=False, seed=seed)
        return {k: np.asarray(r[k], float) for k in ("S1", "S1_conf", "ST", "ST_conf")}
    rho, pv = zip(*(stats.spearmanr(X[:, j], y) for j in range(X.shape[1])))
    return {"rho": np.nan_to_num(np.asarray(rho, float)), "p_value": np.nan_to_num(np.asarray(pv, float), nan=1.0)}


def sensitivity_analysis(evaluate: Callable[[dict], Mapping[str, float]], bounds: Mapping[str, tuple[float, float]],
                         method: str = "morris", n: int | None = None, seed: int = 0, map_function=map,
                         levels: int = 4, alpha: float = 0.05) -> SensitivityResult:
    """Sample ``bounds`` with ``method``, evaluate every point through ``map_function`` and analyse.

    ``n``: trajectories (morris, default 20), base samples (sobol, default 256) or points (lhs,
    default 100). ``map_function(evaluate, points)`` may be an executor's ``map``. A point whose
    evaluation failed (an exception returned for it) stops the analysis with ``SensitivityFailed``,
    which counts the failed points and gives the first one's cause: the measures are computed from
    complete designs only (a Morris trajectory or a Saltelli matrix with a hole has no estimate).
    """
    if method not in METHODS:
        raise SensitivityError(f"method {method!r}: expected one of {METHODS}")
    bounds = _problem(bounds)
    names = list(bounds)
    problem = {"num_vars": len(names), "names": names, "bounds": [list(b) for b in bounds.values()]}
    n = int(n or {"morris": 20, "sobol": 256, "lhs": 100}[method])
    if method == "morris":
        from SALib.sample import morris as sampler
        X = sampler.sample(problem, n, num_levels=levels, seed=seed)
    elif method == "sobol":
        if n & (n - 1):
            raise SensitivityError(f"sobol: n={n} must be a power of 2")
        from SALib.sample import sobol as sampler
        X = sampler.sample(problem, n, calc_second_order=False, seed=seed)
    else:
        from SALib.sample import latin as sampler
        X = sampler.sample(problem, n, seed=seed)
    points = [dict(zip(names, map(float, row))) for row in X]
    outputs = _evaluate_all(evaluate, points, map_function)
    frames = []
    for index in outputs.columns:
        m = pd.DataFrame(_measures(method, problem, X, outputs[index].to_numpy(), levels, seed), index=names)
        if method == "morris":
            m["importance"] = m["mu_star"]
            top = m["importance"].max()
            m["relative"] = m["importance"] / top if top > 0 else 0.0
        elif method == "sobol":
            m["importance"] = m["ST"].clip(lower=0.0)
            m["relative"] = m["importance"].clip(upper=1.0)
        else:
            m["importance"] = m["rho"].abs()
            m["relative"] = m["importance"].where(m["p_value"] < alpha, 0.0)
        frames.append(m.assign(index=index, parameter=names))
    table = pd.concat(frames).set_index(["index", "parameter"])
    return SensitivityResult(method, bounds, table, pd.DataFrame(X, columns=names), outputs)


def plot_sensitivity(result: SensitivityResult, path: str | Path, top: int | None = None) -> Path:
    """Bar plot, one panel per index, of the method's measures (parameters in ranking order); PNG."""
    from matplotlib.figure import Figure

    columns = _PLOT_COLUMNS[result.method]
    k = len(result.indices)
    fig = Figure(figsize=(4.0 * k, 0.35 * len(result.parameters) + 1.5))
    axes = fig.subplots(1, k, squeeze=False)
    height = 0.8 / len(columns)
    for ax, index in zip(axes[0], result.indices):
        order = result.ranking(index)[:top][::-1]
        data = result.table.loc[index].loc[order]
        y = np.arange(len(order))
        for c, col in enumerate(columns):
            ax.barh(y + (c - (len(columns) - 1) / 2) * height, data[col], height, label=col)
        ax.set_yticks(y, order)
        ax.set_title(index)
        ax.axvline(0.0, color="k", lw=0.5)
    axes[0][0].legend(loc="lower right")
    fig.suptitle(f"Sensitivity ({result.method})")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path
