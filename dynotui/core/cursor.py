"""Signed cursor tokens: ``payload.mac``, bound to one query's scope.

The payload is base64url JSON ``{"v": 1, "k": start key, "t": issued at, "s": scope
tag}``; the MAC is HMAC-SHA256 over a domain tag, the scope and the payload. Signing
gives **integrity, not secrecy**: anyone holding a token can read its start key
(which on a GSI includes the table's key attributes). Do not put a token where the
key values themselves must stay hidden.

Tokens are untrusted input. Decoding accepts only what DynamoDB accepts as a start
key (a few S, N or B attributes); anything else is a ``CursorError``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from dynotui.core.dynamo_json import Item, to_wire
from dynotui.core.errors import InputError

VERSION = 1
DEFAULT_MAX_AGE = 15 * 60
CLOCK_SKEW = 60  # seconds a token's issue time may lie in the future
MAX_TOKEN_LENGTH = 8192
MAX_KEY_ATTRIBUTES = 4  # table partition + sort key, index partition + sort key
_MAC_BYTES = hashlib.sha256().digest_size
_DOMAIN = b"dynotui-cursor"


class CursorError(InputError):
    """A cursor token was refused; ``reason`` is malformed, signature, scope or expired."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Cursor:
    version: int
    start_key: Item  # low-level shape: B values are bytes
    issued_at: int
    scope_tag: str

    def age(self, now: float | None = None) -> float:
        return (time.time() if now is None else now) - self.issued_at


def scope_tag(scope: str) -> str:
    """A short digest of the scope, so a token from another query is named as such."""
    return hashlib.sha256(scope.encode()).hexdigest()[:16]


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    if not text or any(c not in _B64_ALPHABET for c in text) or len(text) % 4 == 1:
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


_B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def _mac(secret: bytes, scope: str, payload: str) -> bytes:
    scope_bytes = scope.encode()
    message = b"\n".join(
        [
            _DOMAIN,
            str(VERSION).encode(),
            str(len(scope_bytes)).encode(),
            scope_bytes,
            payload.encode("ascii"),
        ]
    )
    return hmac.new(secret, message, hashlib.sha256).digest()


def _malformed(detail: str) -> CursorError:
    return CursorError("malformed", f"the cursor token is malformed ({detail}); copy it again")


def _key_from_payload(raw: Any) -> Item:
    if not isinstance(raw, dict) or not 1 <= len(raw) <= MAX_KEY_ATTRIBUTES:
        raise _malformed("start key must be an object of 1 to 4 attributes")
    key: Item = {}
    for name, value in raw.items():
        if not isinstance(name, str) or not name or len(name) > 255:
            raise _malformed("bad attribute name")
        if not isinstance(value, dict) or len(value) != 1:
            raise _malformed(f"attribute {name!r} is not one typed value")
        ((kind, inner),) = value.items()
        if not isinstance(inner, str):
            raise _malformed(f"attribute {name!r} is not a string-encoded value")
        if kind == "S":
            if not inner:
                raise _malformed(f"attribute {name!r} is an empty string")
            key[name] = {"S": inner}
        elif kind == "N":
            try:
                if not Decimal(inner).is_finite():
                    raise InvalidOperation
            except (InvalidOperation, ValueError):
                raise _malformed(f"attribute {name!r} is not a number") from None
            key[name] = {"N": inner}
        elif kind == "B":
            try:
                key[name] = {"B": base64.b64decode(inner, validate=True)}
            except (binascii.Error, ValueError):
                raise _malformed(f"attribute {name!r} is not base64") from None
        else:
            raise _malformed(f"attribute {name!r} has type {kind!r}; keys are S, N or B")
    return key


def decode(token: Any) -> Cursor:
    """The token's payload, **unverified**: for display only, never for paging."""
    if not isinstance(token, str):
        raise _malformed("not text")
    token = token.strip()
    if len(token) > MAX_TOKEN_LENGTH:
        raise _malformed("too long")
    payload_text, dot, mac_text = token.partition(".")
    if not dot or not payload_text or not mac_text or "." in mac_text:
        raise _malformed("expected PAYLOAD.SIGNATURE")
    try:
        data = json.loads(_b64decode(payload_text))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise _malformed("payload is not base64url JSON") from None
    if not isinstance(data, dict) or set(data) != {"v", "k", "t", "s"}:
        raise _malformed("unexpected payload fields")
    if data["v"] != VERSION or isinstance(data["v"], bool):
        raise CursorError(
            "malformed", f"cursor format version {data['v']!r} is not supported (this is {VERSION})"
        )
    issued = data["t"]
    if not isinstance(issued, int) or isinstance(issued, bool) or issued < 0:
        raise _malformed("bad issue time")
    tag = data["s"]
    if not isinstance(tag, str) or len(tag) != 16:
        raise _malformed("bad scope tag")
    return Cursor(VERSION, _key_from_payload(data["k"]), issued, tag)


class CursorSigner:
    """Signs with the current secret; verifies with the current and the previous one."""

    def __init__(
        self,
        secret: bytes,
        previous: bytes | None = None,
        *,
        max_age: float = DEFAULT_MAX_AGE,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if len(secret) < 16:
            raise ValueError("cursor secret must be at least 16 bytes")
        self._secrets = [secret] + ([previous] if previous else [])
        self.max_age = max_age
        self.clock = clock

    def sign(self, start_key: Item, scope: str) -> str:
        payload = {
            "v": VERSION,
            "k": to_wire(start_key),
            "t": int(self.clock()),
            "s": scope_tag(scope),
        }
        text = _b64encode(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
        return f"{text}.{_b64encode(_mac(self._secrets[0], scope, text))}"

    def verify(self, token: Any, scope: str) -> Item:
        """The start key of a token issued for ``scope``, or a CursorError saying why not."""
        cursor = decode(token)
        payload_text, _, mac_text = token.strip().partition(".")
        try:
            given = _b64decode(mac_text)
        except ValueError:
            raise _malformed("signature is not base64url") from None
        if len(given) != _MAC_BYTES:
            raise _malformed("signature has the wrong length")
        if not any(
            hmac.compare_digest(given, _mac(secret, scope, payload_text))
            for secret in self._secrets
        ):
            if cursor.scope_tag != scope_tag(scope):
                raise CursorError(
                    "scope",
                    "this cursor belongs to another query (table, index, key condition, filter "
                    "or direction differ); run that query, or start this one from page 1",
                )
            raise CursorError(
                "signature",
                "the cursor's signature does not verify: it was altered, or signed with a "
                "secret this machine does not have",
            )
        age = self.clock() - cursor.issued_at
        if age < -CLOCK_SKEW:
            raise CursorError("expired", "the cursor's issue time lies in the future; check clocks")
        if age > self.max_age:
            raise CursorError(
                "expired",
                f"the cursor expired: issued {age / 60:.0f} min ago, valid for "
                f"{self.max_age / 60:.0f} min; page to that point again to get a fresh one",
            )
        return cursor.start_key
