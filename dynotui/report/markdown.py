"""The report as Markdown: the same content as the HTML, for a pull request or a wiki.

Charts are the same SVGs as images in ``data:`` URIs (an SVG shown as an image runs
nothing), with the numbers in the ledger table beside them. Every value is escaped for
Markdown and for the HTML that Markdown lets through (``escape.md``); code sits in
fences no line of it can close.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence

from dynotui.report import sections
from dynotui.report.charts import capacity_chart, waste_chart
from dynotui.report.escape import md, md_fence
from dynotui.report.model import Estimated, Report, Side, comparison


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = [
        "| " + " | ".join(md(h) for h in header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
    ]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _image(svg: str, label: str) -> str:
    data = base64.b64encode(svg.encode()).decode("ascii")
    return f"![{md(label)}](data:image/svg+xml;base64,{data})"


def _side(report: Report, index: int, side: Side) -> list[str]:
    named = f" · {md(side.name)}" if len(report.sides) > 1 else ""
    out = [f"## The query and its scope{named}", _table(("", ""), side.query)]
    out += ["", "Scope (cursors are bound to it):", "", md_fence(side.scope, "json")]
    out += [
        f"## Totals{named}",
        _table(("", ""), [(label, v) for _, label, v in sections.totals(side)]),
    ]
    rows = [
        (name, ("⚠ " if warning else "") + value)
        for name, value, warning in sections.measures(side, report.session)
    ]
    out += [f"## The five measures{named}", _table(("measure", "value"), rows)]
    money = sections.money(side)
    if money:
        out += [f"## Price (an estimate){named}", _table(("", ""), money)]
    out += [
        f"## Charts{named}",
        _image(capacity_chart(side, f"chart-capacity-{index}"), "Capacity per page"),
        "",
        _image(waste_chart(side, f"chart-waste-{index}"), "Waste per page"),
    ]
    out.append(f"## The advisor's findings{named}")
    if side.findings:
        out += [f"- {md(f.kind)}: {md(f.text)}" for f in side.findings]
    else:
        out.append("The advisor found nothing to say about these pages.")
    out += [
        f"## Ledger of every page{named}",
        _table(sections.LEDGER_HEADER, (sections.ledger_row(p) for p in side.pages)),
    ]
    out.append(f"## Code that reproduces the pages{named}")
    for block in side.code:
        out += [f"### {md(block.title)}", "", md_fence(block.text, block.language)]
    return out


def _what_if(estimated: Estimated) -> list[str]:
    out = [
        f"## {md(estimated.title)}",
        _table(("", "now (measured)", "what-if (estimated)"), estimated.rows),
        "### The index's own cost (estimated)",
        _table(("", ""), estimated.cost),
        md(estimated.sample),
    ]
    out += [f"- {md(note)}" for note in estimated.notes]
    if estimated.footnote:
        out.append(md(estimated.footnote))
    for block in estimated.code:
        out += [f"### {md(block.title)}", "", md_fence(block.text, block.language)]
    return out


def render_markdown(report: Report) -> str:
    sides = report.sides
    out = [
        f"# {md(report.title)}",
        "",
        f"Made by dynotui on {md(report.made_at.isoformat(timespec='seconds'))} from "
        f"{md(report.source)}. Prices are estimates.",
    ]
    out += [md(note) for note in report.notes]
    out += ["## Connection", _table(("", ""), report.connection)]
    rows = comparison(sides)
    if rows:
        out += [
            "## Compare: cost per item shown",
            _table(("", sides[0].name, sides[1].name), rows),
        ]
    if report.what_if is not None:
        out += _what_if(report.what_if)
    for section in report.tables:
        out += [f"## {md(section.title)}", _table(section.header, section.rows)]
        out += [md(note) for note in section.notes]
    if report.session is not None:
        out += [
            "## This session",
            _table(("", ""), sections.session_rows(report.session, sides[0])),
        ]
    for index, side in enumerate(sides):
        out += _side(report, index, side)
    return "\n\n".join(out) + "\n"
