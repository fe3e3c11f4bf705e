"""Cursors dynotui did not sign: what pasted text is, before any database reads it.

A developer holds a cursor from their own API, a log line or an AWS CLI run. Its text is
one of: dynotui's own signed token (``PAYLOAD.SIGNATURE``, checked by ``cursor.py`` as
always), or a foreign cursor: JSON, or base64 / base64url of JSON, with or without
padding. This module peels those layers off and parses the JSON strictly (numbers kept
as their exact text, no duplicate names, no NaN, a size and a nesting cap). What the JSON
means (a DynamoDB start key, an AWS CLI NextToken, a PostgreSQL boundary row) is each
database's to say, against the schema of what is being read: see ``ForeignStart``.

A foreign cursor carries no signature: anyone could have edited it. It is shown as what
it is, checked against the key schema, and never passed where a signed token is wanted.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any, Protocol

from dynotui.core.cursor import CursorError
from dynotui.core.exact_json import Number
from dynotui.core.json_input import LONE_SURROGATE, holds_lone_surrogate

MAX_FOREIGN_LENGTH = 65_536  # characters: a GSI key of four attributes fits many times over
MAX_DEPTH = 8  # a start key nests three levels; a NextToken four
_ASCII_SPACE = " \t\n\r\x0b\x0c"
_SIGNED = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")

FORMATS_TRIED = (
    "a dynotui token (PAYLOAD.SIGNATURE), a start key as DynamoDB JSON or plain JSON, "
    "base64 or base64url of one (with or without padding), or an AWS CLI NextToken"
)


class ForeignCursorError(CursorError):
    """Pasted text that is no cursor, or a foreign cursor that does not fit this read."""

    def __init__(self, message: str, reason: str = "foreign") -> None:
        super().__init__(reason, message)


@dataclass(frozen=True)
class ForeignText:
    """The JSON a foreign cursor holds, and how it was wrapped."""

    data: Any  # objects as dicts, numbers as ``Number`` (their exact text)
    encoding: str  # "JSON", "base64" or "base64url"
    padded: bool = True  # base64 only: whether the '=' padding was there

    @property
    def wrapping(self) -> str:
        """``JSON``, ``base64 of JSON``, ``base64url of JSON, no padding``."""
        if self.encoding == "JSON":
            return "JSON"
        return f"{self.encoding} of JSON" + ("" if self.padded else ", no padding")


@dataclass(frozen=True)
class ForeignCursor:
    """What a foreign cursor says, read without any schema (for ``decode`` and ``i``)."""

    producer: str  # "AWS CLI NextToken", "DynamoDB JSON start key", ...
    wrapping: str  # ForeignText.wrapping
    key: Any  # the start key as JSON, as found (None: the start of the result)
    skip: int = 0  # items past ``key`` where the cursor points (the AWS CLI's truncation)
    notes: tuple[str, ...] = ()

    @property
    def what(self) -> str:
        return f"{self.producer}, {self.wrapping}" if self.wrapping != "JSON" else self.producer

    @property
    def warning(self) -> str:
        """The words to show wherever the cursor is used: what it is, and that it is unsigned."""
        return (
            f"unsigned start key from a foreign cursor ({self.what}): anyone could have edited it"
        )

    @property
    def skip_words(self) -> str:
        if not self.skip:
            return ""
        where = "its start key" if self.key is not None else "the start of the result"
        return (
            f"it points {self.skip:,} item(s) past {where} (the AWS CLI stopped part way into "
            "a page): those are read and passed over before page 1"
        )


@dataclass(frozen=True)
class ForeignStart:
    """A foreign cursor that fits the current read: where its page 1 starts.

    ``start_key`` is the boundary in the source's own shape (what ``key_from_json``
    returns; None is the start of the result), ``key_json`` the same as the source's
    JSON (``key_to_json``). ``cursor.skip`` items of the result still lie between that
    boundary and the cursor's position; the database module reads past them.
    """

    cursor: ForeignCursor
    start_key: Any
    key_json: Any

    @property
    def warning(self) -> str:
        return self.cursor.warning


class ForeignReader(Protocol):
    """A database's reading of foreign cursors, bound to the current read's schema."""

    def unwrap(self, found: ForeignText) -> ForeignCursor:
        """What the JSON says, schema-free; ForeignCursorError if it is no cursor at all."""

    def fit(self, cursor: ForeignCursor) -> ForeignStart:
        """The cursor checked against the current read's keys (names, count, types);
        ForeignCursorError naming what is missing, extra or mistyped."""


def looks_signed(text: str) -> bool:
    """Whether ``text`` has the shape of a dynotui token: two base64url parts and a dot.

    Such text is always verified as a token, never read as a foreign cursor: an edited
    token must stay refused, not be reinterpreted as an unsigned key."""
    return _SIGNED.fullmatch(text.strip(_ASCII_SPACE)) is not None


def _depth(text: str) -> int:
    """How deep ``[`` and ``{`` nest outside strings: checked before ``json`` recurses."""
    deepest = depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, value in pairs:
        if name in result:
            raise ForeignCursorError(f"the cursor's JSON names {name!r} twice")
        result[name] = value
    return result


def _constant(name: str) -> Any:
    raise ForeignCursorError(f"the cursor's JSON holds {name}, which is not a JSON number")


def parse_json(text: str) -> Any:
    """Strict JSON: exact numbers, no duplicate names, no NaN, nesting capped."""
    depth = _depth(text)
    if depth > MAX_DEPTH:
        raise ForeignCursorError(
            f"the cursor's JSON nests {depth} levels deep; a start key nests at most {MAX_DEPTH}"
        )
    try:
        data = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_int=Number,
            parse_float=Number,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as exc:
        raise ForeignCursorError(
            f"the cursor looks like JSON but is not: {exc.msg} at character {exc.pos + 1}"
        ) from None
    if holds_lone_surrogate(data):
        raise ForeignCursorError(f"the cursor's JSON is refused: {LONE_SURROGATE}")
    return data


def _unbase64(text: str) -> tuple[bytes, str, bool] | None:
    """The bytes of canonical base64 or base64url text (padding optional), or None."""
    compact = "".join(text.split())  # line-wrapped base64 (as `base64` prints it) is fine
    for name, pattern, alphabet in (
        ("base64", _BASE64, None),
        ("base64url", _BASE64URL, b"-_"),
    ):
        if not pattern.fullmatch(compact):
            continue
        padded = compact.endswith("=")
        bare = compact.rstrip("=")
        if len(bare) % 4 == 1 or (padded and len(compact) % 4):
            continue
        try:
            data = base64.b64decode(bare + "=" * (-len(bare) % 4), altchars=alphabet, validate=True)
        except (binascii.Error, ValueError):
            continue
        again = base64.b64encode(data, altchars=alphabet).decode("ascii")
        if again.rstrip("=") != bare:  # stray low bits: another spelling of other bytes
            continue
        # Text of the shared alphabet reads the same either way: call it plain base64.
        kind = "base64url" if name == "base64url" and re.search("[-_]", compact) else "base64"
        return data, kind, padded or not again.endswith("=")
    return None


def not_a_cursor(extra: str = "") -> ForeignCursorError:
    return ForeignCursorError(
        f"this is not a cursor dynotui can read{extra}: it is none of {FORMATS_TRIED}",
        reason="malformed",
    )


def read_foreign(text: Any) -> ForeignText:
    """The JSON inside a foreign cursor, or a ForeignCursorError naming the formats tried.

    Text shaped like a dynotui token is refused here: verify it with ``CursorSigner``."""
    if not isinstance(text, str):
        raise not_a_cursor(" (it is not text)")
    stripped = text.strip(_ASCII_SPACE)
    if not stripped:
        raise ForeignCursorError("the cursor is empty: paste the whole cursor", reason="malformed")
    if len(stripped) > MAX_FOREIGN_LENGTH:
        raise ForeignCursorError(
            f"the cursor is {len(stripped):,} characters long; a cursor is at most "
            f"{MAX_FOREIGN_LENGTH:,}",
            reason="malformed",
        )
    if stripped[0] in "{[":
        return ForeignText(parse_json(stripped), "JSON")
    if looks_signed(stripped):
        raise ForeignCursorError(
            "this is a dynotui token (PAYLOAD.SIGNATURE): verify it as one", reason="signed"
        )
    decoded = _unbase64(stripped)
    if decoded is None:
        raise not_a_cursor()
    data, kind, padded = decoded
    try:
        inner = data.decode("utf-8").strip(_ASCII_SPACE)
    except UnicodeDecodeError:
        raise not_a_cursor() from None
    if not inner or inner[0] not in "{[":
        raise not_a_cursor()
    return ForeignText(parse_json(inner), kind, padded)
