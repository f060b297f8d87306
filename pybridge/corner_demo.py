"""The demo's corner step and its report section: SLEKQ corners of both axles and the four-post check.

:func:`run_corner_step` identifies the FL and RL corners (``pybridge.identify.corner``, homotopy on a
small budget) into ``RUN/corners/FL`` and ``RUN/corners/RL``, validates them on the four-post tests
(``pybridge.four_post``) into ``RUN/corners/four_post`` and draws the figures of the SLEKQ paper
(swept-sine travel MBM vs SLEKQ start and identified, the homotopy λ path, four-post traces and
FRFs) into ``RUN/corners/*.png``. :func:`corner_section` is the report's HTML section on them.
A data set without a corner's sweep or the four-post traces runs what it can
(``pybridge.demo_steps.corner_parts``); the summary's ``skipped`` names the rest, and with no sweep at all
the step is skipped (``StepSkipped``).
"""
from __future__ import annotations

import base64
import html
from pathlib import Path

import pandas as pd
import yaml

__all__ = ["DEMO_BUDGET", "DEMO_LAMBDAS", "corner_section", "run_corner_step"]

DEMO_BUDGET = 80                 # evaluations per corner (each simulates the 30 s sweep)
DEMO_LAMBDAS = (1.0, 0.5, 0.0)   # a short homotopy: two coupled stages lead, the last converges
FIGURES = {"sweep_FL.png": "FL swept-sine corner force: wheel travel of the MBM and the SLEKQ corner with the start "
                           "(converted) and the identified parameters, whole sweep and its last 3 s",
           "sweep_RL.png": "RL (solid axle, right wheel held) as FL",
           "lambda_path.png": "Homotopy path: Eq. 6 fitness at the optimum of each stage against λ",
           "four_post_traces.png": "Four-post heave test (body heave) and pitch test (body pitch), 20-26 s: MBM and "
                                   "FourPost10DoF with the identified and the axle-equivalent corners",
           "four_post_frf.png": "FRFs |H1| of body heave and pitch over the front post displacement, MBM and "
                                "FourPost10DoF"}


def run_corner_step(reference: str | Path, out: str | Path, *, budget: int = DEMO_BUDGET, resume: bool = False,
                    progress: bool = True) -> dict:
    """Identify FL and RL, validate on the four posts, draw the figures; a summary for run.yaml (``skipped``:
    the parts the data set has no traces for)."""
    from fmu_build import build_fmu
    from pybridge.demo_steps import FOUR_POST_CHECK, corner_parts
    from pybridge.four_post import FOUR_POST, validate_four_post
    from pybridge.identify.corner import KCRIG, identify_corner
    from pybridge.identify.slekq import KCRIG_INTEGRATOR

    corners, skipped = corner_parts(reference)
    folder = Path(out) / "corners"
    folder.mkdir(parents=True, exist_ok=True)
    kc = build_fmu(KCRIG, backend="native", fmi_type="cs", out_dir=folder, integrator=KCRIG_INTEGRATOR)
    summary = {}
    for corner in corners:
        run = folder / corner
        if (run / "result.yaml").is_file() and resume:
            result = yaml.safe_load((run / "result.yaml").read_text())
        else:
            result = identify_corner(reference, corner, run, fmu=kc, max_evaluations=budget, lambdas=DEMO_LAMBDAS,
                                     resume=resume and (run / "record.jsonl").exists(), progress=progress)
        nrmse = result["wheel_travel_nrmse_percent"]
        summary[f"{corner} travel NRMSE %"] = f"{nrmse['start']:.2f} -> {nrmse['identified']:.2f}"
    _corner_figures(folder, corners)
    if FOUR_POST_CHECK in skipped:
        return {**summary, "skipped": skipped}
    four_post = validate_four_post(folder / "FL", folder / "RL", reference, folder / "four_post",
                                   fmu=build_fmu(FOUR_POST, backend="native", fmi_type="cs", out_dir=folder))
    for test, channel in (("four_post_heave", "heave"), ("four_post_pitch", "pitch")):
        for variant, result in four_post["tests"][test].items():
            index = result["indices"][channel]
            summary[f"{test} {channel} {variant} %"] = (f"{index['rmse_percent']:.1f} (at rest "
                                                         f"{index['rmse_at_rest_percent']:.1f})")
    _four_post_figures(folder, four_post)
    return {**summary, "skipped": skipped} if skipped else summary


