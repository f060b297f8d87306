"""Sensitivity analysis on functions whose answers are known analytically."""
import math

import numpy as np
import pytest

from pybridge.identify.sensitivity import SensitivityError, plot_sensitivity, sensitivity_analysis

A, B = 1.0, 3.0
BOUNDS = {"x1": (0.0, 2.0), "x2": (0.0, 1.0), "x3": (0.0, 1.0)}


def linear_quadratic(p):
    """y = a*x1 + b*x2^2, x3 inactive; z depends on x1 only."""
    return {"y": A * p["x1"] + B * p["x2"] ** 2, "z": 5.0 * p["x1"]}


def test_morris_mu_star_matches_derivatives_and_ranking():
    calls = []

    def counting_map(fn, items):
        calls.append(len(items))
        return map(fn, items)

    r = sensitivity_analysis(linear_quadratic, BOUNDS, method="morris", n=40, map_function=counting_map)
    assert calls == [40 * (len(BOUNDS) + 1)] and len(r.samples) == calls[0]
    y = r.table.loc["y"]
    # mu* is the mean |dy/dx| times the range: a*2 exactly for x1; for x2, b * mean(2*x2) over [0, 1] = b
    assert y.loc["x1", "mu_star"] == pytest.approx(A * 2.0, rel=1e-9)
    assert y.loc["x1", "sigma"] == pytest.approx(0.0, abs=1e-9)
    assert y.loc["x2", "mu_star"] == pytest.approx(B, rel=0.15)
    assert y.loc["x2", "sigma"] > 0.3  # nonlinear in x2
    assert y.loc["x3", "mu_star"] == 0.0
    assert r.ranking("y") == ["x2", "x1", "x3"]
    assert r.ranking("z")[0] == "x1" and r.table.loc[("z", "x2"), "relative"] == 0.0
    assert r.ranking() == ["x1", "x2", "x3"]  # both lead one index; x1 also counts on the other
    keep, ranges = r.propose(threshold=0.05)
    assert keep == ["x1", "x2"]
    assert set(ranges) == {"x1", "x2"}


def test_sobol_ishigami_indices():
    a, b = 7.0, 0.1

    def ishigami(p):
        x1, x2, x3 = p["x1"], p["x2"], p["x3"]
        return {"y": math.sin(x1) + a * math.sin(x2) ** 2 + b * x3 ** 4 * math.sin(x1)}

    pi4 = math.pi ** 4
    v1, v2, vt3 = 0.5 * (1 + b * pi4 / 5) ** 2, a * a / 8, 8 * b * b * math.pi ** 8 / 225
    v = a * a / 8 + b * pi4 / 5 + b * b * math.pi ** 8 / 18 + 0.5
    s1 = {"x1": v1 / v, "x2": v2 / v, "x3": 0.0}
    st = {"x1": (v1 + vt3) / v, "x2": v2 / v, "x3": vt3 / v}
    r = sensitivity_analysis(ishigami, {k: (-math.pi, math.pi) for k in s1}, method="sobol", n=1024, seed=1)
    t = r.table.loc["y"]
    for k in s1:
        assert t.loc[k, "S1"] == pytest.approx(s1[k], abs=0.05)
        assert t.loc[k, "ST"] == pytest.approx(st[k], abs=0.05)
    assert r.ranking("y") == ["x1", "x2", "x3"]
    assert r.propose(threshold=0.3)[0] == ["x1", "x2"]  # x3 acts only through its interaction (ST 0.24)


def test_lhs_rank_correlation_drops_inactive():
    r = sensitivity_analysis(linear_quadratic, BOUNDS, method="lhs", n=200, seed=3)
    y = r.table.loc["y"]
    assert y.loc["x1", "rho"] > 0.2 and y.loc["x2", "rho"] > 0.8
    assert abs(y.loc["x3", "rho"]) < 0.15 and y.loc["x3", "relative"] == 0.0
    assert r.ranking("y") == ["x2", "x1", "x3"]
    assert r.propose()[0] == ["x1", "x2"]


def test_propose_narrows_only_where_sensitivity_allows():
    def errors(p):  # optimum of x1 at 0.3; x2 matters but has optima at both ends
        return {"e1": 10.0 * abs(p["x1"] - 0.3), "e2": math.sin(math.pi * p["x2"])}

    bounds = {"x1": (-1.0, 1.0), "x2": (0.0, 1.0), "x3": (0.0, 1.0)}
    r = sensitivity_analysis(errors, bounds, method="sobol", n=256)
    keep, ranges = r.propose(threshold=0.05, best_fraction=0.2, margin=0.05)
    assert keep == ["x1", "x2"] or keep == ["x2", "x1"]
    lo, hi = ranges["x1"]
    assert lo < 0.3 < hi and hi - lo < 0.5 * (bounds["x1"][1] - bounds["x1"][0])
    assert ranges["x2"] == pytest.approx(bounds["x2"], abs=0.02)


def test_plot_writes_png_per_index(tmp_path):
    r = sensitivity_analysis(linear_quadratic, BOUNDS, method="morris", n=10)
    path = plot_sensitivity(r, tmp_path / "sub" / "sens.png")
    import matplotlib.image

    image = matplotlib.image.imread(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and image.shape[1] == 2 * 400  # 2 panels of 4 in at 100 dpi


@pytest.mark.parametrize("kwargs, message", [
    ({"bounds": {"x1": (1.0, 0.0)}}, "bounds['x1']"),
    ({"bounds": {"x1": "wide"}}, "bounds['x1']"),
    ({"method": "fast"}, "method 'fast'"),
    ({"method": "sobol", "n": 100}, "power of 2"),
    ({"evaluate": lambda p: {"y": float("nan")}}, "non-finite value of ['y']"),
    ({"evaluate": lambda p: 1.0}, "expected a dict"),
])
def test_bad_input_is_named(kwargs, message):
    args = {"evaluate": linear_quadratic, "bounds": BOUNDS, "method": "morris", "n": 4} | kwargs
    with pytest.raises(SensitivityError) as err:
        sensitivity_analysis(**args)
    assert message in str(err.value)


def test_seed_reproduces():
    r1 = sensitivity_analysis(linear_quadratic, BOUNDS, method="lhs", n=30, seed=5)
    r2 = sensitivity_analysis(linear_quadratic, BOUNDS, method="lhs", n=30, seed=5)
    assert np.array_equal(r1.samples.to_numpy(), r2.samples.to_numpy())
