"""Open the TUI: ``dynotui [--table-name T [--index-name I]]`` and the demo's last step."""

from __future__ import annotations

import argparse
from typing import Any

from dynotui.cli.options import connection_options
from dynotui.core.connection import ConnectionOptions, describe, make_client
from dynotui.core.query_form import QueryForm


def add_open_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table-name", help="open straight on this table")
    parser.add_argument("--index-name", help="... in the order of this LSI or GSI")


def open_app(client: Any, options: ConnectionOptions, table: str | None, form: QueryForm) -> int:
    from dynotui.ui.app import DynotuiApp  # Textual loads only when a terminal UI is wanted

    DynotuiApp(client, connection_label=describe(client, options), table=table, form=form).run()
    return 0


def run(args: argparse.Namespace) -> int:
    options = connection_options(args)
    client = make_client(options)
    form = QueryForm(order=args.index_name or "table")
    return open_app(client, options, args.table_name, form)