def _corner_figures(folder: Path, corners: list[str]) -> None:
    """The swept-sine travel of each corner and the homotopy λ path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for corner in corners:
        sweep = pd.read_csv(folder / corner / "sweep.csv")
        fig, axes = plt.subplots(2, 1, figsize=(9, 5.5), constrained_layout=True)
        for ax, part in zip(axes, (sweep, sweep[sweep["time"] >= sweep["time"].iloc[-1] - 3])):
            for column, label, style in (("wheel_travel_mbm", "MBM", "k-"), ("wheel_travel_start", "SLEKQ start", "C1--"),
                                         ("wheel_travel_identified", "SLEKQ identified", "C0-")):
                ax.plot(part["time"], 1000 * part[column], style, lw=0.8, label=label)
            ax.set_xlabel("time [s]")
            ax.set_ylabel("wheel travel [mm]")
        axes[0].legend(loc="upper right", fontsize=8)
        axes[0].set_title(f"{corner}: swept-sine corner force F0 + 1 kN sin, 0-6 Hz")
        fig.savefig(folder / f"sweep_{corner}.png", dpi=90)
        plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 3.5), constrained_layout=True)
    for corner in corners:
        path = yaml.safe_load((folder / corner / "result.yaml").read_text())["lambda_path"]
        ax.semilogy([p["lambda"] for p in path], [p["fitness"] for p in path], "o-", label=corner)
    ax.set_xlabel("λ")
    ax.set_ylabel("Eq. 6 fitness at the stage optimum")
    ax.invert_xaxis()
    ax.legend()
    fig.savefig(folder / "lambda_path.png", dpi=90)
    plt.close(fig)


def _four_post_figures(folder: Path, four_post: dict) -> None:
    """MBM and FourPost10DoF traces of the heave and pitch tests, and their FRFs."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pybridge.four_post import from_static
    from pybridge.traces import find_trace, read_trace

    reference_dir = Path(yaml.safe_load((folder / "FL" / "params_start" / "params.yaml").read_text())
                         ["metadata"]["source"])
    fig, axes = plt.subplots(2, 1, figsize=(9, 5.5), constrained_layout=True)
    fig_frf, axes_frf = plt.subplots(1, 2, figsize=(9, 3.5), constrained_layout=True)
    for ax, ax_frf, (test, channel, scale, unit) in zip(axes, axes_frf, (("four_post_heave", "heave", 1000, "mm"),
                                                                       ("four_post_pitch", "pitch", 1000, "mrad"))):
        mbm = from_static(read_trace(find_trace(reference_dir, test))[0])   # as the indices compare it
        window = (mbm["time"] >= 20) & (mbm["time"] <= 26)
        ax.plot(mbm["time"][window], scale * mbm[channel][window], "k-", lw=0.8, label="MBM")
        for variant, style in (("identified", "C1--"), ("axle_equivalent", "C0-")):
            model = pd.read_csv(folder / "four_post" / f"{variant}_{test}.csv")
            keep = (model["time"] >= 20) & (model["time"] <= 26)
            ax.plot(model["time"][keep], scale * model[channel][keep], style, lw=0.8, label=variant.replace("_", " "))
        ax.set_ylabel(f"body {channel} [{unit}]")
        ax.set_xlabel("time [s]")
        ax.legend(loc="upper right", fontsize=8)
        for variant, style in (("identified", "C1--"), ("axle_equivalent", "C0-")):
            curve = four_post["tests"][test][variant]["frf"][channel]
            if variant == "identified":
                ax_frf.plot(curve["frequency_Hz"], curve["mbm"], "k-", label="MBM")
            ax_frf.plot(curve["frequency_Hz"], curve["slekq"], style, label=variant.replace("_", " "))
        ax_frf.set_xlabel("frequency [Hz]")
        ax_frf.set_ylabel(f"|{channel} / post| [{'1' if channel == 'heave' else 'rad/m'}]")
        ax_frf.set_title(test)
        ax_frf.legend(fontsize=8)
    fig.savefig(folder / "four_post_traces.png", dpi=90)
    fig_frf.savefig(folder / "four_post_frf.png", dpi=90)
    plt.close(fig)
    plt.close(fig_frf)


