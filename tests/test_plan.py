"""``dynotui plan`` held to the paths themselves, on DynamoDB Local.

One table with a base key, an LSI, a GSI with ALL projected (sparse: drafts have no
``placed_on``) and a KEYS_ONLY GSI (sparse: few items are flagged). For each query every
usable path the plan lists is drained by a plain boto3 loop at the plan's page size
(fill mode: by dynotui's pager on the real path), and the plan must hold to it: read
units within 15%, pages within one, matches exact (the plan read the key ranges whole),
the same items from every usable path, the cheapest named truly the cheapest; refused
paths say why; the plan itself reads less than the Scan it would warn about.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from export_layout import scan_all, write_export
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynotui.cli.main import main
from dynotui.core.pager import Pager
from dynotui.dynamodb.dynamo_json import from_wire
from dynotui.dynamodb.plan.figures import Plan, PlannedPath
from dynotui.dynamodb.plan.planner import Planner
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec, from_expressions
from dynotui.local.tables import Index, create_table, table_definition, write_items

TOLERANCE = 0.15
TABLE = "plan-orders"
STATUSES = ("NEW", "PAID", "SHIPPED", "RETURNED", "DRAFT")


@pytest.fixture(scope="module")
def orders(client: Any) -> str:
    create_table(
        client,
        table_definition(
            TABLE,
            ("customer", "S"),
            ("order_id", "S"),
            local_indexes=(Index("by_total", ("customer", "S"), ("total", "N")),),
            global_indexes=(
                Index("by_status", ("status", "S"), ("placed_on", "S")),
                Index("by_flag", ("flag", "S"), None, "KEYS_ONLY"),
            ),
        ),
    )
    rng = random.Random(43)
    items = []
    for n in range(3000):
        status = rng.choice(STATUSES)
        item: dict[str, Any] = {
            "customer": f"c{n % 40:02d}",
            "order_id": f"o{n:05d}",
            "total": rng.randint(1, 500),
            "status": status,
            "note": "x" * rng.randint(40, 600),
        }
        if status != "DRAFT":  # a draft is not placed yet: the GSI leaves it out
            item["placed_on"] = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if rng.random() < 0.05:
            item["flag"] = "Y"
        items.append(item)
    write_items(client, TABLE, items)
    return TABLE


def drain(client: Any, planned: PlannedPath) -> tuple[int, float, set[tuple[str, str]]]:
    """The path read to its end by a plain boto3 loop: pages, read units, the items' keys."""
    spec = planned.path.spec
    assert spec is not None
    params: dict[str, Any] = {
        "TableName": spec.table,
        "Limit": spec.page_size,
        "ReturnConsumedCapacity": "TOTAL",
    }
    if spec.index:
        params["IndexName"] = spec.index
    if spec.key_condition:
        params["KeyConditionExpression"] = spec.key_condition
    if spec.filter:
        params["FilterExpression"] = spec.filter
    if spec.projection:
        params["ProjectionExpression"] = spec.projection
    if spec.names:
        params["ExpressionAttributeNames"] = dict(spec.names)
    if spec.values:
        params["ExpressionAttributeValues"] = dict(spec.values)
    if spec.key_condition and not spec.forward:
        params["ScanIndexForward"] = False
    if spec.consistent_read:
        params["ConsistentRead"] = True
    operation = client.query if spec.key_condition else client.scan
    pages, units, keys = 0, 0.0, set()
    while True:
        response = operation(**params)
        pages += 1
        units += response["ConsumedCapacity"]["CapacityUnits"]
        keys |= {(i["customer"]["S"], i["order_id"]["S"]) for i in response["Items"]}
        if "LastEvaluatedKey" not in response:
            return pages, units, keys
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def pager_drain(client: Any, planned: PlannedPath) -> tuple[int, float, set[tuple[str, str]]]:
    """Fill mode: the path paged by dynotui's pager, on the real table."""
    spec = planned.path.spec
    assert spec is not None
    pager = Pager(QuerySource(client, spec, describe_table(client, spec.table)))
    keys: set[tuple[str, str]] = set()
    while pager.can_advance:
        page = pager.next()
        keys |= {(i["customer"]["S"], i["order_id"]["S"]) for i in page.items}
    cost = pager.totals.cost
    assert cost is not None and cost.capacity is not None
    return pager.totals.pages_read, cost.capacity.total, keys


