"""The report's HTML sections, in page order: header and verdict, index errors, compared curves,
frequency responses, identified parameters, convergence, run metadata, sensitivity analysis."""
from __future__ import annotations

import json
import platform
from datetime import datetime
from pathlib import Path

import matplotlib

from pybridge.fileio import read_yaml
from pybridge.report.html import Figure, escape, figure_html, fmt_number, html_table
from pybridge.report.run_folder import SETS, ReportError, Run, objective_file


def _show(figures: list[Figure]) -> str:
    return "\n".join(figure_html(f) for f in figures)


def header(run: Run, comparison: dict, total: int) -> str:
    """Title, what was run (facts table) and the verdict."""
    summary = run.summary
    return f"""<header>
<h1>RTM identification report</h1>
<p>{escape(summary['method'])} identification of {len(summary['parameters'])} uncertain parameters of
<code>{escape(run.nominal.model)}</code> against the multibody reference <code>{escape(summary['reference'])}</code>;
run folder <code>{escape(run.folder.resolve())}</code>. {total} figures.</p>
{html_table(None, [list(f) for f in _facts(run, comparison)])}
<div class="verdict" id="verdict"><h2 style="margin-top:.2em">Verdict</h2><ul>
{chr(10).join(_verdict(run, comparison))}
</ul></div>
</header>"""


def _facts(run: Run, comparison: dict) -> list[tuple[str, str]]:
    summary = run.summary
    created = datetime.fromtimestamp((run.folder / "result.yaml").stat().st_mtime).isoformat(sep=" ",
                                                                                            timespec="minutes")
    return [
        ("reference data set", str(summary["reference"])), ("FMU", str(summary["fmu"])),
        ("model", run.nominal.model), ("method", f"{summary['method']}"
                                                 + (f" ({summary['poll']})" if summary.get("poll") else "")),
        ("evaluations", fmt_number(summary.get("evaluations", "–"))),
        ("iterations", fmt_number(summary.get("iterations", "–"))),
        ("stopped because", str(summary.get("stopped_because", "–"))),
        ("wall time", f"{summary['wall_time_s']} s" if "wall_time_s" in summary else "–"),
        ("workers", fmt_number(summary.get("workers", "–"))), ("run finished", created),
        ("tolerance TP", f"{comparison['tolerance_percent']:g} %"),
        ("internal step", _internal_step(summary.get("identification_step"))),
    ]


def _internal_step(choice: dict | None) -> str:
    """The identification's internal step and why (result.yaml's identification_step; runs before it: –)."""
    if not choice:
        return "–"
    size = "the FMU's own" if choice.get("step_s") is None else f"{1e3 * choice['step_s']:g} ms"
    return f"{size}: {choice.get('reason', '')}"


def _verdict(run: Run, comparison: dict) -> list[str]:
    """The verdict's items: fitness, objective and validation indices within TP, skipped and failed runs."""
    summary, tolerance = run.summary, comparison["tolerance_percent"]
    fitness = {name: summary[name].get("fitness") for name in SETS}
    objective_within = {name: _within(comparison, "objective", name) for name in SETS}
    validation_within = {name: _within(comparison, "validation", name) for name in SETS}
    failed = {m: e["failed"] for m, e in comparison["manoeuvres"].items() if e.get("failed")}

    def fit(value) -> str:
        return fmt_number(float(value)) if isinstance(value, (int, float)) else "–"

    def ratio(pair) -> str:
        return f"{pair[0]} of {pair[1]}"

    verdict = [
        f"<li>Fitness (Eq. 9): <strong>{fit(fitness['nominal'])} → {fit(fitness['optimized'])}</strong> "
        "(nominal → optimized).</li>",
        f"<li>Objective indices within TP = {tolerance:g} %: <strong>{ratio(objective_within['nominal'])}"
        f"</strong> nominal → <strong>{ratio(objective_within['optimized'])}</strong> optimized.</li>",
    ]
    if validation_within["nominal"][1]:
        names = ", ".join(m for m, e in comparison["manoeuvres"].items() if e["role"] == "validation")
        verdict.append(f"<li>Validation manoeuvres ({escape(names)}, not in the fitness): indices within TP "
                       f"<strong>{ratio(validation_within['nominal'])}</strong> nominal → "
                       f"<strong>{ratio(validation_within['optimized'])}</strong> optimized.</li>")
    skipped = {**summary.get("skipped", {}), **comparison.get("skipped", {})}
    if skipped:
        verdict.append("<li>Skipped manoeuvres (the data set or the parameter set cannot give them): "
                       + "; ".join(f"{escape(m)}: {escape(why)}" for m, why in skipped.items()) + ".</li>")
    skipped_steps = _skipped_steps(run)
    if skipped_steps:
        verdict.append("<li>Skipped steps (the data set has no data for them): "
                       + "; ".join(f"{escape(s)}: {escape(why)}" for s, why in skipped_steps.items()) + ".</li>")
    if failed:
        verdict.append("<li>Failed simulations: " + "; ".join(
            f"{escape(m)}: {escape(', '.join(f))}" for m, f in failed.items()) + " (details in the table).</li>")
    return verdict


