"""Signed cursor tokens and their secret: pure code, no server."""

from __future__ import annotations

import base64
import json
import math
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynotui.core import cursor
from dynotui.core.cursor import CursorError, CursorSigner, check_max_age
from dynotui.core.cursor_secret import (
    ENV_PREVIOUS,
    ENV_SECRET,
    default_signer,
    load_secrets,
    secret_file,
)
from dynotui.core.errors import InputError
from dynotui.dynamodb.schema import parse_schema
from dynotui.dynamodb.source import start_key_from_json
from dynotui.dynamodb.spec import from_expressions
from dynotui.local.demo import TABLE_DEFINITION

SECRET = b"s" * 32
OTHER = b"o" * 32
SCOPE = '{"filter":null,"forward":true,"index":"","key":["compare"],"op":"query","table":"t"}'
KEY = {"pk": {"S": "a"}, "n": {"N": "12345678901234567890.000000001"}, "b": {"B": "AP8="}}
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


class Clock:
    def __init__(self, now: float = 1_800_000_000) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_round_trip_keeps_full_precision_and_binary() -> None:
    signer = CursorSigner(SECRET)
    token = signer.sign(KEY, SCOPE)
    assert signer.verify(token, SCOPE) == KEY
    payload = cursor.decode(token)
    assert payload.key == KEY and payload.version == cursor.VERSION


def test_payload_is_readable_integrity_not_secrecy() -> None:
    token = CursorSigner(SECRET).sign(KEY, SCOPE)
    body = token.split(".")[0]
    readable = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
    assert "12345678901234567890.000000001" in readable


def _reencode(token: str, change) -> str:
    body, mac = token.split(".")
    data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    change(data)
    new = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    return f"{new}.{mac}"


def test_tampered_payload_is_a_signature_error() -> None:
    signer = CursorSigner(SECRET)
    token = signer.sign(KEY, SCOPE)
    forged = _reencode(token, lambda d: d["k"].update(pk={"S": "someone-else"}))
    with pytest.raises(CursorError) as info:
        signer.verify(forged, SCOPE)
    assert info.value.reason == "signature"


def test_tampered_mac_is_a_signature_error() -> None:
    signer = CursorSigner(SECRET)
    body, mac = signer.sign(KEY, SCOPE).split(".")
    flipped = ("A" if mac[0] != "A" else "B") + mac[1:]
    with pytest.raises(CursorError) as info:
        signer.verify(f"{body}.{flipped}", SCOPE)
    assert info.value.reason == "signature"
    with pytest.raises(CursorError) as info:
        signer.verify(f"{body}.{mac[:-4]}", SCOPE)
    assert info.value.reason == "malformed"


def test_other_scope_and_other_secret() -> None:
    token = CursorSigner(SECRET).sign(KEY, SCOPE)
    with pytest.raises(CursorError, match="another query") as info:
        CursorSigner(SECRET).verify(token, SCOPE.replace('"forward":true', '"forward":false'))
    assert info.value.reason == "scope"
    with pytest.raises(CursorError) as info:
        CursorSigner(OTHER).verify(token, SCOPE)
    assert info.value.reason == "signature"


def demo_scope(**changes: Any) -> str:
    """The scope of a Query of the demo's shape, with ``changes`` to its expressions."""
    query: dict[str, Any] = {
        "key_condition": "customer = :c",
        "filter": "status = :r",
        "values": {":c": {"S": "c001"}, ":r": {"S": "RETURNED"}},
    }
    query.update(changes)
    return from_expressions(query.pop("table", "orders"), **query).scope()


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"table": "orders2"}, "its table"),
        ({"index": "by_status"}, "its index (order)"),
        ({"key_condition": "customer > :c"}, "its key condition"),
        ({"values": {":c": {"S": "c002"}, ":r": {"S": "RETURNED"}}}, "its key condition's values"),
        ({"filter": "status <> :r"}, "its filter"),
        ({"values": {":c": {"S": "c001"}, ":r": {"S": "PLACED"}}}, "its filter's values"),
        ({"forward": False}, "its direction"),
        ({"scan": True, "key_condition": None}, "its operation (Query or Scan)"),
    ],
)
def test_a_cursor_of_another_query_names_the_part_that_differs(
    changes: dict[str, Any], named: str
) -> None:
    """Issue 40, item 8: not "table, order, key condition, filter or direction differ"."""
    token = CursorSigner(SECRET).sign(KEY, demo_scope())
    with pytest.raises(CursorError) as info:
        CursorSigner(OTHER, SECRET).verify(token, demo_scope(**changes))  # the previous secret
    assert info.value.reason == "scope"
    message = str(info.value)
    assert f"another query: it differs in {named}" in message
    assert "table, order, key condition" not in message
    # Only the parts changed: a value changed is not the expression's shape.
    if "values" in changes and "table" not in changes:
        assert f"differs in {named};" in message


