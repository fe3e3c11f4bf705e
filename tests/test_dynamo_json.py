"""DynamoDB JSON: refused, not coerced; plain JSON with every digit. Pure code."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from dynotui.core.errors import InputError
from dynotui.core.exact_json import dumps
from dynotui.dynamodb.dynamo_json import from_wire, number_problem, plain_item, to_wire


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"SS": "abc"}, "non-empty JSON list"),
        ({"SS": []}, "non-empty JSON list"),
        ({"SS": ["a", "a"]}, "holds each value once"),
        ({"SS": ["a", 1]}, "strings only"),
        ({"NS": ["1", "1.0"]}, "holds each value once"),
        ({"NS": ["1", "x"]}, "not a valid number"),
        ({"BS": ["AA==", "AA=="]}, "holds each value once"),
        ({"BS": ["!!"]}, "not valid base64"),
        ({"NULL": False}, "NULL takes only true"),
        ({"NULL": "true"}, "NULL takes only true"),
        ({"BOOL": "true"}, "BOOL takes true or false"),
        ({"BOOL": 1}, "BOOL takes true or false"),
        ({"B": "not base64!"}, "not valid base64"),
        ({"B": 12}, "base64 strings"),
        ({"S": 5}, "JSON strings"),
        ({"N": 5}, "not a valid N"),
        ({"N": " 5"}, "not a number"),
        ({"N": "1_000"}, "not a number"),
        ({"N": "NaN"}, "not a number"),
        ({"N": "Infinity"}, "not a number"),
        ({"N": "1E126"}, "too large"),
        ({"N": "1E-131"}, "too small"),
        ({"N": "1" * 39}, "more than 38 significant digits"),
        ({"M": []}, "M takes a JSON object"),
        ({"L": {}}, "L takes a JSON list"),
        ({"X": "1"}, "unknown DynamoDB type"),
        ({"S": "a", "N": "1"}, "one typed value"),
    ],
)
def test_bad_dynamodb_json_is_refused(value: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        from_wire({":v": value}, "values")


@pytest.mark.parametrize(
    "text",
    [
        "+5",
        ".5",
        "5.",
        "1e5",
        "007",
        "-0",
        "1E-130",
        "9.9999999999999999999999999999999999999E+125",
        "1" * 38,
        "0.000",
    ],
)
def test_numbers_dynamodb_accepts(text: str) -> None:
    assert number_problem(text) is None
    assert from_wire({":n": {"N": text}})[":n"] == {"N": text}


def test_good_values_round_trip() -> None:
    wire = {
        "s": {"S": ""},
        "n": {"N": "-12.5"},
        "b": {"B": "AP8="},
        "t": {"BOOL": False},
        "z": {"NULL": True},
        "ss": {"SS": ["b", "a"]},
        "ns": {"NS": ["1", "2.5"]},
        "bs": {"BS": ["AA==", "AQ=="]},
        "m": {"M": {"x": {"L": [{"N": "1"}, {"S": "y"}]}}},
    }
    low = from_wire(wire)
    assert low["b"] == {"B": b"\x00\xff"}
    assert to_wire(low) == wire


def test_plain_json_writes_every_number_as_a_number_with_its_digits() -> None:
    item = {
        "big": {"N": "123456789012345678901234567890.123456789"},
        "small": {"N": "1.5"},
        "int": {"N": "12345678901234567890123"},
        "set": {"NS": ["10", "9", "1e2"]},
        "nested": {"M": {"l": {"L": [{"N": "0.1"}]}}},
    }
    text = dumps(plain_item(item))
    assert '"big": 123456789012345678901234567890.123456789' in text
    assert '"int": 12345678901234567890123' in text
    assert '"set": [9, 10, 1e2]' in text
    parsed = json.loads(text, parse_float=Decimal, parse_int=Decimal)
    assert parsed["big"] == Decimal("123456789012345678901234567890.123456789")
    assert parsed["small"] == Decimal("1.5") and parsed["nested"]["l"] == [Decimal("0.1")]