def _skipped_steps(run: Run) -> dict:
    """Step (or part) -> why the demo skipped it: ``skipped_steps`` of RUN/run.yaml, when there is one."""
    path = run.folder / "run.yaml"
    try:
        data = read_yaml(path, ReportError) if path.is_file() else {}
    except ReportError:
        return {}
    skipped = data.get("skipped_steps") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in skipped.items()} if isinstance(skipped, dict) else {}


def index_errors(comparison: dict, figures: list[Figure]) -> str:
    """Section 1: the index errors per manoeuvre, figure and table."""
    return f"""<section id="errors">
<h2>1. Index errors per manoeuvre</h2>
<p>Error e of each index in % (pybridge.evaluate.kpi, Tables 1–2 of the LCV paper), nominal and optimized
parameter set, against the tolerance TP = {comparison['tolerance_percent']:g} %. Cells above TP are highlighted.
The last column says how each index was scored: an index whose MBM value is near zero (below the floor of the
objective's <code>near_zero</code> rule) is the absolute difference against its own tolerance, on the TP scale.</p>
{_show(figures)}
{_error_table(comparison)}
</section>"""


def compared_curves(comparison: dict, figures: list[Figure]) -> str:
    """Section 2: the curves each index compares."""
    trace_manoeuvres = ", ".join(m for m in comparison["manoeuvres"] if m != "sine_sweep")
    return f"""<section id="traces">
<h2>2. Compared curves</h2>
<p>The curves each index compares ({escape(trace_manoeuvres)}): maps against lateral acceleration for the
ramp steer, step responses from 50 % of the steering step, time traces for the others. Angles in degrees.</p>
{_show(figures) or '<p class="note">No curves to draw.</p>'}
</section>"""


def frequency_responses(figures: list[Figure]) -> str:
    """Section 3: the sine sweep's frequency responses."""
    return f"""<section id="frf">
<h2>3. Frequency responses (sine sweep)</h2>
{_show(figures) or '<p class="note">No sine sweep in this comparison.</p>'}
</section>"""


def identified_parameters(run: Run, figures: list[Figure]) -> str:
    """Section 4: the identified parameters, figure and table."""
    return f"""<section id="parameters">
<h2>4. Identified parameters</h2>
{_show(figures)}
{_parameter_table(run)}
</section>"""


def convergence(figures: list[Figure]) -> str:
    """Section 5: the convergence history."""
    return f"""<section id="convergence">
<h2>5. Convergence</h2>
{_show(figures) or '<p class="note">No history in result.yaml.</p>'}
</section>"""


def run_metadata(run: Run) -> str:
    """Section 6: result.yaml (without the parameter tables) and RUN/run.yaml when present."""
    summary = run.summary
    rows = [[key, fmt_number(summary[key]) if not isinstance(summary[key], (dict, list))
             else json.dumps(summary[key])] for key in summary
            if key not in ("parameters", "nominal", "optimized", "history", "skipped")]
    rows.append(["objective", str(objective_file(run))])
    rows.append(["report written with", f"Python {platform.python_version()}, matplotlib {matplotlib.__version__}"])
    run_yaml = run.folder / "run.yaml"
    return f"""<section id="metadata">
<h2>6. Run metadata</h2>
<h3>result.yaml</h3>
{html_table(['key', 'value'], rows)}
{('<h3>run.yaml</h3>' + _optional_yaml(run_yaml, _generic_yaml)) if run_yaml.is_file() else ''}
</section>"""


