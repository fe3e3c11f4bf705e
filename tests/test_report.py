"""``dynotui report`` end to end: both files, their numbers against ``dynotui pages``, hostile
data kept as text, a compare, PostgreSQL, and bad input in one line."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from helpers import page_lines, run_in_process
from test_cli_pages import ENV, RARE_ARGS

from dynotui.core.ledger import SessionLedger
from dynotui.core.pager import Pager
from dynotui.dynamodb.advice import Measurements
from dynotui.dynamodb.pricing import read_prices
from dynotui.dynamodb.report import dynamodb_report
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import from_key
from dynotui.local import demo
from dynotui.local.tables import create_table, table_definition, write_items
from dynotui.report.html import render_html
from dynotui.report.markdown import render_markdown

HOSTILE_NAME = "</td><script>window.__pwned=1</script>"
HOSTILE_PK = "</svg><script>window.__pwned=2</script>"
HOSTILE_NOTE = "javascript:window.__pwned=3"
HOSTILE_SKS = (
    "<img src=x onerror=window.__pwned=4>",
    '"><svg onload=window.__pwned=5>',
    "``` </code></pre><script>window.__pwned=6</script>",
    "| [x](javascript:window.__pwned=7) *a* _b_ \x1b[2J\u202e",
)
HOSTILE_STRINGS = (HOSTILE_NAME, HOSTILE_PK, HOSTILE_NOTE, *HOSTILE_SKS)


def dynotui(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """In this process, unless the test runs it from a folder of its own."""
    if cwd is None:
        return run_in_process(args, env=ENV)
    return subprocess.run(
        [sys.executable, "-m", "dynotui", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
        cwd=cwd,
    )


def report(ddb: Any, out: Path, *args: str) -> dict:
    result = dynotui("report", "--endpoint-url", ddb.endpoint_url, "--output", str(out), *args)
    assert result.returncode == 0, result.stderr
    (line,) = result.stdout.splitlines()
    return json.loads(line)


def demo_pages(ddb: Any, *args: str) -> list[dict]:
    result = dynotui("pages", "--endpoint-url", ddb.endpoint_url, "--table-name", demo.TABLE, *args)
    assert result.returncode == 0, result.stderr
    return page_lines(result.stdout)


class Elements(HTMLParser):
    """Every element and attribute as the HTML parser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def elements(html_text: str) -> Elements:
    parser = Elements()
    parser.feed(html_text)
    parser.close()
    return parser


def assert_inert(parsed: Elements) -> None:
    tags = {tag for tag, _ in parsed.tags}
    assert not tags & {"script", "iframe", "object", "embed", "a", "form", "base", "link"}
    for tag, attrs in parsed.tags:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        if tag == "img":
            assert (attrs.get("src") or "").startswith("data:image/svg+xml;base64,")


@pytest.fixture(scope="module", name="hostile")
def hostile_table(client: Any) -> str:
    name = "hostile-report"
    create_table(client, table_definition(name, (HOSTILE_NAME, "S"), ("sk", "S")))
    write_items(
        client,
        name,
        [
            {
                HOSTILE_NAME: HOSTILE_PK,
                "sk": f"{i:02d} {sk}",
                "note": HOSTILE_NOTE if i % 3 else "ok",
            }
            for i, sk in enumerate(HOSTILE_SKS * 3)
        ],
    )
    return name


def hostile_args(table: str) -> list[str]:
    return [
        "--table-name",
        table,
        "--key-condition-expression",
        "#k = :p",
        "--filter-expression",
        "note <> :n",
        "--expression-attribute-names",
        json.dumps({"#k": HOSTILE_NAME}),
        "--expression-attribute-values",
        json.dumps({":p": {"S": HOSTILE_PK}, ":n": {"S": HOSTILE_NOTE}}),
        "--page-size",
        "3",  # page boundaries fall on every hostile sort key in turn
    ]


