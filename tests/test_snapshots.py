"""Every screen and dialog of the app at 80x24 and 120x35, one test per screen.

The app reads a table export written here from the demo's own orders (DuckDB reads the
files: no server, nothing read over a network) with a clock whose every call lasts 2.5 ms,
so a snapshot changes only when a screen does. The live table's screens that an export
refuses (the tables list) or keeps nothing of (history) show their words here; their live
forms are tested against DynamoDB Local in test_ui*.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer
from export_layout import write_export
from textual.widgets import Input
from uihelpers import FixedClock, Recorder, recording

from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.table_export.keys import parse_key_schema
from dynotui.table_export.reading import OpenExport
from dynotui.ui.app import PagerApp
from dynotui.ui.dynamodb.export import ExportAdapter
from dynotui.ui.screens import export_items
from dynotui.ui.testing import settle

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=["80x24", "120x35"])
KEYS = [
    "customer:S,order_no:S",
    "by_total=customer:S,total:N",
    "by_status=status:S,placed_on:S",
    "flagged=flag:S,total:N",
]
FORM = QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="8")


def orders() -> list[dict[str, Any]]:
    """The demo's first 150 orders of its big customer and every order of ten small ones,
    as a boto3 client returns them (the archive's large binary attachments left out)."""
    chosen = [
        item
        for item in demo.demo_items()
        if item["customer"] != demo.ARCHIVE_CUSTOMER
        and (item["customer"] != demo.BIG_CUSTOMER or int(item["order_no"]) <= 150)
        and (item["customer"] == demo.BIG_CUSTOMER or item["customer"] <= "c010")
    ]
    serialize = TypeSerializer().serialize
    return [{name: serialize(value) for name, value in item.items()} for item in chosen]


@pytest.fixture(scope="module")
def export_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_export(tmp_path_factory.mktemp("snapshots"), orders(), table=demo.TABLE)


def app_on(folder: Path, form: QueryForm = FORM) -> PagerApp:
    adapter = ExportAdapter(OpenExport(str(folder)), parse_key_schema(KEYS, demo.TABLE), form)
    app = recording(PagerApp(adapter, clock=FixedClock(), system_copy=Recorder()))
    # A message is on screen for 5 s: on a busy machine the snapshot can come later.
    app.NOTIFICATION_TIMEOUT = 3600  # type: ignore[misc]
    return app


def snap(snap_compare: Any, folder: Path, size: tuple[int, int], *keys: str) -> bool:
    """The app on page 1 of FORM, the grid focused, after ``keys`` (each let settle)."""
    app = app_on(folder)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        app.main_view.results.focus()
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        for field in app.screen.query(Input):
            field.cursor_blink = False  # a blinking cursor would be caught on or off
        await settle(pilot)

    return bool(snap_compare(app, terminal_size=size, run_before=run_before))


@SIZES
def test_main_view(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "n")


@SIZES
def test_help(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "question_mark")


@SIZES
def test_query_form(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "e")


@SIZES
def test_order_picker(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "o")


@SIZES
def test_stack(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "n", "n", "s")


@SIZES
def test_code_first_tab(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "c")


@SIZES
def test_code_second_tab(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "c", "right")


@SIZES
def test_count(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "number_sign")


@SIZES
def test_history_off(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "h")


@SIZES
def test_tables_refused(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "t")


@SIZES
def test_compare(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "w")


@SIZES
def test_item(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "down", "enter")


@SIZES
def test_command_palette(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "ctrl+p")


@SIZES
def test_paste_cursor(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "v")


@SIZES
def test_forged_cursor_refused(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "v", *"dynotui1.forged", "enter")


@SIZES
def test_columns(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "f")


@SIZES
def test_jump(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "j")


@SIZES
def test_partitions(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "H")


def test_orders_are_the_demos() -> None:
    """The export holds what the snapshots say: 150 of the big customer's orders and every
    order of ten small customers, none of the archive's."""
    items = orders()
    customers = {item["customer"]["S"] for item in items}
    assert customers == {demo.BIG_CUSTOMER, *(f"c{n:03d}" for n in range(1, 11))}
    big = [i for i in items if i["customer"]["S"] == demo.BIG_CUSTOMER]
    assert sorted(int(i["order_no"]["S"]) for i in big) == list(range(1, 151))


@SIZES
def test_export_dialog(snap_compare, export_folder, size, monkeypatch) -> None:
    # The default path holds the data folder and today's time: a path of the test's own.
    monkeypatch.setattr(export_items, "default_export_path", lambda *_: Path("orders.csv"))
    assert snap(snap_compare, export_folder, size, "X")
