"""``dynotui pages --code LANGUAGE``: the code of the first page the command would read.

The same code the app's code view shows for that page, so scripts and tests get it too.
In fill mode the page is read first: the AWS CLI command asks for as many matches as
dynotui's loop found when it ran out of rounds, which only reading the page tells.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from dynotui.core.errors import InputError
from dynotui.core.pager import Pager

LANGUAGES = {"boto3": "boto3", "cli": "aws-cli", "js": "javascript"}


def add_code_option(group: Any) -> None:
    group.add_argument(
        "--code",
        choices=tuple(LANGUAGES),
        help="print the code (boto3, the AWS CLI, or the JavaScript SDK v3) that reads the "
        "first page this command would read (from --starting-token, --exclusive-start-key or "
        "--foreign-token when given) instead of paging; in fill mode that page is read first",
    )


def check_code(args: argparse.Namespace) -> None:
    if not getattr(args, "code", None):
        return
    if getattr(args, "postgres", None) is not None:
        raise InputError("--code is for DynamoDB; PostgreSQL's code is in the app's code view")
    if getattr(args, "segments", 1) != 1:
        raise InputError("--code writes the code of one page of one reader: drop --segments")


def print_code(args: argparse.Namespace, source: Any, start_key: Any, out: TextIO) -> int:
    """Write the code of page 1 from ``start_key`` for a QuerySource or a PartiQLSource."""
    from dynotui.dynamodb.codegen import code_target, generate
    from dynotui.dynamodb.partiql import PartiQLSource
    from dynotui.dynamodb.partiql_codegen import generate_partiql

    language = LANGUAGES[args.code]
    target = code_target(source.client)
    if isinstance(source, PartiQLSource):  # one call per page: nothing to read first
        out.write(generate_partiql(language, source.statement, start_key, 1, target))
        return 0
    read = Pager(source, start_key=start_key).next() if source.spec.mode == "fill" else None
    out.write(generate(language, source.spec, source.schema, start_key, 1, target, read))
    return 0
