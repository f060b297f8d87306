"""pybridge.evaluate.kpi: the indices of Tables 1-2 on signals whose answers are known analytically."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, signal

from pybridge.evaluate.kpi import KpiError, evaluate_indices, frf, index_functions, step_response

STEP_START, STEP_RISE, STEER = 1.0, 0.04, 0.1  # s, s, rad: a steering step of 0.1 rad in 40 ms
T50 = STEP_START + STEP_RISE / 2


def step_trace(response, gain, duration=6.0, dt=1e-3):
    """Steering ramp-step and the channels yaw_rate, ay = gain * STEER * response(t - t50) after t50."""
    t = np.arange(0.0, duration, dt)
    steer = STEER * np.clip((t - STEP_START) / STEP_RISE, 0.0, 1.0)
    tau = t - T50
    unit = np.where(tau > 0, response(np.maximum(tau, 0.0)), 0.0)
    return pd.DataFrame({"time": t, "steering_wheel_angle": steer, "yaw_rate": gain * STEER * unit,
                         "ay": 20 * gain * STEER * unit})


def first_order(tau_s):
    return lambda tau: 1.0 - np.exp(-tau / tau_s)


def second_order(zeta, wn):
    wd = wn * math.sqrt(1 - zeta ** 2)
    return lambda tau: 1.0 - np.exp(-zeta * wn * tau) * (np.cos(wd * tau) + zeta / math.sqrt(1 - zeta ** 2)
                                                          * np.sin(wd * tau))


def test_first_order_step_response():
    tau_s = 0.15
    s = step_response(step_trace(first_order(tau_s), 1.5), "yaw_rate")
    assert s.gain == pytest.approx(1.5, rel=1e-9)
    assert s.response_time == pytest.approx(tau_s * math.log(10), abs=1e-6)
    assert s.overshoot_percent == 0.0 and math.isnan(s.peak_time)


def test_second_order_step_response():
    zeta, wn = 0.4, 2 * math.pi * 1.2
    unit = second_order(zeta, wn)
    s = step_response(step_trace(unit, 0.8), "yaw_rate")
    wd = wn * math.sqrt(1 - zeta ** 2)
    assert s.gain == pytest.approx(0.8, rel=1e-5)
    assert s.overshoot_percent == pytest.approx(100 * math.exp(-math.pi * zeta / math.sqrt(1 - zeta ** 2)),
                                                rel=1e-4)
    assert s.peak_time == pytest.approx(math.pi / wd, abs=1e-3)
    t90 = optimize.brentq(lambda tau: unit(tau) - 0.9, 1e-6, math.pi / wd)
    assert s.response_time == pytest.approx(t90, abs=1e-5)


def test_step_indices_relative_errors():
    reference = step_trace(first_order(0.15), 1.0)
    slower = step_trace(first_order(0.165), 1.05)
    values = {r.name: r.value_percent for r in evaluate_indices("step_steer", slower, reference)}
    assert values["yaw_rate_gain"] == pytest.approx(5.0, abs=1e-6)
    assert values["ay_gain"] == pytest.approx(5.0, abs=1e-6)
    assert values["yaw_rate_response_time"] == pytest.approx(10.0, abs=1e-3)
    assert values["yaw_rate_overshoot"] == 0.0 and values["yaw_rate_peak_time"] == 0.0
    assert values["yaw_rate_trace"] > 0.0
    same = evaluate_indices("step_steer", reference, reference)
    assert len(same) == len(index_functions["step_steer"]) and all(r.value_percent == 0.0 for r in same)


def test_step_overshoot_and_peak_time_with_and_without_a_peak():
    ref_peak = step_trace(second_order(0.4, 7.0), 1.0)
    cand_peak = step_trace(second_order(0.5, 7.0), 1.0)
    no_peak = step_trace(first_order(0.15), 1.0)
    names = ["yaw_rate_overshoot", "yaw_rate_peak_time"]
    os_ref, os_cand = (step_response(x, "yaw_rate").overshoot_percent for x in (ref_peak, cand_peak))
    tp_ref, tp_cand = (step_response(x, "yaw_rate").peak_time for x in (ref_peak, cand_peak))
    overshoot, peak = evaluate_indices("step_steer", cand_peak, ref_peak, names)
    assert overshoot.value_percent == pytest.approx(100 * abs(os_cand - os_ref) / os_ref)
    assert peak.value_percent == pytest.approx(100 * abs(tp_cand - tp_ref) / tp_ref)
    overshoot, peak = evaluate_indices("step_steer", cand_peak, no_peak, names)
    assert overshoot.value_percent == pytest.approx(os_cand)  # percentage points: the reference has none
    assert peak.value_percent == 100.0


def test_peak_time_and_overshoot_between_the_samples():
    """At a 5 ms sample rate the peak lies between samples: the peak time and overshoot come from the
    parabola through the largest sample and its neighbours, not from the sample (up to 2.5 ms off), so the
    same response sampled at another phase scores (almost) no peak-time error."""
    zeta, wn = 0.35, 2 * math.pi * 1.6
    wd = wn * math.sqrt(1 - zeta ** 2)
    exact = 100 * math.exp(-math.pi * zeta / math.sqrt(1 - zeta ** 2))
    traces = []
    for phase in (0.0, 0.0013, 0.0031):     # the sample grid shifted by a fraction of its 5 ms
        trace = step_trace(second_order(zeta, wn), 1.0, dt=0.005)
        trace["time"] += phase
        s = step_response(trace, "yaw_rate")
        assert s.peak_time == pytest.approx(math.pi / wd, abs=5e-5)
        assert s.overshoot_percent == pytest.approx(exact, abs=0.01)
        traces.append(trace)
    for candidate in traces[1:]:
        peak, = evaluate_indices("step_steer", candidate, traces[0], ["yaw_rate_peak_time"])
        assert peak.value_percent < 0.05


# --- FRF of a known linear system -------------------------------------------------------------------

def sweep_trace(gain, seed, noise=0.01, dt=0.01):
    """Log chirp 0.1-3 Hz of the steering wheel through K wn^2 / (s^2 + 2 zeta wn s + wn^2), plus noise."""
    t = np.arange(0.0, 42.0, dt)
    steer = np.where((t >= 1) & (t <= 41), 0.2 * signal.chirp(t - 1, 0.1, 40, 3, method="logarithmic"), 0.0)
    wn, zeta = 2 * math.pi * 1.2, 0.4
    _, y, _ = signal.lsim(([gain * wn ** 2], [1, 2 * zeta * wn, wn ** 2]), steer, t)
    y = y + noise * np.std(y) * np.random.default_rng(seed).standard_normal(t.size)
    return pd.DataFrame({"time": t, "steering_wheel_angle": steer, "roll": y, "ay": 30 * y, "yaw_rate": y})


def analytic_gain(f, gain=0.3):
    wn, zeta = 2 * math.pi * 1.2, 0.4
    s = 2j * math.pi * f
    return np.abs(gain * wn ** 2 / (s ** 2 + 2 * zeta * wn * s + wn ** 2))


def test_frf_magnitude_and_coherence_of_a_second_order_system():
    """White steering input, white output noise: |H1| -> |H| and coherence -> |H|^2 Sxx / (|H|^2 Sxx + Snn)."""
    rng = np.random.default_rng(4)
    t = np.arange(0.0, 1200.0, 0.01)
    steer, noise = 0.05 * rng.standard_normal(t.size), 0.003
    wn, zeta = 2 * math.pi * 1.2, 0.4
    _, roll, _ = signal.lsim(([0.3 * wn ** 2], [1, 2 * zeta * wn, wn ** 2]), steer, t)
    trace = pd.DataFrame({"time": t, "steering_wheel_angle": steer,
                          "roll": roll + noise * rng.standard_normal(t.size)})
    f, gain, coherence = frf(trace, "roll")
    band = (f >= 0.2) & (f <= 3.0)
    h = analytic_gain(f[band])
    expected_coherence = h ** 2 * 0.05 ** 2 / (h ** 2 * 0.05 ** 2 + noise ** 2)
    assert expected_coherence.min() < 0.5 < 0.95 < expected_coherence.max()
    np.testing.assert_allclose(gain[band], h, rtol=0.08)
    np.testing.assert_allclose(coherence[band], expected_coherence, atol=0.06)


def test_frf_of_the_steering_sweep():
    """The scenario's log sweep: coherent over the swept band, |H1| within the sweep's ripple of |H|."""
    f, gain, coherence = frf(sweep_trace(0.3, seed=1), "roll")
    band = (f >= 0.3) & (f <= 2.5)
    assert np.all(coherence[band] > 0.95)
    np.testing.assert_allclose(gain[band], analytic_gain(f[band]), rtol=0.08)
    assert np.median(coherence[f > 10]) < 0.3  # nothing excited above the sweep: noise only


def test_frf_is_scipys_h1_with_the_input_transformed_once(monkeypatch):
    """|H1| and coherence are the very numbers of scipy's csd / welch (a length that is not a whole number of
    segments, an odd segment), and the FRFs of a trace's three channels transform its input once: 4 FFT calls,
    each over all the segments of one signal."""
    import scipy.fft

    trace = sweep_trace(0.3, seed=5).iloc[:3333]
    calls = []
    rfft = scipy.fft.rfft
    monkeypatch.setattr(scipy.fft, "rfft", lambda *a, **k: calls.append(1) or rfft(*a, **k))
    results = {c: frf(trace, c, step=0.01, segment=10.01) for c in ("roll", "ay", "yaw_rate")}
    assert len(calls) == 4
    monkeypatch.undo()
    x = trace["steering_wheel_angle"].to_numpy()
    for channel, (f, gain, coherence) in results.items():
        y = trace[channel].to_numpy()
        options = dict(fs=1.0 / 0.01, nperseg=1001)
        f_ref, pxy = signal.csd(x, y, **options)
        pxx, pyy = signal.welch(x, **options)[1], signal.welch(y, **options)[1]
        np.testing.assert_array_equal(f, f_ref)
        np.testing.assert_array_equal(gain, np.where(pxx > 0, np.abs(pxy) / pxx, 0.0))
        np.testing.assert_array_equal(coherence, np.where(pxx * pyy > 0, np.abs(pxy) ** 2 / (pxx * pyy), 0.0))


def test_a_trace_built_from_its_columns_is_scored_from_them(monkeypatch):
    """remember_columns: the indices of a trace built from arrays read those arrays (not the frame again) and
    equal the indices of the same frame without them; columns that are not the frame's are not kept."""
    from pybridge.evaluate import kpi

    reference = step_trace(first_order(0.1), 0.3)
    columns = {c: reference[c].to_numpy() * (1.0 if c == "time" else 1.1) for c in reference.columns}
    candidate = kpi.remember_columns(pd.DataFrame(columns), columns)
    expected = [r.value_percent for r in evaluate_indices("step_steer", candidate.copy(), reference)]
    taken = []
    monkeypatch.setattr(kpi, "_float_columns", lambda trace: taken.append(trace) or {})
    assert [r.value_percent for r in evaluate_indices("step_steer", candidate, reference)] == expected
    assert taken == []
    other = pd.DataFrame(columns)
    kpi.remember_columns(other, {"time": columns["time"]})
    evaluate_indices("step_steer", other, reference)
    assert len(taken) == 1 and taken[0] is other


