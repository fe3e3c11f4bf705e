"""The generic plan screen's fitting, alone: which columns a width holds, first ones first,
and how a long name is cut (its two ends kept). The truth is the sum of the widths drawn."""

from __future__ import annotations

from rich.cells import cell_len

from dynotui.ui.screens.plan import (
    CELL_PADDING,
    NAME_FLOOR,
    PlanColumn,
    PlanRow,
    cut_middle,
    fitting,
    widths,
)

COLUMNS = (
    PlanColumn("path"),
    PlanColumn("read units", "RCU"),
    PlanColumn("vs cheapest"),
    PlanColumn("drain s"),
    PlanColumn("kind"),
)
ROWS = (
    PlanRow(
        "a-long-index-name (imagined)",
        ("a-long-index-name (imagined)", "~1.5", "0.3x", "~0.0025 / ~0.0005", "GSI to build"),
        True,
        ("a",),
    ),
    PlanRow("table", ("table", "~5", "cheapest", "~0.02 / ~0.001667", "query"), True, ("t",)),
)


def drawn(room: int) -> int:
    """The cells the fitted table takes: the mark column and each column kept."""
    fit = fitting(COLUMNS, ROWS, room, marks=1)
    sizes = widths(COLUMNS, ROWS, fit.narrow)[: fit.columns]
    if fit.name is not None:
        sizes[0] = fit.name + 2 * CELL_PADDING
    return 1 + 2 * CELL_PADDING + sum(sizes)


def test_a_wide_room_keeps_every_column_and_heading() -> None:
    fit = fitting(COLUMNS, ROWS, 200, marks=1)
    assert (fit.columns, fit.narrow, fit.name) == (5, False, None)


def test_every_width_is_held_first_columns_first() -> None:
    for room in range(30, 120):
        fit = fitting(COLUMNS, ROWS, room, marks=1)
        assert fit.columns >= 1
        if fit.columns > 1 or fit.name is not None:
            assert drawn(room) <= room, room
        assert fit.name is None or fit.name >= NAME_FLOOR


def test_a_cut_name_keeps_both_ends_in_its_cells() -> None:
    cut = cut_middle("status-customer-index (imagined)", 21)
    assert cell_len(cut) == 21 and cut.startswith("status-cus") and cut.endswith("(imagined)")
    assert "…" in cut
    assert cut_middle("table", 21) == "table"