def test_two_parts_are_both_named_and_a_stranger_gets_the_general_sentence() -> None:
    token = CursorSigner(SECRET).sign(KEY, demo_scope())
    other = demo_scope(table="orders2", forward=False)
    with pytest.raises(CursorError, match=r"differs in its table and direction;"):
        CursorSigner(SECRET).verify(token, other)
    # Signed elsewhere: no secret here agrees on any part, so none is named.
    stranger = CursorSigner(OTHER).sign(KEY, demo_scope())
    with pytest.raises(CursorError, match="table, order, key condition, filter or direction"):
        CursorSigner(SECRET).verify(stranger, other)


def test_the_parts_digests_are_keyed_and_bounded() -> None:
    """A digest of a filter value made with no secret would let a token's holder test
    guesses of it; and the parts of a token are checked as any field is."""
    token = CursorSigner(SECRET).sign(KEY, demo_scope())
    carried = cursor.decode(token).parts
    assert set(carried) >= {"table", "key", "key values", "filter", "filter values", "forward"}
    assert carried != cursor.decode(CursorSigner(OTHER).sign(KEY, demo_scope())).parts
    for bad in ([], {"t": 5}, {str(n): "x" for n in range(cursor.MAX_PARTS + 1)}):
        with pytest.raises(CursorError, match="bad scope parts"):
            cursor.decode(_reencode(token, lambda d, bad=bad: d.update(d=bad)))
    older = _reencode(token, lambda d: d.pop("d"))  # a token made before parts: decoded
    assert cursor.decode(older).parts == {}


def test_rotation_verifies_with_previous_and_signs_with_current() -> None:
    old_token = CursorSigner(OTHER).sign(KEY, SCOPE)
    rotated = CursorSigner(SECRET, previous=OTHER)
    assert rotated.verify(old_token, SCOPE) == KEY
    new_token = rotated.sign(KEY, SCOPE)
    assert CursorSigner(SECRET).verify(new_token, SCOPE) == KEY
    with pytest.raises(CursorError):
        CursorSigner(OTHER).verify(new_token, SCOPE)


def test_expiry_and_future_tokens() -> None:
    clock = Clock()
    signer = CursorSigner(SECRET, clock=clock, max_age=900)
    token = signer.sign(KEY, SCOPE)
    clock.now += 899
    assert signer.verify(token, SCOPE) == KEY
    clock.now += 2
    with pytest.raises(CursorError, match="issued 15 min ago, valid for 15 min") as info:
        signer.verify(token, SCOPE)
    assert info.value.reason == "expired"
    clock.now -= 10_000
    with pytest.raises(CursorError, match="future"):
        signer.verify(token, SCOPE)


def test_short_expiry_is_said_in_seconds() -> None:
    clock = Clock()
    signer = CursorSigner(SECRET, clock=clock, max_age=5)
    token = signer.sign(KEY, SCOPE)
    clock.now += 7
    with pytest.raises(CursorError, match="issued 7 s ago, valid for 5 s"):
        signer.verify(token, SCOPE)


@pytest.mark.parametrize("age", [math.nan, math.inf, -math.inf, 0, -5, 0.5, 604_801, 1e300])
def test_expiry_cannot_be_turned_off(age: float) -> None:
    with pytest.raises(InputError, match="max age"):
        check_max_age(age)
    with pytest.raises(InputError, match="max age"):
        CursorSigner(SECRET, max_age=age)