def expected_keys(client: Any, spec: QuerySpec) -> set[tuple[str, str]]:
    """The query as written, drained: the items every usable path must return."""
    schema = describe_table(client, spec.table)
    pager = Pager(QuerySource(client, spec.with_(page_size=1000), schema))
    keys: set[tuple[str, str]] = set()
    while pager.can_advance:
        keys |= {(i["customer"]["S"], i["order_id"]["S"]) for i in pager.next().items}
    return keys


def hold_to_drains(client: Any, plan: Plan, spec: QuerySpec) -> dict[str, float]:
    """Every usable path's estimate against its drain; the truths by path name."""
    truth_keys = expected_keys(client, spec)
    assert truth_keys, "the query matches nothing: it tests nothing"
    truths: dict[str, float] = {}
    for planned in plan.paths:
        if not planned.usable or planned.path.kind not in ("query", "scan"):
            continue
        figures = planned.figures
        assert figures is not None, planned.why
        pages, units, keys = (pager_drain if spec.mode == "fill" else drain)(client, planned)
        name = planned.path.name
        assert keys == truth_keys, f"{name} returns other items than the query"
        assert figures.matches.point == len(truth_keys), name
        assert figures.read_units.point == pytest.approx(units, rel=TOLERANCE), name
        assert abs(figures.pages.point - pages) <= 1, (name, figures.pages, pages)
        truths[name] = units
    assert plan.cheapest is not None
    assert truths[plan.cheapest] <= min(truths.values()) * (1 + 1e-9), (plan.cheapest, truths)
    assert plan.cost.read_units < truths["scan"], "the plan read as much as the Scan"
    return truths


def plan_of(client: Any, spec: QuerySpec, **options: Any) -> Plan:
    return Planner(client, spec, **options).run()


def values(**typed: Any) -> dict[str, Any]:
    return from_wire({f":{k}": v for k, v in typed.items()})


def refused(plan: Plan) -> dict[str, str]:
    return {p.path.name: p.why or "" for p in plan.paths if not p.usable}


# -- the queries --------------------------------------------------------------------------


def test_base_key_with_a_filter_the_lsi_serves_as_a_key_range(client: Any, orders: str) -> None:
    spec = from_expressions(
        orders,
        key_condition="customer = :c",
        filter="#t > :t",
        names={"#t": "total"},
        values=values(c={"S": "c07"}, t={"N": "300"}),
    )
    plan = plan_of(client, spec)
    by_total = plan.path("by_total")
    assert by_total.path.kind == "query" and by_total.filter_text() is None  # all in the key
    hold_to_drains(client, plan, spec)
    assert plan.cheapest == "by_total"
    why = refused(plan)
    assert "KEYS_ONLY" in why["by_flag"]
    assert "sparse" in why["by_status"] and "placed_on" in why["by_status"]


def test_a_filter_on_a_gsi_partition_key(client: Any, orders: str) -> None:
    spec = from_expressions(
        orders,
        key_condition="customer = :c",
        filter="#s = :r",
        names={"#s": "status"},
        values=values(c={"S": "c11"}, r={"S": "RETURNED"}),
    )
    plan = plan_of(client, spec)
    by_status = plan.path("by_status")
    assert by_status.usable and by_status.path.kind == "query"
    assert by_status.key_text() == 'status = "RETURNED"'
    assert "placed_on" in (by_status.why or "")  # usable on today's data: said so
    truths = hold_to_drains(client, plan, spec)
    assert truths["by_status"] > truths["table"]  # it reads every customer's returns
    imagined = plan.path("status-customer-index (imagined)")
    assert imagined.usable and imagined.figures is not None
    assert imagined.figures.matches.point == plan.path("table").figures.matches.point  # type: ignore[union-attr]


