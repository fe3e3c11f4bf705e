"""The report as one self-contained HTML file: inline CSS and SVG, no script, no network.

The page forbids every script and every fetch with its own Content-Security-Policy, so
even a value that slipped past escaping could not run; and every value is escaped
(``escape.esc``), so none does. No link is made from data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from dynotui.report import sections
from dynotui.report.charts import capacity_chart, waste_chart
from dynotui.report.escape import esc, esc_block
from dynotui.report.model import Estimated, Report, Side, TableSection, comparison

POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'"
)

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px; color: #1a1a1a; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; margin: 18px 0 6px; }
table { border-collapse: collapse; margin: 4px 0 12px; }
th, td { border: 1px solid #d0d0d0; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.warn { color: #b00020; font-weight: bold; }
.note { color: #555; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; white-space: pre-wrap;
      word-break: break-all; font-size: 12px; }
.sides { display: grid; grid-template-columns: repeat(var(--sides), minmax(0, 1fr)); gap: 24px; }
svg.chart { display: block; max-width: 100%; height: auto; border: 1px solid #e0e0e0; }
.ledger td { font-size: 12px; }
.ledger td.key { max-width: 360px; word-break: break-all; font-family: monospace; }
"""


def _pairs(rows: Iterable[tuple[str, str]], cls: str = "") -> str:
    body = "".join(f"<tr><th>{esc(label)}</th><td>{esc(value)}</td></tr>" for label, value in rows)
    return f'<table class="{cls}">{body}</table>'


def _totals(side: Side, index: int) -> str:
    body = "".join(
        f'<tr><th>{esc(label)}</th><td class="num" data-figure="{esc(key)}" '
        f'data-side="{index}">{esc(value)}</td></tr>'
        for key, label, value in sections.totals(side)
    )
    return f'<table class="totals">{body}</table>'


def _measures(side: Side, report: Report) -> str:
    body = "".join(
        f'<tr><th>{esc(name)}</th><td class="{"warn" if warning else ""}">{esc(value)}</td></tr>'
        for name, value, warning in sections.measures(side, report.session)
    )
    return f'<table class="measures">{body}</table>'


def _findings(side: Side) -> str:
    if not side.findings:
        return '<p class="note">The advisor found nothing to say about these pages.</p>'
    items = "".join(
        f'<li><span class="note">{esc(f.kind)}</span>: {esc(f.text)}</li>' for f in side.findings
    )
    return f"<ul>{items}</ul>"


def _ledger(side: Side) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in sections.LEDGER_HEADER)
    rows = []
    for page in side.pages:
        cells = sections.ledger_row(page)
        rendered = []
        for i, cell in enumerate(cells):
            cls = "key" if i == 1 else ("num" if i in (0, 2, 3, 4, 5, 7, 8) else "")
            rendered.append(f'<td class="{cls}">{esc(cell)}</td>')
        rows.append(f'<tr class="{"warn" if page.empty_with_key else ""}">{"".join(rendered)}</tr>')
    return f'<table class="ledger"><tr>{head}</tr>{"".join(rows)}</table>'


def _code(side: Side) -> str:
    blocks = [
        f"<h4>{esc(block.title)}</h4><pre><code>{esc_block(block.text)}</code></pre>"
        for block in side.code
    ]
    return "".join(blocks) or '<p class="note">No code for these pages.</p>'


def _columns(report: Report, parts: Sequence[str]) -> str:
    cells = "".join(f"<div>{part}</div>" for part in parts)
    return f'<div class="sides" style="--sides: {len(report.sides)}">{cells}</div>'


def _per_side(report: Report, title: str, render: Callable[[int, Side], str]) -> str:
    parts = []
    for index, side in enumerate(report.sides):
        heading = f"<h3>{esc(side.name)}</h3>" if len(report.sides) > 1 else ""
        parts.append(heading + render(index, side))
    return f"<h2>{esc(title)}</h2>" + _columns(report, parts)