def test_report_on_the_demo_writes_both_files_with_the_pages_numbers(
    ddb, demo_table, tmp_path: Path
) -> None:
    args = [*RARE_ARGS, "--mode", "fill", "--page-size", "10"]
    out = report(ddb, tmp_path / "demo", "--table-name", demo.TABLE, *args, "--pages", "6")
    html_path, md_path = Path(out["html"]), Path(out["markdown"])
    assert (html_path.name, md_path.name) == ("demo.html", "demo.md")
    pages = demo_pages(ddb, *args, "--max-pages", "6", "--no-tokens")
    (side,) = out["sides"]
    assert side["pages"] == len(pages) == 6
    assert side["totals"]["cost"] == sum(p["consumed_capacity"]["total"] for p in pages)
    html_text = html_path.read_text()
    markdown = md_path.read_text()
    parsed = elements(html_text)
    assert_inert(parsed)
    assert [a["id"] for t, a in parsed.tags if t == "svg"] == ["chart-capacity-0", "chart-waste-0"]
    figures = {a["data-figure"]: i for i, (t, a) in enumerate(parsed.tags) if "data-figure" in a}
    assert set(figures) >= {"pages", "capacity", "count", "scanned", "calls"}
    for text in (html_text, markdown):
        for heading in ("Connection", "The five measures", "Ledger of every page", "Charts"):
            assert heading in text
        assert "p50" in text and "Count ÷ ScannedCount" in text
        assert "an estimate: us-east-1 list prices as of 2024-11-01" in text
        assert "Page 1 · boto3" in text and "Page 6 · aws-cli" in text
        assert "fill_page(START_KEY)" in text and "PAGE_SIZE = 10" in text  # the fill loop
        assert ddb.endpoint_url in text
    # Every page of the ledger, with what ``dynotui pages`` said it cost.
    for page in pages:
        capacity = f"{page['consumed_capacity']['total']:,.10g}"
        row = f"| {page['page']} | "
        assert any(
            line.startswith(row) and f"| {capacity} |" in line for line in markdown.splitlines()
        ), page["page"]
    assert markdown.count("data:image/svg+xml;base64,") == 2


def test_max_capacity_stops_after_the_page_that_passes_it(ddb, demo_table, tmp_path) -> None:
    args = ["--table-name", demo.TABLE, *RARE_ARGS, "--page-size", "25"]
    pages = demo_pages(ddb, *args[2:], "--max-pages", "40", "--no-tokens")
    spent = [p["consumed_capacity"]["total"] for p in pages]
    limit = sum(spent[:5]) - 0.5  # passed during the fifth page
    out = report(ddb, tmp_path / "capped", *args, "--max-capacity", str(limit))
    (side,) = out["sides"]
    assert side["pages"] == 5
    assert side["totals"]["cost"] == sum(spent[:5]) >= limit > sum(spent[:4])


def test_hostile_values_stay_text_in_both_files(ddb, hostile, tmp_path: Path) -> None:
    out = report(ddb, tmp_path / "hostile", *hostile_args(hostile))
    html_text = Path(out["html"]).read_text()
    markdown = Path(out["markdown"]).read_text()
    parsed = elements(html_text)
    assert_inert(parsed)
    shown = "".join(parsed.text)
    for text in (HOSTILE_NAME, HOSTILE_PK, HOSTILE_NOTE, *HOSTILE_SKS[:3]):
        assert text in shown, text  # the parser reads the escaped text back as it was
    assert "\x1b" not in html_text + markdown and "\u202e" not in html_text + markdown
    # Made visible, not obeyed: ESC as JSON writes it, the override as its code.
    assert "\\u001b[2J" in shown and "\\u202e" in shown
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    assert_inert(elements(rendered))
    assert "<script>" not in rendered and "window.__pwned" in rendered


