"""Query, Scan and ExecuteStatement responses read by ``fast_items`` equal botocore's own
reading of them: on real responses from DynamoDB Local, and on bodies made to be odd."""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

import boto3
import pytest
from botocore.parsers import create_parser
from helpers import responses

from dynotui.dynamodb import fast_items
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.local.runner import LOCAL_CREDENTIALS
from dynotui.local.tables import create_table, table_definition, write_items

SERVICE = boto3.client("dynamodb", **LOCAL_CREDENTIALS).meta.service_model


def botocore_reading(operation: str, body: bytes) -> dict[str, Any]:
    parser = create_parser(SERVICE.resolved_protocol)
    parsed = parser.parse(
        {"body": body, "headers": {}, "status_code": 200},
        SERVICE.operation_model(operation).output_shape,
    )
    parsed.pop("ResponseMetadata", None)
    return parsed


def without_metadata(response: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in response.items() if k != "ResponseMetadata"}


ODD_ITEMS = [
    {
        "pk": bytes([0, 255, 10, 27]) * k,
        "sk": Decimal(k) / 7 if k % 2 else Decimal(f"1E{k}"),
        "s": "\x1b[2J é 漢字 \U0001f600" * k,
        "blob": bytes(range(k * 3)),
        "blobs": {bytes([k]), bytes([k, 1]), b"\x00"},
        "strings": {"a", "\x00b", "[red]c"},
        "numbers": {Decimal("0.1"), Decimal(-k), Decimal("1E125")},
        "deep": {"m": {"b": bytes([k]), "l": [bytes([1, k]), {"x": None}, [True, False]]}},
        "list": [Decimal("3.14"), "x", None, b"\x01", {b"\x02", b"\x03"}],
        "none": None,
        "yes": k % 2 == 0,
    }
    for k in range(1, 40)
]


@pytest.fixture(scope="module")
def odd_table(client: Any) -> str:
    name = "fast-items-odd"
    create_table(client, table_definition(name, ("pk", "B"), ("sk", "N")))
    write_items(client, name, ODD_ITEMS)
    return name


@pytest.fixture(scope="module")
def hooked(ddb: Any) -> Any:
    client = make_client(ConnectionOptions(endpoint_url=ddb.endpoint_url))
    seen: list[bytes] = []  # the body botocore is left with, after the hook
    for operation in fast_items.OPERATIONS:
        client.meta.events.register(
            f"before-parse.dynamodb.{operation}",
            lambda response_dict, **_: seen.append(response_dict["body"]),
        )
    client.seen_bodies = seen
    return client


def walk(call: Any, token_field: str, start_field: str, **params: Any) -> list[dict]:
    found = responses(call, more=token_field, start=start_field, **params)
    return [without_metadata(response) for response in found]


def test_scan_and_query_read_as_botocore_reads_them(
    client: Any, hooked: Any, odd_table: str
) -> None:
    hooked.seen_bodies.clear()
    for operation, params in (
        ("scan", {"TableName": odd_table, "Limit": 7, "ReturnConsumedCapacity": "INDEXES"}),
        (
            "query",
            {
                "TableName": odd_table,
                "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": {"B": bytes([0, 255, 10, 27]) * 3}},
                "ReturnConsumedCapacity": "TOTAL",
            },
        ),
    ):
        ours = walk(getattr(hooked, operation), "LastEvaluatedKey", "ExclusiveStartKey", **params)
        theirs = walk(getattr(client, operation), "LastEvaluatedKey", "ExclusiveStartKey", **params)
        assert ours == theirs
    assert sum(len(page["Items"]) for page in ours) == 1
    # The hook did the reading: botocore was left an empty body every time.
    assert hooked.seen_bodies and set(hooked.seen_bodies) == {b"{}"}
    scanned = walk(hooked.scan, "LastEvaluatedKey", "ExclusiveStartKey", TableName=odd_table)
    items = [item for page in scanned for item in page["Items"]]
    assert len(items) == len(ODD_ITEMS)
    assert all(isinstance(item["pk"]["B"], bytes) for item in items)
    deep = items[0]["deep"]["M"]["m"]["M"]
    assert isinstance(deep["b"]["B"], bytes) and isinstance(deep["l"]["L"][0]["B"], bytes)


def test_partiql_pages_read_as_botocore_reads_them(
    client: Any, hooked: Any, odd_table: str
) -> None:
    statement = {"Statement": f'SELECT * FROM "{odd_table}"', "Limit": 5}
    ours = walk(hooked.execute_statement, "NextToken", "NextToken", **statement)
    theirs = walk(client.execute_statement, "NextToken", "NextToken", **statement)
    assert len(ours) > 2

    def comparable(pages: list[dict]) -> list[dict]:
        # A NextToken carries the time it was made: only whether there is one compares.
        return [{**page, "NextToken": "NextToken" in page} for page in pages]

    assert comparable(ours) == comparable(theirs)


def test_errors_stay_botocores(hooked: Any) -> None:
    with pytest.raises(hooked.exceptions.ResourceNotFoundException):
        hooked.query(
            TableName="no-such-table",
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "x"}},
        )


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize(
    "body",
    [
        {"Items": [], "Count": 0, "ScannedCount": 0},
        {
            "Items": [{"b": {"B": b64(b"\x00\xff")}, "bs": {"BS": [b64(b"a"), b64(b"")]}}],
            "LastEvaluatedKey": {"k": {"B": b64(b"\x01")}},
            "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 0.5},
            "Count": 1,
            "ScannedCount": 3,
        },
        {"Items": [{"m": {"M": {"l": {"L": [{"M": {"b": {"B": b64(b"z")}}}, {"NULL": True}]}}}}]},
        {"Items": [{"s": {"SS": ["a"]}, "n": {"NS": ["1", "2.5"]}, "t": {"BOOL": False}}]},
    ],
)
def test_bodies_read_as_botocore_reads_them(body: dict) -> None:
    raw = json.dumps(body).encode()
    assert fast_items.read_body(raw) == botocore_reading("Query", raw)


@pytest.mark.parametrize(
    "body",
    [
        b'{"Items": [{"x": {"NEWTYPE": "1"}}]}',  # a type DynamoDB may add one day
        b'{"Items": [{"x": {"S": "a", "N": "1"}}]}',  # two types in one value
        b'{"Items": [], "SomethingNew": 1}',  # a field this module does not know
        b'{"Items": [{"b": {"B": "not base64!"}}]}',
        b'{"Items": {"not": "a list"}}',
        b"[1, 2]",
        b"not json",
    ],
)
def test_what_it_does_not_know_is_left_to_botocore(body: bytes) -> None:
    customized: dict = {}
    response = {"body": body, "headers": {}, "status_code": 200}
    fast_items._before_parse(response_dict=response, customized_response_dict=customized)
    assert customized == {} and response["body"] == body


def test_only_successful_responses_are_read() -> None:
    body = b'{"Items": []}'
    for status in (400, 500):
        customized: dict = {}
        response = {"body": body, "headers": {}, "status_code": status}
        fast_items._before_parse(response_dict=response, customized_response_dict=customized)
        assert customized == {} and response["body"] == body
