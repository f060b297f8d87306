"""Four-post validation of identified SLEKQ corners against the MBM (SLEKQ paper, Sec. 5).

:func:`four_post_parameters` assembles ``VehicleRTM.Vehicles.FourPost10DoF`` from a front and a rear
KCRig parameter set (``pybridge identify-corner``'s ``params_identified``; the right corners mirror
the left ones) and the MBM data set: body mass and CoG from the static corner loads of
``mbm_summary.yaml`` less the corners' unsprung masses (so the model stands at design ride height
under the MBM's loads), pitch and roll inertia of the sprung and linkage bodies of ``masses.csv``
about their CoG, wheelbase and tracks from the summary, tyre vertical stiffness and damping from the
``.tir``, times the tyres per rear wheel station at the rear (dual tyres,
:func:`pybridge.convert_variant.choose_variant`). :func:`four_post_run` drives it with the posts of an MBM four-post trace
(``four_post_heave``, ``four_post_pitch``: post heights, fed at the middle of each communication
step with their spline derivative) and returns the model's trace in the MBM's channels;
:func:`compare_four_post` gives the RMSE indices (% of the MBM range, :func:`pybridge.evaluate.kpi.time_trace_index`)
and the FRFs of body heave and pitch over the post displacement.

The MBM's heave is that of its chassis body's reference point (the chassis CoG of ``masses.csv``);
the model's heave is moved there from its own CoG with the pitch. Both traces start at their static
equilibrium, and the body's motion is compared from there: the MBM writes heave from its static
height but pitch and roll as absolute angles from its design attitude (at rest on the posts the 7 t
stands at 0.42 mrad pitch, the 3.5 t at -0.22 mrad, because its static ride heights differ from the
design ones), while the model's static state is its design attitude. :data:`ATTITUDE` channels of the
MBM are therefore taken from their first sample (:func:`from_static`). The MBM four-post traces hold no
wheel travels, so the travels are compared only where the trace has them.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.interpolate import CubicSpline

from pybridge.convert_variant import choose_variant
from pybridge.mbm.dataset import read_mbm
from pybridge.evaluate.kpi import frf, time_trace_index
from pybridge.mbm.mass_table import combined_properties
from pybridge.parameters import ParameterSet

__all__ = ["ATTITUDE", "FOUR_POST", "FourPostError", "axle_equivalent", "compare_four_post", "four_post_parameters",
           "four_post_run", "from_static", "read_corner_rates", "validate_four_post"]

FOUR_POST = "VehicleRTM.Vehicles.FourPost10DoF"
CORNERS = ("fl", "fr", "rl", "rr")
CHANNELS = ("heave", "pitch", "fz_fl", "fz_fr", "fz_rl", "fz_rr")
ATTITUDE = ("heave", "pitch", "roll")   # body motion, compared from the static state both traces start at


class FourPostError(ValueError):
    """A corner run folder the four-post check cannot use; the message names the file and the key."""


RATES = ("parallel", "single_wheel")


def read_corner_rates(run: Path) -> dict[str, float]:
    """The K&C rates of ``run/corner.yaml`` (``rates_N_per_mm``: parallel, single_wheel, ...) in N/m, read
    strictly (a key written twice is an error) and checked: positive finite numbers."""
    from pybridge.fileio import read_yaml

    path = Path(run) / "corner.yaml"
    if not path.is_file():
        raise FourPostError(f"{run}: no corner.yaml; expected a run folder of pybridge identify-corner")
    data = read_yaml(path, FourPostError)
    rates = data.get("rates_N_per_mm") if isinstance(data, dict) else None
    if not isinstance(rates, dict):
        raise FourPostError(f"{path}: rates_N_per_mm: missing or not a mapping; expected the K&C rates "
                            f"({', '.join(RATES)}) in N/mm, as pybridge identify-corner writes them")
    for key in RATES:
        value = rates.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value <= 0:
            raise FourPostError(f"{path}: rates_N_per_mm.{key}: {value!r}; expected a positive number (N/mm)")
    return {k: 1000 * float(v) for k, v in rates.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _corner_values(params: ParameterSet) -> dict:
    values = {k[len("data."):]: v for k, v in params.scalars.items() if k.startswith("data.")}
    values.update({k[len("data."):]: np.asarray(v) for k, v in params.tables.items() if k.startswith("data.")})
    return values


def four_post_parameters(front: ParameterSet, rear: ParameterSet, mbm_dir: str | Path, *,
                         step: float = 0.001) -> tuple[ParameterSet, dict]:
    """The FourPost10DoF parameter set from the two corners and the MBM data set; and the body data
    used (mass, a, inertias, chassis reference point, tyre)."""
    mbm = read_mbm(mbm_dir)
    summary, g = mbm.summary, 9.81
    loads = summary["static_corner_load"]
    wheelbase = float(summary["wheelbase"])
    m_front, m_rear = float(front.scalars["data.mUnsprung"]), float(rear.scalars["data.mUnsprung"])
    front_axle = (float(loads["FL"]) + float(loads["FR"])) / g - 2 * m_front
    rear_axle = (float(loads["RL"]) + float(loads["RR"])) / g - 2 * m_rear
    body_mass = front_axle + rear_axle
    a = wheelbase * rear_axle / body_mass
    bodies = mbm.masses.data[mbm.masses.data["class"].isin(("sprung", "linkage"))]
    inertia = combined_properties(bodies)
    chassis = mbm.masses.data[mbm.masses.data["body"] == "chassis"].iloc[0]
    vertical = mbm.tir.sections.get("VERTICAL", {})
    c_tyre, d_tyre = float(vertical["VERTICAL_STIFFNESS"]), float(vertical.get("VERTICAL_DAMPING", 0.0))
    tyres = {"front": 1, "rear": choose_variant(mbm).rear_tyres_per_wheel}   # dual tyres: two springs in parallel
    scalars = {"body.m": body_mass, "body.a": a, "body.wheelbase": wheelbase, "body.Ixx": float(inertia["ixx"]),
               "body.Iyy": float(inertia["iyy"]), "body.trackFront": float(summary["track"]["front"]),
               "body.trackRear": float(summary["track"]["rear"]), "g": g, "fixedStepSize": step}
    tables = {}
    f_sprung = {"front": body_mass * g * (wheelbase - a) / (2 * wheelbase), "rear": body_mass * g * a / (2 * wheelbase)}
    for axle, params, corners in (("front", front, ("FL", "FR")), ("rear", rear, ("RL", "RR"))):
        values = {**_corner_values(params), "cTyre": tyres[axle] * c_tyre, "dTyre": tyres[axle] * d_tyre}
        for prefix in (f"data{axle.capitalize()}", *(f"corner{c}.data" for c in corners)):
            for name, value in values.items():
                if np.ndim(value):
                    tables[f"{prefix}.{name}"] = value
                else:
                    scalars[f"{prefix}.{name}"] = float(value)
        for c in corners:
            scalars[f"corner{c}.FDesign"] = f_sprung[axle]
            scalars[f"corner{c}.g"] = g
    body = {"mass_kg": body_mass, "a_m": a, "Ixx_kgm2": float(inertia["ixx"]), "Iyy_kgm2": float(inertia["iyy"]),
            "chassis_x_m": float(-chassis["x"]), "cTyre_N_per_m": c_tyre, "dTyre_Ns_per_m": d_tyre,
            "unsprung_front_kg": m_front, "unsprung_rear_kg": m_rear, "rear_tyres_per_wheel": tyres["rear"]}
    return ParameterSet(model=FOUR_POST, scalars=scalars, tables=tables,
                        metadata={"source": str(mbm_dir), "corners": "front/rear SLEKQ"}), body


def four_post_run(session, params: ParameterSet, reference: pd.DataFrame, body: Mapping, *,
                  step: float | None = None) -> pd.DataFrame:
    """The FourPost10DoF (open ``session``) with ``params`` driven by the posts of the MBM trace
    ``reference``; returns time, heave (at the MBM chassis point), pitch, roll, posts, tyre loads and
    wheel travels (``travel_fl`` ...) at the reference's samples."""
    t = reference["time"].to_numpy()
    step = float(np.median(np.diff(t))) if step is None else step
    count = int(round((t[-1] - t[0]) / step))
    times = t[0] + step * np.arange(count + 1)
    middle = np.minimum(times + step / 2, t[-1])
    inputs = {"time": times}
    for i, c in enumerate(CORNERS, start=1):
        spline = CubicSpline(t, reference[f"post_{c}"].to_numpy())
        inputs[f"zPost[{i}]"], inputs[f"vPost[{i}]"] = spline(middle), spline(middle, 1)
    session.apply(params)
    run = session.simulate(pd.DataFrame(inputs), stop_time=float(times[-1]), step=step,
                           start_time=float(times[0]), outputs=["heave", "pitch", "roll", "FTyre", "zWheel"])
    forward = float(params.scalars["body.a"]) - float(body["chassis_x_m"])   # chassis point ahead of the CoG
    out = {"time": run["time"], "heave": run["heave"] - forward * run["pitch"], "pitch": run["pitch"],
           "roll": run["roll"]}
    for i, c in enumerate(CORNERS, start=1):
        out[f"post_{c}"] = np.interp(run["time"], t, reference[f"post_{c}"])
        out[f"fz_{c}"] = run[f"FTyre[{i}]"]
        out[f"travel_{c}"] = run[f"zWheel[{i}]"]
    return pd.DataFrame(out)


