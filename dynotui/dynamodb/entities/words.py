"""The entity table in words: for ``dynotui entities``, the app's entity view and the
report. Every name and value from the data goes through ``visible``."""

from __future__ import annotations

from dynotui.core.text import plural, visible
from dynotui.dynamodb.entities.figures import Entities, EntityFigures
from dynotui.dynamodb.entities.interval import LEVEL, CountEstimate

# Short, so the table fits an 80-column terminal with a count's range in it.
HEADERS = ("entity", "items", "%items", "%bytes", "p50", "p99", "RCU")
MAX_NAME_WIDTH = 32
SHOWN_ATTRIBUTES = 24


def count_text(count: CountEstimate) -> str:
    if count.exact:
        return f"{count.items:,}"
    if count.low == count.high:
        return f"~{count.items:,}"  # the table's ItemCount: approximate, but no range
    return f"~{count.items:,} ({count.low:,}-{count.high:,})"


def units_text(units: float) -> str:
    return f"{units:,.1f}" if units >= 10 else f"{units:.3g}"


def row_cells(entity: EntityFigures) -> tuple[str, ...]:
    """One entity's cells, in ``HEADERS`` order."""
    return (
        visible(entity.name),
        count_text(entity.count),
        f"{entity.share_items:.1%}",
        f"{entity.share_bytes:.1%}",
        f"{entity.p50:,}",
        f"{entity.p99:,}",
        units_text(entity.read_units),
    )


def attributes_text(entity: EntityFigures, shown: int = SHOWN_ATTRIBUTES) -> str:
    """``name 100%, total 100%, city 80%`` (and how many more)."""
    parts = [f"{visible(name)} {share:.0%}" for name, share in entity.attributes[:shown]]
    more = len(entity.attributes) - shown
    if more > 0:
        parts.append(f"+{more} more")
    if entity.more_attributes:
        parts.append("(more names not kept)")
    return ", ".join(parts)


def sample_text(entities: Entities) -> str:
    """What was read, and what that makes of the counts."""
    sample = entities.sample
    where = f"table {visible(entities.table)!r}"
    if entities.index:
        where += f", index {visible(entities.index)!r}"
    if sample.source == "export":
        when = sample.export_time.strftime("%Y-%m-%d %H:%M UTC") if sample.export_time else "?"
        return (
            f"{where}: every item of the export of {when} read ({sample.items:,}), "
            "0 read units: counts are exact (not live data)"
        )
    if sample.complete:
        return (
            f"{where}: every item read ({sample.items:,}) in {units_text(sample.read_units)} "
            "read units: counts are exact"
        )
    total = f"~{sample.population:,}" if sample.population is not None else "unknown"
    return (
        f"{where}: a sample of {sample.items:,} items of {total} (ItemCount), "
        f"{sample.partitions:,} partitions, in {units_text(sample.read_units)} read units, "
        f"stopped at the budget: counts are estimates with {LEVEL:.0%} ranges (Wilson, over "
        "partitions read whole, widened where few partitions tell an entity's spread)"
    )


def table_lines(entities: Entities, width: int | None = None) -> list[str]:
    """The entity table as aligned lines, within ``width`` cells where given (names cut,
    marked …: each is whole in its line below); then each entity's rule and attributes."""
    rows = [HEADERS, *(row_cells(e) for e in entities.entities)]
    widths = [
        min(MAX_NAME_WIDTH if i == 0 else 40, max(len(row[i]) for row in rows))
        for i in range(len(HEADERS))
    ]
    if width is not None:
        # A long name beside counts' ranges went past 80 columns and wrapped the row.
        over = sum(widths) + 2 * (len(widths) - 1) - width
        widths[0] = max(len(HEADERS[0]), widths[0] - max(0, over))
    lines = []
    for row in rows:
        name = row[0] if len(row[0]) <= widths[0] else row[0][: widths[0] - 1] + "…"
        cells = [name.ljust(widths[0]), *(row[i].rjust(widths[i]) for i in range(1, len(widths)))]
        lines.append("  ".join(cells).rstrip())
    for entity in entities.entities:
        lines += [
            "",
            f"{visible(entity.name)}: {entity.rule.text()}",
            f"  attributes: {attributes_text(entity)}",
        ]
    return lines


def entities_text(entities: Entities, width: int | None = None) -> str:
    """The whole answer for a person; its table within ``width`` cells where given."""
    count = plural(len(entities.entities), "entity", "entities")
    lines = [
        f"{count} in {sample_text(entities)}",
        f"told apart by: {entities.scheme.text()}",
        "p50, p99: item sizes in bytes; RCU: reading the entity's items in a whole Scan",
        "",
        *table_lines(entities, width),
    ]
    lines += [f"note: {note}" for note in entities.notes]
    return "\n".join(lines) + "\n"


def section_rows(entities: Entities) -> tuple[tuple[str, ...], list[tuple[str, ...]], list[str]]:
    """The entity table for a report: its header, rows (each entity's rule and attributes
    as the last cells) and notes (what was read)."""
    header = (*HEADERS, "rule", "attributes")
    rows = [(*row_cells(e), e.rule.text(), attributes_text(e, shown=12)) for e in entities.entities]
    notes = [sample_text(entities), f"told apart by: {entities.scheme.text()}"]
    notes += list(entities.notes)
    return header, rows, notes
