"""X in the app: items exported to a file (this page, the stack's pages, the whole query)
against DynamoDB Local, read back with Python's csv and json and held to a plain boto3
loop; a cancelled export leaves nothing at its path."""

from __future__ import annotations

import base64
import csv
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static
from uihelpers import FixedClock, dynamodb_app, said, text_of, until

import dynotui.ui.exporting as exporting
from dynotui.core.cancel import CancelToken
from dynotui.core.export_file import write_export
from dynotui.dynamodb.dynamo_json import plain_text
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.app import PagerApp
from dynotui.ui.screens.export_items import ExportItemsScreen
from dynotui.ui.testing import settle

FORM = QueryForm(
    partition_value=demo.BIG_CUSTOMER,
    filter="status = :r",
    values='{":r": "RETURNED"}',
    page_size="6",
    mode="fill",
)
KEYS = ("customer", "order_no")


def boto3_items(client: Any, table: str, pk: str, value: str, status: str | None) -> list[dict]:
    """The whole query, by a plain boto3 loop: the ground truth."""
    params: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "#p = :p",
        "ExpressionAttributeNames": {"#p": pk},
        "ExpressionAttributeValues": {":p": {"S": value}},
    }
    if status is not None:
        params["FilterExpression"] = "#s = :r"
        params["ExpressionAttributeNames"]["#s"] = "status"
        params["ExpressionAttributeValues"][":r"] = {"S": status}
    items: list[dict] = []
    while True:
        response = client.query(**params)
        items.extend(response["Items"])
        if "LastEvaluatedKey" not in response:
            return items
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def csv_truth(items: list[dict], keys: tuple[str, ...]) -> tuple[list[str], list[dict[str, str]]]:
    """The header (keys, then names as first seen) and each row as a dict of exact text."""
    header = list(keys)
    for item in items:
        header += [name for name in item if name not in header]
    rows = [
        {name: plain_text(item[name]) if name in item else "" for name in header} for item in items
    ]
    return header, rows


