"""Foreign cursors, pure: what pasted text is, and whether its key fits an order's schema.

No server here: the formats are made by botocore's own encoder, by hand for base64url,
and checked against the demo table's definition. ``test_foreign_paging.py`` feeds the
real producers' tokens to a real DynamoDB Local.
"""

from __future__ import annotations

import base64
import json

import pytest
from botocore.paginate import TokenEncoder
from hypothesis import given, settings
from hypothesis import strategies as st

from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.foreign import (
    MAX_DEPTH,
    MAX_FOREIGN_LENGTH,
    ForeignCursorError,
    looks_signed,
    read_foreign,
)
from dynotui.core.pasted import describe_pasted, open_pasted
from dynotui.dynamodb.foreign import DynamoForeign
from dynotui.dynamodb.schema import parse_schema
from dynotui.dynamodb.source import start_key_from_json
from dynotui.dynamodb.spec import from_expressions
from dynotui.local.demo import TABLE, TABLE_DEFINITION

SCHEMA = parse_schema({**TABLE_DEFINITION, "TableStatus": "ACTIVE"})
SECRET = b"s" * 32
WIRE_KEY = {"customer": {"S": "acme"}, "order_no": {"S": "100"}}
GSI_KEY = {
    "status": {"S": "PLACED"},
    "placed_on": {"S": "2026-09-03"},
    "customer": {"S": "c007"},
    "order_no": {"S": "17"},
}
LSI_KEY = {"customer": {"S": "acme"}, "total": {"N": "123.45"}, "order_no": {"S": "9"}}


def spec(index: str | None = None, **options: object):
    if index == "by_status":
        return from_expressions(
            TABLE,
            index=index,
            key_condition="status = :s",
            values={":s": {"S": "PLACED"}},
            **options,
        )
    return from_expressions(
        TABLE, index=index, key_condition="customer = :c", values={":c": {"S": "acme"}}, **options
    )


def reader(index: str | None = None) -> DynamoForeign:
    return DynamoForeign(SCHEMA, spec(index))


def opened(text: str, index: str | None = None):
    found = read_foreign(text)
    r = reader(index)
    return r.fit(r.unwrap(found))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def b64url(data: bytes, padded: bool = False) -> str:
    text = base64.urlsafe_b64encode(data).decode()
    return text if padded else text.rstrip("=")


def test_dynamodb_json_plain_json_and_their_base64_forms_open_the_same_key() -> None:
    plain = {"customer": "acme", "order_no": "100"}
    texts = {
        "DynamoDB JSON start key": json.dumps(WIRE_KEY),
        "plain JSON start key": json.dumps(plain),
    }
    expected = start_key_from_json(WIRE_KEY, SCHEMA, None)
    for producer, text in texts.items():
        data = text.encode()
        for wrapped, wrapping in [
            (text, "JSON"),
            (b64(data), "base64 of JSON"),
            (b64(data).rstrip("="), "base64 of JSON" + (", no padding" * ("=" in b64(data)))),
            (b64url(data), None),
            (b64url(data, padded=True), None),
        ]:
            start = opened(wrapped)
            assert start.start_key == expected
            assert start.key_json == WIRE_KEY
            assert start.cursor.producer == producer
            if wrapping:
                assert start.cursor.wrapping == wrapping, wrapped
            assert "unsigned start key from a foreign cursor" in start.warning
            assert "anyone could have edited it" in start.warning


def test_base64url_is_named_when_its_alphabet_shows() -> None:
    # A key whose JSON encodes to '-' or '_' in base64url (and '+' or '/' in base64).
    key = {"customer": {"S": "acme"}, "order_no": {"S": "?>~?>~ÿÿ>>>"}}
    data = json.dumps(key).encode()
    assert "-" in b64url(data) or "_" in b64url(data)
    start = opened(b64url(data))
    assert start.cursor.wrapping.startswith("base64url of JSON")
    assert start.key_json == key


