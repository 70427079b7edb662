"""The dashboard's HTML: each page's first view rendered on the server from its
``Page`` (figures.py), with the page's data embedded for static/dashboard.js, which
fetches it again every few seconds and updates the same elements in place.

Every text is escaped; the only script is the vendored Chart.js and dashboard.js.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from .figures import Page

__all__ = ["LAYOUTS", "render", "shown"]

NAV = (
    ("", "Pool"),
    ("fairshare", "Fair share"),
    ("negotiator", "Negotiator"),
    ("simulations", "Simulations"),
)

# each page's layout: (kind, key, caption) in order; kinds: figures, table, chart, text
LAYOUTS: dict[str, list[tuple[str, str, str]]] = {
    "pool": [
        ("figures", "slots cpus idle running held", "The pool now"),
        ("chart", "slots", "Slots by state"),
        ("chart", "jobs", "Jobs by state"),
        ("table", "slots", "Slots by state"),
        ("table", "jobs", "Jobs by state"),
        ("table", "submitters", "Jobs of each submitter"),
        ("table", "groups", "Jobs of each accounting group"),
    ],
    "fairshare": [
        ("figures", "submitters groups", "Fair share"),
        ("table", "fairshare", "Each submitter in the last negotiation cycle"),
        ("chart", "eup", "Effective user priority over the negotiator's last cycles"),
        ("table", "quotas", "Accounting groups: usage against quota"),
        ("chart", "quotas", "Group usage against quota"),
    ],
    "negotiator": [
        ("figures", "cycles duration matches rejections", "The last negotiation cycle"),
        ("chart", "cycles", "Matches and rejections per cycle"),
        ("table", "cycles", "The last cycles, newest first"),
        ("table", "idle", "Why jobs stayed idle in the last cycle"),
    ],
    "simulation": [
        ("figures", "hours utilisation jain preemptions simcycles", "The simulation"),
        ("chart", "running", "Running (slot weight) of each submitter over simulated hours"),
        ("chart", "eup", "Effective user priority over simulated hours"),
        ("table", "simsubmitters", "Each submitter over the whole run"),
        ("chart", "groupusage", "Group usage over simulated hours"),
        ("table", "simgroups", "Each group over the whole run"),
    ],
    "simulations": [("table", "simulations", "Simulation directories (DASHBOARD_SIMULATIONS)")],
    "job": [
        ("figures", "job status where", "Job"),
        ("text", "analysis", "Why is it idle? (condor_q -better-analyze, the negotiator's word)"),
        ("table", "attributes", "Attributes"),
    ],
}  # fmt: skip

_WIDE = {"fairshare", "simsubmitters"}  # tables with many columns: the page's whole width
_LABELS = {
    "slots": "slots",
    "cpus": "cpus",
    "idle": "idle jobs",
    "running": "running jobs",
    "held": "held jobs",
    "submitters": "submitters",
    "groups": "groups",
    "cycles": "cycles kept",
    "duration": "seconds",
    "matches": "matches",
    "rejections": "jobs left idle",
    "job": "job",
    "status": "status",
    "where": "schedd",
    "hours": "simulated hours",
    "utilisation": "utilisation",
    "jain": "Jain's fairness index",
    "preemptions": "preemptions",
    "simcycles": "negotiation cycles",
}


def render(layout: str, title: str, page: Page, source: str, root: str) -> str:
    """The whole HTML of a page; ``source``: the URL its data is fetched again from,
    ``root``: the dashboard's own URL path (links and static files hang from it)."""
    sections = [_section(kind, key, caption, page, root) for kind, key, caption in LAYOUTS[layout]]
    here = {"pool": "", "simulation": "simulations"}.get(layout, layout)
    nav = " ".join(
        f'<a href="{root}/{path}"{" class=here" if path == here else ""}>{escape(label)}</a>'
        for path, label in NAV
    )
    data = json.dumps(page).replace("</", "<\\/")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{escape(title)} · fairpool</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="{root}/static/dashboard.css">
</head>
<body data-source="{escape(source)}" data-root="{escape(root)}" data-updates="0">
<header><strong>fairpool</strong> <nav>{nav}</nav>
<span class="updated">updated <span data-updated>now</span></span></header>
<main><h1>{escape(title)}</h1>
{"".join(sections)}
</main>
<script id="page-data" type="application/json">{data}</script>
<script src="{root}/static/chart.umd.min.js"></script>
<script src="{root}/static/dashboard.js"></script>
</body></html>
"""


def _section(kind: str, key: str, caption: str, page: Page, root: str) -> str:
    head = f"<h2>{escape(caption)}</h2>"
    if kind == "figures":
        figures = page.get("figures", {})
        cells = "".join(
            f'<div class="figure"><span class="value" data-figure="{k}">'
            f"{escape(shown(figures.get(k, '')))}</span>"
            f'<span class="label">{escape(_LABELS.get(k, k))}</span></div>'
            for k in key.split()
        )
        return f'<section class="figures">{cells}</section>'
    if kind == "chart":
        canvas = f'<div class="canvas"><canvas id="chart-{key}"></canvas></div>'
        return f'<section class="chart">{head}{canvas}</section>'
    if kind == "text":
        text = page.get("texts", {}).get(key, "")
        return f'<section>{head}<pre data-text="{key}">{escape(text)}</pre></section>'
    table = page.get("tables", {}).get(key, {"columns": [], "rows": []})
    columns = "".join(f"<th>{escape(c)}</th>" for c in table["columns"])
    rows = "".join(_row(row, table.get("links", {}), root) for row in table["rows"])
    wide = ' class="wide"' if key in _WIDE else ""
    return (
        f'<section{wide}>{head}<table id="table-{key}"><thead><tr>{columns}</tr></thead>'
        f"<tbody>{rows}</tbody></table></section>"
    )


def shown(value: Any) -> str:
    """A value as the page's script shows it (JavaScript writes 6.0 as 6, null as "")."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _row(row: list[Any], links: dict[str, str], root: str) -> str:
    cells = []
    for k, cell in enumerate(row):
        text = escape(shown(cell))
        link = links.get(str(k))
        if link and cell != "":
            href = escape(f"{root}/{link.replace('{}', shown(cell))}")
            text = f'<a href="{href}">{text}</a>'
        cells.append(f"<td>{text}</td>")
    return f"<tr>{''.join(cells)}</tr>"
