"""Signed cursor tokens: pure code, no server."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynotui.core import cursor
from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.cursor_secret import ENV_PREVIOUS, ENV_SECRET, load_secrets, secret_file
from dynotui.core.errors import InputError

SECRET = b"s" * 32
OTHER = b"o" * 32
SCOPE = (
    '{"filter":"","forward":true,"index":"","key":"pk = {\\"S\\":\\"a\\"}",'
    '"op":"query","table":"t"}'
)
KEY = {"pk": {"S": "a"}, "n": {"N": "12345678901234567890.000000001"}, "b": {"B": b"\x00\xff"}}


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
    assert payload.start_key == KEY and payload.version == cursor.VERSION


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
    with pytest.raises(CursorError, match="expired") as info:
        signer.verify(token, SCOPE)
    assert info.value.reason == "expired"
    clock.now -= 10_000
    with pytest.raises(CursorError, match="future"):
        signer.verify(token, SCOPE)


@pytest.mark.parametrize(
    "garbage",
    ["", ".", "abc", "a.b.c", "!!!.???", "e30.AAAA", "x" * 9000, "eyJ2IjoxfQ." + "A" * 43],
)
def test_garbage_is_malformed(garbage: str) -> None:
    with pytest.raises(CursorError) as info:
        CursorSigner(SECRET).verify(garbage, SCOPE)
    assert info.value.reason == "malformed"


@pytest.mark.parametrize(
    "key",
    [
        {"pk": {"M": {}}},
        {"pk": {"S": ""}},
        {"pk": {"N": "NaN"}},
        {"pk": {"N": "twelve"}},
        {"pk": {"B": "not base64!"}},
        {"pk": {"SS": ["a"]}},
        {},
        {f"k{i}": {"S": "v"} for i in range(5)},
    ],
)
def test_only_key_shapes_decode(key: dict) -> None:
    payload = {"v": 1, "k": key, "t": 1, "s": "0" * 16}
    body = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    with pytest.raises(CursorError) as info:
        cursor.decode(f"{body}.{'A' * 43}")
    assert info.value.reason == "malformed"


def test_unknown_version_is_named() -> None:
    token = _reencode(CursorSigner(SECRET).sign(KEY, SCOPE), lambda d: d.update(v=2))
    with pytest.raises(CursorError, match="version 2 is not supported"):
        cursor.decode(token)


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_any_text_raises_only_cursor_error(text: str) -> None:
    with contextlib.suppress(CursorError):
        CursorSigner(SECRET).verify(text, SCOPE)


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
    )
)
def test_any_json_payload_raises_only_cursor_error(data: object) -> None:
    body = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    with contextlib.suppress(CursorError):
        CursorSigner(SECRET).verify(f"{body}.{'A' * 43}", SCOPE)


def test_secret_from_env_and_rotation_env(tmp_path: Path) -> None:
    env = {ENV_SECRET: "x" * 20, ENV_PREVIOUS: "y" * 20}
    assert load_secrets(env, tmp_path) == (b"x" * 20, b"y" * 20)
    with pytest.raises(InputError, match="at least 16"):
        load_secrets({ENV_SECRET: "short"}, tmp_path)


def test_secret_file_is_made_once_with_0600(tmp_path: Path) -> None:
    first, _ = load_secrets({}, tmp_path)
    second, _ = load_secrets({}, tmp_path)
    assert first == second and len(first) == 64
    mode = stat.S_IMODE(os.stat(secret_file(tmp_path)).st_mode)
    assert mode == 0o600