def test_a_compare_report_holds_both_orders_and_cost_per_item(
    ddb, client, demo_table, tmp_path: Path
) -> None:
    schema = describe_table(client, demo.TABLE)
    measured = Measurements()
    base = from_key(
        schema,
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        filter_values={":r": {"S": demo.RARE_STATUS}},
        page_size=25,
        mode="fill",
    )
    gsi = from_key(
        schema,
        index="by_status",
        partition_value=demo.RARE_STATUS,
        filter="customer = :c",
        filter_values={":c": {"S": demo.BIG_CUSTOMER}},
        page_size=25,
        mode="fill",
    )
    ledger = SessionLedger()
    pagers = [
        Pager(QuerySource(client, spec, schema, measurements=measured), ledger=ledger)
        for spec in (base, gsi)
    ]
    for pager in pagers:
        while pager.can_advance:
            pager.next()
    built = dynamodb_report(pagers, prices=read_prices(settings={}), ledger=ledger)
    left, right = built.sides
    assert left.shown == right.shown  # the same result set, read in two orders
    assert [p.number for p in left.pages] == list(range(1, pagers[0].totals.pages_read + 1))
    assert left.capacity == pagers[0].totals.cost.capacity.total
    ratio = right.per_match / left.per_match  # type: ignore[operator]
    assert ratio == pytest.approx(
        (pagers[1].totals.cost.capacity.total / right.shown)
        / (pagers[0].totals.cost.capacity.total / left.shown)
    )
    assert ratio < 0.2  # the GSI reads only RETURNED orders
    page = render_html(built)
    assert f"{ratio:.3g}x" in page and "Compare: cost per item shown" in page
    assert page.count('class="chart"') == 4
    assert "measured on the same conditions" in page  # each advisor quotes the other side
    markdown = render_markdown(built)
    assert f"{ratio:.3g}x" in markdown and "GSI by\\_status" in markdown
    assert built.session is not None and built.session.pages_read == sum(
        p.totals.pages_read for p in pagers
    )


def test_the_cli_compares_two_orders(ddb, demo_table, tmp_path: Path) -> None:
    out = report(
        ddb,
        tmp_path / "both",
        "--table-name",
        demo.TABLE,
        *RARE_ARGS,
        "--mode",
        "fill",
        "--page-size",
        "50",
        "--compare-index-name",
        "by_status",
        "--compare-key-condition-expression",
        "status = :r",
        "--compare-filter-expression",
        "customer = :c",
    )
    left, right = out["sides"]
    assert left["name"].startswith("base table") and right["name"].startswith("GSI by_status")
    assert left["totals"]["count"] >= 150 and right["totals"]["cost"] < left["totals"]["cost"]


