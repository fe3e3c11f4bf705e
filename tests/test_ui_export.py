"""The app on a table export (``dynotui --from-export``), written by the test in the
documented layout from a plain boto3 Scan of a table in DynamoDB Local: pages in the key
order a boto3 Query gives, both directions, on the table and a GSI; every page marked as
the export's, with its time and no read units; the count and the largest partitions of
the whole export against counts made here; snapshots at 80x24 and 120x35."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from export_layout import scan_all, wire, write_export
from helpers import drain
from textual.widgets import Label
from uihelpers import FixedClock, Recorder, figure, messages, recording, text_of

from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local.tables import Index, create_table, table_definition, write_items
from dynotui.table_export.keys import parse_key_schema
from dynotui.table_export.reading import OpenExport
from dynotui.ui.app import PagerApp
from dynotui.ui.dynamodb.export import ExportAdapter
from dynotui.ui.screens.picker import PickerScreen
from dynotui.ui.testing import settle

TABLE = "export-in-the-app"
KEYS = ["pk:S,sk:N", "by_tag=tag:S,sk:N"]
WHEN = "2026-11-04 07:28 UTC"  # export_layout's export time


def table_items() -> list[dict[str, Any]]:
    """Sort keys that order differently as numbers and as text (9 < 10 < 100), negatives
    and fractions; partitions of different sizes; a GSI that holds some items only."""
    items = []
    for n in range(90):
        item: dict[str, Any] = {
            "pk": ["hot", "hot", "hot", "warm", "warm", "cold"][n % 6],
            "sk": Decimal(n * 7 - 200) / (4 if n % 3 else 1),
            "n": n,
        }
        if n % 2:
            item["tag"] = "odd"
        items.append(item)
    return items


@pytest.fixture(scope="module")
def export_folder(client: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    create_table(
        client,
        table_definition(
            TABLE,
            ("pk", "S"),
            ("sk", "N"),
            global_indexes=(Index("by_tag", ("tag", "S"), ("sk", "N")),),
        ),
    )
    write_items(client, TABLE, table_items())
    return write_export(tmp_path_factory.mktemp("app-export"), scan_all(client, TABLE), table=TABLE)


def export_app(folder: Path, form: QueryForm) -> PagerApp:
    opened = OpenExport(str(folder))
    adapter = ExportAdapter(opened, parse_key_schema(KEYS, TABLE), form)
    return recording(PagerApp(adapter, clock=FixedClock(), system_copy=Recorder()))


def boto3_query(client: Any, **params: Any) -> list[dict]:
    return [{k: wire(v) for k, v in i.items()} for i in drain(client, TableName=TABLE, **params)]


async def read_all(pilot: Any, app: PagerApp) -> list[dict]:
    """Every page from page 1 to the end, each checked to say it is the export's."""
    view = app.main_view
    seen: list[dict] = []
    while True:
        pager = view.state.pager
        page = pager.current
        assert page is not None and page.cost.headline == 0.0
        assert f"from the export of {WHEN}, 0 read units" in text_of(view.query_one("#status-line"))
        seen += [to_wire(i) for i in page.items]
        if not pager.can_advance:
            return seen
        await pilot.press("n")
        await settle(pilot)