def from_static(reference: pd.DataFrame) -> pd.DataFrame:
    """The MBM trace with its :data:`ATTITUDE` channels measured from the first sample, the static equilibrium
    the four-post references start at (see the module docstring)."""
    return reference.assign(**{c: reference[c] - reference[c].iloc[0] for c in ATTITUDE if c in reference})


def compare_four_post(model: pd.DataFrame, reference: pd.DataFrame, manoeuvre: str, *,
                      tolerance_percent: float = 5.0, segment: float = 8.0, rest_window: float = 1.0) -> dict:
    """RMSE indices (% of the MBM range) of every channel both traces have, each against TP, and the
    FRFs |H1| of heave and pitch over the mean post displacement (front posts for pitch).

    Each index is given twice: as is (``rmse_percent``) and after moving the MBM trace by its rest
    offset (``rmse_at_rest_percent``): the MBM's mean over the last ``rest_window`` s, where the posts
    are back at rest, minus its value at t = 0 (the model starts and stays at rest at its static
    point; an MBM that settles elsewhere from its initial state carries that offset through the test).
    The MBM's heave, pitch and roll are taken from its static state first (:func:`from_static`)."""
    reference = from_static(reference)
    indices = {}
    end = reference["time"] >= reference["time"].iloc[-1] - rest_window
    for channel in (*CHANNELS, *(f"travel_{c}" for c in CORNERS)):
        if channel in model and channel in reference:
            offset = float(reference.loc[end, channel].mean() - reference[channel].iloc[0])
            at_rest = reference.assign(**{channel: reference[channel] - offset})
            value = time_trace_index(model, reference, manoeuvre=manoeuvre, name=channel, channel=channel).value_percent
            rest = time_trace_index(model, at_rest, manoeuvre=manoeuvre, name=channel, channel=channel).value_percent
            indices[channel] = {"rmse_percent": round(value, 3), "within_tp": bool(value <= tolerance_percent),
                                "rest_offset": offset, "rmse_at_rest_percent": round(rest, 3),
                                "within_tp_at_rest": bool(rest <= tolerance_percent)}
    frfs = {}
    for channel in ("heave", "pitch"):
        curves = {}
        for label, trace in (("mbm", reference), ("slekq", model)):
            trace = trace.assign(post=trace[["post_fl", "post_fr"]].mean(axis=1))
            f, gain, coherence = frf(trace, channel, segment=segment, input_channel="post",
                                     where=f"{manoeuvre}/{channel} {label}")
            curves[label] = (f, gain, coherence)
        f = curves["mbm"][0]
        keep = (f > 0.3) & (f <= 6.0)
        frfs[channel] = {"frequency_Hz": f[keep].tolist(), "mbm": curves["mbm"][1][keep].tolist(),
                         "slekq": curves["slekq"][1][keep].tolist(),
                         "coherence_mbm": curves["mbm"][2][keep].tolist()}
    return {"manoeuvre": manoeuvre, "tolerance_percent": tolerance_percent, "indices": indices, "frf": frfs}


