"""``dynotui cursor``: decode a token, or verify it for a query, with no database call."""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from typing import Any

from dynotui.cli.number_flags import seconds
from dynotui.cli.options import HelpFormatter
from dynotui.cli.output import write_line
from dynotui.cli.page_lines import spec_from_args
from dynotui.cli.pages_cmd import add_query_options
from dynotui.core.cursor import DEFAULT_MAX_AGE, check_max_age, decode
from dynotui.core.cursor_secret import default_signer
from dynotui.core.errors import InputError
from dynotui.core.foreign import looks_signed, read_foreign
from dynotui.dynamodb.dynamo_json import to_wire
from dynotui.dynamodb.foreign import unwrap as dynamo_unwrap
from dynotui.dynamodb.source import start_key_from_json
from dynotui.postgres.foreign import unwrap as pg_unwrap


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "cursor",
        help=help_text,
        description=(
            "Tools for cursor tokens, for people who build APIs on the same contract. "
            "A token is signed, not encrypted: decode shows anyone its start key."
        ),
    )
    tools = parser.add_subparsers(dest="tool", metavar="TOOL", required=True)
    decoder = tools.add_parser(
        "decode",
        help="print what a cursor holds as JSON, without verifying it: a dynotui token's "
        "payload, or a foreign cursor (a start key as JSON, base64 or base64url of one, an "
        "AWS CLI NextToken)",
    )
    decoder.add_argument("token")
    decoder.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    decoder.set_defaults(run=run_decode)
    verifier = tools.add_parser(
        "verify",
        formatter_class=HelpFormatter,
        help="check a token against a query's scope: exit 0 if valid, 2 with the reason if not",
    )
    verifier.add_argument("token")
    add_query_options(verifier)
    verifier.add_argument(
        "--cursor-max-age",
        type=seconds,
        default=DEFAULT_MAX_AGE,
        metavar="SECONDS",
        help="tokens older than this are refused (1 to 604800)",
    )
    verifier.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    verifier.set_defaults(run=run_verify)


def _decode_foreign(text: str) -> dict[str, Any]:
    """What a foreign cursor holds, read without a table: DynamoDB's reading (a start key,
    an AWS CLI NextToken), or PostgreSQL's for a JSON list (a boundary row)."""
    found = read_foreign(text)
    reader = pg_unwrap if isinstance(found.data, list) else dynamo_unwrap
    cursor = reader(found)
    return {
        "verified": False,
        "signed": False,
        "format": cursor.producer,
        "encoding": cursor.wrapping,
        "start_key": cursor.key,
        "passed_over": cursor.skip,
        "note": f"{cursor.warning}; not checked against any table's keys here: "
        "dynotui pages --foreign-token checks it",
    }


def run_decode(args: argparse.Namespace) -> int:
    if not looks_signed(args.token):
        write_line(sys.stdout, _decode_foreign(args.token), exact=True)
        return 0
    cursor = decode(args.token)
    issued = datetime.fromtimestamp(cursor.issued_at, timezone.utc)
    print(
        json.dumps(
            {
                "verified": False,
                "version": cursor.version,
                "start_key": cursor.key,
                "issued_at": issued.isoformat(timespec="seconds"),
                "age_seconds": round(time.time() - cursor.issued_at),
                "scope_tag": cursor.scope_tag,
            },
            indent=2,
            ensure_ascii=True,
        )
    )
    return 0


def run_verify(args: argparse.Namespace) -> int:
    max_age = check_max_age(args.cursor_max_age)
    spec = spec_from_args(args)
    spec.check_options()
    if not looks_signed(args.token):
        found = _decode_foreign(args.token)  # says what it is, or that it is nothing
        raise InputError(
            f"verify checks dynotui's signed tokens; this is a foreign cursor ({found['format']}"
            f", {found['encoding']}), which has no signature: 'dynotui cursor decode' shows it, "
            "'dynotui pages --foreign-token' opens it (checked against the table's keys)"
        )
    raw = default_signer(max_age=max_age).verify(args.token, spec.scope())
    start_key = start_key_from_json(raw, None, spec.index)
    write_line(sys.stdout, {"valid": True, "start_key": to_wire(start_key)})
    return 0