@pytest.mark.parametrize("age", [1, 900, 604_800])
def test_expiry_range_is_accepted(age: float) -> None:
    assert CursorSigner(SECRET, max_age=age).max_age == age


def _token_with(payload: dict) -> str:
    text = json.dumps(payload, separators=(",", ":"))
    body = base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()
    return f"{body}.{'A' * 43}"


@pytest.mark.parametrize("issued", ["100000000000000000000", "1e20", "1e400", "-1", "253402300800"])
def test_issue_time_beyond_any_date_is_malformed(issued: str) -> None:
    text = '{"k":{"pk":{"S":"a"}},"s":"0123456789abcdef","t":' + issued + ',"v":2}'
    body = base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()
    token = f"{body}.{'A' * 43}"
    for check in (cursor.decode, lambda t: CursorSigner(SECRET).verify(t, SCOPE)):
        with pytest.raises(CursorError) as info:
            check(token)
        assert info.value.reason == "malformed"


@pytest.mark.parametrize(
    "garbage",
    ["", " ", ".", "abc", "a.b.c", "!!!.???", "e30.AAAA", "x" * 9000, "eyJ2IjoxfQ." + "A" * 43],
)
def test_garbage_is_malformed(garbage: str) -> None:
    with pytest.raises(CursorError) as info:
        CursorSigner(SECRET).verify(garbage, SCOPE)
    assert info.value.reason == "malformed"


def test_every_other_spelling_of_a_token_is_refused() -> None:
    """Each one-character change of a valid token fails: no base64 sibling verifies."""
    signer = CursorSigner(SECRET)
    token = signer.sign(KEY, SCOPE)
    for position, original in enumerate(token):
        if original == ".":
            continue
        for replacement in ALPHABET:
            if replacement == original:
                continue
            changed = token[:position] + replacement + token[position + 1 :]
            with pytest.raises(CursorError):
                signer.verify(changed, SCOPE)


@pytest.mark.parametrize("extra", ["\u00a0", "\u2028", "\u200b", "\ufeff", "="])
def test_only_ascii_whitespace_around_a_token_is_ignored(extra: str) -> None:
    signer = CursorSigner(SECRET)
    token = signer.sign(KEY, SCOPE)
    assert signer.verify(f" \t{token}\r\n", SCOPE) == KEY
    for spelled in (token + extra, extra + token):
        with pytest.raises(CursorError) as info:
            signer.verify(spelled, SCOPE)
        assert info.value.reason == "malformed"


def test_unknown_version_is_named() -> None:
    token = _reencode(CursorSigner(SECRET).sign(KEY, SCOPE), lambda d: d.update(v=1))
    with pytest.raises(CursorError, match="version 1 is not supported"):
        cursor.decode(token)


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_any_text_raises_only_cursor_error(text: str) -> None:
    with pytest.raises(CursorError):  # and never verifies: nobody forges a MAC by chance
        CursorSigner(SECRET).verify(text, SCOPE)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
    )
)
def test_any_json_payload_raises_only_cursor_error(data: object) -> None:
    body = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    with pytest.raises(CursorError):
        CursorSigner(SECRET).verify(f"{body}.{'A' * 43}", SCOPE)


# -- what a DynamoDB boundary may hold ------------------------------------------------------

SCHEMA = parse_schema({**TABLE_DEFINITION, "TableStatus": "ACTIVE"})


@pytest.mark.parametrize(
    "key",
    [
        {"customer": {"M": {}}, "order_no": {"S": "1"}},
        {"customer": {"S": ""}, "order_no": {"S": "1"}},
        {"customer": {"S": "a"}, "order_no": {"N": "1"}},  # order_no is S
        {"customer": {"S": "a"}},  # a key attribute missing
        {"customer": {"S": "a"}, "order_no": {"S": "1"}, "extra": {"S": "x"}},
        {"customer": {"S": "a"}, "order_no": {"S": 1}},
        {},
        {f"k{i}": {"S": "v"} for i in range(5)},
        ["customer"],
    ],
)
def test_only_this_orders_key_shape_is_a_start_key(key: object) -> None:
    with pytest.raises(CursorError) as info:
        start_key_from_json(key, SCHEMA, None)
    assert info.value.reason == "malformed"