def test_a_sort_key_range(client: Any, orders: str) -> None:
    spec = from_expressions(
        orders,
        key_condition="customer = :c AND order_id BETWEEN :a AND :b",
        values=values(c={"S": "c03"}, a={"S": "o00500"}, b={"S": "o02000"}),
        forward=False,
    )
    plan = plan_of(client, spec)
    assert plan.path("by_total").filter_text() == 'order_id BETWEEN "o00500" AND "o02000"'
    hold_to_drains(client, plan, spec)
    assert plan.cheapest == "table"


def test_a_sparse_gsi_is_refused_with_how_many_matches_it_misses(client: Any, orders: str) -> None:
    spec = from_expressions(
        orders,
        key_condition="customer = :c",
        filter="#s = :d",
        names={"#s": "status"},
        values=values(c={"S": "c05"}, d={"S": "DRAFT"}),
    )
    plan = plan_of(client, spec)
    why = refused(plan)["by_status"]
    drafts = plan.path("table").figures.matches.point  # type: ignore[union-attr]
    assert f"{drafts:,} of the {drafts:,} matches lack 'placed_on'" in why
    hold_to_drains(client, plan, spec)


def test_keys_only_gsi_serves_a_scan_that_returns_its_keys(client: Any, orders: str) -> None:
    spec = from_expressions(
        orders,
        scan=True,
        filter="flag = :y",
        projection="customer, order_id, flag",
        values=values(y={"S": "Y"}),
    )
    plan = plan_of(client, spec)
    assert plan.path("by_flag").path.kind == "query"
    hold_to_drains(client, plan, spec)
    assert plan.cheapest == "by_flag"


def test_fill_mode(client: Any, orders: str) -> None:
    spec = from_expressions(
        orders,
        key_condition="customer = :c",
        filter="#s = :r",
        names={"#s": "status"},
        values=values(c={"S": "c12"}, r={"S": "PAID"}),
        mode="fill",
        page_size=5,
    )
    hold_to_drains(client, plan_of(client, spec), spec)


def test_consistent_reads_refuse_every_gsi(client: Any, orders: str) -> None:
    spec = from_expressions(
        orders,
        key_condition="customer = :c",
        filter="#s = :r",
        names={"#s": "status"},
        values=values(c={"S": "c11"}, r={"S": "RETURNED"}),
        consistent_read=True,
    )
    plan = plan_of(client, spec)
    why = refused(plan)
    assert "eventually consistent" in why["by_status"]
    assert "eventually consistent" in why["status-customer-index (imagined)"]
    table = plan.path("table").figures
    assert table is not None
    # A consistent read bills whole units: twice the eventually consistent drain.
    _, units, _ = drain(client, plan.path("table"))
    assert units == pytest.approx(table.read_units.point, rel=TOLERANCE)


@pytest.mark.parametrize("budget", [1, 3, 8])
def test_a_budget_too_small_gives_ranges_and_says_so(client: Any, orders: str, budget: int) -> None:
    """A path read in part: its read units, pages and matches are ranges that hold what a
    boto3 drain of it finds. Before, the matches' upper bound took the rest of the key
    range to hold none, and the plan said '~100' (a count) for 566 matches."""
    spec = from_expressions(
        orders,
        key_condition="#s = :r",
        names={"#s": "status"},
        index="by_status",
        values=values(r={"S": "SHIPPED"}),
    )
    plan = plan_of(client, spec, max_read_units=budget)
    assert plan.stopped_by == "max-read-units"
    own = plan.path("by_status").figures
    assert own is not None and own.read_units.point is None
    pages, units, keys = drain(client, plan.path("by_status"))
    assert own.read_units.low <= units <= (own.read_units.high or 0)
    assert own.pages.low <= pages <= (own.pages.high or 0)
    assert own.matches.point is None, own.matches
    assert own.matches.low <= len(keys) <= (own.matches.high or 0), (own.matches, len(keys))
    assert any("ranges" in note for note in plan.notes)