def test_botocore_tokens_are_aws_cli_next_tokens() -> None:
    """What botocore's paginator (and so the AWS CLI) prints as NextToken, made by its
    own encoder: a key, a key with a truncation, and a truncated first page."""
    encoder = TokenEncoder()
    start = opened(encoder.encode({"ExclusiveStartKey": WIRE_KEY}))
    assert start.cursor.producer == "AWS CLI NextToken" and start.cursor.skip == 0
    assert start.key_json == WIRE_KEY
    truncated = opened(encoder.encode({"ExclusiveStartKey": WIRE_KEY, "boto_truncate_amount": 3}))
    assert truncated.cursor.skip == 3 and truncated.key_json == WIRE_KEY
    first = opened(encoder.encode({"ExclusiveStartKey": None, "boto_truncate_amount": 5}))
    assert first.start_key is None and first.cursor.skip == 5
    assert "5 item(s) past the start of the result" in first.cursor.skip_words


def test_botocore_bytes_are_read_back_as_binary_key_values() -> None:
    schema = parse_schema(
        {
            "TableName": "bin",
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "B"},
            ],
        }
    )
    raw = {"pk": {"S": "p"}, "sk": {"B": b"\x00\xff\x10"}}
    token = TokenEncoder().encode({"ExclusiveStartKey": raw})
    assert "boto_encoded_keys" in base64.b64decode(token).decode()
    r = DynamoForeign(
        schema, from_expressions("bin", key_condition="pk = :p", values={":p": {"S": "p"}})
    )
    start = r.fit(r.unwrap(read_foreign(token)))
    assert start.start_key == raw
    bad = json.loads(base64.b64decode(token))
    bad["boto_encoded_keys"] = [["ExclusiveStartKey", "pk", "S"]]
    with pytest.raises(ForeignCursorError, match="not a binary key value"):
        r.unwrap(read_foreign(b64(json.dumps(bad).encode())))


def test_wrappers_of_a_request_or_response_are_read() -> None:
    for field in ("ExclusiveStartKey", "LastEvaluatedKey"):
        start = opened(json.dumps({field: WIRE_KEY}))
        assert start.key_json == WIRE_KEY and field in start.cursor.producer


def test_index_keys_must_hold_the_tables_keys_too() -> None:
    assert opened(json.dumps(GSI_KEY), "by_status").key_json == GSI_KEY
    assert opened(json.dumps(LSI_KEY), "by_total").key_json == LSI_KEY
    without_table_keys = {k: GSI_KEY[k] for k in ("status", "placed_on")}
    with pytest.raises(ForeignCursorError) as info:
        opened(json.dumps(without_table_keys), "by_status")
    message = str(info.value)
    assert "missing customer (S), order_no (S)" in message
    assert "GSI 'by_status'" in message and "its keys and the table's" in message


@pytest.mark.parametrize(
    ("key", "index", "named"),
    [
        ({**WIRE_KEY, "total": {"N": "1"}}, None, "extra total"),
        ({"customer": {"S": "acme"}}, None, "missing order_no (S)"),
        ({"customer": {"S": "acme"}, "order_no": {"N": "100"}}, None, "order_no is N"),
        ({**LSI_KEY, "total": {"S": "123.45"}}, "by_total", "total is S"),
        ({"customer": "acme", "order_no": 100}, None, "order_no is a JSON number"),
        (
            {"customer": "acme", "total": "12", "order_no": "9"},
            "by_total",
            "total is a JSON string",
        ),
        ({"customer": "acme", "total": 1e999, "order_no": "9"}, "by_total", "too large"),
        ({"customer": {"S": ""}, "order_no": {"S": "1"}}, None, "customer is an empty string"),
        ({"customer": {"S": 5}, "order_no": {"S": "1"}}, None, "customer's S value is a JSON"),
        ({"customer": True, "order_no": "1"}, None, "customer is a JSON boolean"),
        ({"customer": {"S": "other"}, "order_no": {"S": "1"}}, None, "outside this query's key"),
    ],
)
def test_a_key_that_does_not_fit_names_the_attribute(key: dict, index: str | None, named: str):
    text = json.dumps(key).replace("Infinity", "1e999")
    with pytest.raises(ForeignCursorError) as info:
        opened(text, index)
    assert named in str(info.value)
    assert "copy it again" not in str(info.value)


