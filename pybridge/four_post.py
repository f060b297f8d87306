"""Four-post validation of identified SLEKQ corners against the MBM (SLEKQ paper, Sec. 5).

:func:`four_post_parameters` assembles ``VehicleRTM.Vehicles.FourPost10DoF`` from a front and a rear
KCRig parameter set (``pybridge identify-corner``'s ``params_identified``; the right corners mirror
the left ones) and the MBM data set: body mass and CoG from the static corner loads of
``mbm_summary.yaml`` less the corners' unsprung masses (so the model stands at design ride height
under the MBM's loads), pitch and roll inertia of the sprung and linkage bodies of ``masses.csv``
about their CoG, wheelbase and tracks from the summary, tyre vertical stiffness and damping from the
``.tir``. :func:`four_post_run` drives it with the posts of an MBM four-post trace
(``four_post_heave``, ``four_post_pitch``: post heights, fed at the middle of each communication
step with their spline derivative) and returns the model's trace in the MBM's channels;
:func:`compare_four_post` gives the RMSE indices (% of the MBM range, :func:`pybridge.kpi.time_trace_index`)
and the FRFs of body heave and pitch over the post displacement.

The MBM's heave is that of its chassis body's reference point (the chassis CoG of ``masses.csv``);
the model's heave is moved there from its own CoG with the pitch. The MBM four-post traces hold no
wheel travels, so the travels are compared only where the trace has them.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.interpolate import CubicSpline

from pybridge.convert import read_mbm
from pybridge.kpi import frf, time_trace_index
from pybridge.mbm.mass_table import combined_properties
from pybridge.parameters import ParameterSet

__all__ = ["FOUR_POST", "compare_four_post", "four_post_parameters", "four_post_run"]

FOUR_POST = "VehicleRTM.Vehicles.FourPost10DoF"
CORNERS = ("fl", "fr", "rl", "rr")
CHANNELS = ("heave", "pitch", "fz_fl", "fz_fr", "fz_rl", "fz_rr")


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
    scalars = {"body.m": body_mass, "body.a": a, "body.wheelbase": wheelbase, "body.Ixx": float(inertia["ixx"]),
               "body.Iyy": float(inertia["iyy"]), "body.trackFront": float(summary["track"]["front"]),
               "body.trackRear": float(summary["track"]["rear"]), "g": g, "fixedStepSize": step}
    tables = {}
    f_sprung = {"front": body_mass * g * (wheelbase - a) / (2 * wheelbase), "rear": body_mass * g * a / (2 * wheelbase)}
    for axle, params, corners in (("front", front, ("FL", "FR")), ("rear", rear, ("RL", "RR"))):
        values = {**_corner_values(params), "cTyre": c_tyre, "dTyre": d_tyre}
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
            "unsprung_front_kg": m_front, "unsprung_rear_kg": m_rear}
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


def compare_four_post(model: pd.DataFrame, reference: pd.DataFrame, manoeuvre: str, *,
                      tolerance_percent: float = 5.0, segment: float = 8.0, rest_window: float = 1.0) -> dict:
    """RMSE indices (% of the MBM range) of every channel both traces have, each against TP, and the
    FRFs |H1| of heave and pitch over the mean post displacement (front posts for pitch).

    Each index is given twice: as is (``rmse_percent``) and after moving the MBM trace by its rest
    offset (``rmse_at_rest_percent``): the MBM's mean over the last ``rest_window`` s, where the posts
    are back at rest, minus its value at t = 0 (the model starts and stays at rest at its static
    point; an MBM that settles elsewhere from its initial state carries that offset through the test)."""
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