# -- the command ---------------------------------------------------------------------------


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str], ddb: Any) -> Iterator[Any]:
    def run(*argv: str) -> tuple[int, str, str]:
        try:
            code = main(
                ["plan", "--endpoint-url", ddb.endpoint_url, "--region", "us-east-1", *argv]
            )
        except SystemExit as exit:  # argparse's usage errors
            code = int(exit.code or 0)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    yield run


def test_json_has_the_issues_schema(run_cli: Any, orders: str) -> None:
    code, out, err = run_cli(
        "--table-name",
        orders,
        "--key-condition-expression",
        "customer = :c",
        "--filter-expression",
        "#s = :r",
        "--expression-attribute-names",
        '{"#s": "status"}',
        "--expression-attribute-values",
        '{":c": {"S": "c11"}, ":r": {"S": "RETURNED"}}',
        "--json",
    )
    assert code == 0, err
    found = json.loads(out)
    assert set(found) >= {"paths", "cheapest", "cost"}
    assert set(found["cost"]) == {"read_units", "calls", "seconds"}
    wanted = {
        "name",
        "kind",
        "index",
        "key_condition",
        "filter",
        "order",
        "usable",
        "why",
        "pages",
        "matches",
        "read_units",
        "read_units_per_page",
        "estimated",
    }
    for path in found["paths"]:
        assert set(path) >= wanted
        assert path["kind"] in ("query", "scan", "export", "imagined")
        if path["usable"] and path["read_units_per_page"] is not None:
            assert set(path["read_units_per_page"]) == {"p50", "p99"}
    assert found["cheapest"] in {p["name"] for p in found["paths"] if p["usable"]}


def test_text_names_the_cheapest_and_marks_estimates(run_cli: Any, orders: str) -> None:
    code, out, err = run_cli(
        "--table-name",
        orders,
        "--key-condition-expression",
        "customer = :c",
        "--filter-expression",
        "#t > :t",
        "--expression-attribute-names",
        '{"#t": "total"}',
        "--expression-attribute-values",
        '{":c": {"S": "c07"}, ":t": {"N": "300"}}',
        "--segments",
        "4",
    )
    assert code == 0, err
    assert "* by_total" in out and "by_total (query LSI): the cheapest" in out
    assert "~" in out and "the plan's own cost:" in out
    assert "cannot serve this query:" in out and "by_flag" in out


