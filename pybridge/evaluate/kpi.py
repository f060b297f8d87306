"""Performance indices of the LCV paper (Tables 1-2): a candidate (RTM) trace against a reference (MBM) trace.

Each index gives the error e_{j,k} of Eq. 9-10 as a percentage (``IndexResult.value_percent``) and
the two curves it compared, on one abscissa, for plotting. Traces are DataFrames with the channels of
``pybridge.simulate.scenarios.OUTPUT_CHANNELS`` in SI; derived channels: ``fz_front = fz_fl + fz_fr``,
``fz_rear = fz_rl + fz_rr``, ``deceleration = -ax``.

Curve indices are ``100 * RMSE(candidate, reference) / scale`` on a common abscissa, where scale is the
reference curve's range (max - min) on that abscissa, except for FRFs (below).

ramp_steer (maps)
    steering_wheel_angle, sideslip, roll, load_transfer_total against ay. Each trace is taken up to its
    peak |ay| (the monotonic part) and mirrored to positive ay (channel times sign of ay at the peak);
    the samples are sorted by ay and interpolated onto ``points`` ay values evenly spaced from
    ``ay_min_fraction`` to 100 % of the smaller of both traces' peak |ay|.
sine_sweep (FRFs)
    roll_frf, ay_frf, yaw_rate_frf: |H1| = |Pxy| / Pxx of channel over steering-wheel angle (Welch,
    Hann segments of ``segment`` s, 50 % overlap, both traces resampled at the reference's median step),
    compared at the frequencies where both coherences |Pxy|^2 / (Pxx Pyy) reach ``coherence_min``;
    scale: the RMS of the reference |H1| over those frequencies (a flat FRF has almost no range).
step_steer (ISO 7401), for yaw_rate and ay
    Steering baseline = first sample, final value = mean over the last ``steady_window`` s; t50 = the
    instant it passes 50 % of the step, t_move = the instant it passes 1 %. Response baseline = value at
    t_move, steady state = mean over the last ``steady_window`` s.
    ``<ch>_gain``: steady-state gain (response / steering-wheel angle), relative error in %.
    ``<ch>_response_time``: from t50 to the first 90 % crossing of the response, relative error in %.
    ``<ch>_peak_time``: from t50 to the maximum between t_move and the steady window, defined only when
    that maximum exceeds the steady state; relative error in %, 0 % when neither trace has a peak and
    100 % when only one has. The maximum is found between the samples: the vertex of the parabola
    through the largest sample and its two neighbours (time and value, so the overshoot too).
    ``<ch>_overshoot``: (peak - steady state) / steady state in %; relative error in %, or, when the
    reference has no overshoot, the candidate's overshoot in percentage points.
    ``<ch>_trace``: the response against time since t50 (curve index, scale = reference range).
    The scalar indices carry both characteristics (``IndexResult.candidate_value``, ``reference_value``), so
    the objective can score a reference value near zero by an absolute difference (``pybridge.evaluate.near_zero``).
acceleration, braking (Table 2)
    speed, pitch, fz_front, fz_rear (acceleration); deceleration, pitch, fz_front, fz_rear (braking),
    against time, at the reference samples inside the candidate's time span.
slalom, random_steer, double_lane_change (cross-validation, not in the objective by default)
    ay, yaw_rate, roll, sideslip against time, as for acceleration and braking.
"""
from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
from scipy import fft as scipy_fft
from scipy import signal

from pybridge.evaluate.channels import matching

__all__ = ["VALIDATION_MANOEUVRES", "IndexResult", "KpiError", "StepResponse", "column", "evaluate_indices", "frf",
           "index_channels", "index_functions", "index_rule", "remember_columns", "step_response"]

MIN_SAMPLES = 10
DERIVED = {
    "fz_front": (("fz_fl", "fz_fr"), lambda a, b: a + b),
    "fz_rear": (("fz_rl", "fz_rr"), lambda a, b: a + b),
    "deceleration": (("ax",), lambda ax: -ax),
}


_PER_TRACE: dict[int, tuple[weakref.ref, dict]] = {}   # id(trace) -> (the trace, {key: result})