def test_frf_index_identical_scaled_and_refit():
    reference = sweep_trace(0.3, seed=1)
    scaled = reference.assign(roll=1.1 * reference["roll"])
    assert evaluate_indices("sine_sweep", reference, reference)[0].value_percent == 0.0
    result = evaluate_indices("sine_sweep", scaled, reference, ["roll_frf"])[0]
    assert result.value_percent == pytest.approx(10.0, rel=1e-9)
    assert result.abscissa.min() < 0.5 and result.abscissa.max() > 2.0
    other = evaluate_indices("sine_sweep", sweep_trace(0.33, seed=2), reference, ["roll_frf"])[0]
    assert other.value_percent == pytest.approx(10.0, abs=1.0)


def test_a_reference_trace_is_analysed_once_across_candidates(monkeypatch):
    """An identification scores every candidate against the same reference traces: the reference's
    FRF is computed once, each candidate's once, with the same indices as without the memo."""
    from pybridge.evaluate import kpi

    reference, first, second = sweep_trace(0.3, seed=1), sweep_trace(0.33, seed=2), sweep_trace(0.31, seed=3)
    fresh = [evaluate_indices("sine_sweep", c, reference, ["roll_frf"])[0].value_percent for c in (first, second)]
    analysed = []
    monkeypatch.setattr(kpi, "frf", lambda trace, *a, **k: analysed.append(trace) or frf(trace, *a, **k))
    reference = reference.copy()                       # a new object: nothing of it is memoised yet
    values = [evaluate_indices("sine_sweep", c.copy(), reference, ["roll_frf"])[0].value_percent
              for c in (first, second, first)]
    assert values == [fresh[0], fresh[1], fresh[0]]
    assert sum(t is reference for t in analysed) == 1 and len(analysed) == 4