@pytest.mark.parametrize(
    ("order", "partition", "params"),
    [
        ("table", "hot", {"KeyConditionExpression": "pk = :v"}),
        ("by_tag", "odd", {"IndexName": "by_tag", "KeyConditionExpression": "tag = :v"}),
    ],
)
async def test_pages_in_key_order_both_ways_marked_as_the_export(
    client, export_folder, order, partition, params
) -> None:
    values = {":v": {"S": partition}}
    forward = boto3_query(client, ExpressionAttributeValues=values, **params)
    backward = boto3_query(
        client, ExpressionAttributeValues=values, ScanIndexForward=False, **params
    )
    assert len(forward) > 14
    app = export_app(
        export_folder, QueryForm(order=order, partition_value=partition, page_size="7")
    )
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        view = app.main_view
        assert "export" in app.sub_title and "2026-11-04" in app.sub_title
        assert {"colon", "W"}.isdisjoint(a.keys for a in app.key_table), "live-only keys"
        line = text_of(view.query_one("#query-line"))
        assert line.startswith(f"Export of {WHEN} (not live data) · Query {TABLE}")
        page_cost = text_of(view.query_one("#page-cost"))
        assert figure(page_cost, "Read units") == ("0", "(an export)")
        # No read units: said so, never "0 RCU" per page or "$0" a million views; the
        # page's rows keep one label column, above and below the waste bar.
        query_cost = text_of(view.query_one("#query-cost"))
        assert "no RCU: no call was made" in query_cost
        assert "p50" not in query_cost and "$" not in query_cost and " 0 RCU" not in query_cost
        ends = set()
        for label in ("Read units", "Count", "Calls"):  # above and below the waste bar
            line = next(x for x in page_cost.splitlines() if x.startswith(label + " "))
            number = figure(page_cost, label)[0]
            ends.add(line.index(number, len(label)) + len(number))
        assert len(ends) == 1, page_cost
        assert await read_all(pilot, app) == forward
        # Back through the stack, then each page re-read fresh from its stored start key.
        pager = view.state.pager
        last = pager.number
        for number in range(last - 1, 0, -1):
            await pilot.press("p")
            await settle(pilot)
            assert pager.number == number
        fresh = [
            to_wire(i)
            for n in range(1, last + 1)
            for i in pager.read(pager.plan(n, fresh=True)).items
        ]
        assert fresh == forward
        await pilot.press("d")  # the other direction: a new stack of the export
        await settle(pilot)
        assert view.state.query.spec.forward is False
        assert await read_all(pilot, app) == backward
        assert not [m for m in messages(app) if "DynamoDB" in m and "refused" in m]


async def test_count_and_partitions_of_the_whole_export(client, export_folder) -> None:
    truth = Counter(item["pk"] for item in table_items())
    app = export_app(export_folder, QueryForm(scan=True, page_size="10"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        assert text_of(app.main_view.query_one("#query-line")).startswith(
            f"Export of {WHEN} (not live data) · Scan {TABLE}"
        )
        await pilot.press("number_sign")
        await settle(pilot)
        said = [m for m in messages(app) if "matches in the export" in m]
        assert said and said[-1].startswith(f"{len(table_items()):,} matches in the export of")
        assert "0 read units" in said[-1]
        await pilot.press("H")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PickerScreen)
        shown = [label for _, label in screen.choices]
        assert [label.split(". ")[1].split(" (S)")[0] for label in shown] == [
            key for key, _ in sorted(truth.items(), key=lambda kv: -kv[1])
        ], "largest first: 45, 30 and 15 items of alike sizes"
        for label in shown:
            key = label.split(". ")[1].split(" (S)")[0]
            assert f"· {truth[key]:,} items" in label
        await pilot.press("down", "enter")  # the second largest, opened as a Query
        await settle(pilot)
        query = app.main_view.state.query
        assert query.spec.scan is False and query.form.partition_value == "warm"
        expected = boto3_query(
            client,
            KeyConditionExpression="pk = :v",
            ExpressionAttributeValues={":v": {"S": "warm"}},
        )
        assert await read_all(pilot, app) == expected
        await pilot.press("c")
        await settle(pilot)
        assert "Athena: the count" in [tab.title for tab in app.screen.tabs.values()]
        # Its title says what the tabs hold: no code reads a page of an export.
        title = str(app.screen.query_one("#code-title", Label).render())
        assert "from its start key" not in title and "Code for page" not in title
        assert "table export" in title and "Athena" in title


def test_bad_flags_with_an_export_are_one_line(export_folder) -> None:
    for flags, words in (
        (["--segments", "2"], "drop --segments"),
        (["--mode", "fill"], "drop --mode"),
        (["--key-schema", "pk:S,sk:N", "--index-name", "nope"], "'nope' is not an index"),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "dynotui", "--from-export", str(export_folder), *flags],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:9"},
        )
        assert result.returncode == 2, result.stderr
        assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("size", [(80, 24), (120, 35)], ids=["80x24", "120x35"])
def test_export_snapshots(snap_compare, export_folder, size) -> None:
    app = export_app(export_folder, QueryForm(partition_value="hot", page_size="12"))

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        app.main_view.results.focus()
        await pilot.press("n")
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
