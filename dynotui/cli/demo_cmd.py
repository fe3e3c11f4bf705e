"""``dynotui demo``: DynamoDB Local, a seeded orders table, and the pager on it.

The seeded database is built once into the user cache (about 20 s, with a progress
bar) and copied for each run, so later runs start in a few seconds.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dynotui.cli.app_launch import (
    add_read_ahead_option,
    add_terminal_options,
    history_store,
    open_app,
    preload_ui,
    read_ahead_pages,
    wants_mouse,
)
from dynotui.cli.demo_export import add_export_option, write_demo_export
from dynotui.cli.local_cmd import home_with_progress, start_with_progress, watch
from dynotui.cli.options import HelpFormatter, add_connection_options, connection_options
from dynotui.cli.price_options import prices_from_args
from dynotui.core.errors import InputError
from dynotui.core.text import visible
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.loopback import proxy_variables
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import describe_table, summary
from dynotui.local import demo_cache
from dynotui.local.demo import BIG_CUSTOMER, TABLE, seed_demo
from dynotui.local.progress import Step, bar
from dynotui.local.runner import DynamoDBLocal
from dynotui.local.shop import TABLE as SHOP_TABLE
from dynotui.local.tables import require_local

if TYPE_CHECKING:
    from dynotui.core.history import HistoryEntry

ENV_ENDPOINTS = ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL")


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "demo",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Start DynamoDB Local on a copy of the seeded demo database (built once into your "
            f"cache) and open the pager on the table '{TABLE}'. With --endpoint-url, use that "
            "DynamoDB Local instead (it must be on this machine). No AWS account needed."
        ),
    )
    parser.add_argument(
        "--no-tui",
        action="store_true",
        help="print the table's summary instead of opening the pager",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="keep DynamoDB Local running until Ctrl-C, for other commands",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="the PostgreSQL demo instead: an embedded PostgreSQL 18 (the postgres extra), "
        "200,000 orders, keyset beside OFFSET",
    )
    parser.add_argument(
        "--reseed", action="store_true", help="rebuild the cached demo database from scratch"
    )
    add_export_option(parser)
    add_read_ahead_option(parser)
    add_terminal_options(parser)
    add_connection_options(
        parser,
        endpoint_help="a DynamoDB Local on this machine to seed and use, e.g. "
        "http://localhost:8000 (default: the demo starts its own; AWS_ENDPOINT_URL_DYNAMODB "
        "is not read)",
    )
    parser.set_defaults(run=run)


def _seed_progress(step: Step) -> Any:
    def report(done: int, total: int) -> None:
        step.update(f"{bar(done, total)} {done:,}/{total:,} items")

    return report


def run(args: argparse.Namespace) -> int:
    read_ahead_pages(args)  # a bad one is said before anything starts
    if args.read_ahead is not None and args.postgres:
        raise InputError("--read-ahead is for DynamoDB: drop it with --postgres")
    if args.postgres:
        from dynotui.cli import pg_demo_cmd

        return pg_demo_cmd.run(args)
    options = connection_options(args)
    proxies = proxy_variables(os.environ)
    if proxies:
        print(
            f"{', '.join(proxies)} {'is' if len(proxies) == 1 else 'are'} set; the demo "
            "connects to DynamoDB Local on this machine directly and ignores "
            f"{'it' if len(proxies) == 1 else 'them'}.",
            file=sys.stderr,
        )
    if options.endpoint_url:
        client = make_client(options)
        require_local(client)
        print(
            f"Using the DynamoDB Local at {options.endpoint_url} (--endpoint-url); the demo "
            "table is created and seeded there if it is missing.",
            file=sys.stderr,
        )
        with Step(f"Seeding {TABLE} and {SHOP_TABLE}") as step:
            report = seed_demo(client, progress=_seed_progress(step))
            step.finish(
                f"Seeded {report.items:,} items"
                if report.created
                else f"Tables {TABLE} and {SHOP_TABLE} exist already; left as they are"
            )
        return _show(client, args, options)
    for name in ENV_ENDPOINTS:
        if os.environ.get(name):
            print(
                f"{name} is set ({visible(os.environ[name])}); dynotui demo starts its own "
                "DynamoDB Local and ignores it. To use that one, pass it as --endpoint-url.",
                file=sys.stderr,
            )
            break

    def show(client: Any, local: ConnectionOptions, server: DynamoDBLocal) -> int:
        return _show(client, args, local, server)

    return _own_demo(options, args.reseed, show)


def resume(args: argparse.Namespace, entry: HistoryEntry, read_ahead: int = 0) -> int:
    """``dynotui --resume`` when the query viewed last was read on a demo: a demo of its
    own (its DynamoDB Local on a new port), the entry reopened on it."""
    print("The query viewed last was read on the demo: starting the demo for it.", file=sys.stderr)
    prices = prices_from_args(args)

    def reopened(client: Any, options: ConnectionOptions, _: DynamoDBLocal) -> int:
        history = history_store(args)
        form = QueryForm()
        return open_app(
            client,
            options,
            None,
            form,
            history=history,
            resume=entry,
            prices=prices,
            mouse=wants_mouse(args),
            read_ahead=read_ahead,
        )

    return _own_demo(connection_options(args), False, reopened)


def _own_demo(
    options: ConnectionOptions,
    reseed: bool,
    then: Callable[[Any, ConnectionOptions, DynamoDBLocal], int],
) -> int:
    """The demo's own DynamoDB Local on a copy of the cached database (or, the first
    time, on a database it seeds and then keeps in the cache): ``then`` runs with its
    client while it serves, and it stops after."""
    home = home_with_progress()
    target = demo_cache.cached_db(home)
    scratch = None
    if target.is_file() and not reseed:
        # While the JVM starts, load the UI: the two take about as long as each other.
        server = start_with_progress(preload_ui, home=home, db_file=target, quick_start=True)
    else:
        scratch = demo_cache.scratch_folder()
        server = _seed_here(home, target, scratch)
    try:
        local = ConnectionOptions(
            endpoint_url=server.endpoint_url,
            connect_timeout=options.connect_timeout,
            read_timeout=options.read_timeout,
            max_attempts=options.max_attempts,
            demo_endpoint=server.endpoint_url,
        )
        return then(make_client(local), local, server)
    finally:
        server.stop()
        if scratch is not None:
            demo_cache.remove_scratch(scratch)


def _seed_here(home: Any, target: Any, scratch: Any) -> DynamoDBLocal:
    """The first run: the demo's own server seeds its database (one JVM started, not one
    to seed and another to serve), which is then kept in the cache by SQLite's online
    backup for the later runs to copy."""
    print("Building the demo database once (later runs copy it):", file=sys.stderr)
    server = start_with_progress(preload_ui, home=home, db_dir=scratch, quick_start=True)
    try:
        # Short enough for 80 columns with its bar, count and seconds (a longer line
        # wraps, and each redraw would leave its first part behind).
        with Step("  Seeding demo tables") as seeding:

            def progress(done: int, total: int) -> None:
                seeding.update(f"{bar(done, total)} {done:,}/{total:,} items")

            seed_demo(server.client(), progress=progress)
            seeding.finish(f"  Seeded {TABLE} and {SHOP_TABLE}")
        with Step("  Keeping the demo database in your cache") as keeping:
            demo_cache.keep(scratch, target)
            keeping.finish(f"  Kept the demo database in {target}")
    except BaseException:
        server.stop()
        demo_cache.remove_scratch(scratch)
        raise
    return server


def _show(
    client: Any,
    args: argparse.Namespace,
    options: ConnectionOptions,
    server: DynamoDBLocal | None = None,
) -> int:
    if args.export is not None:
        return write_demo_export(client, options, TABLE, args.export)
    if not args.no_tui and not args.serve:
        form = QueryForm(partition_value=BIG_CUSTOMER)
        return open_app(
            client,
            options,
            TABLE,
            form,
            history=history_store(args),
            prices=prices_from_args(args),
            mouse=wants_mouse(args),
            read_ahead=read_ahead_pages(args),
        )
    for line in summary(describe_table(client, TABLE)).splitlines():
        print(visible(line))
    if args.serve:
        print(f"export AWS_ENDPOINT_URL_DYNAMODB={options.endpoint_url}", flush=True)
        print("Serving until Ctrl-C.", flush=True)
        if server is not None:
            watch(server)
    return 0