def sensitivity(run: Run, figures: list[Figure]) -> str | None:
    """Section 7: RUN/sensitivity.yaml and its chart; None when the run has neither."""
    sensitivity_yaml = run.folder / "sensitivity.yaml"
    if not (sensitivity_yaml.is_file() or figures):
        return None
    return f"""<section id="sensitivity">
<h2>7. Sensitivity analysis</h2>
{_optional_yaml(sensitivity_yaml, _sensitivity_html) if sensitivity_yaml.is_file() else ''}
{_show(figures)}
</section>"""


def _optional_yaml(path: Path, render) -> str:
    try:
        return render(read_yaml(path, ReportError))
    except ReportError as error:
        return f'<p class="note">{escape(path.name)} could not be read: {escape(error)}</p>'


def _within(comparison: dict, role: str, name: str) -> tuple[int, int]:
    """(indices within TP, indices) of set ``name`` over the weighted indices of ``role`` manoeuvres
    (every index for validation manoeuvres); a failed or missing value counts as not within."""
    tolerance = comparison["tolerance_percent"]
    inside = total = 0
    for entry in comparison["manoeuvres"].values():
        if entry["role"] != role:
            continue
        for index in entry["indices"].values():
            if role == "objective" and not index.get("weight", 0) > 0:
                continue
            total += 1
            value = index.get(name)
            inside += value is not None and value <= tolerance
    return inside, total


def _error_table(comparison: dict) -> str:
    """Every index of every manoeuvre: role, weight, nominal and optimized error, change; above TP marked."""
    tolerance = comparison["tolerance_percent"]
    rows = []
    for manoeuvre, entry in comparison["manoeuvres"].items():
        for index, values in entry["indices"].items():
            cells = [f"<td>{escape(manoeuvre)}</td>", f"<td>{escape(index)}</td>", f"<td>{escape(entry['role'])}</td>",
                     f'<td class="num">{escape(fmt_number(values.get("weight", 0.0)))}</td>']
            for name in SETS:
                value = values.get(name)
                if value is None:
                    why = entry.get("failed", {}).get(name) or entry.get("unscored", {}).get(name, {}).get(index, "")
                    cells.append(f'<td class="num failed" data-set="{name}" title="{escape(why)}">failed</td>')
                else:
                    cls = "num above" if value > tolerance else "num"
                    cells.append(f'<td class="{cls}" data-set="{name}" data-value="{value!r}">{value:.2f}</td>')
            nominal, optimized = (values.get(n) for n in SETS)
            change = f"{optimized - nominal:+.2f}" if nominal is not None and optimized is not None else "–"
            cells.append(f'<td class="num">{change}</td>')
            cells.append(f'<td class="rule">{escape(_rule_text(manoeuvre, index, values))}</td>')
            rows.append(f'<tr class="{escape(entry["role"])}" data-manoeuvre="{escape(manoeuvre)}" data-index="{escape(index)}">'
                        + "".join(cells))
    header = ["manoeuvre", "index", "role", "weight", "nominal e [%]", "optimized e [%]", "change [points]", "rule"]
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "\n".join(r + "</tr>" for r in rows)
    return f'<table id="error-table">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>'


def _rule_text(manoeuvre: str, index: str, values: dict) -> str:
    """How the index was scored: its near-zero rule where it applied (comparison.yaml), else the kpi default."""
    from pybridge.evaluate.kpi import index_functions, index_rule
    from pybridge.evaluate.near_zero import ABSOLUTE

    if values.get("rule") == ABSOLUTE:
        return (f"absolute difference: MBM value {fmt_number(values.get('reference_value'))} below the floor "
                f"{fmt_number(values.get('floor'))}, e = TP × |Δ| / {fmt_number(values.get('tolerance'))}")
    return index_rule(manoeuvre, index) if index in index_functions.get(manoeuvre, {}) else "–"