def test_a_start_key_outside_the_sort_condition_is_refused_before_any_call() -> None:
    ranged = from_expressions(
        TABLE,
        key_condition="customer = :c AND order_no BETWEEN :a AND :b",
        values={":c": {"S": "acme"}, ":a": {"S": "2"}, ":b": {"S": "5"}},
    )
    r = DynamoForeign(SCHEMA, ranged)
    inside = {"customer": {"S": "acme"}, "order_no": {"S": "30"}}
    assert r.fit(r.unwrap(read_foreign(json.dumps(inside)))).key_json == inside
    for outside in ("1", "6"):
        key = {"customer": {"S": "acme"}, "order_no": {"S": outside}}
        with pytest.raises(ForeignCursorError, match="its order_no is"):
            r.fit(r.unwrap(read_foreign(json.dumps(key))))


def test_a_mixed_key_and_a_list_say_what_they_are() -> None:
    with pytest.raises(ForeignCursorError, match="mixes DynamoDB JSON and plain"):
        opened(json.dumps({"customer": {"S": "acme"}, "order_no": "1"}))
    with pytest.raises(ForeignCursorError, match="PostgreSQL boundary row"):
        opened(json.dumps(["acme", "1"]))


@pytest.mark.parametrize(
    "text",
    ["garbage", "!!!", "e3", b64(b"\x00\xff binary"), b64(b"not json"), "{'single': 1}"],
)
def test_text_that_is_no_cursor_names_the_formats_tried(text: str) -> None:
    with pytest.raises(ForeignCursorError) as info:
        read_foreign(text)
    message = str(info.value)
    if "looks like JSON" not in message:
        assert "dynotui token (PAYLOAD.SIGNATURE)" in message and "AWS CLI NextToken" in message
        assert "DynamoDB JSON or plain JSON" in message and "base64url" in message
    assert "copy it again" not in message


def test_deep_or_huge_input_is_refused_without_recursion() -> None:
    for deep in ("[" * 5000 + "]" * 5000, "[" * 60_000, '{"a":' * 3000 + "1" + "}" * 3000):
        with pytest.raises(ForeignCursorError, match="nests"):
            read_foreign(deep)
    with pytest.raises(ForeignCursorError, match="nests"):
        read_foreign(b64(("[" * 2000 + "]" * 2000).encode()))
    with pytest.raises(ForeignCursorError, match="at most"):
        read_foreign("A" * (MAX_FOREIGN_LENGTH + 1))
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert read_foreign(nested).data is not None  # the cap itself is allowed
    with pytest.raises(ForeignCursorError, match="names 'a' twice"):
        read_foreign('{"a": 1, "a": 2}')
    with pytest.raises(ForeignCursorError, match="NaN"):
        read_foreign('{"a": NaN}')


def test_numbers_keep_every_digit() -> None:
    start = opened(
        json.dumps({"customer": "acme", "order_no": "9"})[:-1]
        + ', "total": 12345678901234567890123456789012345678}',
        "by_total",
    )
    assert start.key_json["total"] == {"N": "12345678901234567890123456789012345678"}


@settings(max_examples=400, deadline=None)
@given(st.text() | st.binary().map(b64) | st.binary().map(b64url))
def test_any_text_raises_only_cursor_errors(text: str) -> None:
    fits_or_is_refused_in_words(text, None)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
    ),
    st.sampled_from([None, "by_status", "by_total"]),
)
def test_any_json_raises_only_cursor_errors(data: object, index: str | None) -> None:
    text = json.dumps(data)
    for wrapped in (
        text,
        b64(text.encode()),
        b64(json.dumps({"ExclusiveStartKey": data}).encode()),
    ):
        fits_or_is_refused_in_words(wrapped, index)


