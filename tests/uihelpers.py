"""Helpers for the Pilot tests: an app on the demo table, and what the grid shows."""

from __future__ import annotations

import threading
from typing import Any

from textual.widgets import Static

from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.app import DynotuiApp
from dynotui.ui.grid import fit
from dynotui.ui.pager_view import PagerView

RARE_FORM = QueryForm(
    partition_value=demo.BIG_CUSTOMER,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="25",
)


class FixedClock:
    """Every call lasts 2.5 ms: latency figures that snapshots can hold. Per thread, since
    the compare view's two sides read at the same time."""

    def __init__(self) -> None:
        self.local = threading.local()

    def __call__(self) -> float:
        self.local.now = getattr(self.local, "now", 0.0) + 0.0025
        return self.local.now


class Recorder:
    """Stands in for a working system clipboard."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str) -> None:
        self.texts.append(text)


def make_app(client: Any, form: QueryForm = RARE_FORM, **options: Any) -> DynotuiApp:
    options.setdefault("system_copy", Recorder())
    return DynotuiApp(
        client,
        connection_label="DynamoDB Local (tests)",
        table=demo.TABLE,
        form=form,
        clock=FixedClock(),
        **options,
    )


def grid_rows(view: PagerView) -> list[list[str]]:
    grid = view.grid
    return [grid.get_row_at(i) for i in range(grid.row_count)]


def grid_labels(view: PagerView) -> list[str]:
    return view.grid.labels


def first_seen(pages: list[Any], key_names: tuple[str, ...]) -> list[str]:
    """The columns a session must show: keys first, then attributes as first seen."""
    names = dict.fromkeys(key_names)
    for page in pages:
        for item in page.items:
            names.update(dict.fromkeys(item))
    return list(names)


def expected_rows(view: PagerView, page: Any) -> list[list[str]]:
    """The page's items as the grid must show them, in the grid's own columns."""
    assert view.state is not None and view.column_layout is not None
    query, layout = view.state.query, view.column_layout

    def shown(text: str, width: int) -> str:
        return fit(text, width) if len(text) > width else text

    return [
        [shown(query.cells(item).get(name, ""), layout.widths[name]) for name in layout.visible()]
        for item in page.items
    ]


def text_of(widget: Static) -> str:
    return str(widget.render())


def sidebar_text(view: PagerView) -> str:
    return text_of(view.query_one("#page-cost", Static))


def messages(app: DynotuiApp) -> list[str]:
    return [n.message for n in app._notifications]


def screen_text(app: Any) -> list[str]:
    """The screen as the terminal would show it, one string per line."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]