def corner_section(run_dir: str | Path, number: int) -> str | None:
    """The report's section on ``RUN/corners`` (None when the run has no corner step)."""
    folder = Path(run_dir) / "corners"
    corners = [c for c in ("FL", "RL") if (folder / c / "result.yaml").is_file()]
    if not corners:
        return None
    e = html.escape
    rows = []
    for corner in corners:
        r = yaml.safe_load((folder / corner / "result.yaml").read_text())
        rates = r["wheel_rate_N_per_mm"]
        rows.append(f"<tr><td>{corner}</td><td>{r['wheel_travel_nrmse_percent']['start']:.2f}</td>"
                    f"<td>{r['wheel_travel_nrmse_percent']['identified']:.2f}</td><td>{r['evaluations']}</td>"
                    f"<td>{r['parameters']['data.mUnsprung']['start']:.1f} → {r['parameters']['data.mUnsprung']['identified']:.1f}</td>"
                    f"<td>{rates['parallel']:.1f} / {rates['opposite']:.1f} / {rates['single_wheel']:.1f}</td>"
                    f"<td>{rates['slekq_identified']:.1f}</td></tr>")
    four_post_html = _four_post_table(folder)
    figures = []
    for name, caption in FIGURES.items():
        path = folder / name
        if path.is_file():
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            figures.append(f'<figure><img class="figure" src="data:image/png;base64,{data}" alt="{e(caption)}">'
                           f"<figcaption>{e(caption)} (<code>corners/{e(name)}</code>)</figcaption></figure>")
    return f"""<section id="corners">
<h2>{number}. SLEKQ quarter-cars of the MBM corners (SLEKQ paper)</h2>
<p>Each corner starts from the MBM data set (kinematic polynomials fitted to the K&amp;C sweeps, strut along the
damper, spring from the single-wheel K&amp;C rate, damper fitted to the .dpr, unsprung mass from the mass table)
and its unsprung mass, spring and damper are identified by homotopy on the KCRig against the MBM's swept-sine
corner-force trace (chassis held, the other wheel of the axle held). The rear corner of the solid axle is the
corner of that test: the left wheel moving with the right one held, its rate the mean of the K&amp;C parallel
and opposite rates. Heave and pitch move both wheels of an axle together (the parallel rate), so the four-post
model is shown with the corners as identified and as axle equivalents (springs scaled by parallel / single-wheel
rate).</p>
<table><thead><tr><th>corner</th><th>travel NRMSE start [%]</th><th>identified [%]</th><th>evaluations</th>
<th>unsprung mass [kg]</th><th>K&amp;C rate parallel / opposite / single [N/mm]</th><th>SLEKQ rate [N/mm]</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table>
{four_post_html}
{''.join(figures)}
</section>"""


def _four_post_table(folder: Path) -> str:
    """The four-post RMSE table, or why the check did not run (RUN/run.yaml's ``skipped_steps``)."""
    e = html.escape
    path = folder / "four_post" / "four_post.yaml"
    if not path.is_file():
        from pybridge.demo_steps import FOUR_POST_CHECK

        from pybridge.fileio import read_yaml

        run_yaml = folder.parent / "run.yaml"
        data = read_yaml(run_yaml) if run_yaml.is_file() else None
        why = (data.get("skipped_steps") or {}).get(FOUR_POST_CHECK) if isinstance(data, dict) else None
        return f'<p class="note">Four-post check not run: {e(why or "no four_post.yaml in corners/four_post")}.</p>'
    four_post = yaml.safe_load(path.read_text())
    rows = []
    for test, variants in four_post["tests"].items():
        for variant, result in variants.items():
            cells = "".join(f"<td>{v['rmse_percent']:.1f} ({v['rmse_at_rest_percent']:.1f})</td>"
                            for v in result["indices"].values())
            rows.append(f"<tr><td>{e(test)}</td><td>{e(variant)}</td>{cells}</tr>")
    channels = "".join(f"<th>{e(c)}</th>" for c in next(iter(next(iter(four_post["tests"].values())).values()))["indices"])
    return f"""<p>Four-post RMSE index, % of the MBM range, body heave, pitch and roll from the static state both
traces start at (the MBM's pitch and roll are absolute angles from its design attitude); in brackets: after
removing the MBM's rest offset, the difference between where the MBM settles with the posts at rest and its
initial state; TP = 5 %.</p>
<table><thead><tr><th>test</th><th>corners</th>{channels}</tr></thead><tbody>{''.join(rows)}</tbody></table>"""
