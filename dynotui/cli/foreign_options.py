"""Where ``dynotui pages`` starts: a signed token, or a foreign cursor under its own flag.

``--starting-token`` keeps its contract (seed 000): only tokens dynotui signed, verified
against the query's scope, so a script that hands tokens out never starts accepting
edited ones. A cursor someone else made goes to ``--foreign-token TEXT`` (any foreign
format) or ``--exclusive-start-key JSON`` (a start key, as the AWS CLI's flag takes it),
is checked against the table's key schema, and page 1 says it started there, unsigned.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.errors import InputError
from dynotui.core.foreign import (
    ForeignCursorError,
    ForeignReader,
    ForeignStart,
    looks_signed,
    read_foreign,
)
from dynotui.core.refusals import CursorRefusals, verify_cursor
from dynotui.core.source import Source
from dynotui.dynamodb.foreign_skip import resolve_start
from dynotui.dynamodb.source import QuerySource

FOREIGN_FLAGS = "--foreign-token TEXT, or a start key as --exclusive-start-key JSON"
PG_FOREIGN_FLAGS = "--foreign-token JSON (a boundary row)"
KEY_PRODUCERS = ("DynamoDB JSON start key", "plain JSON start key")


def add_foreign_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--exclusive-start-key",
        metavar="JSON",
        help="start after this key, as DynamoDB JSON or plain JSON (a foreign cursor: "
        "checked against the table's key schema, unsigned)",
    )
    group.add_argument(
        "--foreign-token",
        metavar="TEXT",
        help="start at a cursor dynotui did not sign: an AWS CLI NextToken, or a start key "
        "as JSON, base64 or base64url (checked against the key schema, unsigned)",
    )


@dataclass(frozen=True)
class Start:
    """Page 1's boundary, and how ``pages`` marks it when a foreign cursor set it."""

    key: Any = None
    mark: dict[str, Any] | None = None


def _foreign_start(text: str, flag: str, reader: ForeignReader | None, what: str) -> ForeignStart:
    if looks_signed(text):
        raise InputError(
            f"{flag} takes cursors dynotui did not sign; this is a dynotui token: pass it as "
            "--starting-token, where its signature is checked"
        )
    found = read_foreign(text)
    if reader is None:
        raise ForeignCursorError(f"{flag}: {what} resumes only from dynotui's signed tokens")
    cursor = reader.unwrap(found)
    if flag == "--exclusive-start-key" and (
        found.encoding != "JSON" or cursor.producer not in KEY_PRODUCERS
    ):
        raise InputError(
            f"--exclusive-start-key takes a start key as JSON; this is {_a(cursor.what)}: pass "
            "it as --foreign-token"
        )
    return reader.fit(cursor)


def _a(words: str) -> str:
    return f"{'an' if words[:1] in tuple('AEIOU') else 'a'} {words}"


def _verified(
    text: str,
    signer: Callable[[], CursorSigner],
    source: Source,
    reader: ForeignReader | None,
    flags: str,
    refusals: CursorRefusals | None = None,
) -> Any:
    try:
        return verify_cursor(signer(), text, source.scope(), source.key_from_json, refusals)
    except CursorError as exc:
        if exc.reason != "malformed" or looks_signed(text):
            raise
        try:
            found = read_foreign(text)
            what = reader.unwrap(found).what if reader else found.wrapping
        except CursorError:
            raise CursorError(
                exc.reason, f"{exc}; a cursor dynotui did not sign goes to {flags}"
            ) from None
        raise InputError(
            f"--starting-token takes the signed tokens dynotui prints (next_token); this is a "
            f"foreign cursor ({what}), which goes to {flags}"
        ) from None


def starting_point(
    args: argparse.Namespace,
    source: Source,
    signer: Callable[[], CursorSigner],
    reader: ForeignReader | None,
    *,
    what: str = "this read",
    resolve: Callable[[ForeignStart], Start] | None = None,
    flags: str = FOREIGN_FLAGS,
    refusals: CursorRefusals | None = None,
) -> Start:
    """Page 1's boundary from --starting-token, --foreign-token or --exclusive-start-key
    (at most one). ``resolve`` turns a foreign start into page 1's boundary (DynamoDB
    reads past the items an AWS CLI NextToken had shown)."""
    given = [
        (flag, value)
        for flag, value in (
            ("--starting-token", args.starting_token),
            ("--foreign-token", getattr(args, "foreign_token", None)),
            ("--exclusive-start-key", getattr(args, "exclusive_start_key", None)),
        )
        if value is not None
    ]
    if len(given) > 1:
        raise InputError(f"one start at a time: {' and '.join(f for f, _ in given)} were given")
    if not given:
        return Start()
    flag, text = given[0]
    if flag == "--starting-token":
        return Start(_verified(text, signer, source, reader, flags, refusals))
    start = _foreign_start(text, flag, reader, what)
    if resolve is not None:
        return resolve(start)
    return Start(start.start_key, _mark(start))


def _mark(start: ForeignStart) -> dict[str, Any]:
    cursor = start.cursor
    return {
        "signed": False,
        "format": cursor.producer,
        "encoding": cursor.wrapping,
        "start_key": start.key_json,
        "note": cursor.warning,
    }


def dynamo_start(source: QuerySource, start: ForeignStart) -> Start:
    """Page 1 of a Query or Scan from a foreign cursor: past what an AWS CLI NextToken
    had shown already (read now; what that cost is in the mark)."""
    resolved = resolve_start(source, start)
    return Start(resolved.start_key, resolved.as_json())


def check_pg_start(args: argparse.Namespace) -> None:
    if getattr(args, "exclusive_start_key", None) is not None:
        raise InputError(
            "--exclusive-start-key is DynamoDB's; a PostgreSQL boundary row goes to "
            "--foreign-token JSON"
        )


def pg_start(session: Any, query: Any, start: ForeignStart) -> Start:
    """Page 1 of a keyset read from a boundary row, each value as the server reads it."""
    from dynotui.postgres.foreign import server_text

    read = server_text(session, query, start)
    return Start(read.start_key, _mark(read))
