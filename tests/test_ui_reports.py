"""S writes its report into dynotui's data folder (``reports``), never the current folder,
and says where in full; a report, the advisor and the compare line quote one cost per
item for one side."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from uihelpers import make_app, messages, until

from dynotui.core.figures_text import per_item_text
from dynotui.core.ledger import SessionLedger
from dynotui.core.pager import Pager
from dynotui.dynamodb.advice import Measurements
from dynotui.dynamodb.query_form import QueryForm, build_spec
from dynotui.dynamodb.report import dynamodb_report
from dynotui.dynamodb.schema import describe_table
from dynotui.local import demo
from dynotui.report.model import comparison
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.testing import settle
from dynotui.ui.widgets.compare_line import side_summary


async def test_s_writes_into_the_data_folders_reports(
    client, demo_table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, checkout = tmp_path / "data", tmp_path / "checkout"
    checkout.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.chdir(checkout)  # where a user following the README stands
    app = make_app(client, QueryForm(partition_value=demo.BIG_CUSTOMER, page_size="5"))
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await pilot.press("S")
        await until(pilot, lambda: any("Report written" in m for m in messages(app)))
    folder = data / "dynotui" / "reports"
    written = sorted(folder.iterdir())
    assert [p.suffix for p in written] == [".html", ".md"]
    assert not list(checkout.iterdir()), "nothing in the current folder"
    assert folder.stat().st_mode & 0o077 == 0, "the reports folder is its owner's"
    said = next(m for m in messages(app) if "Report written" in m)
    for path in written:
        assert str(path) in said, "the full path, to open or share"


SMALL = "c184"  # 35 orders, 4 of them RETURNED (see demo_items)


def test_one_side_of_a_compare_has_one_cost_per_item(client, demo_table) -> None:
    """c184's RETURNED orders on the base table and on GSI by_status, fill mode (each page
    reads past itself to know of a next), a page read twice on each side: the report's
    compare table, each side's advisor and the app's compare line quote one figure per
    side, the ledger's (each page's latest read over the items shown)."""
    schema = describe_table(client, demo.TABLE)
    measured = Measurements()
    ledger = SessionLedger()
    forms = [
        QueryForm(
            partition_value=SMALL,
            filter="status = :r",
            values=json.dumps({":r": demo.RARE_STATUS}),
            page_size="2",
            mode="fill",
        ),
        QueryForm(
            order="by_status",
            partition_value=demo.RARE_STATUS,
            filter="customer = :c",
            values=json.dumps({":c": SMALL}),
            page_size="2",
            mode="fill",
        ),
    ]
    queries = [DynamoQuery(schema, form, build_spec(schema, form), measured) for form in forms]
    pagers = [Pager(q.make_source(client, time.perf_counter), ledger=ledger) for q in queries]
    for pager in pagers:
        pager.next()
        pager.next()
        pager.prev()  # served from the cache: no read
        pager.refresh()  # page 1 read again: it replaces its own figures
    built = dynamodb_report(pagers, prices=None, ledger=ledger)
    truths = []
    for side in built.sides:
        assert sum(p.count for p in side.pages) > sum(p.shown for p in side.pages), (
            "fill mode matched past what it showed: Count is not the items shown"
        )
        units = sum(p.capacity or 0.0 for p in side.pages)
        truths.append(per_item_text(units / sum(p.shown for p in side.pages)))
    left, right = truths
    table = {row[0]: row[1:] for row in comparison(built.sides)}
    assert table["per item shown"] == (left, right)
    quoted = {
        side.name: next(f.text for f in side.findings if f.kind == "index-for-filter")
        for side in built.sides
    }
    left_words, right_words = quoted.values()
    assert f"{right} RCU per item shown, measured on the same conditions, against {left} here" in (
        left_words
    )
    assert f"{left} RCU per item shown, measured on the same conditions, against {right} here" in (
        right_words
    )
    line = side_summary("◀", (queries[0], pagers[0]))
    assert f"{left} RCU/item" in line
