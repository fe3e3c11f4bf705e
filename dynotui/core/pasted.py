"""A cursor pasted by a person: a dynotui token, verified, or a foreign cursor, checked.

``open_pasted`` is what "paste a cursor" (``v``) calls, ``describe_pasted`` what
"inspect a cursor" (``i``) shows. A token's contract is untouched: text shaped like
``PAYLOAD.SIGNATURE`` is verified against the query's scope and nothing else, so an
edited token is refused rather than read as an unsigned key.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from dynotui.core.cursor import CursorError, CursorSigner, decode
from dynotui.core.errors import InputError
from dynotui.core.exact_json import dumps as exact_dumps
from dynotui.core.foreign import (
    ForeignCursorError,
    ForeignReader,
    ForeignStart,
    looks_signed,
    read_foreign,
)
from dynotui.core.text import duration

READABLE = (
    "A cursor is signed, not encrypted: anyone holding it can read its start key "
    "(on a GSI, the table's key attributes too)."
)
NO_FOREIGN = "this read resumes only from dynotui's signed tokens"


@dataclass(frozen=True)
class PastedCursor:
    """Where a pasted cursor opens: its boundary, and whether a signature vouches for it."""

    start_key: Any  # the source's boundary (None: the start of the result)
    signed: bool
    foreign: ForeignStart | None = None  # set when unsigned
    page: int | None = None  # the page a signed token says it opens (None: not said)

    @property
    def note(self) -> str:
        """The line to show when the new stack opens."""
        if self.foreign is None:
            if self.page is not None:
                return (
                    f"A new cursor stack from page {self.page:,}: the cursor's page (signed "
                    "token, verified)."
                )
            return "A new cursor stack: page 1 is the cursor's page (signed token, verified)."
        words = f"A new cursor stack from an {self.foreign.warning}."
        if self.foreign.cursor.skip:
            words += f" The cursor {self.foreign.cursor.skip_words}."
        return words


def open_pasted(
    text: str,
    *,
    signer: Callable[[], CursorSigner],
    scope: str,
    key_from_json: Callable[[Any], Any],
    foreign: ForeignReader | None,
) -> PastedCursor:
    """The boundary a pasted cursor opens, or a CursorError saying why not.

    ``foreign`` is the database's reader bound to the current read (None: this read
    takes signed tokens only). A CursorError's ``reason`` is malformed, signature, scope
    or expired for a token, foreign for a foreign cursor that does not fit this read.
    An ``InputError`` that is not a CursorError means the secret itself is unusable."""
    if not isinstance(text, str) or looks_signed(text):
        cursor = signer().verified(text, scope)
        return PastedCursor(key_from_json(cursor.key), signed=True, page=cursor.page)
    found = read_foreign(text)
    if foreign is None:
        raise ForeignCursorError(f"this is a foreign cursor ({found.wrapping}): {NO_FOREIGN}")
    start = foreign.fit(foreign.unwrap(found))
    return PastedCursor(start.start_key, signed=False, foreign=start)


def _json(value: Any) -> str:
    return exact_dumps(value, indent=2)  # a plain JSON key's numbers keep their digits


def _describe_token(
    token: str, signer: Callable[[], CursorSigner], scope: str, now: float
) -> list[str]:
    cursor = decode(token)
    issued = datetime.fromtimestamp(cursor.issued_at, timezone.utc).isoformat(timespec="seconds")
    try:
        current = signer()
        current.verify(token, scope)
        verdict = "verifies for the current query"
        valid_for = duration(current.max_age)
    except CursorError as exc:
        verdict = f"does NOT verify for the current query ({exc.reason}): {exc}"
        valid_for = "?"
    except InputError as exc:
        verdict = f"cannot be checked: {exc}"
        valid_for = "?"
    age = now - cursor.issued_at
    when = f"{duration(age)} ago" if age >= 0 else f"{duration(age)} in the future"
    return [
        "A dynotui token (signed)",
        f"Format version: {cursor.version}",
        f"Issued: {issued} ({when}; valid for {valid_for})",
        f"Scope tag: {cursor.scope_tag}",
        f"Page: {cursor.page or 1:,}",
        "Start key:",
        _json(cursor.key),
        "",
        f"Signature: {verdict}",
        "",
        READABLE,
    ]


def _describe_foreign(text: str, foreign: ForeignReader | None) -> list[str]:
    found = read_foreign(text)
    if foreign is None:
        return [
            f"A foreign cursor ({found.wrapping}): {NO_FOREIGN}.",
            "Content:",
            _json(found.data),
        ]
    cursor = foreign.unwrap(found)
    lines = [
        f"A foreign cursor: {cursor.what}",
        "Unsigned: anyone could have edited it; it is checked against this read's keys.",
        "Start key:" if cursor.key is not None else "Start key: none (the start of the result)",
    ]
    if cursor.key is not None:
        lines.append(_json(cursor.key))
    if cursor.skip:
        lines.append(f"Position: {cursor.skip_words}.")
    lines += list(cursor.notes)
    try:
        foreign.fit(cursor)
        lines += ["", "Fits this read: yes (v opens it as a new stack)"]
    except CursorError as exc:
        lines += ["", f"Fits this read: no: {exc}"]
    return lines


def describe_pasted(
    text: str,
    *,
    signer: Callable[[], CursorSigner],
    scope: str,
    foreign: ForeignReader | None,
    now: float | None = None,
) -> str:
    """What a pasted cursor holds and whether it opens a page of the current read: plain
    text lines (show them as text, never as markup: the key values are anyone's)."""
    moment = time.time() if now is None else now
    try:
        if not isinstance(text, str) or looks_signed(text):
            return "\n".join(_describe_token(text, signer, scope, moment))
        return "\n".join(_describe_foreign(text, foreign))
    except CursorError as exc:
        return f"Not a cursor: {exc}"
