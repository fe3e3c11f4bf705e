"""``dynotui demo --postgres``: an embedded PostgreSQL 18, a seeded orders table of 200,000
rows, and the pager on it in keyset order, ready to compare with OFFSET."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dynotui.cli.app_launch import history_store, open_pg_app, preload_ui, wants_mouse
from dynotui.core.text import visible
from dynotui.local.progress import Step

if TYPE_CHECKING:
    from dynotui.core.history import HistoryEntry

NOTE = (
    "Demo: keyset pages of 200,000 orders. w puts OFFSET beside keyset; J there jumps both "
    "sides to page k (try 1000), o changes the order, # counts."
)


def run(args: argparse.Namespace) -> int:
    return _own_demo(args, lambda server: _show(server, args))


def resume(args: argparse.Namespace, entry: HistoryEntry) -> int:
    """``dynotui --resume`` when the query viewed last was read on the PostgreSQL demo: a
    demo of its own (the same seeded rows, on a new server), the entry reopened on it."""
    print(
        "The query viewed last was read on the PostgreSQL demo: starting the demo for it.",
        file=sys.stderr,
    )

    def reopened(server: Any) -> int:
        session, options = _connect(server)
        try:
            return open_pg_app(
                session,
                options,
                None,
                history=history_store(args),
                resume=entry,
                mouse=wants_mouse(args),
            )
        finally:
            session.close()
            print("Stopping the demo PostgreSQL.", file=sys.stderr)

    return _own_demo(args, reopened)


def _own_demo(args: argparse.Namespace, then: Callable[[Any], int]) -> int:
    """The demo's own embedded server, seeded: ``then`` runs while it serves, and it stops
    after (its folder deleted)."""
    from dynotui.local import pg_demo
    from dynotui.local.pg_runner import EmbeddedPostgres

    server = EmbeddedPostgres()
    with Step("Starting PostgreSQL 18 (embedded, no install)") as step:
        failure: list[BaseException] = []

        def start() -> None:
            try:
                server.start()
            except BaseException as exc:  # reported on the main thread
                failure.append(exc)

        starter = threading.Thread(target=start, daemon=True)
        starter.start()
        # (--resume has neither flag: it opens the app.)
        if not getattr(args, "no_tui", False) and not getattr(args, "serve", False):
            preload_ui("postgres")  # the UI loads while the server starts
        starter.join()
        if failure:
            raise failure[0]
        step.finish("PostgreSQL 18 is up")
    try:
        with Step(f"Seeding {pg_demo.TABLE} ({pg_demo.ROWS:,} rows, 5 indexes)") as step:
            pg_demo.seed(server.uri)
            step.finish(f"Seeded {pg_demo.ROWS:,} rows")
        return then(server)
    finally:
        server.stop()


def _connect(server: Any) -> tuple[Any, Any]:
    """A session on the demo's server, and its options: marked as the demo's, so history
    keeps "the demo" and not the server's socket (gone when the demo stops)."""
    from dynotui.postgres.connection import PgOptions, connect

    options = PgOptions(uri=server.uri, demo=True)
    return connect(options), options


def _show(server: Any, args: argparse.Namespace) -> int:
    from dynotui.local import pg_demo
    from dynotui.postgres.schema import describe_table
    from dynotui.postgres.sql import PgQuery

    session, options = _connect(server)
    table = describe_table(session, pg_demo.TABLE)
    if args.no_tui or args.serve:
        for order in table.orders:
            print(visible(order.describe()))
        if args.serve:
            print(f"export DATABASE_URL='{server.uri}'", flush=True)
            print("Serving until Ctrl-C.", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        session.close()
        return 0
    query = PgQuery(table, table.order("orders_created_id"))
    try:
        return open_pg_app(
            session, options, query, NOTE, history=history_store(args), mouse=wants_mouse(args)
        )
    finally:
        session.close()
        print("Stopping the demo PostgreSQL.", file=sys.stderr)
