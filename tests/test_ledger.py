"""The session ledger, the price and the text the UI shows: on DynamoDB Local and PostgreSQL."""

from __future__ import annotations

import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from helpers import page_lines, run_in_process, summary_line
from test_cli_pages import ENV
from test_postgres_cli import pages as pg_pages

from dynotui.core import figures_text
from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.errors import InputError
from dynotui.core.figure_rows import prices_note, query_rows
from dynotui.core.ledger import SessionLedger
from dynotui.core.money import usd
from dynotui.core.refusals import verify_cursor
from dynotui.dynamodb.count import count
from dynotui.dynamodb.pricing import read_prices
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import from_key
from dynotui.local import demo


def rare(schema: Any, **options: Any) -> Any:
    return from_key(
        schema,
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        filter_values={":r": {"S": demo.RARE_STATUS}},
        **options,
    )


def test_the_session_adds_every_stack_count_and_abandoned_read(client, demo_table) -> None:
    schema = describe_table(client, demo.TABLE)
    ledger = SessionLedger()
    raw = query_pager(client, rare(schema, page_size=20), schema)
    raw.ledger = ledger
    fill = query_pager(client, rare(schema, page_size=20, mode="fill"), schema)  # same scope
    fill.ledger = ledger
    gsi = query_pager(
        client, from_key(schema, index="by_status", partition_value="RETURNED"), schema
    )
    gsi.ledger = ledger  # the other side of a compare: another result set
    for _ in range(3):
        raw.next()
        fill.next()
    gsi.next()
    raw.prev()  # from the cache: costs nothing, counts nothing
    raw.refresh()  # a re-read is billed again
    superseded = fill.read(fill.plan("next"))  # read, then dropped for a newer move
    fill.abandon(superseded.cost)
    counted = count(client, rare(schema), schema)
    ledger.count_done(counted)

    figures = ledger.figures()
    assert figures.pages_read == raw.totals.pages_read + fill.totals.pages_read + 1 == 8
    assert (figures.queries, figures.stacks) == (2, 3)
    assert (figures.counts, figures.partial_counts, figures.abandoned_reads) == (1, 0, 1)
    rcu = figures.unit("RCU")
    assert rcu is not None
    pages = sum(p.totals.cost.headline for p in (raw, fill, gsi))
    assert rcu.pages.headline == pytest.approx(pages)
    assert rcu.counts.headline == counted.capacity.total  # type: ignore[union-attr]
    assert rcu.abandoned.headline == superseded.cost.capacity.total  # type: ignore[union-attr]
    assert rcu.total == pytest.approx(
        pages + counted.capacity.total + superseded.cost.capacity.total  # type: ignore[union-attr]
    )
    assert figures_text.covers(figures) == "8 pages read in 2 queries, 1 count, 1 abandoned read"
    # Each stack's own Totals is untouched by the others.
    assert raw.totals.pages_read == 4 and gsi.totals.pages_read == 1


def test_a_partial_count_is_still_billed(client, demo_table) -> None:
    schema = describe_table(client, demo.TABLE)
    ledger = SessionLedger()
    stopped = count(
        client, from_key(schema, partition_value=demo.BIG_CUSTOMER), schema, max_calls=1
    )
    ledger.count_done(stopped)
    figures = ledger.figures()
    assert not stopped.complete and figures.partial_counts == 1
    assert figures.unit("RCU").counts.headline == stopped.capacity.total  # type: ignore[union-attr]
    assert "1 count (1 stopped early)" in figures_text.covers(figures)


def test_refusals_reach_the_session_lines(client, demo_table) -> None:
    schema = describe_table(client, demo.TABLE)
    pager = query_pager(client, rare(schema), schema)
    ledger = SessionLedger()
    now = [10_000.0]
    signer = CursorSigner(b"k" * 32, max_age=900, clock=lambda: now[0])
    token = signer.sign(
        pager.source.key_to_json({"customer": {"S": "acme"}, "order_no": {"S": "1"}}), pager.scope
    )
    body, mac = token.split(".")
    tampered = body[:-2] + ("A" if body[-2] != "A" else "B") + body[-1] + "." + mac
    now[0] += 901
    for bad in (tampered, token):
        with pytest.raises(CursorError):
            verify_cursor(signer, bad, pager.scope, pager.source.key_from_json, ledger.cursors)
    lines = figures_text.session_lines(ledger.figures(), read_prices(settings={}))
    cursors = next(line for line in lines if line.label == "Cursors")
    assert cursors.warning and cursors.value.startswith("2 refused of 2 (")
    reasons = dict(ledger.figures().refusals.by_reason)
    assert sum(reasons.values()) == 2 and reasons.get("expired") == 1