def _parameter_table(run: Run) -> str:
    """The identified parameters: unit, nominal, optimized, bounds, change (absolute, and in % unless the
    nominal is 0)."""
    rows = []
    for name, p in run.summary["parameters"].items():
        percent = p.get("change_percent")
        rows.append([name, run.nominal.units.get(name, ""), fmt_number(p["nominal"]), fmt_number(p["optimized"]),
                     fmt_number(p["lower"]), fmt_number(p["upper"]),
                     fmt_number(p.get("change", p["optimized"] - p["nominal"])),
                     "– (nominal 0)" if percent is None else f"{percent:+.2f}"])
    return html_table(["parameter", "unit", "nominal", "optimized", "lower bound", "upper bound", "change",
                       "change [%]"], rows)


def _flatten(value, prefix: str = "") -> list[tuple[str, str]]:
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            out += _flatten(item, f"{prefix}.{key}" if prefix else str(key))
        return out or [(prefix, "{}")]
    if isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        return [(prefix, ", ".join(fmt_number(v) for v in value))]
    if isinstance(value, list):
        out = []
        for k, item in enumerate(value):
            out += _flatten(item, f"{prefix}[{k}]")
        return out
    return [(prefix, fmt_number(value))]


def _cell(value) -> str:
    if isinstance(value, (dict, list)):
        return "; ".join(f"{key}: {text}" if key else text for key, text in _flatten(value))
    return fmt_number(value)


def _generic_yaml(data) -> str:
    """Key/value table of a mapping; a list of mappings becomes a table of its own (e.g. run steps)."""
    if not isinstance(data, dict):
        return html_table(["value"], [[fmt_number(data)]])
    parts, plain = [], {}
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            columns = list(dict.fromkeys(k for v in value for k in v))
            rows = [[_cell(v.get(c, "")) for c in columns] for v in value]
            parts.append(f"<h4>{escape(key)}</h4>\n" + html_table(columns, rows))
        else:
            plain[key] = value
    flat = _flatten(plain)
    table = html_table(["key", "value"], [list(r) for r in flat]) if plain else ""
    return table + "\n" + "\n".join(parts)


def _sensitivity_html(data) -> str:
    """Ranking and tunable set of RUN/sensitivity.yaml, read tolerantly; other keys as a key/value table."""
    if not isinstance(data, dict):
        return _generic_yaml(data)
    ranking = data.get("ranking") or data.get("overall")
    tunable = data.get("tunable") or data.get("proposed") or data.get("selected") or {}
    ranges = tunable if isinstance(tunable, dict) else {}
    tunable_names = set(tunable) if isinstance(tunable, (dict, list)) else set()
    rows = []
    if isinstance(ranking, dict):
        ranking = [{"parameter": k, "score": v} for k, v in ranking.items()]
    if isinstance(ranking, list):
        for k, item in enumerate(ranking, start=1):
            if isinstance(item, dict):
                name = item.get("parameter") or item.get("name") or ""
                score = item.get("score", item.get("overall", item.get("importance", "")))
            else:
                name, score = item, ""
            span = ranges.get(name)
            rows.append([str(k), str(name), fmt_number(score) if score != "" else "",
                         "yes" if name in tunable_names else "no",
                         ", ".join(fmt_number(v) for v in span) if isinstance(span, (list, tuple)) else ""])
    parts = []
    if rows:
        parts.append(html_table(["rank", "parameter", "score", "tunable", "range"], rows))
    elif tunable_names:
        parts.append(html_table(["tunable parameter", "range"],
                            [[n, ", ".join(fmt_number(v) for v in ranges[n]) if isinstance(ranges.get(n),
                              (list, tuple)) else ""] for n in tunable]))
    rest = {k: v for k, v in data.items() if k not in ("ranking", "overall", "tunable", "proposed", "selected")}
    if rest:
        parts.append(_generic_yaml(rest))
    return "\n".join(parts)