def fits_or_is_refused_in_words(text: str, index: str | None) -> None:
    """Whatever was pasted either opens with exactly the order's key names or is refused
    with a CursorError that says something; any other exception fails the test."""
    try:
        start = opened(text, index)
    except CursorError as error:
        assert str(error).strip(), "a refusal must say why"
        return
    if start.key_json is not None:
        assert set(start.key_json) == set(SCHEMA.cursor_key_names(index)), start.key_json


# -- pasted: a token stays a token ---------------------------------------------------------


def paste(text: str, signer: CursorSigner, index: str | None = None):
    s = spec(index)
    return open_pasted(
        text,
        signer=lambda: signer,
        scope=s.scope(),
        key_from_json=lambda raw: start_key_from_json(raw, SCHEMA, index),
        foreign=DynamoForeign(SCHEMA, s),
    )


def test_a_signed_token_is_verified_and_an_edited_one_is_not_reinterpreted() -> None:
    signer = CursorSigner(SECRET)
    token = signer.sign(WIRE_KEY, spec().scope())
    result = paste(token, signer)
    assert result.signed and result.foreign is None
    assert result.start_key == start_key_from_json(WIRE_KEY, SCHEMA, None)
    body, mac = token.split(".")
    edited = f"{body}.{'B' if mac[0] == 'A' else 'A'}{mac[1:]}"
    assert looks_signed(edited)
    with pytest.raises(CursorError) as info:
        paste(edited, signer)
    assert info.value.reason == "signature"
    # Its payload alone is a dynotui payload, not a start key: refused.
    with pytest.raises(ForeignCursorError, match="does not fit"):
        paste(body, signer)


def test_a_pasted_foreign_cursor_opens_unsigned_with_its_words() -> None:
    result = paste(b64url(json.dumps(GSI_KEY).encode()), CursorSigner(SECRET), "by_status")
    assert not result.signed and result.foreign is not None
    assert result.start_key == start_key_from_json(GSI_KEY, SCHEMA, "by_status")
    assert "unsigned start key from a foreign cursor (DynamoDB JSON start key, base64" in (
        result.note
    )
    with pytest.raises(ForeignCursorError, match="not an object of key attributes"):
        paste("e30", CursorSigner(SECRET))  # base64 of {}


def test_describe_says_what_a_cursor_is_and_whether_it_fits() -> None:
    signer = CursorSigner(SECRET)
    s = spec()

    def describe(text: str) -> str:
        return describe_pasted(
            text, signer=lambda: signer, scope=s.scope(), foreign=DynamoForeign(SCHEMA, s)
        )

    token_words = describe(signer.sign(WIRE_KEY, s.scope()))
    assert "A dynotui token (signed)" in token_words and "verifies for the current" in token_words
    fits = describe(
        TokenEncoder().encode({"ExclusiveStartKey": WIRE_KEY, "boto_truncate_amount": 2})
    )
    assert "A foreign cursor: AWS CLI NextToken, base64 of JSON" in fits
    assert "Unsigned: anyone could have edited it" in fits
    assert "2 item(s) past its start key" in fits and "Fits this read: yes" in fits
    wrong = describe(json.dumps(GSI_KEY))
    assert "Fits this read: no" in wrong and "extra placed_on, status" in wrong
    assert describe("garbage").startswith("Not a cursor: this is not a cursor dynotui can read")


def test_copy_it_again_only_where_a_copy_can_mend_it() -> None:
    signer = CursorSigner(SECRET)
    token = signer.sign(WIRE_KEY, spec().scope())
    with pytest.raises(CursorError, match="copy it again: it may have been cut short"):
        signer.verify(token[:-5], spec().scope())  # a signature cut short
    mac = token.split(".")[1]
    edited = base64.urlsafe_b64encode(b'{"v":2,"k":{},"x":1,"t":1}').decode().rstrip("=")
    for text in (f"{edited}.{mac}", "garbage", "", "x" * 20_000):
        with pytest.raises(CursorError) as info:
            signer.verify(text, spec().scope())
        assert info.value.reason == "malformed" and "copy it again" not in str(info.value)
    with pytest.raises(CursorError) as info:
        start_key_from_json({"customer": {"S": "a"}}, SCHEMA, None)
    assert "copy it again" not in str(info.value)
