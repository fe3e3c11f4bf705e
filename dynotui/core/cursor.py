"""Signed cursor tokens: ``payload.mac``, bound to one query's scope.

The payload is base64url JSON ``{"v": version, "k": boundary, "t": issued at, "s":
scope tag, "d": a keyed digest of each part of the scope}``; the MAC is HMAC-SHA256
over a domain tag, the scope and the payload. Signing gives **integrity, not secrecy**:
anyone holding a token can read its boundary (on a DynamoDB GSI that includes the
table's key attributes). Do not put a token where the key values themselves must stay
hidden.

Tokens are untrusted input with exactly one spelling: both parts are canonical
base64url (no padding, no stray bits), and only ASCII whitespace around the token is
ignored. What the boundary may hold is the source's to check (``key_from_json``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dynotui.core import scope_parts
from dynotui.core.errors import InputError
from dynotui.core.text import duration

VERSION = 2  # 2: scopes are canonical expression trees
MAX_PAGE = 10**9  # a signed page number is at most this (a stack never gets there)
DEFAULT_MAX_AGE = 15 * 60
MAX_AGE_LIMIT = 7 * 24 * 3600  # a week: a token is a place in a result, not a credential
CLOCK_SKEW = 60  # seconds a token's issue time may lie in the future
MAX_TOKEN_LENGTH = 16384
MAX_PARTS = 32  # a scope has about ten
MAX_PART_TEXT = 64
LATEST_ISSUE_TIME = 253_402_300_799  # 9999-12-31T23:59:59Z, the last second datetime holds
_MAC_BYTES = hashlib.sha256().digest_size
_DOMAIN = b"dynotui-cursor"
_ASCII_SPACE = " \t\n\r\x0b\x0c"
_B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


class CursorError(InputError):
    """A cursor token was refused; ``reason`` is malformed, signature, scope or expired."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Cursor:
    version: int
    key: Any  # the boundary as JSON, as the source wrote it
    issued_at: int
    scope_tag: str
    page: int | None = None  # the number of the page the boundary opens (None: not said)
    # Each part of the scope's keyed digest (core/scope_parts.py); empty in older tokens.
    parts: dict[str, str] = field(default_factory=dict)

    def age(self, now: float | None = None) -> float:
        return (time.time() if now is None else now) - self.issued_at


def scope_tag(scope: str) -> str:
    """A short digest of the scope, so a token from another query is named as such."""
    return hashlib.sha256(scope.encode()).hexdigest()[:16]