# --- ramp steer maps of a linear bicycle model ------------------------------------------------------

BICYCLE = dict(m=3000.0, a=1.4, b=2.0, cf=120e3, cr=180e3, v=80 / 3.6, ratio=18.0)


def bicycle_gradients(cr=BICYCLE["cr"]):
    """d(steering-wheel angle)/d(ay) and d(sideslip)/d(ay) of the steady linear bicycle model."""
    p = {**BICYCLE, "cr": cr}
    length = p["a"] + p["b"]
    understeer = p["m"] / length * (p["b"] / p["cf"] - p["a"] / p["cr"])
    return p["ratio"] * (length / p["v"] ** 2 + understeer), p["b"] / p["v"] ** 2 - p["m"] * p["a"] / (length * cr)


def ramp_trace(cr=BICYCLE["cr"], direction=1.0):
    """5 deg/s ramp from 1 s for 14 s; ay, sideslip, roll and load transfer from the bicycle model."""
    t = np.arange(0.0, 15.0, 0.01)
    steer = direction * np.radians(5.0) * np.clip(t - 1.0, 0.0, None)
    g_steer, g_slip = bicycle_gradients(cr)
    ay = steer / g_steer
    return pd.DataFrame({"time": t, "steering_wheel_angle": steer, "ay": ay, "sideslip": g_slip * ay,
                         "roll": 0.012 * ay, "load_transfer_total": 1700.0 * ay})