def _once_per_trace(trace, key: tuple, compute: Callable[[], object]):
    """``compute()`` once per trace object and ``key``: an identification scores the same reference
    traces at every evaluation, and a step response serves several indices. Traces are read-only
    inputs here; an entry goes with its trace."""
    try:
        alive = weakref.ref(trace)
    except TypeError:                       # not weak-referenceable (e.g. a dict): no memo
        return compute()
    entry = _PER_TRACE.get(id(trace))
    if entry is None or entry[0]() is not trace:
        entry = (alive, {})
        _PER_TRACE[id(trace)] = entry
        weakref.finalize(trace, _PER_TRACE.pop, id(trace), None)
    results = entry[1]
    if key not in results:
        results[key] = compute()
    return results[key]


class KpiError(ValueError):
    """An index that cannot be computed; the message names the index, the trace and what is expected."""


@dataclass(frozen=True)
class IndexResult:
    """One index: its error in % and the compared curves (candidate, reference) against ``abscissa``."""

    name: str
    manoeuvre: str
    value_percent: float
    abscissa: np.ndarray
    candidate_curve: np.ndarray
    reference_curve: np.ndarray
    candidate_value: float | None = None   # the characteristic compared, for a scalar index (e.g. overshoot in %)
    reference_value: float | None = None


def _float_columns(trace: pd.DataFrame) -> dict[str, np.ndarray]:
    """Every numeric column of ``trace`` as a float array, taken in one go: ``trace[c]`` deep-copies the
    trace's ``attrs`` at each call, a third of a fitness evaluation's Python time on the van."""
    numeric = [c for c, kind in trace.dtypes.items() if isinstance(c, str) and kind.kind in "biuf"]
    if len(set(numeric)) != len(numeric):
        return {}
    values = np.ascontiguousarray(trace[numeric].to_numpy(dtype=float).T) if numeric else []
    return dict(zip(numeric, values))