def check_max_age(seconds: float) -> float:
    """A finite expiry from 1 s to a week: nan, inf, 0 and negatives would disable it."""
    if not isinstance(seconds, int | float) or not math.isfinite(seconds):
        raise InputError(f"the cursor max age must be a finite number of seconds, got {seconds}")
    if not 1 <= seconds <= MAX_AGE_LIMIT:
        raise InputError(
            f"the cursor max age must be 1 to {MAX_AGE_LIMIT:,} seconds (a week), got {seconds:g}"
        )
    return float(seconds)


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    """Canonical base64url only: the alphabet, no padding, unused low bits zero."""
    if not text or not _B64_ALPHABET.issuperset(text) or len(text) % 4 == 1:
        raise ValueError("not base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64encode(data) != text:
        raise ValueError("not canonical base64url")
    return data


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


CUT_SHORT = "copy it again: it may have been cut short"
NOT_DYNOTUI = "it was not made by dynotui, or was edited"


def _malformed(detail: str, hint: str = NOT_DYNOTUI) -> CursorError:
    # "Copy it again" only where a copy could mend it (a cut-off token), never for text
    # that is not a token at all or a token someone changed.
    return CursorError("malformed", f"the cursor token is malformed ({detail}); {hint}")


def _parts(token: Any) -> tuple[str, str]:
    if not isinstance(token, str):
        raise _malformed("not text", "a token is text")
    token = token.strip(_ASCII_SPACE)
    if not token:
        raise _malformed("it is empty", "paste the whole token")
    if len(token) > MAX_TOKEN_LENGTH:
        raise _malformed("too long", f"a token is at most {MAX_TOKEN_LENGTH:,} characters")
    payload_text, dot, mac_text = token.partition(".")
    if not dot or not payload_text or not mac_text or "." in mac_text:
        raise _malformed("expected PAYLOAD.SIGNATURE", "this is not a dynotui token (next_token)")
    return payload_text, mac_text


def decode(token: Any) -> Cursor:
    """The token's payload, **unverified**: for display only, never for paging."""
    payload_text, _ = _parts(token)
    try:
        data = json.loads(_b64decode(payload_text))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise _malformed("payload is not base64url JSON", CUT_SHORT) from None
    if not isinstance(data, dict) or set(data) - {"p", "d"} != {"v", "k", "t", "s"}:
        raise _malformed("unexpected payload fields")
    if data["v"] != VERSION or isinstance(data["v"], bool):
        raise CursorError(
            "malformed",
            f"cursor format version {data['v']!r} is not supported (this is {VERSION}); "
            "page to that point again to get a current one",
        )
    issued = data["t"]
    if (
        not isinstance(issued, int)
        or isinstance(issued, bool)
        or not 0 <= issued <= LATEST_ISSUE_TIME
    ):
        raise _malformed("bad issue time")
    tag = data["s"]
    if not isinstance(tag, str) or len(tag) != 16:
        raise _malformed("bad scope tag")
    if data["k"] is None:
        raise _malformed("no boundary")
    page = data.get("p")
    if "p" in data and (
        not isinstance(page, int) or isinstance(page, bool) or not 2 <= page <= MAX_PAGE
    ):
        raise _malformed("bad page number")
    parts = data.get("d", {})
    if not (
        isinstance(parts, dict)
        and len(parts) <= MAX_PARTS
        and all(isinstance(v, str) and len(v) <= MAX_PART_TEXT for v in parts.values())
    ):
        raise _malformed("bad scope parts")
    return Cursor(VERSION, data["k"], issued, tag, page, parts)


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
        if previous is not None and len(previous) < 16:
            raise ValueError("the previous cursor secret must be at least 16 bytes")
        self._secrets = [secret] + ([previous] if previous else [])
        self.max_age = check_max_age(max_age)
        self.clock = clock

    def sign(self, key: Any, scope: str, page: int | None = None) -> str:
        """A token for boundary ``key`` (as JSON) of the query with this scope; ``page``:
        the number of the page it opens, signed with it, so the stack it opens goes on
        with that number."""
        payload = {
            "v": VERSION,
            "k": key,
            "t": int(self.clock()),
            "s": scope_tag(scope),
            "d": scope_parts.digests(self._secrets[0], scope),
        }
        if page is not None and page > 1:
            payload["p"] = min(page, MAX_PAGE)
        text = _b64encode(
            json.dumps(payload, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()
        )
        return f"{text}.{_b64encode(_mac(self._secrets[0], scope, text))}"

    def verify(self, token: Any, scope: str) -> Any:
        """The boundary (as JSON) of a token issued for ``scope``, or a CursorError."""
        return self.verified(token, scope).key

    def verified(self, token: Any, scope: str) -> Cursor:
        """The whole cursor of a token issued for ``scope``, or a CursorError."""
        cursor = decode(token)
        payload_text, mac_text = _parts(token)
        try:
            given = _b64decode(mac_text)
        except ValueError:
            raise _malformed("signature is not base64url", CUT_SHORT) from None
        if len(given) != _MAC_BYTES:
            raise _malformed("signature has the wrong length", CUT_SHORT)
        if not any(
            hmac.compare_digest(given, _mac(secret, scope, payload_text))
            for secret in self._secrets
        ):
            if cursor.scope_tag != scope_tag(scope):
                names = scope_parts.differing(cursor.parts, scope, self._secrets)
                differ = (
                    f": it differs in its {scope_parts.words(names)};"
                    if names
                    else f" ({scope_parts.GENERAL});"
                )
                raise CursorError(
                    "scope",
                    f"this cursor belongs to another query{differ} run that query, or "
                    "start this one from page 1",
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
                f"the cursor expired: issued {duration(age)} ago, valid for "
                f"{duration(self.max_age)}; page to that point again to get a fresh one",
            )
        return cursor