def test_ramp_maps_give_the_bicycle_gradients():
    reference = ramp_trace()
    g_steer, g_slip = bicycle_gradients()
    results = {r.name: r for r in evaluate_indices("ramp_steer", reference, reference)}
    assert all(r.value_percent == 0.0 for r in results.values())
    steer = results["steering_wheel_angle"]
    np.testing.assert_allclose(steer.reference_curve, g_steer * steer.abscissa, rtol=1e-9)
    np.testing.assert_allclose(results["sideslip"].reference_curve, g_slip * steer.abscissa, rtol=1e-9)
    assert steer.abscissa[-1] == pytest.approx(reference["ay"].max())
    mirrored = evaluate_indices("ramp_steer", ramp_trace(direction=-1.0), reference)
    assert all(r.value_percent == pytest.approx(0.0, abs=1e-9) for r in mirrored)


def test_ramp_map_known_scale_and_offset():
    reference, candidate = ramp_trace(), ramp_trace(cr=150e3)  # less rear cornering stiffness
    g_ref, g_slip = bicycle_gradients()
    g_cand, _ = bicycle_gradients(150e3)
    top = min(reference["ay"].max(), candidate["ay"].max())
    grid = np.linspace(0.05 * top, top, 50)
    result = evaluate_indices("ramp_steer", candidate, reference, ["steering_wheel_angle"])[0]
    np.testing.assert_allclose(result.abscissa, grid)
    expected = 100 * abs(g_cand - g_ref) * np.sqrt(np.mean(grid ** 2)) / (abs(g_ref) * np.ptp(grid))
    assert result.value_percent == pytest.approx(expected, rel=1e-9)
    offset = reference.assign(sideslip=reference["sideslip"] + 1e-3)
    top = reference["ay"].max()
    result = evaluate_indices("ramp_steer", offset, reference, ["sideslip"])[0]
    assert result.value_percent == pytest.approx(100 * 1e-3 / (abs(g_slip) * 0.95 * top), rel=1e-9)