def normal(value: Any) -> Any:
    """DynamoDB JSON compared as JSON holds it: binary as base64, a set in any order."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, dict):
        return {
            k: sorted(normal(x) for x in v) if k in ("SS", "NS", "BS") else normal(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [normal(x) for x in value]
    return value


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


def app_for(client: Any, folder: Path, form: QueryForm = FORM, **options: Any) -> PagerApp:
    return dynamodb_app(client, form, clock=FixedClock(), export_folder=folder, **options)


async def export(pilot: Any, app: PagerApp, scope: str, fmt: str, path: Path) -> ExportItemsScreen:
    await pilot.press("X")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, ExportItemsScreen)
    await pilot.click(f"#scope-{scope}")
    await pilot.click(f"#format-{fmt}")
    screen.query_one("#export-path", Input).value = str(path)
    screen.query_one("#export-path", Input).focus()
    await pilot.press("enter")
    await until(pilot, lambda: screen.result is not None or screen.token is None)
    await settle(pilot)
    return screen


async def test_whole_query_csv_is_the_boto3_loop(client, demo_table, tmp_path) -> None:
    truth = boto3_items(client, demo.TABLE, "customer", demo.BIG_CUSTOMER, "RETURNED")
    assert len(truth) > 30, "several pages of matches"
    app = app_for(client, tmp_path)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        before = app.session.ledger.figures().pages_read
        path = tmp_path / "returned.csv"
        screen = await export(pilot, app, "query", "csv", path)
        assert screen.result is not None and screen.result.path == path
        assert str(path) in text_of(screen.query_one("#export-details", Static))
        assert any(str(path) in s.message for s in said(app)), "the path is said at the end"
        # Read fresh by a stack of its own, and billed: the view's stack is left alone.
        assert app.session.ledger.figures().pages_read == before + screen.result.pages
        assert app.pager.number == 1
    header, rows = read_csv(path)
    assert (header, rows) == csv_truth(truth, KEYS)
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)


async def test_this_page_and_the_stack_pages(client, demo_table, tmp_path) -> None:
    truth = boto3_items(client, demo.TABLE, "customer", demo.BIG_CUSTOMER, "RETURNED")
    app = app_for(client, tmp_path)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await pilot.press("n", "n")
        await settle(pilot)
        assert app.pager.number == 3
        shown = list(app.pager.current.items)
        read_before = app.session.ledger.figures().pages_read
        page_path = tmp_path / "page3.csv"
        screen = await export(pilot, app, "page", "csv", page_path)
        assert screen.result is not None and screen.result.calls == 0, "the page as shown"
        assert app.session.ledger.figures().pages_read == read_before
        await pilot.press("escape")
        await settle(pilot)
        stack_path = tmp_path / "pages.jsonl"
        screen = await export(pilot, app, "stack", "jsonl", stack_path)
        assert screen.result is not None and screen.result.pages == 3
    assert read_csv(page_path)[1] == csv_truth(shown, KEYS)[1]
    assert shown == truth[12:18], "fill mode: page 3 is matches 13 to 18"
    lines = stack_path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == truth[:18]


async def test_cancel_leaves_no_file(client, demo_table, tmp_path, monkeypatch) -> None:
    """Esc during an export: no file at the path, and no temporary file beside it."""
    gate = threading.Event()
    real = exporting.fresh_pages

    def held(*args: Any, **kwargs: Any) -> Any:
        for number, page in enumerate(real(*args, **kwargs)):
            yield page
            if number == 0:
                gate.wait(60)  # the test presses Esc while the export waits here

    monkeypatch.setattr(exporting, "fresh_pages", held)
    app = app_for(client, tmp_path)
    path = tmp_path / "stopped.csv"
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await pilot.press("X")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ExportItemsScreen)
        await pilot.click("#scope-query")
        screen.query_one("#export-path", Input).value = str(path)
        screen.query_one("#export-path", Input).focus()
        await pilot.press("enter")
        details = screen.query_one("#export-details", Static)
        await until(pilot, lambda: text_of(details).startswith("1 page "))
        await pilot.press("escape")
        gate.set()
        await until(pilot, lambda: screen.result is not None)
        assert screen.result.path is None
        assert "nothing written" in text_of(details)
        assert app.screen is screen, "Esc stopped the export; the dialog stays"
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []


async def test_hostile_values_survive(client, hostile_table, tmp_path) -> None:
    truth = boto3_items(client, hostile_table, "pk", "p", None)
    form = QueryForm(partition_value="p", page_size="3")
    app = app_for(client, tmp_path, form, table=hostile_table)
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await export(pilot, app, "query", "csv", tmp_path / "h.csv")
        await pilot.press("escape")
        await settle(pilot)
        await export(pilot, app, "query", "jsonl", tmp_path / "h.jsonl")
    assert read_csv(tmp_path / "h.csv") == csv_truth(truth, ("pk", "sk"))
    lines = (tmp_path / "h.jsonl").read_text(encoding="utf-8").split("\n")
    assert lines[-1] == ""
    assert [normal(json.loads(line)) for line in lines[:-1]] == [normal(i) for i in truth]
    cells = [cell for row in read_csv(tmp_path / "h.csv")[1] for cell in row.values()]
    assert "z" * 100_000 in cells


def test_write_export_cancelled_between_pages(tmp_path) -> None:
    """The core alone: a token cancelled after page 2 writes nothing, temp file included."""
    from dynotui.core.export import ItemShape

    class Cost:
        requests, headline, unit, estimated = 1, 0.5, "RCU", False

    class P:
        def __init__(self, n: int) -> None:
            self.items = [{"k": str(n)}]
            self.cached = False
            self.cost = Cost()

    token = CancelToken()

    def pages() -> Any:
        yield P(1)
        yield P(2)
        token.cancel()
        yield P(3)

    shape = ItemShape(("k",), str, json.dumps)
    result = write_export(tmp_path / "x.csv", "csv", shape, pages(), cancel=token)
    assert result.path is None and result.pages == 2
    assert list(tmp_path.iterdir()) == []
    whole = write_export(tmp_path / "y.csv", "csv", shape, [P(1), P(2)])
    assert whole.path == tmp_path / "y.csv" and whole.units == 1.0
    assert (tmp_path / "y.csv").read_bytes() == b"k\r\n1\r\n2\r\n"


def test_a_file_that_appears_during_the_export_is_kept(tmp_path) -> None:
    """Issue 40, item 21: the dialog checks the path when Enter is pressed, the file is put
    in place pages later; one made there in between (by anyone) was replaced. Now the
    export is refused, the file kept as it was, and no temporary file left."""
    from dynotui.core.errors import InputError
    from dynotui.core.export import ItemShape

    class Cost:
        requests, headline, unit, estimated = 1, 0.5, "RCU", False

    class P:
        def __init__(self, n: int) -> None:
            self.items = [{"k": str(n)}]
            self.cached = False
            self.cost = Cost()

    path = tmp_path / "x.csv"

    def pages() -> Any:
        yield P(1)
        path.write_text("someone else's\n")  # after the check, before the export ends
        yield P(2)

    shape = ItemShape(("k",), str, json.dumps)
    with pytest.raises(InputError, match="appeared while the export ran: it is kept"):
        write_export(path, "csv", shape, pages())
    assert path.read_text() == "someone else's\n"
    assert list(tmp_path.iterdir()) == [path], "no temporary file is left"
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "elsewhere.csv")  # a dangling link: not written through

    def linked() -> Any:
        yield P(1)

    with pytest.raises(InputError, match="appeared while the export ran"):
        write_export(link, "csv", shape, linked())
    assert not (tmp_path / "elsewhere.csv").exists()


async def test_a_path_under_a_file_is_one_clear_line(client, demo_table, tmp_path) -> None:
    """Issue 40, item 21: existing-file/x.csv showed a raw NotADirectoryError."""
    blocker = tmp_path / "existing-file"
    blocker.write_text("x")
    app = app_for(client, tmp_path / "exports")
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        screen = await export(pilot, app, "page", "csv", blocker / "x.csv")
        error = str(screen.query_one("#export-error").render())
        assert f"path: {blocker} is a file, not a folder" in error, error
        assert "NotADirectoryError" not in error and screen.result is None
    assert blocker.read_text() == "x"


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
def test_export_dialog_snapshot(snap_compare, client, demo_table, tmp_path, size) -> None:
    app = app_for(client, tmp_path)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("X")
        await settle(pilot)
        field = app.screen.query_one("#export-path", Input)
        field.value = "/home/me/exports/orders.csv"
        field.cursor_blink = False
        await pilot.click("#scope-stack")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