def _what_if(estimated: Estimated) -> str:
    head = "".join(f"<th>{esc(n)}</th>" for n in ("", "now (measured)", "what-if (estimated)"))
    body = "".join(
        f"<tr><th>{esc(label)}</th><td>{esc(now)}</td><td>{esc(what_if)}</td></tr>"
        for label, now, what_if in estimated.rows
    )
    notes = "".join(f"<li>{esc(note)}</li>" for note in estimated.notes)
    code = "".join(
        f"<h4>{esc(block.title)}</h4><pre><code>{esc_block(block.text)}</code></pre>"
        for block in estimated.code
    )
    return (
        f"<h2>{esc(estimated.title)}</h2>"
        f'<table class="what-if"><tr>{head}</tr>{body}</table>'
        "<h3>The index's own cost (estimated)</h3>"
        + _pairs(estimated.cost, "what-if-cost")
        + f'<p class="note">{esc(estimated.sample)}</p>'
        + (f"<ul>{notes}</ul>" if notes else "")
        + (f'<p class="note">{esc(estimated.footnote)}</p>' if estimated.footnote else "")
        + code
    )


def _table_section(section: TableSection) -> str:
    head = "".join(f"<th>{esc(name)}</th>" for name in section.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>" for row in section.rows
    )
    notes = "".join(f'<p class="note">{esc(note)}</p>' for note in section.notes)
    return f"<h2>{esc(section.title)}</h2><table><tr>{head}</tr>{body}</table>{notes}"


def render_html(report: Report) -> str:
    sides = report.sides
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{esc(POLICY)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(report.title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{esc(report.title)}</h1>",
        f'<p class="note">Made by dynotui on {esc(report.made_at.isoformat(timespec="seconds"))}'
        f" from {esc(report.source)}. Prices are estimates.</p>",
    ]
    out += [f'<p class="note">{esc(note)}</p>' for note in report.notes]
    out.append("<h2>Connection</h2>" + _pairs(report.connection, "connection"))
    rows = comparison(sides)
    if rows:
        head = "".join(f"<th>{esc(n)}</th>" for n in ("", sides[0].name, sides[1].name))
        body = "".join(
            "<tr>"
            + f"<th>{esc(label)}</th>"
            + "".join(f'<td class="num">{esc(v)}</td>' for v in values)
            + "</tr>"
            for label, *values in rows
        )
        out.append(
            "<h2>Compare: cost per item shown</h2>"
            f'<table class="compare"><tr>{head}</tr>{body}</table>'
        )
    if report.what_if is not None:
        out.append(_what_if(report.what_if))
    out += [_table_section(section) for section in report.tables]
    out.append(
        _per_side(
            report,
            "The query and its scope",
            lambda i, side: (
                _pairs(side.query, "query")
                + f"<h4>Scope (cursors are bound to it)</h4><pre>{esc_block(side.scope)}</pre>"
            ),
        )
    )
    out.append(_per_side(report, "Totals", lambda i, side: _totals(side, i)))
    out.append(_per_side(report, "The five measures", lambda i, side: _measures(side, report)))
    if any(side.prices is not None for side in sides):
        out.append(
            _per_side(
                report,
                "Price (an estimate)",
                lambda i, side: (
                    _pairs(sections.money(side), "money")
                    if sections.money(side)
                    else '<p class="note">No price: these units are not billed per unit.</p>'
                ),
            )
        )
    out.append(
        _per_side(
            report,
            "Charts",
            lambda i, side: (
                capacity_chart(side, f"chart-capacity-{i}") + waste_chart(side, f"chart-waste-{i}")
            ),
        )
    )
    out.append(_per_side(report, "The advisor's findings", lambda i, side: _findings(side)))
    if report.session is not None:
        out.append(
            "<h2>This session</h2>"
            + _pairs(sections.session_rows(report.session, sides[0]), "session")
        )
    for side in sides:
        label = f" · {side.name}" if len(sides) > 1 else ""
        out.append(f"<h2>Ledger of every page{esc(label)}</h2>" + _ledger(side))
    for side in sides:
        label = f" · {side.name}" if len(sides) > 1 else ""
        out.append(f"<h2>Code that reproduces the pages{esc(label)}</h2>" + _code(side))
    out.append("</body></html>")
    return "\n".join(out) + "\n"
