"""``dynotui cursor``: decode a token, or verify it for a query, with no AWS call."""

from __future__ import annotations

import argparse
import json
import time
from datetime import datetime, timezone
from typing import Any

from dynotui.cli.pages_cmd import add_query_options, spec_from_args
from dynotui.core.cursor import DEFAULT_MAX_AGE, decode
from dynotui.core.cursor_secret import default_signer
from dynotui.core.dynamo_json import to_wire


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "cursor",
        help="decode a cursor token, or verify one for a query (no AWS call)",
        description=(
            "Tools for cursor tokens, for people who build APIs on the same contract. "
            "A token is signed, not encrypted: decode shows anyone its start key."
        ),
    )
    tools = parser.add_subparsers(dest="tool", metavar="TOOL", required=True)
    decoder = tools.add_parser("decode", help="print the payload as JSON, without verifying it")
    decoder.add_argument("token")
    decoder.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    decoder.set_defaults(run=run_decode)
    verifier = tools.add_parser(
        "verify",
        help="check a token against a query's scope: exit 0 if valid, 2 with the reason if not",
    )
    verifier.add_argument("token")
    add_query_options(verifier)
    verifier.add_argument(
        "--cursor-max-age",
        type=float,
        default=DEFAULT_MAX_AGE,
        metavar="SECONDS",
        help="default 900",
    )
    verifier.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    verifier.set_defaults(run=run_verify)


def run_decode(args: argparse.Namespace) -> int:
    cursor = decode(args.token)
    issued = datetime.fromtimestamp(cursor.issued_at, timezone.utc)
    print(
        json.dumps(
            {
                "verified": False,
                "version": cursor.version,
                "start_key": to_wire(cursor.start_key),
                "issued_at": issued.isoformat(timespec="seconds"),
                "age_seconds": round(time.time() - cursor.issued_at),
                "scope_tag": cursor.scope_tag,
            },
            indent=2,
        )
    )
    return 0


def run_verify(args: argparse.Namespace) -> int:
    spec = spec_from_args(args)
    start_key = default_signer(max_age=args.cursor_max_age).verify(args.token, spec.scope())
    print(json.dumps({"valid": True, "start_key": to_wire(start_key)}))
    return 0
