"""Opening the app: the frame rate set before Textual loads, the UI imported ahead, the
history store, and the app run on a DynamoDB client or a PostgreSQL session. Shared by the
TUI command and the demos, so neither command imports the other."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # The command line is parsed with none of these loaded (``dynotui --help``, the
    # subcommands); the run that opens the app imports them.
    from dynotui.core.history import HistoryEntry, HistoryStore
    from dynotui.core.money import PriceList
    from dynotui.dynamodb.connection import ConnectionOptions
    from dynotui.dynamodb.opening import Opening
    from dynotui.dynamodb.query_form import QueryForm
    from dynotui.postgres.connection import PgOptions, PgSession
    from dynotui.postgres.sql import PgQuery
    from dynotui.process.forked import Forked
    from dynotui.ui.adapter import Adapter


FRAME_RATE = "120"


def set_frame_rate() -> None:
    """Before Textual is imported (it reads the variable once): the terminal app's frame
    rate. Textual paints what changed at most TEXTUAL_FPS times a second, on a fixed
    beat: at its default 60, a page waits 0-17 ms (8 on average) for the next beat before
    it is drawn; at 120 the wait halves, and a frame here takes 8-15 ms, so the beat is
    rarely the limit. A user's own value wins. Set by the command that runs the app, not
    by importing the UI."""
    os.environ.setdefault("TEXTUAL_FPS", FRAME_RATE)


def preload_ui(database: str = "dynamodb") -> None:
    """Import the UI now (it takes about as long as a JVM start): the demo overlaps them."""
    set_frame_rate()
    # The imports are the point.
    import dynotui.ui.app

    if database == "postgres":
        import dynotui.ui.postgres.adapter
    else:
        import dynotui.ui.dynamodb.adapter  # noqa: F401


def history_store(args: argparse.Namespace) -> HistoryStore:
    """Where this run keeps its history (a store that writes nothing with --no-history)."""
    from dynotui.core.history import HistoryStore

    return HistoryStore.from_settings(enabled=not getattr(args, "no_history", False))


def add_terminal_options(parser: argparse.ArgumentParser) -> None:
    terminal = parser.add_argument_group("terminal")
    terminal.add_argument(
        "--no-mouse",
        action="store_true",
        help="leave the mouse to the terminal (its own selection and scrolling): keys only",
    )


MAX_READ_AHEAD = 10  # pages: each may be up to 1 MB read, and billed


def add_read_ahead_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--read-ahead",
        metavar="N",
        help="read the next N pages (up to 10) while you read the one shown, so n shows "
        "them at once; off by default: it spends capacity you did not ask for, billed in the "
        "sidebar as read ahead, shown or not",
    )


def read_ahead_pages(args: argparse.Namespace) -> int:
    """``--read-ahead N``: how many pages each view reads ahead (0: none, the default)."""
    given = getattr(args, "read_ahead", None)
    if given is None:
        return 0
    text = str(given).strip()
    # ASCII digits only: int() would take a superscript or full-width digit too, and fail
    # on 5,000 digits.
    from dynotui.core.numbers import is_whole

    if not is_whole(text) or int(text) > MAX_READ_AHEAD:
        from dynotui.core.errors import InputError
        from dynotui.core.text import visible

        raise InputError(
            f"--read-ahead takes a number of pages from 0 (none) to {MAX_READ_AHEAD}, "
            f"got {visible(repr(given)[:40])}"
        )
    return int(text)


def wants_mouse(args: argparse.Namespace) -> bool:
    """False with ``--no-mouse``: the app leaves the mouse to the terminal (its own text
    selection and scrolling), and is used with keys alone."""
    return not getattr(args, "no_mouse", False)


def open_app(
    client: Any,
    options: ConnectionOptions,
    table: str | None,
    form: QueryForm,
    open_form: bool | None = None,
    opening: Opening | None = None,
    *,
    history: HistoryStore | None = None,
    resume: HistoryEntry | None = None,
    prices: PriceList | None = None,
    mouse: bool = True,
    read_ahead: int = 0,
) -> int:
    # Textual loads only when a terminal UI is wanted.
    set_frame_rate()
    from dynotui.dynamodb.connection import describe
    from dynotui.ui.app import PagerApp
    from dynotui.ui.dynamodb.adapter import DynamoDBAdapter

    label = opening.label if opening is not None and opening.label else describe(client, options)
    adapter = DynamoDBAdapter(
        client,
        options,
        label=label,
        table=table,
        form=form,
        open_form=open_form,
        preread=opening,
        resume=resume,
        prices=prices,
    )
    app = PagerApp(adapter, history=history, read_ahead=read_ahead)
    try:
        app.run(mouse=mouse)
    finally:
        if opening is not None:
            opening.close()
    return app.return_code or 0


def open_app_first(
    child: Forked,
    options: ConnectionOptions,
    table: str | None,
    form: QueryForm,
    shapes: Any,
    *,
    history: HistoryStore,
    prices: PriceList | None = None,
    mouse: bool = True,
    read_ahead: int = 0,
) -> int:
    """The app on DynamoDB, its first frame drawn before its parts are imported
    (``ui/starting.py``), while ``child`` (forked at start and asked already:
    ``cli/early_open.ask``) reads the table and page 1."""
    set_frame_rate()
    from dynotui.dynamodb.connection import provisional_label
    from dynotui.ui.app import PagerApp
    from dynotui.ui.starting import Starting

    openings: list[Opening] = []

    def adapter() -> Adapter:
        from dynotui.dynamodb.opening import Opening
        from dynotui.ui.dynamodb.adapter import DynamoDBAdapter

        opening = Opening(options, table, form, shapes=shapes).start(child)
        openings.append(opening)
        return DynamoDBAdapter(
            opening.wait_for_client(),
            options,
            label=opening.label,
            table=table,
            form=form,
            preread=opening,
            prices=prices,
        )

    starting = Starting(provisional_label(options), opening_words(table, form), adapter)
    try:
        # A bad setting (the theme) is refused here: the child asked already is stopped.
        app = PagerApp(starting=starting, history=history, read_ahead=read_ahead)
        app.run(mouse=mouse)
    finally:
        for opening in openings:
            opening.close()
        if not openings:  # left on the first frame: the child has nobody to read for
            child.close()
    if app.start_error is not None:
        raise app.start_error
    return app.return_code or 0


def opening_words(table: str | None, form: QueryForm) -> str:
    """What a start's first frame says it opens."""
    if table is None:
        return "Listing the tables…"
    if form.partition_value or form.scan:
        return f"Reading page 1 of {table}…"
    return f"Opening {table}…"


def open_pg_app(
    session: PgSession,
    options: PgOptions,
    query: PgQuery | None,
    note: str = "",
    *,
    history: HistoryStore | None = None,
    resume: HistoryEntry | None = None,
    mouse: bool = True,
) -> int:
    # Textual loads only when a terminal UI is wanted.
    set_frame_rate()
    from dynotui.ui.app import PagerApp
    from dynotui.ui.postgres.adapter import PostgresAdapter

    adapter = PostgresAdapter(session, options, query=query, note=note, resume=resume)
    app = PagerApp(adapter, history=history)
    app.run(mouse=mouse)
    return app.return_code or 0


def open_export_app(opened: Any, schema: Any, form: QueryForm, *, mouse: bool = True) -> int:
    """The app on a table export (``dynotui --from-export``): no connection, no history."""
    set_frame_rate()
    from dynotui.ui.app import PagerApp
    from dynotui.ui.dynamodb.export import ExportAdapter

    app = PagerApp(ExportAdapter(opened, schema, form))
    app.run(mouse=mouse)
    return app.return_code or 0
