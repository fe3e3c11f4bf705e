"""Foreign cursors and history in the app, against DynamoDB Local and the embedded
PostgreSQL: a pasted cursor opens the page a plain read from its key returns, a cursor
that does not fit is refused naming the attribute (and counted), and a query viewed
before reopens after quitting on the same items."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path
from typing import Any

from textual.widgets import Input, Label, Static
from uihelpers import Recorder, dynamodb_app, messages, recording, said, screen_text, text_of

from dynotui.core.cursor import CursorSigner
from dynotui.core.history import HistoryStore
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.dynamo_json import plain_item
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.app import PagerApp
from dynotui.ui.screens.cursor import InspectCursorScreen, PasteCursorScreen
from dynotui.ui.screens.history import HistoryScreen
from dynotui.ui.testing import settle

SIGNER = CursorSigner(b"ui-test-secret-0123456789")
ACME = QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="7")
ACME_QUERY = {
    "TableName": demo.TABLE,
    "KeyConditionExpression": "customer = :c",
    "ExpressionAttributeValues": {":c": {"S": demo.BIG_CUSTOMER}},
}


def app_on(client: Any, ddb: Any, history: HistoryStore | None = None, **options: Any) -> PagerApp:
    return dynamodb_app(
        client,
        options.pop("form", ACME),
        options=ConnectionOptions(endpoint_url=ddb.endpoint_url),
        signer=SIGNER,
        system_copy=Recorder(),
        history=history,
        **options,
    )


def key_after(client: Any, count: int) -> dict:
    """The LastEvaluatedKey of a plain boto3 Query after ``count`` items."""
    response = client.query(**ACME_QUERY, Limit=count)
    return response["LastEvaluatedKey"]


def base64url(data: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


async def paste(pilot: Any, app: PagerApp, text: str) -> None:
    await pilot.press("v")
    await settle(pilot)
    assert isinstance(app.screen, PasteCursorScreen)
    app.screen.query_one("#token", Input).value = text
    await pilot.press("enter")
    await settle(pilot)


async def test_a_foreign_start_key_opens_a_new_stack_there(client, ddb, demo_table) -> None:
    key = key_after(client, 30)
    truth = client.query(**ACME_QUERY, Limit=7, ExclusiveStartKey=key)["Items"]
    plain_key = {name: plain_item({name: value})[name] for name, value in key.items()}
    for text in (base64url(key), json.dumps(plain_key), base64url({"ExclusiveStartKey": key})):
        app = app_on(client, ddb)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await paste(pilot, app, text)
            view = app.main_view
            assert app.screen is app.main_screen, text
            assert view.pager.number == 1 and view.pager.start_key_of(1) == key
            assert list(view.pager.current.items) == truth, "page 1 = boto3 from that key"
            line = text_of(view.query_one("#query-line", Static))
            assert "unsigned foreign cursor" in line
            assert any("anyone could have edited it" in s.message for s in said(app))


async def test_its_own_start_key_pasted_back_opens_that_page(client, ddb, demo_table) -> None:
    app = app_on(client, ddb)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("n", "n")
        await settle(pilot)
        page3 = list(app.pager.current.items)
        await pilot.press("x")  # this page's start key, as DynamoDB JSON
        await settle(pilot)
        copied = app.share.system_copy.texts[-1]  # type: ignore[attr-defined]
        await paste(pilot, app, copied)
        assert app.pager.number == 1 and list(app.pager.current.items) == page3


async def test_a_key_that_does_not_fit_is_refused_by_name_and_counted(
    client, ddb, demo_table
) -> None:
    key = key_after(client, 30)
    wrong = {"customer": key["customer"], "order_id": key["order_no"]}
    app = app_on(client, ddb)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        before = (app.pager.stack, list(app.pager.current.items))
        await paste(pilot, app, base64url(wrong))
        assert isinstance(app.screen, PasteCursorScreen), "refused: the form stays"
        error = str(app.screen.query_one("#cursor-error", Label).render())
        assert "order_no" in error and "order_id" in error, error
        assert "copy it again" not in error
        # Longer than the dialog is wide: it wraps, and its last words are on screen.
        label = app.screen.query_one("#cursor-error", Label)
        assert len(error) > label.size.width and label.size.height > 1
        shown = " ".join(" ".join(screen_text(app)).split())
        assert " ".join(error.split()[-4:]) in shown, shown
        await paste_more(pilot, app, "not a cursor at all")
        error = str(app.screen.query_one("#cursor-error", Label).render())
        assert "DynamoDB JSON" in error and "NextToken" in error, "names the formats tried"
        await pilot.press("escape")
        await settle(pilot)
        assert (app.pager.stack, list(app.pager.current.items)) == before
        assert app.session.ledger.figures().refusals.refused == 2


async def paste_more(pilot: Any, app: PagerApp, text: str) -> None:
    app.screen.query_one("#token", Input).value = text
    await pilot.press("enter")
    await settle(pilot)


async def test_inspect_says_what_a_foreign_cursor_is(client, ddb, demo_table) -> None:
    key = key_after(client, 10)
    app = app_on(client, ddb)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, InspectCursorScreen)
        app.screen.query_one("#token", Input).value = base64url(key)
        await pilot.press("enter")
        await settle(pilot)
        shown = str(app.screen.query_one("#cursor-details", Static).render())
        assert "foreign cursor" in shown and "Unsigned" in shown
        assert "Fits this read: yes" in shown


async def test_history_reopens_after_quitting_on_the_same_items(
    client, ddb, demo_table, tmp_path: Path
) -> None:
    store = HistoryStore(tmp_path / "history.json")
    app = app_on(client, ddb, store)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("n", "n", "n")
        await settle(pilot)
        left_on = (app.pager.number, list(app.pager.current.items))
        await pilot.press("q")
    entry = store.last()
    assert entry is not None and entry.page == left_on[0] == 4
    assert stat.S_IMODE((tmp_path / "history.json").stat().st_mode) == 0o600
    again = app_on(client, ddb, store, table=None, resume=entry)
    async with again.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert list(again.pager.current.items) == left_on[1], "the same items"
        line = text_of(again.main_view.query_one("#query-line", Static))
        assert "reopened from history at page 4" in line
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert isinstance(again.screen, HistoryScreen)
        assert again.screen.entries[0].page == 5, "page numbers as the user knows them"
        await pilot.press("escape")
        await settle(pilot)


async def test_no_history_writes_nothing(client, ddb, demo_table, tmp_path: Path) -> None:
    folder = tmp_path / "data"
    store = HistoryStore(folder / "history.json", enabled=False)
    app = app_on(client, ddb, store)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        assert app.screen is app.main_screen
        assert any("History is off" in s.message for s in said(app))
        await pilot.press("q")
    assert not folder.exists()


async def test_postgres_boundary_row_opens_there(pg_uri: str, pg_admin: Any) -> None:
    from dynotui.postgres.connection import PgOptions, connect
    from dynotui.postgres.schema import describe_table
    from dynotui.postgres.sql import PgQuery
    from dynotui.ui.postgres.adapter import PostgresAdapter

    rows = pg_admin.execute(
        "SELECT created_at::text, id::text FROM orders ORDER BY created_at, id LIMIT 1 OFFSET 49"
    ).fetchall()
    boundary = list(rows[0])
    truth = [
        str(r[0])
        for r in pg_admin.execute(
            "SELECT id FROM orders WHERE (created_at, id) > (%s::timestamptz, %s::int) "
            "ORDER BY created_at, id LIMIT 20",
            boundary,
        )
    ]
    session = connect(PgOptions(uri=pg_uri))
    try:
        table = describe_table(session, "orders")
        query = PgQuery(table, table.order("orders_created_id"), page_size=20)
        adapter = PostgresAdapter(session, PgOptions(uri=pg_uri), query=query)
        app = recording(PagerApp(adapter, signer=SIGNER, system_copy=Recorder()))
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await paste(pilot, app, json.dumps(boundary))
            view = app.main_view
            assert [row["id"] for row in view.pager.current.items] == truth
            assert "unsigned boundary row" in text_of(view.query_one("#query-line", Static))
    finally:
        session.close()


def test_resume_on_a_connection_that_is_gone_is_one_line(tmp_path: Path) -> None:
    """A demo's endpoint goes with the demo: --resume says so in one line, exit 1, and
    opens no app on a dead connection."""
    import os
    import subprocess
    import sys

    from dynotui.dynamodb.history_entry import query_entry
    from dynotui.dynamodb.spec import from_expressions

    data = tmp_path / "data"
    store = HistoryStore(data / "dynotui" / "history.json")
    spec = from_expressions(
        demo.TABLE, key_condition="customer = :c", values={":c": {"S": demo.BIG_CUSTOMER}}
    )
    dead = ConnectionOptions(endpoint_url="http://127.0.0.1:1", max_attempts=1)
    store.record_open(query_entry(spec, dead))
    env = {**os.environ, "XDG_DATA_HOME": str(data), "AWS_ACCESS_KEY_ID": "local"}
    env["AWS_SECRET_ACCESS_KEY"] = "local"
    ran = subprocess.run(
        [sys.executable, "-m", "dynotui", "--resume"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert ran.returncode == 1, ran.stderr
    assert ran.stderr.count("\n") == 1 and "--resume: cannot reach" in ran.stderr
    assert "customer = 'acme'" in ran.stderr, "names the query it would have reopened"


async def test_a_stack_reopened_at_page_4_goes_back_to_page_1(
    client, ddb, demo_table, tmp_path: Path
) -> None:
    """Reopened from history at page 4, the stack holds no page before it: the status line
    says so, and p (then g) reads page 1 again from the start, the items a plain boto3
    Query gives first; n then walks on from there."""
    store = HistoryStore(tmp_path / "history.json")
    app = app_on(client, ddb, store)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("n", "n", "n")
        await settle(pilot)
        await pilot.press("q")
    entry = store.last()
    assert entry is not None and entry.page == 4
    truth = client.query(**ACME_QUERY, Limit=7)
    second = client.query(**ACME_QUERY, Limit=7, ExclusiveStartKey=truth["LastEvaluatedKey"])
    again = app_on(client, ddb, store, table=None, resume=entry)
    async with again.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert again.pager.number == 4
        status = text_of(again.main_view.query_one("#status-line", Static))
        assert "pages 1 to 3 not held" in status and "p or g reads page 1 again" in status
        await pilot.press("p")
        await settle(pilot)
        assert again.pager.number == 1
        assert list(again.pager.current.items) == truth["Items"], "page 1, from the start"
        assert not any("first page" in m for m in messages(again))
        await pilot.press("n")
        await settle(pilot)
        assert again.pager.number == 2 and list(again.pager.current.items) == second["Items"]
        await pilot.press("p")
        await settle(pilot)
        assert again.pager.number == 1 and again.pager.current.cached
    reopened = app_on(client, ddb, store, table=None, resume=entry)
    async with reopened.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert reopened.pager.number == 1
        assert list(reopened.pager.current.items) == truth["Items"]
