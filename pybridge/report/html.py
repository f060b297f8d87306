"""The HTML of the project's reports: the page (its head written once), tables, figures, numbers.

A page needs nothing else: every figure is a base64 PNG data URI, the stylesheet is inline, there
are no scripts, fonts or links. ``<meta name="vehiclertm-figures">`` holds the number of figures.
"""
from __future__ import annotations

import base64
import html
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

HTML_FILE = "report.html"
STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;max-width:1180px;
margin:1.5em auto;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.above{background:#fbd5d5;color:#7a0000;font-weight:600}td.failed{background:#eee;color:#777}
tr.validation td:first-child{font-style:italic}
figure{margin:1.2em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.9em;color:#444;margin-top:.3em}
.verdict{background:#f6f8fa;border-left:4px solid #4a7;padding:.6em 1em}
.note{color:#666;font-size:.9em}
"""


def escape(text) -> str:
    """``text`` as HTML text or attribute value."""
    return html.escape(str(text), quote=True)


def fmt_number(value) -> str:
    """A number for a table cell: 6 significant digits, or exponent notation when very small or large."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if value == 0 or 1e-3 <= abs(value) < 1e6:
        return f"{value:.6g}"
    return f"{value:.4e}"


@dataclass
class Figure:
    """A PNG of a report, its alternative text and caption; ``number`` is its place on the page."""
    path: Path
    alt: str
    caption: str
    number: int = 0


def html_table(header: list[str] | None, rows: list[list[str]]) -> str:
    """An HTML table of escaped cells; without ``header`` the first cell of each row is a row heading."""
    if header is None:
        body = "\n".join(f'<tr><th scope="row">{escape(r[0])}</th>' + "".join(f"<td>{escape(c)}</td>" for c in r[1:])
                         + "</tr>" for r in rows)
        return f"<table>\n<tbody>\n{body}\n</tbody>\n</table>"
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "\n".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def figure_html(figure: Figure) -> str:
    """The figure embedded as a base64 PNG data URI, with its numbered caption."""
    data = base64.b64encode(figure.path.read_bytes()).decode("ascii")
    return (f'<figure id="fig{figure.number}">\n<img class="figure" src="data:image/png;base64,{data}" '
            f'alt="{escape(figure.alt)}">\n<figcaption>Figure {figure.number}. {escape(figure.caption)} '
            f'(<code>{escape(figure.path.name)}</code>)</figcaption>\n</figure>')


def page(title: str, sections: list[str], figures: int, writer: str) -> str:
    """The whole HTML page: head (title, inline style, figure count), the sections, a footer naming ``writer``."""
    joined = "\n".join(sections)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="vehiclertm-figures" content="{figures}">
<title>{escape(title)}</title>
<style>{STYLE}</style>
</head>
<body>
{joined}
<footer><p class="note">Written {datetime.now().isoformat(sep=' ', timespec='seconds')} by {escape(writer)}.</p></footer>
</body>
</html>
"""