def test_start_key_from_json_types_the_values() -> None:
    key = start_key_from_json(
        {
            "status": {"S": "X"},
            "placed_on": {"S": "d"},
            "customer": {"S": "a"},
            "order_no": {"S": "1"},
        },
        SCHEMA,
        "by_status",
    )
    assert key["status"] == {"S": "X"}
    with pytest.raises(CursorError, match="not a number"):
        start_key_from_json({"pk": {"N": "NaN"}}, None, None)
    assert start_key_from_json({"b": {"B": "AP8="}}, None, None) == {"b": {"B": b"\x00\xff"}}


# -- the secret --------------------------------------------------------------------------------


def test_secret_from_env_and_rotation_env(tmp_path: Path) -> None:
    env = {ENV_SECRET: "x" * 20, ENV_PREVIOUS: "y" * 20}
    assert load_secrets(env, tmp_path) == (b"x" * 20, b"y" * 20)
    with pytest.raises(InputError, match=f"{ENV_SECRET} must be at least 16"):
        load_secrets({ENV_SECRET: "short"}, tmp_path)
    with pytest.raises(InputError, match=f"{ENV_PREVIOUS} must be at least 16"):
        load_secrets({ENV_SECRET: "x" * 20, ENV_PREVIOUS: "short"}, tmp_path)


def test_secret_file_is_made_once_with_0600(tmp_path: Path) -> None:
    first, _ = load_secrets({}, tmp_path)
    second, _ = load_secrets({}, tmp_path)
    assert first == second and len(first) == 64
    mode = stat.S_IMODE(os.stat(secret_file(tmp_path)).st_mode)
    assert mode == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["cursor-secret"], "no temporary file left"


def test_racing_first_runs_agree_on_one_secret(tmp_path: Path) -> None:
    failures: list[BaseException] = []
    seen: list[bytes] = []
    for round_ in range(40):
        folder = tmp_path / str(round_)
        barrier = threading.Barrier(8)

        def first_run(folder: Path = folder, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                seen.append(load_secrets({}, folder)[0])
            except BaseException as exc:
                failures.append(exc)

        threads = [threading.Thread(target=first_run) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(set(seen[-8:])) == 1, "every racing run reads the winner's secret"
    assert failures == [] and len(seen) == 320


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"short\n", "fewer than 16"),
        (b"\x00\xff\xfe binary" * 4, "binary data"),
        (b"has\x01a control char in it", "fewer than 16 printable"),
    ],
)
def test_a_bad_secret_file_says_what_is_wrong(tmp_path: Path, content: bytes, message: str) -> None:
    path = secret_file(tmp_path)
    path.write_bytes(content)
    path.chmod(0o600)
    with pytest.raises(InputError, match=message) as info:
        load_secrets({}, tmp_path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_a_secret_file_others_can_read_is_refused(tmp_path: Path) -> None:
    load_secrets({}, tmp_path)
    path = secret_file(tmp_path)
    path.chmod(0o644)
    with pytest.raises(InputError, match=r"mode 0644.*chmod 600"):
        load_secrets({}, tmp_path)


def test_a_directory_or_unreadable_secret_file(tmp_path: Path, monkeypatch) -> None:
    secret_file(tmp_path).mkdir(parents=True)
    with pytest.raises(InputError, match="is a directory"):
        load_secrets({}, tmp_path)
    other = tmp_path / "other"
    load_secrets({}, other)

    opened = os.open

    def denied(path: Any, flags: int, *args: Any) -> int:
        if Path(path) == secret_file(other):  # root reads whatever its mode: refused here
            raise PermissionError(13, "Permission denied")
        return opened(path, flags, *args)

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(InputError, match="cannot be read"):
        load_secrets({}, other)


def test_the_environment_wins_over_a_broken_file(tmp_path: Path) -> None:
    secret_file(tmp_path).mkdir(parents=True)
    assert load_secrets({ENV_SECRET: "z" * 16}, tmp_path)[0] == b"z" * 16
    signer = default_signer(env={ENV_SECRET: "z" * 16}, config_dir=tmp_path)
    assert signer.verify(signer.sign(KEY, SCOPE), SCOPE) == KEY
