"""The ``dynotui`` command: parse arguments, run one subcommand, turn errors into one line."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from dynotui import __version__
from dynotui.cli import cursor_cmd, demo_cmd, local_cmd, pages_cmd, tables_cmd, tui_cmd
from dynotui.cli.options import add_connection_options
from dynotui.core.connection import ConnectionSetupError
from dynotui.core.errors import DynotuiError
from dynotui.local.locate import LocalSetupError
from dynotui.local.tables import NotLocalError

COMMANDS = (demo_cmd, local_cmd, tables_cmd, pages_cmd, cursor_cmd)


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr, exit 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="dynotui",
        description=(
            "A terminal pager for Amazon DynamoDB query results. Without a command it opens "
            "the pager on your AWS account (or --endpoint-url)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"dynotui {__version__}")
    tui_cmd.add_open_options(parser)
    add_connection_options(parser)
    parser.set_defaults(run=tui_cmd.run)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for module in COMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except (DynotuiError, LocalSetupError, ConnectionSetupError, NotLocalError) as exc:
        if getattr(args, "debug", False):
            traceback.print_exc()
        print(f"dynotui: {exc}", file=sys.stderr)
        return getattr(exc, "exit_code", 2 if isinstance(exc, ValueError) else 1)
    except Exception as exc:  # the last line of defence: one line, never a traceback
        if getattr(args, "debug", False):
            traceback.print_exc()
        print(
            f"dynotui: unexpected {type(exc).__name__}: {exc} (rerun with --debug)", file=sys.stderr
        )
        return 1