def remember_columns(trace: pd.DataFrame, columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """``trace``, with ``columns`` (name -> the values of each of its columns, as it was built from them) kept as
    its float columns, so scoring it does not take them out of the frame again. Returns ``trace``."""
    if list(columns) == list(trace.columns) and len(set(columns)) == len(columns):
        arrays = {c: np.ascontiguousarray(v, dtype=float) for c, v in columns.items()}
        _once_per_trace(trace, ("float columns",), lambda: arrays)
    return trace


def column(trace: pd.DataFrame, name: str) -> np.ndarray:
    """``trace[name]`` as a float array, the numeric columns taken once per trace (``_float_columns``)."""
    arrays = _once_per_trace(trace, ("float columns",), lambda: _float_columns(trace))
    return arrays[name] if name in arrays else trace[name].to_numpy(dtype=float)


def _series(trace: pd.DataFrame, channel: str, where: str) -> tuple[np.ndarray, np.ndarray]:
    """(time, channel) as float arrays, checked: columns present, finite, enough samples, time increasing."""
    if not isinstance(trace, pd.DataFrame):
        raise KpiError(f"{where}: expected a pandas DataFrame trace, got {type(trace).__name__}")
    sources, combine = DERIVED.get(channel, ((channel,), lambda y: y))
    missing = [c for c in ("time", *sources) if c not in trace.columns]
    if missing:
        raise KpiError(f"{where}: channel(s) {missing} missing (trace has {list(trace.columns)})")
    if len(trace) < MIN_SAMPLES:
        raise KpiError(f"{where}: {len(trace)} samples, expected at least {MIN_SAMPLES}")
    columns = {c: column(trace, c) for c in ("time", *sources)}
    for name, values in columns.items():
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise KpiError(f"{where}: {name}: non-finite value at row {bad[0]}, expected finite numbers")
    time = columns["time"]
    if np.any(np.diff(time) <= 0):
        raise KpiError(f"{where}: time: expected strictly increasing values")
    return time, combine(*(columns[c] for c in sources))


def _percent(candidate: np.ndarray, reference: np.ndarray, scale: float, where: str) -> float:
    if not scale > 0:
        raise KpiError(f"{where}: reference curve has no spread to normalise by (scale {scale})")
    return float(100.0 * np.sqrt(np.mean((candidate - reference) ** 2)) / scale)


def _on_reference_abscissa(tc, yc, tr, yr, where):
    """Reference samples inside the candidate's abscissa span and the candidate interpolated there."""
    inside = (tr >= tc[0]) & (tr <= tc[-1])
    if inside.sum() < MIN_SAMPLES:
        raise KpiError(f"{where}: candidate and reference overlap on {inside.sum()} reference samples, "
                       f"expected at least {MIN_SAMPLES}")
    return tr[inside], np.interp(tr[inside], tc, yc), yr[inside]


def time_trace_index(candidate, reference, *, manoeuvre: str, name: str, channel: str) -> IndexResult:
    """Channel against time: RMSE at the reference samples in the common span, % of the reference range."""
    where = f"{manoeuvre}/{name}"
    tc, yc = _series(candidate, channel, f"{where} candidate")
    tr, yr = _series(reference, channel, f"{where} reference")
    t, cand, ref = _on_reference_abscissa(tc, yc, tr, yr, where)
    return IndexResult(name, manoeuvre, _percent(cand, ref, np.ptp(ref), where), t, cand, ref)


def _ramp_map(trace, channel: str, where: str) -> tuple[np.ndarray, np.ndarray]:
    """(ay, channel) up to the peak |ay|, mirrored to positive ay, sorted by ay."""
    _, ay = _series(trace, "ay", where)
    _, y = _series(trace, channel, where)
    peak = int(np.argmax(np.abs(ay)))
    sign = 1.0 if ay[peak] >= 0 else -1.0
    a, y = sign * ay[:peak + 1], sign * y[:peak + 1]
    order = np.argsort(a, kind="stable")
    return a[order], y[order]


def ramp_map_index(candidate, reference, *, manoeuvre: str, name: str, channel: str, points: int = 50,
                   ay_min_fraction: float = 0.05) -> IndexResult:
    """Channel against ay on a common ay grid (see the module docstring), % of the reference range."""
    where = f"{manoeuvre}/{name}"
    ac, yc = _ramp_map(candidate, channel, f"{where} candidate")
    ar, yr = _ramp_map(reference, channel, f"{where} reference")
    top = min(ac[-1], ar[-1])
    if not top > 0:
        raise KpiError(f"{where}: peak |ay| {top} m/s^2, expected a positive lateral acceleration")
    grid = np.linspace(ay_min_fraction * top, top, points)
    for role, a in (("candidate", ac), ("reference", ar)):
        if a[0] > grid[0]:
            raise KpiError(f"{where} {role}: starts at |ay| = {a[0]:.3g} m/s^2, expected a ramp from "
                           f"at most {grid[0]:.3g} m/s^2")
    cand, ref = np.interp(grid, ac, yc), np.interp(grid, ar, yr)
    return IndexResult(name, manoeuvre, _percent(cand, ref, np.ptp(ref), where), grid, cand, ref)


def _segment_spectra(trace, channel: str, step: float, nperseg: int, where: str):
    """(frequencies, the short-time spectra of ``channel`` resampled at ``step`` s in Welch's segments, frequency x
    segment): scipy.signal.csd's and welch's (ShortTimeFFT.stft_detrend with a periodic Hann window of ``nperseg``
    samples, 50 % overlap, each segment's mean removed, density scale), its operations on all segments at once,
    computed once per trace and channel, so the input serves every FRF of a trace."""
    def compute():
        t, x = _series(trace, channel, where)
        n = int(math.floor((t[-1] - t[0]) / step)) + 1
        hop = nperseg - nperseg // 2
        stft = _short_time_fft(step, nperseg)
        uniform = np.interp(t[0] + step * np.arange(n), t, x)
        segments = uniform[hop * np.arange((n - nperseg // 2) // hop)[:, None] + np.arange(nperseg)]
        segments = signal.detrend(segments, axis=-1, type="constant") * stft.win.conj()
        return stft.f, np.ascontiguousarray(scipy_fft.rfft(segments, n=nperseg, axis=-1).T)
    return _once_per_trace(trace, ("segment spectra", channel, step, nperseg), compute)


@functools.lru_cache(maxsize=8)
def _short_time_fft(step: float, nperseg: int) -> signal.ShortTimeFFT:
    """csd's ShortTimeFFT for segments of ``nperseg`` samples at ``step`` s (its window and frequencies)."""
    return signal.ShortTimeFFT(signal.get_window("hann_periodic", nperseg), nperseg - nperseg // 2, 1.0 / step,
                               fft_mode="onesided", mfft=nperseg, scale_to="psd", phase_shift=None)


def _welch_mean(product: np.ndarray, nperseg: int) -> np.ndarray:
    """The one-sided density of segment products (frequency x segment), doubled and averaged as scipy's csd."""
    product[1:-1 if nperseg % 2 == 0 else None] *= 2
    return product.mean(axis=-1)


def frf(trace, channel: str, *, step: float | None = None, segment: float = 10.0,
        where: str = "frf", input_channel: str = "steering_wheel_angle") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(frequency Hz, |H1| of channel over ``input_channel``, coherence), resampled at ``step`` s: scipy.signal.csd
    and welch's estimates (the same operations on the same segment spectra, so the same numbers), each signal's
    segment spectra computed once per trace."""
    t, _ = _series(trace, input_channel, where)
    step = float(np.median(np.diff(t))) if step is None else step
    nperseg = int(round(segment / step))
    if int(math.floor((t[-1] - t[0]) / step)) + 1 < nperseg:
        raise KpiError(f"{where}: trace lasts {t[-1] - t[0]:.3g} s, expected at least one {segment} s segment")
    f, sx = _segment_spectra(trace, input_channel, step, nperseg, where)
    _, sy = _segment_spectra(trace, channel, step, nperseg, where)
    pxy = _welch_mean(sy * sx.conj(), nperseg)
    pxx, pyy = (_welch_mean(s.real ** 2 + s.imag ** 2, nperseg) for s in (sx, sy))
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(pxx > 0, np.abs(pxy) / pxx, 0.0)
        coherence = np.where(pxx * pyy > 0, np.abs(pxy) ** 2 / (pxx * pyy), 0.0)
    return f, gain, coherence


def frf_index(candidate, reference, *, manoeuvre: str, name: str, channel: str, segment: float = 10.0,
              coherence_min: float = 0.8, f_min: float = 0.0, f_max: float = math.inf) -> IndexResult:
    """|H1| against frequency where both coherences reach ``coherence_min``, % of the reference RMS."""
    where = f"{manoeuvre}/{name}"
    tr, _ = _series(reference, "time", f"{where} reference")
    step = float(np.median(np.diff(tr)))
    f, hr, cr = _once_per_trace(reference, ("frf", channel, step, segment), partial(
        frf, reference, channel, step=step, segment=segment, where=f"{where} reference"))
    _, hc, cc = _once_per_trace(candidate, ("frf", channel, step, segment), partial(
        frf, candidate, channel, step=step, segment=segment, where=f"{where} candidate"))
    keep = (f > 0) & (f >= f_min) & (f <= f_max) & (cr >= coherence_min) & (cc >= coherence_min)
    if keep.sum() < 3:
        raise KpiError(f"{where}: {keep.sum()} frequencies with coherence >= {coherence_min} in both traces, "
                       "expected at least 3")
    ref, cand = hr[keep], hc[keep]
    return IndexResult(name, manoeuvre, _percent(cand, ref, float(np.sqrt(np.mean(ref ** 2))), where),
                       f[keep], cand, ref)


@dataclass(frozen=True)
class StepResponse:
    """ISO 7401 step-steer characteristics of one channel; ``time`` is measured from t50."""

    gain: float
    overshoot_percent: float
    peak_time: float
    response_time: float
    time: np.ndarray
    response: np.ndarray


def _crossing(t: np.ndarray, y: np.ndarray, level: float, where: str) -> float:
    """First instant y reaches level, interpolated linearly between samples."""
    above = np.flatnonzero(y >= level)
    if not above.size:
        raise KpiError(f"{where}: never reaches {level:.3g} of its step, expected a step response")
    i = above[0]
    if i == 0:
        return float(t[0])
    return float(t[i - 1] + (level - y[i - 1]) / (y[i] - y[i - 1]) * (t[i] - t[i - 1]))


def _peak_between_samples(t: np.ndarray, z: np.ndarray, k: int, window: np.ndarray) -> tuple[float, float]:
    """(time, value) of the maximum near sample k: the vertex of the parabola through samples k-1, k, k+1
    when both neighbours are in ``window``, else the sample itself. At a 5 ms sample rate the sample
    alone puts a peak time up to 2.5 ms off, a few % of a 0.3 s peak time."""
    if k == 0 or k + 1 == len(t) or not (window[k - 1] and window[k + 1]):
        return float(t[k]), float(z[k])
    h0, h1 = t[k - 1] - t[k], t[k + 1] - t[k]
    d0, d1 = (z[k - 1] - z[k]) / h0, (z[k + 1] - z[k]) / h1   # secant slopes to each neighbour
    curvature = (d1 - d0) / (h1 - h0)                        # z ~ z[k] + b x + a x^2 about t[k]
    if not curvature < 0:
        return float(t[k]), float(z[k])
    slope = d0 - curvature * h0
    offset = min(max(-slope / (2.0 * curvature), h0), h1)
    return float(t[k] + offset), float(z[k] + slope * offset + curvature * offset ** 2)


def step_response(trace, channel: str, *, steady_window: float = 1.0, where: str = "step") -> StepResponse:
    """Gain, overshoot, peak time and response time of ``channel`` to a steering-wheel step (ISO 7401)."""
    t, steer = _series(trace, "steering_wheel_angle", where)
    _, r = _series(trace, channel, where)
    steady = t >= t[-1] - steady_window
    transient_end = t[-1] - steady_window
    steer_step = steer[steady].mean() - steer[0]
    if abs(steer_step) < 1e-6:
        raise KpiError(f"{where}: steering_wheel_angle changes by {steer_step:.3g} rad, expected a step")
    u = (steer - steer[0]) / steer_step
    t_move, t50 = _crossing(t, u, 0.01, where), _crossing(t, u, 0.5, where)
    if not t50 < transient_end:
        raise KpiError(f"{where}: steering step at {t50:.3g} s, expected it before the last {steady_window} s")
    r0 = float(np.interp(t_move, t, r))
    r_step = r[steady].mean() - r0
    if r_step == 0:
        raise KpiError(f"{where}: {channel} does not respond to the steering step")
    z = (r - r0) / r_step
    after = t >= t_move
    response_time = _crossing(t[after], z[after], 0.9, f"{where}: {channel}") - t50
    transient = after & ~steady
    k = np.flatnonzero(transient)[np.argmax(z[transient])]
    t_peak, z_peak = _peak_between_samples(t, z, k, transient)
    overshoot = max(0.0, z_peak - 1.0) * 100.0
    peak_time = t_peak - t50 if z_peak > 1.0 else math.nan
    return StepResponse(float(r_step / steer_step), overshoot, peak_time, response_time, t - t50, r)


def _relative_percent(candidate: float, reference: float, where: str) -> float:
    if math.isnan(candidate) and math.isnan(reference):
        return 0.0
    if math.isnan(candidate) or math.isnan(reference):
        return 100.0
    if reference == 0:
        raise KpiError(f"{where}: reference value is 0, expected a non-zero value for a relative error")
    return 100.0 * abs(candidate - reference) / abs(reference)


STEP_METRICS = ("gain", "overshoot", "peak_time", "response_time", "trace")


def step_index(candidate, reference, *, manoeuvre: str, name: str, channel: str, metric: str,
               steady_window: float = 1.0) -> IndexResult:
    """One ISO 7401 characteristic of ``channel`` (STEP_METRICS), candidate against reference."""
    where = f"{manoeuvre}/{name}"
    sc = _once_per_trace(candidate, ("step", channel, steady_window), partial(
        step_response, candidate, channel, steady_window=steady_window, where=f"{where} candidate"))
    sr = _once_per_trace(reference, ("step", channel, steady_window), partial(
        step_response, reference, channel, steady_window=steady_window, where=f"{where} reference"))
    t, cand, ref = _on_reference_abscissa(sc.time, sc.response, sr.time, sr.response, where)
    if metric == "trace":
        return IndexResult(name, manoeuvre, _percent(cand, ref, np.ptp(ref), where), t, cand, ref)
    if metric not in STEP_METRICS:
        raise KpiError(f"{where}: unknown step metric '{metric}', expected one of {STEP_METRICS}")
    attribute = "overshoot_percent" if metric == "overshoot" else metric
    c_value, r_value = float(getattr(sc, attribute)), float(getattr(sr, attribute))
    if metric == "overshoot" and r_value == 0:
        value = c_value
    else:
        value = _relative_percent(c_value, r_value, where)
    return IndexResult(name, manoeuvre, value, t, cand, ref, c_value, r_value)


def index_rule(manoeuvre: str, name: str) -> str:
    """How index ``name`` of ``manoeuvre`` scores by default (the objective may score a near-zero reference by an
    absolute difference instead: ``pybridge.evaluate.near_zero``)."""
    function = index_functions[manoeuvre][name]
    if function.func is frf_index:
        return "RMSE, % of the reference RMS"
    metric = function.keywords.get("metric")
    if function.func is step_index and metric != "trace":
        return "relative error" + (" (the candidate's overshoot in points when the reference has none)"
                                   if metric == "overshoot" else "")
    return "RMSE, % of the reference range"


#: manoeuvres kept out of the objective to cross-validate an identification (time-trace indices)
VALIDATION_MANOEUVRES = ("slalom", "random_steer", "double_lane_change")

IndexFunction = Callable[[pd.DataFrame, pd.DataFrame], IndexResult]


#: the channels an index function reads besides its own ``channel`` (and time)
_INPUT_CHANNELS = {time_trace_index: (), ramp_map_index: ("ay",), frf_index: ("steering_wheel_angle",),
                   step_index: ("steering_wheel_angle",)}


def index_channels(manoeuvre: str, name: str) -> tuple[str, ...]:
    """The trace channels index ``name`` of ``manoeuvre`` reads (a derived channel as its sources)."""
    function = index_functions[manoeuvre][name]
    channel = function.keywords["channel"]
    return ("time", *DERIVED.get(channel, ((channel,), None))[0], *_INPUT_CHANNELS[function.func])


def _registry() -> dict[str, dict[str, IndexFunction]]:
    registry: dict[str, dict[str, IndexFunction]] = {}

    def add(manoeuvre, name, function, **options):
        registry.setdefault(manoeuvre, {})[name] = partial(function, manoeuvre=manoeuvre, name=name, **options)

    for channel in ("steering_wheel_angle", "sideslip", "roll", "load_transfer_total"):
        add("ramp_steer", channel, ramp_map_index, channel=channel)
    for channel in ("roll", "ay", "yaw_rate"):
        add("sine_sweep", f"{channel}_frf", frf_index, channel=channel)
    for channel in ("yaw_rate", "ay"):
        for metric in STEP_METRICS:
            add("step_steer", f"{channel}_{metric}", step_index, channel=channel, metric=metric)
    for channel in ("speed", "pitch", "fz_front", "fz_rear"):
        add("acceleration", channel, time_trace_index, channel=channel)
    for channel in ("deceleration", "pitch", "fz_front", "fz_rear"):
        add("braking", channel, time_trace_index, channel=channel)
    for manoeuvre in VALIDATION_MANOEUVRES:
        for channel in ("ay", "yaw_rate", "roll", "sideslip"):
            add(manoeuvre, channel, time_trace_index, channel=channel)
    return registry


#: manoeuvre -> index name -> function(candidate, reference) -> IndexResult
index_functions: dict[str, dict[str, IndexFunction]] = _registry()


def evaluate_indices(manoeuvre: str, candidate: pd.DataFrame, reference: pd.DataFrame,
                     names: Sequence[str] | None = None) -> list[IndexResult]:
    """The indices ``names`` (default: all of the manoeuvre) of candidate against reference."""
    if manoeuvre not in index_functions:
        raise KpiError(f"manoeuvre '{manoeuvre}': no indices, expected one of {sorted(index_functions)}")
    functions = index_functions[manoeuvre]
    names = list(functions) if names is None else list(names)
    unknown = [n for n in names if n not in functions]
    if unknown:
        raise KpiError(f"manoeuvre '{manoeuvre}': unknown indices {unknown}, expected some of {list(functions)}")
    candidate = matching(candidate, reference.attrs.get("definitions", {}))
    return [functions[n](candidate, reference) for n in names]