def test_postgres_report_in_buffers(pg_uri: str, tmp_path: Path) -> None:
    result = dynotui(
        "report",
        "--postgres",
        pg_uri,
        "--table",
        "orders",
        "--page-size",
        "20",
        "--pages",
        "4",
        "--compare-mode",
        "offset",
        "--output",
        str(tmp_path / "pg"),
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    keyset, offset = out["sides"]
    assert keyset["measures"]["capacity_per_page"]["unit"] == "buffers"
    assert keyset["pages"] == offset["pages"] == 4
    assert keyset["price_estimate"] is None
    html_text = Path(out["html"]).read_text()
    assert_inert(elements(html_text))
    assert "shared buffers" in html_text or "hit " in html_text
    assert "Price (an estimate)" not in html_text
    password_free = Path(out["markdown"]).read_text()
    assert "Page 4 · psycopg" in password_free and "Buffers stand in for capacity" in password_free


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pages", "0"], "--pages must be 1 or more"),
        (["--max-capacity", "-1"], "--max-capacity"),
        (["--max-capacity", "nan"], "--max-capacity"),
        (["--pages", "2", "--max-pages", "2"], "give one"),
        (["--output", ""], "--output is empty"),
        (["--output", "/nonexistent-folder/x"], "does not exist"),
        (["--compare-mode", "offset"], "for --postgres"),
        (["--price-read-million", "free"], "--price-read-million"),
    ],
)
def test_bad_input_exits_2_with_one_line(ddb, demo_table, tmp_path, args, message) -> None:
    result = dynotui(
        "report",
        "--endpoint-url",
        ddb.endpoint_url,
        "--table-name",
        demo.TABLE,
        *RARE_ARGS,
        *args,
        cwd=tmp_path,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert not list(tmp_path.iterdir()), "nothing written on bad input"


def test_nearest_rank_in_the_report_matches_the_pages(ddb, demo_table, tmp_path) -> None:
    args = ["--table-name", demo.TABLE, *RARE_ARGS, "--page-size", "30"]
    out = report(ddb, tmp_path / "raw", *args, "--pages", "12")
    pages = demo_pages(ddb, *args[2:], "--max-pages", "12", "--no-tokens")
    capacities = sorted(p["consumed_capacity"]["total"] for p in pages)
    figures = out["sides"][0]["measures"]
    n = len(capacities)
    assert figures["capacity_per_page"]["p99"] == capacities[math.ceil(n * 0.99) - 1]
    empty = sum(1 for p in pages if not p["items"] and p["has_next"] is None)
    assert figures["empty_pages"]["count"] == empty


def test_partiql_without_capacity_says_not_reported_never_zero(ddb, demo_table, tmp_path) -> None:
    statement = f'SELECT * FROM "{demo.TABLE}" WHERE customer = ?'
    out = report(
        ddb,
        tmp_path / "partiql",
        "--statement",
        statement,
        "--parameters",
        '[{"S": "c007"}]',
        "--page-size",
        "5",
    )
    (side,) = out["sides"]
    assert side["pages"] >= 2
    assert side["measures"]["capacity_per_page"] == {"unit": "RCU", "reported": False}
    assert side["totals"]["cost"] is None and side["price_estimate"]["these_pages"]["usd"] == {}
    html_text = Path(out["html"]).read_text()
    assert 'data-figure="capacity" data-side="0">not reported<' in html_text
    markdown = Path(out["markdown"]).read_text()
    assert "| capacity (RCU) | not reported |" in markdown and "$0 " not in markdown
    assert "Page 1 · boto3" in markdown


def test_figures_read_on_dynamodb_local_are_said_to_be_its_own(client, demo_table) -> None:
    """DynamoDB Local applies the 1 MB limit after the filter: one call over the archive's
    large orders reads all of them, for more units than one call can cost on the service.
    The page's warnings and the report say so; the same pages read as the service's say
    nothing of the kind."""
    from dataclasses import replace

    from dynotui.dynamodb.cost import service_call_max

    answer = client.query(
        TableName=demo.TABLE,
        KeyConditionExpression="customer = :c",
        FilterExpression="#s = :r",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":c": {"S": demo.ARCHIVE_CUSTOMER}, ":r": {"S": "RETURNED"}},
        ReturnConsumedCapacity="TOTAL",
    )
    units = answer["ConsumedCapacity"]["CapacityUnits"]
    assert units > service_call_max(consistent=True), "one call, past what the service bills"
    schema = describe_table(client, demo.TABLE)
    spec = from_key(
        schema,
        partition_value=demo.ARCHIVE_CUSTOMER,
        filter="status = :r",
        filter_values={":r": {"S": demo.RARE_STATUS}},
        page_size=1000,
    )
    local = Pager(QuerySource(client, spec, schema))
    page = local.next()
    warned = " ".join(page.cost.warnings())
    assert "DynamoDB Local's own figures" in warned
    assert f"up to {units:,.10g} RCU" in warned
    assert f"at most {service_call_max(consistent=False):,.10g} RCU" in warned
    notes = " ".join(dynamodb_report([local], prices=None).notes)
    assert "Read on DynamoDB Local" in notes and f"up to {units:,.10g} RCU" in notes
    assert "DynamoDB Local" in render_markdown(dynamodb_report([local], prices=None))
    service = Pager(QuerySource(client, spec, replace(schema, counts_live=False)))
    assert not any("Local" in w for w in service.next().cost.warnings())
    assert not dynamodb_report([service], prices=None).notes