def axle_equivalent(params: ParameterSet, rates: Mapping[str, float]) -> ParameterSet:
    """The corner with its spring k1..k3 scaled by the K&C parallel over single-wheel rate: the corner as
    heave and pitch tests load it (both wheels of the axle moving together). ``rates`` as in
    ``corner.yaml`` (``parallel``, ``single_wheel``)."""
    ratio = float(rates["parallel"]) / float(rates["single_wheel"])
    return params.with_values({k: params.scalars[k] * ratio for k in ("data.k1", "data.k2", "data.k3")})


def validate_four_post(front_run: str | Path, rear_run: str | Path, reference_dir: str | Path, out_dir: str | Path,
                       *, fmu: str | Path | None = None, duration: float | None = None) -> dict:
    """Four-post heave and pitch of the corners identified in ``front_run`` and ``rear_run`` (run folders
    of ``pybridge identify-corner``) against the MBM traces of ``reference_dir``; both as identified and
    as axle equivalents (:func:`axle_equivalent`). Writes ``out_dir/four_post.yaml`` and the model traces
    ``out_dir/<variant>_<test>.csv``; returns the summary. ``duration`` (s) shortens the tests."""
    import yaml

    from pybridge.simulate.fmu import FMUSession
    from pybridge.parameters import read_parameter_set
    from pybridge.traces import find_trace, read_trace

    out_dir, reference_dir = Path(out_dir), Path(reference_dir)
    corners = {}
    for axle, run in (("front", Path(front_run)), ("rear", Path(rear_run))):
        rates = read_corner_rates(run)
        corners[axle] = (read_parameter_set(run / "params_identified"), rates)
    out_dir.mkdir(parents=True, exist_ok=True)
    if fmu is None:
        from fmu_build import build_fmu
        fmu = build_fmu(FOUR_POST, out_dir=out_dir / "fmu-build", fmi_type="cs")
    variants = {"identified": (corners["front"][0], corners["rear"][0]),
                "axle_equivalent": tuple(axle_equivalent(*corners[a]) for a in ("front", "rear"))}
    summary = {"format": "vehiclertm-four-post 1", "front": str(front_run), "rear": str(rear_run),
               "variants": {"identified": "the corners as identified on the corner sweep (single-wheel rate)",
                            "axle_equivalent": "springs scaled by the K&C parallel / single-wheel rate "
                                               "(both wheels of an axle move together in heave and pitch)"},
               "tests": {}}
    with FMUSession(fmu, instance_name="fourpost") as session:
        for variant, (front, rear) in variants.items():
            params, body = four_post_parameters(front, rear, reference_dir / "mbm")
            summary.setdefault("body", body)
            for test in ("four_post_heave", "four_post_pitch"):
                reference = read_trace(find_trace(reference_dir, test))[0]
                if duration is not None:
                    reference = reference[reference["time"] <= duration + 1e-9].reset_index(drop=True)
                model = four_post_run(session, params, reference, body)
                model.to_csv(out_dir / f"{variant}_{test}.csv", index=False)
                summary["tests"].setdefault(test, {})[variant] = compare_four_post(model, reference, test)
    (out_dir / "four_post.yaml").write_text(yaml.safe_dump(summary, sort_keys=False))
    return summary