# --- Table 2: acceleration and braking against time -------------------------------------------------

def longitudinal_trace(shift=0.0, decel=6.0):
    t = np.arange(0.0, 8.0, 0.01) + shift
    ax = -decel * np.clip(t - 1.0, 0.0, 1.0)
    fz = 500.0 * np.clip(t - 1.0, 0.0, 1.0)
    return pd.DataFrame({"time": t, "speed": 27.8 + np.cumsum(ax) * 0.01, "ax": ax, "pitch": 0.002 * -ax,
                         "fz_fl": 7000 + fz, "fz_fr": 7000 + fz, "fz_rl": 7500 - fz, "fz_rr": 7500 - fz})


def test_longitudinal_indices():
    reference = longitudinal_trace()
    assert all(r.value_percent == 0.0 for r in evaluate_indices("braking", reference, reference))
    offset = reference.assign(fz_fl=reference["fz_fl"] + 50.0)
    front = evaluate_indices("braking", offset, reference, ["fz_front"])[0]
    assert front.value_percent == pytest.approx(100 * 50.0 / 1000.0)  # front load rises by 2 x 500 N
    decel = evaluate_indices("braking", longitudinal_trace(decel=6.6), reference, ["deceleration"])[0]
    assert np.all(decel.reference_curve >= 0) and decel.reference_curve.max() == pytest.approx(6.0)
    assert decel.value_percent == pytest.approx(100 * 0.6 * np.sqrt(np.mean((decel.reference_curve / 6) ** 2))
                                                / 6.0, rel=1e-9)
    shifted = evaluate_indices("acceleration", longitudinal_trace(shift=0.5), reference, ["speed"])[0]
    assert shifted.abscissa[0] == pytest.approx(0.5) and shifted.value_percent > 0


def test_validation_manoeuvres_score_the_lateral_traces():
    t = np.arange(0.0, 8.0, 0.01)
    reference = pd.DataFrame({"time": t, "ay": 4 * np.sin(2 * np.pi * 0.5 * t), "yaw_rate": 0.2 * np.sin(t),
                              "roll": 0.03 * np.sin(t), "sideslip": 0.01 * np.cos(t)})
    for manoeuvre in ("slalom", "random_steer", "double_lane_change"):
        same = evaluate_indices(manoeuvre, reference, reference)
        assert {r.name for r in same} == {"ay", "yaw_rate", "roll", "sideslip"}
        assert all(r.value_percent == 0.0 for r in same)
    lagging = reference.assign(ay=4 * np.sin(2 * np.pi * 0.5 * (t - 0.1)))
    ay = evaluate_indices("slalom", lagging, reference, ["ay"])[0]
    expected = 100 * np.sqrt(np.mean((lagging["ay"] - reference["ay"]) ** 2)) / np.ptp(reference["ay"])
    assert ay.value_percent == pytest.approx(expected, rel=1e-9) and ay.value_percent > 5


# --- errors -----------------------------------------------------------------------------------------

def test_bad_traces_and_names_give_clear_errors():
    reference = longitudinal_trace()
    with pytest.raises(KpiError, match=r"braking/pitch candidate: pitch: non-finite value at row 3"):
        evaluate_indices("braking", reference.assign(pitch=np.where(np.arange(800) == 3, np.nan, 0.0)),
                         reference, ["pitch"])
    with pytest.raises(KpiError, match=r"braking/fz_front candidate: channel\(s\) \['fz_fr'\] missing"):
        evaluate_indices("braking", reference.drop(columns="fz_fr"), reference, ["fz_front"])
    with pytest.raises(KpiError, match=r"3 samples, expected at least 10"):
        evaluate_indices("braking", reference.iloc[:3], reference, ["pitch"])
    with pytest.raises(KpiError, match=r"unknown indices \['roll'\]"):
        evaluate_indices("braking", reference, reference, ["roll"])
    with pytest.raises(KpiError, match=r"manoeuvre 'drift'"):
        evaluate_indices("drift", reference, reference)
    with pytest.raises(KpiError, match=r"expected a step"):
        step_response(reference.assign(steering_wheel_angle=0.0, yaw_rate=0.0), "yaw_rate")
