"""The demo's single-table design (the shop) on screen, at 80x24 and 120x35: the grid with
each row's entity and the highlighted row's columns, the entity filter, and the entity
view's table. The app reads a table export of the shop written here (DuckDB, no server)
with a fixed clock, so a snapshot changes only when a screen does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from boto3.dynamodb.types import TypeSerializer
from export_layout import write_export
from uihelpers import FixedClock, Recorder, recording

from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import shop
from dynotui.table_export.keys import parse_key_schema
from dynotui.table_export.reading import OpenExport
from dynotui.ui.app import PagerApp
from dynotui.ui.dynamodb.export import ExportAdapter
from dynotui.ui.testing import settle

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=["80x24", "120x35"])
KEYS = ["pk:S,sk:S", f"{shop.INDEX}=gsi1pk:S,gsi1sk:S"]
# One customer's partition: the customer, an address, orders; then the next ones.
FORM = QueryForm(scan=True, page_size="12")


@pytest.fixture(scope="module")
def export_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    serialize = TypeSerializer().serialize
    items = [{k: serialize(v) for k, v in item.items()} for item in shop.shop_items()]
    return write_export(tmp_path_factory.mktemp("shop"), items, table=shop.TABLE)


def snap(snap_compare: Any, folder: Path, size: tuple[int, int], *keys: str) -> bool:
    adapter = ExportAdapter(OpenExport(str(folder)), parse_key_schema(KEYS, shop.TABLE), FORM)
    app = recording(PagerApp(adapter, clock=FixedClock(), system_copy=Recorder()))
    app.NOTIFICATION_TIMEOUT = 3600  # type: ignore[misc]

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        app.main_view.results.focus()
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await settle(pilot)

    return bool(snap_compare(app, terminal_size=size, run_before=run_before))


@SIZES
def test_entity_column(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "down", "down", "down")


@SIZES
def test_entity_filter(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "l", "l")


@SIZES
def test_entity_view(snap_compare, export_folder, size) -> None:
    assert snap(snap_compare, export_folder, size, "L", "enter")