def test_query_rows_price_a_million_views_and_warn_in_words(client, demo_table) -> None:
    schema = describe_table(client, demo.TABLE)
    pager = query_pager(client, rare(schema, page_size=10, mode="fill"), schema)
    pages = [pager.next() for _ in range(4)]
    prices = read_prices(settings={})
    measures = pager.measures.snapshot()
    rows = query_rows(pager.totals, measures, pager.per_item.value, prices)
    by_label = {row.label: row for row in rows if row.label}
    kept = by_label["Kept"]
    assert kept.warning and "below half" in kept.note, "far below half, and said in words"
    mean = sum(p.cost.capacity.total for p in pages) / len(pages)  # type: ignore[union-attr]
    views = by_label["1M views"]
    assert views.note == "on-demand"
    # A million views of pages like these at 0.125 USD per million read units.
    assert float(views.value.lstrip("$")) == pytest.approx(mean * 0.125, rel=5e-3)
    assert not any("this page" in row.label for row in rows), "no fraction of a cent a page"
    assert "2024-11-01" in prices_note(prices, "RCU")
    shown = sum(p.shown for p in pages)
    units = sum(p.cost.capacity.total for p in pages)  # type: ignore[union-attr]
    assert by_label["Per item"].value == f"{units / shown:.4g}"
    strip = figures_text.compact(measures)
    assert strip.startswith("p50 ") and "kept " in strip and "rounds " in strip
    footer = figures_text.stack_footer(measures)
    assert footer.startswith("4 reads · RCU/page p50")


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (Decimal("0.0000001875"), "$0.000000188"),
        (Decimal("1.5"), "$1.50"),
        (Decimal("4.19140625"), "$4.19"),
        (Decimal("0.0123"), "$0.0123"),
        (Decimal("1234.5"), "$1,234"),
        (Decimal(0), "$0"),
    ],
)
def test_usd_keeps_three_significant_digits_and_no_exponent(amount, shown) -> None:
    assert usd(amount) == shown


def test_prices_flag_beats_config_beats_the_dated_default(tmp_path: Path) -> None:
    default = read_prices(settings={})
    assert [r.usd_per_unit for r in default.rates] == [
        Decimal("0.125") / 1_000_000,
        Decimal("0.00013") / 3600,
    ]
    assert default.source == "us-east-1 list prices as of 2024-11-01, not fetched"
    settings = {"pricing": {"read_per_million": 0.2, "rcu_hour": "0.00015", "region": "eu-x"}}
    configured = read_prices(settings=settings)
    assert [r.usd_per_unit for r in configured.rates] == [
        Decimal("0.2") / 1_000_000,
        Decimal("0.00015") / 3600,
    ]
    assert "config.toml" in configured.source and "eu-x" in configured.source
    flagged = read_prices(read_per_million="0.3", settings=settings)
    assert flagged.rates[0].usd_per_unit == Decimal("0.3") / 1_000_000
    assert flagged.rates[1].usd_per_unit == Decimal("0.00015") / 3600
    for bad in ({"read_per_million": -1}, {"rcu_hour": True}, {"rcu_hour": "lots"}, {"typo": 1}):
        with pytest.raises(InputError):
            read_prices(settings={"pricing": bad})
    with pytest.raises(InputError):
        read_prices(read_per_million="inf", settings={})


def test_cli_price_flags_and_config_reach_the_summary(ddb, demo_table, tmp_path: Path) -> None:
    settings = tmp_path / "config.toml"
    settings.write_text("[pricing]\nread_per_million = 0.25\n")
    base = [
        "pages",
        "--endpoint-url",
        ddb.endpoint_url,
        "--table-name",
        demo.TABLE,
        "--key-condition-expression",
        "customer = :c",
        "--expression-attribute-values",
        '{":c": {"S": "acme"}}',
        "--max-pages",
        "2",
        "--no-tokens",
    ]
    env = {**ENV, "DYNOTUI_CONFIG": str(settings)}

    def run(*args: str) -> subprocess.CompletedProcess:
        return run_in_process([*base, *args], env=env)

    summary = summary_line(run().stdout)
    configured, total = summary["price_estimate"], summary["totals"]["cost"]
    assert configured["these_pages"]["usd"]["on-demand"] == pytest.approx(
        total * 0.25 / 1e6, rel=1e-5
    )
    flagged = summary_line(run("--price-rcu-hour", "0.001").stdout)["price_estimate"]
    assert flagged["these_pages"]["usd"]["provisioned"] == pytest.approx(
        total * 0.001 / 3600, rel=1e-5
    )
    bad = run("--price-read-million", "-3")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "--price-read-million" in bad.stderr
    settings.write_text("[pricing]\nread_per_milion = 0.25\n")
    typo = run()
    assert typo.returncode == 2 and "read_per_milion" in typo.stderr


def test_postgres_summary_measures_buffers_and_prices_nothing(pg_uri: str, pg_admin: Any) -> None:
    result = pg_pages(pg_uri, "--table", "orders", "--page-size", "50", "--max-pages", "6")
    out = page_lines(result.stdout)
    summary = summary_line(result.stdout)
    buffers = sorted(p["cost"]["shared_hit"] + p["cost"]["shared_read"] for p in out)
    capacity = summary["measures"]["capacity_per_page"]
    assert capacity["unit"] == "buffers" and capacity["max"] == buffers[-1]
    assert capacity["p50"] == buffers[len(buffers) // 2 - 1]  # nearest rank of 6: the 3rd
    assert summary["totals"]["cost"] == sum(buffers)
    assert summary["price_estimate"] is None
    assert summary["measures"]["rounds_per_page"]["applies"] is False
    refused = pg_pages(pg_uri, "--table", "orders", "--price-rcu-hour", "1")
    assert refused.returncode == 2 and "not billed per unit" in refused.stderr
