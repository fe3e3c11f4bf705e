"""Helpers for the Pilot tests: an app on the demo table, and what the grid shows."""

from __future__ import annotations

import html
import re
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from textual.widgets import Static

from dynotui.core.text import visible
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.app import PagerApp, Said
from dynotui.ui.dynamodb.adapter import DynamoDBAdapter
from dynotui.ui.widgets.pager_view import PagerView
from dynotui.ui.widgets.safe_text import TextStatic

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


def dynamodb_app(
    client: Any,
    form: QueryForm | None = None,
    *,
    table: str | None = demo.TABLE,
    label: str = "DynamoDB Local (tests)",
    open_form: bool | None = None,
    options: ConnectionOptions | None = None,
    resume: Any = None,
    **app_options: Any,
) -> PagerApp:
    adapter = DynamoDBAdapter(
        client,
        options or ConnectionOptions(),
        label=label,
        table=table,
        form=form,
        open_form=open_form,
        resume=resume,
    )
    return recording(PagerApp(adapter, **app_options))


def make_app(client: Any, form: QueryForm = RARE_FORM, **options: Any) -> PagerApp:
    options.setdefault("system_copy", Recorder())
    options.setdefault("clock", FixedClock())
    return dynamodb_app(client, form, **options)


def grid_rows(view: PagerView) -> list[list[str]]:
    grid = view.results
    return [grid.get_row_at(i) for i in range(grid.row_count)]


def grid_labels(view: PagerView) -> list[str]:
    """The column headers on screen (a run of columns empty on this page is one ``+n``)."""
    return view.results.labels


def column_names(view: PagerView) -> list[str]:
    """The session's columns, folded or not: they only grow."""
    assert view.column_layout is not None
    return view.column_layout.visible()


def folded_labels(names: list[str], key_names: tuple[str, ...], items: Any) -> list[str]:
    """The headers a page must show: each run of non-key columns that no item of the page
    holds becomes one ``+n`` marker, in place."""
    labels: list[str] = []
    run = 0
    for name in names:
        if name not in key_names and not any(name in item for item in items):
            run += 1
            continue
        if run:
            labels.append(f"+{run}")
            run = 0
        labels.append(name)
    if run:
        labels.append(f"+{run}")
    return labels


def first_seen(pages: list[Any], key_names: tuple[str, ...]) -> list[str]:
    """The columns a session must show: keys first, then attributes as first seen."""
    names = dict.fromkeys(key_names)
    for page in pages:
        for item in page.items:
            names.update(dict.fromkeys(item))
    return list(names)


def cell_truth(value: Any) -> str | None:
    """What a grid cell must say for a value as boto3 or psycopg returned it, worked out
    here and not by dynotui's own cell code; None where this helper does not say (nested
    and binary values: they are checked to be shown at all)."""
    if value is None:
        return ""
    if isinstance(value, str):  # a PostgreSQL value as text
        return visible(value)  # control characters shown (core/text.py, tested on its own)
    ((kind, inner),) = value.items()
    if kind == "S":
        return visible(inner)
    if kind == "N":
        return str(inner)
    if kind == "BOOL":
        return "true" if inner else "false"
    if kind == "NULL":
        return "null"
    return None


def expected_rows(view: PagerView, page: Any) -> list[list[str]]:
    """The page's items as the grid must show them, in the grid's own columns: each value
    from the item itself, cut to its column's width with an ellipsis."""
    grid = view.results
    names = [column.key for column in grid.columns]
    rows = []
    for index, item in enumerate(page.items):
        shown = grid.get_row_at(index) if index < grid.row_count else []
        row = []
        for position, (name, column) in enumerate(zip(names, grid.columns, strict=True)):
            actual = shown[position] if position < len(shown) else ""
            if name in item and item[name] is None:
                truth: str | None = "∅ null"  # a PostgreSQL NULL
            elif name not in item:
                # Absent: blank, or marked as an attribute this index does not carry.
                truth = actual if actual in ("", "· not projected") else ""
            else:
                truth = cell_truth(item[name])
            if truth is None:  # a nested or binary value: whatever is shown, but something
                row.append(actual if actual else "<nothing shown>")
                continue
            cut = truth if len(truth) <= column.width else truth[: column.width - 1] + "…"
            row.append(cut)
        rows.append(row)
    return rows


def text_of(widget: Static) -> str:
    if isinstance(widget, TextStatic):
        return widget.shown.plain
    return str(widget.render())


def sidebar_text(view: PagerView) -> str:
    return text_of(view.query_one("#page-cost", TextStatic))


def figure(text: str, label: str) -> tuple[str, str]:
    """The figure a sidebar block gives for ``label``: (number, what follows it), read off
    its aligned line ("Scanned      500 items" gives ("500", "items"))."""
    for line in text.splitlines():
        if line.startswith(label + " "):
            after = line[len(label) :].strip()
            number, _, words = after.partition(" ")
            return number, words.strip()
    raise AssertionError(f"no {label!r} line in:\n{text}")


def messages(app: PagerApp) -> list[str]:
    return [note.message for note in said(app)]


_SAID: weakref.WeakKeyDictionary[PagerApp, list[Said]] = weakref.WeakKeyDictionary()


def recording(app: PagerApp) -> PagerApp:
    """``app`` with every notification it shows kept, for ``said`` and ``messages``."""
    notes: list[Said] = []
    app.notified = notes.append
    _SAID[app] = notes
    return app


def said(app: PagerApp) -> list[Said]:
    """Every notification ``app`` showed, oldest first (an app made by ``recording``)."""
    return _SAID[app]


_TEXT = re.compile(
    r'<text class="[^"]*" x="([0-9.]+)" y="[0-9.]+" textLength="[0-9.]+" '
    r'clip-path="url\(#[a-z0-9-]*line-(\d+)\)">([^<]*)</text>'
)
CELL_WIDTH = 12.2  # Textual's SVG export draws one terminal cell 12.2 units wide


def screen_text(app: Any) -> list[str]:
    """The screen as the terminal would show it, one string per line, read back from
    Textual's own screenshot (its SVG places each run of text at its cell)."""
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    for x, line, text in _TEXT.findall(app.export_screenshot()):
        column = round(float(x) / CELL_WIDTH)
        for offset, char in enumerate(html.unescape(text).replace("\xa0", " ")):
            if 0 <= column + offset < width and int(line) < height:
                rows[int(line)][column + offset] = char
    return ["".join(row).rstrip() for row in rows]


async def until(pilot: Any, condition: Callable[[], bool], timeout: float = 60.0) -> None:
    """Let the app run until ``condition`` holds: order and outcome, never a duration (the
    timeout only ends a test that would otherwise hang)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition never held")
        await pilot.pause(0.02)
