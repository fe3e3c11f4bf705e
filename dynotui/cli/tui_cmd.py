"""Open the TUI: ``dynotui [--table-name T [--index-name I] [key flags]]`` and the demo's
last step. With a table and a partition key value (or --scan) it opens on page 1."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from dynotui.cli.app_launch import add_read_ahead_option, add_terminal_options, wants_mouse

# Parsing the command line imports only what the options need: what running it needs
# (the client, the opening, the app) is imported by the run that needs it.
from dynotui.cli.number_flags import whole
from dynotui.cli.postgres_options import add_postgres_options
from dynotui.cli.price_options import add_price_options
from dynotui.cli.table_export_options import add_export_options
from dynotui.core.errors import InputError, ServiceError

if TYPE_CHECKING:
    from dynotui.dynamodb.query_form import QueryForm


def add_open_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("open straight on a query")
    group.add_argument("--table-name", help="open on this table")
    group.add_argument("--index-name", help="... in the order of this LSI or GSI")
    group.add_argument(
        "--partition-value", metavar="VALUE", help="... its partition key value: page 1 at once"
    )
    group.add_argument("--filter-expression", metavar="EXPRESSION")
    group.add_argument(
        "--expression-attribute-values",
        metavar="JSON",
        help='filter values, plain or DynamoDB JSON: {":r": "RETURNED"}',
    )
    group.add_argument("--page-size", metavar="N", type=whole, default=25)
    group.add_argument(
        "--mode",
        choices=("raw", "fill", "keyset", "offset"),
        default=None,
        help="raw or fill on DynamoDB (default raw); keyset or offset on PostgreSQL",
    )
    group.add_argument("--scan", action="store_true", help="a Scan instead of a Query")
    group.add_argument(
        "--segments",
        type=whole,
        metavar="N",
        default=1,  # an int, as the commands' own --segments (report reads it when absent)
        help="a Scan in N parallel segments (1 to 64), each its own cursor stack: [ and ] "
        "move between them, the sidebar maps them",
    )
    add_read_ahead_option(group)
    add_price_options(parser)
    add_export_options(parser)
    kept = parser.add_argument_group("history")
    kept.add_argument(
        "--resume",
        action="store_true",
        help="reopen the query viewed last, at its page (re-read from its stored start key)",
    )
    kept.add_argument(
        "--no-history",
        action="store_true",
        help="keep no history of this run (also: history = false in config.toml)",
    )
    add_terminal_options(parser)
    add_postgres_options(parser)


def run_postgres(args: argparse.Namespace) -> int:
    from dynotui.cli.app_launch import history_store, open_pg_app, preload_ui
    from dynotui.cli.postgres_options import (
        check_no_dynamodb_flags,
        connect_from_args,
        query_from_args,
    )
    from dynotui.postgres.connection import PgOptions

    check_no_dynamodb_flags(args)
    session = connect_from_args(args)
    try:
        query = query_from_args(session, args, args.page_size) if args.table else None
        preload_ui("postgres")
        # The session's own options: its statement timeout survives a reconnect.
        options = session.options or PgOptions(uri=args.postgres or None)
        return open_pg_app(
            session, options, query, history=history_store(args), mouse=wants_mouse(args)
        )
    finally:
        session.close()


def run_resume(args: argparse.Namespace) -> int:
    """``dynotui --resume``: the query viewed last, on the connection it was read on."""
    from dynotui.cli.app_launch import (
        history_store,
        open_app,
        open_pg_app,
        preload_ui,
        read_ahead_pages,
    )
    from dynotui.cli.price_options import prices_from_args
    from dynotui.dynamodb.query_form import QueryForm

    store = history_store(args)
    if not store.enabled:
        raise InputError("--resume needs the history, which is off (--no-history or config)")
    entry = store.last()
    if entry is None:
        raise InputError(f"no query in the history yet ({store.path}): open one first")
    read_ahead = read_ahead_pages(args)  # a bad one is said before anything starts
    if entry.database == "postgres":
        if read_ahead:
            raise InputError("--read-ahead is for DynamoDB; the query viewed last was PostgreSQL's")
        from dynotui.cli.postgres_options import trusts_database_code
        from dynotui.postgres import history_entry as pg_history
        from dynotui.postgres.connection import PgOptions, connect

        if pg_history.read_on_demo(entry):  # its server went with that demo: a new one
            from dynotui.cli import pg_demo_cmd

            return pg_demo_cmd.resume(args, entry)

        pg_options = PgOptions(
            uri=pg_history.reopen(entry).conninfo or None,
            trust_database_code=trusts_database_code(args),
        )
        session = connect(pg_options)
        try:
            preload_ui("postgres")
            return open_pg_app(
                session, pg_options, None, history=store, resume=entry, mouse=wants_mouse(args)
            )
        finally:
            session.close()
    from dynotui.dynamodb import history_entry
    from dynotui.dynamodb.connection import make_client
    from dynotui.dynamodb.schema import describe_table

    if history_entry.read_on_demo(entry):  # its port went with that demo: a new one
        from dynotui.cli import demo_cmd

        history_entry.check_query(entry)
        return demo_cmd.resume(args, entry, read_ahead)
    reopening = history_entry.reopen(entry)
    options = reopening.connection
    client = make_client(options)
    # The connection it was read on must answer before the app opens on it: one line,
    # not an empty screen.
    spec, statement = reopening.spec, reopening.statement
    table = spec.table if spec is not None else statement.target()[0] if statement else ""
    try:
        describe_table(client, table)
    except ServiceError as exc:
        raise ServiceError(
            f"--resume: {exc}; the query viewed last ({entry.label}) was read there"
        ) from None
    preload_ui()
    prices = prices_from_args(args)
    return open_app(
        client,
        options,
        None,
        QueryForm(),
        history=store,
        resume=entry,
        prices=prices,
        mouse=wants_mouse(args),
        read_ahead=read_ahead,
    )


def form_from_args(args: argparse.Namespace) -> QueryForm:
    """The query the command line asks for, as the query form holds it."""
    from dynotui.dynamodb.query_form import QueryForm

    return QueryForm(
        order=args.index_name or "table",
        partition_value=args.partition_value or "",
        filter=args.filter_expression or "",
        values=args.expression_attribute_values or "",
        page_size=str(args.page_size),
        mode=args.mode or "raw",
        scan=args.scan,
        segments=str(args.segments),
    )


def run(args: argparse.Namespace) -> int:
    from dynotui.cli import early_open

    if args.resume:
        early_open.release()  # a child forked at start for an opening (none here)
        return run_resume(args)
    from dynotui.cli.table_export_options import refuse_export_flags

    if args.from_export is not None:
        early_open.release()
        return run_export(args)
    refuse_export_flags(args)
    if getattr(args, "postgres", None) is not None:
        early_open.release()
        return run_postgres(args)
    if args.mode in ("keyset", "offset"):
        raise InputError(f"--mode {args.mode} is for --postgres; DynamoDB pages raw or fill")
    from dynotui.cli.app_launch import history_store, read_ahead_pages
    from dynotui.cli.options import connection_options
    from dynotui.cli.price_options import prices_from_args
    from dynotui.dynamodb.query_form import segment_count
    from dynotui.dynamodb.table_shapes import TableShapes

    options = connection_options(args)
    prices = prices_from_args(args)  # bad prices are said before anything starts
    read_ahead = read_ahead_pages(args)
    form = form_from_args(args)
    segment_count(form)  # bad segments are said before anything starts
    # The table and its page 1 are asked for while Textual loads (about as long), by a
    # child process where fork is available: the one forked as the command started, if
    # any (the app then draws its first frame before loading the rest); else one forked
    # before preload_ui, so it forks a small parent.
    history = history_store(args)
    shapes = TableShapes() if history.enabled else None  # history off keeps no shape either
    child = early_open.ask(options, args.table_name, form, shapes)
    if child is not None:
        from dynotui.cli.app_launch import open_app_first

        return open_app_first(
            child,
            options,
            args.table_name,
            form,
            shapes,
            history=history,
            prices=prices,
            mouse=wants_mouse(args),
            read_ahead=read_ahead,
        )
    from dynotui.cli.app_launch import open_app, preload_ui
    from dynotui.dynamodb.opening import Opening

    opening = Opening(options, args.table_name, form, shapes=shapes).start()
    preload_ui()
    client = opening.wait_for_client()
    return open_app(
        client,
        options,
        args.table_name,
        form,
        opening=opening,
        history=history,
        prices=prices,
        mouse=wants_mouse(args),
        read_ahead=read_ahead,
    )


def run_export(args: argparse.Namespace) -> int:
    """``dynotui --from-export PATH``: the pager on a table export, read with DuckDB (no
    read units), the key schema from ``--key-schema`` or the live table's DescribeTable."""
    from dynotui.cli.app_launch import open_export_app, preload_ui
    from dynotui.cli.table_export_options import export_schema, open_export

    given = [
        flag
        for flag, value in (
            ("--segments", args.segments != 1),
            ("--mode", args.mode),
            ("--resume", args.resume),
            ("--postgres", getattr(args, "postgres", None) is not None),
            ("--read-ahead", args.read_ahead is not None),
        )
        if value
    ]
    if given:
        raise InputError(
            f"an export is paged whole, in key order, with no connection: drop {', '.join(given)}"
        )
    with open_export(args) as opened:
        schema = export_schema(args, opened, required=True)
        assert schema is not None
        form = form_from_args(args).with_(scan=args.scan or not args.partition_value)
        if form.order not in {order.name for order in schema.orders}:
            raise InputError(f"--index-name {form.order!r} is not an index of the key schema")
        if opened.export.files:
            # The copy is made (or checked) here, where what it says is seen on the
            # terminal: the app's every query, count and partition list then read it.
            opened.lines()
            opened.say_now()
        preload_ui()
        return open_export_app(opened, schema, form, mouse=wants_mouse(args))