@pytest.mark.parametrize(
    "argv",
    [
        ("--page-size", "٣"),
        ("--page-size", "+5"),
        ("--page-size", "0"),
        ("--max-read-units", "-1"),
        ("--max-read-units", "1e3"),
        ("--max-read-units", "nan"),
        ("--segments", "65"),
        ("--segments", "1_0"),
        ("--key-condition-expression", "customer = :nope"),
        ("--index-name", "missing"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run_cli: Any, orders: str, argv: tuple[str, ...]) -> None:
    base = (
        "--table-name",
        orders,
        "--key-condition-expression",
        "customer = :c",
        "--expression-attribute-values",
        '{":c": {"S": "c01"}}',
    )
    code, out, err = run_cli(*base, *argv)
    assert code == 2, (argv, err)
    assert out == "" and len(err.strip().splitlines()) == 1, err


def test_an_export_is_a_path_of_no_read_units(
    run_cli: Any, client: Any, orders: str, tmp_path: Any
) -> None:
    folder = write_export(tmp_path, scan_all(client, orders), table=orders)
    found_args = (
        "--table-name",
        orders,
        "--key-condition-expression",
        "customer = :c",
        "--filter-expression",
        "#s = :r",
        "--expression-attribute-names",
        '{"#s": "status"}',
        "--expression-attribute-values",
        '{":c": {"S": "c11"}, ":r": {"S": "RETURNED"}}',
        "--from-export",
        str(folder),
        "--json",
    )
    code, out, err = run_cli(*found_args)
    assert code == 0, err
    found = json.loads(out)
    paths = {p["name"]: p for p in found["paths"]}
    export, table = paths["export"], paths["table"]
    assert export["kind"] == "export" and export["read_units"] == 0
    assert export["matches"] == table["matches"]  # the export holds the table as it is
    assert export["estimated"] is False
    assert found["cheapest"] == "table"  # the cheapest path that reads live data
    spec = from_expressions(
        orders,
        key_condition="customer = :c",
        filter="#s = :r",
        names={"#s": "status"},
        values=values(c={"S": "c11"}, r={"S": "RETURNED"}),
    )
    assert export["matches"] == len(expected_keys(client, spec))
    # In words, an export has no pages and no ratio to the cheapest's read units: it said
    # "pages 0", "~0/0" and "0x the cheapest's read units".
    args = [a for a in found_args if a != "--json"]
    code, out, err = run_cli(*args)
    assert code == 0, err
    (export_row,) = [line for line in out.splitlines() if line.startswith("export  ")]
    cells = export_row.split()
    assert cells[:6] == ["export", "export", "-", f"{export['matches']:,}", "0", "-"], cells
    assert "0x" not in out and "no read units: its files" in out


def test_report_carries_the_plan(
    capsys: pytest.CaptureFixture[str], ddb: Any, orders: str, tmp_path: Any
) -> None:
    argv = [
        "report",
        "--endpoint-url",
        ddb.endpoint_url,
        "--region",
        "us-east-1",
        "--table-name",
        orders,
        "--key-condition-expression",
        "customer = :c",
        "--filter-expression",
        "#t > :t",
        "--expression-attribute-names",
        '{"#t": "total"}',
        "--expression-attribute-values",
        '{":c": {"S": "c07"}, ":t": {"N": "300"}}',
        "--no-tokens",
        "--output",
        str(tmp_path / "r"),
    ]
    assert main([*argv, "--plan"]) == 0, capsys.readouterr().err
    page = (tmp_path / "r.html").read_text()
    assert "Plan: every path for this query" in page
    assert "* by_total" in page and "the cheapest" in page and "cannot serve" in page
    assert "Plan: every path for this query" in (tmp_path / "r.md").read_text()
    assert main(argv) == 0
    assert "Plan: every path" not in (tmp_path / "r.md").read_text()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    flag=st.sampled_from(["--page-size", "--max-rounds", "--segments", "--max-read-units"]),
    text=st.text(min_size=1, max_size=12).filter(
        lambda t: not t.isascii() or not t.replace(".", "", 1).isdigit()
    ),
)
def test_number_flags_fuzzed(run_cli: Any, flag: str, text: str) -> None:
    """Anything but ASCII digits is exit 2 and one line, before any call."""
    code, out, err = run_cli("--table-name", "t-none", "--scan", f"{flag}={text}")
    assert code == 2, (flag, text, err)
    assert out == "" and len(err.strip().splitlines()) == 1, err


def test_one_entry_read_is_said_in_the_singular(run_cli: Any, client: Any) -> None:
    # A key range of one item: the Scan's figures rest on "the 1 entry the plan read"
    # (it said "the 1 entries").
    create_table(client, table_definition("plan-three", ("pk", "S"), None))
    write_items(client, "plan-three", [{"pk": f"k{n}", "v": "x" * n} for n in range(3)])
    code, out, err = run_cli(
        "--table-name",
        "plan-three",
        "--key-condition-expression",
        "pk = :p",
        "--expression-attribute-values",
        '{":p": {"S": "k1"}}',
        "--json",
    )
    assert code == 0, err
    truth = client.scan(TableName="plan-three", Select="COUNT")["Count"]
    (scan,) = [p for p in json.loads(out)["paths"] if p["kind"] == "scan"]
    assert f"DescribeTable's {truth} entries" in scan["basis"], scan["basis"]
    assert scan["basis"].endswith("sized like the 1 entry the plan read"), scan["basis"]
