"""The ``dynotui`` command: parse arguments, run one subcommand, turn errors into one line."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from dynotui import __version__
from dynotui.cli import (
    count_cmd,
    cursor_cmd,
    demo_cmd,
    local_cmd,
    pages_cmd,
    tables_cmd,
    tui_cmd,
)
from dynotui.cli.options import HelpFormatter, add_connection_options
from dynotui.cli.output import ClosedOutput, quiet_closed_stdout
from dynotui.core.errors import DynotuiError
from dynotui.core.text import visible

COMMANDS = (demo_cmd, local_cmd, tables_cmd, pages_cmd, count_cmd, cursor_cmd)


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr, exit 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {visible(message)} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="dynotui",
        formatter_class=HelpFormatter,
        description=(
            "A terminal pager for Amazon DynamoDB query results. Without a command it opens "
            "the pager on your AWS account (or --endpoint-url)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"dynotui {__version__}")
    tui_cmd.add_open_options(parser)
    add_connection_options(parser)
    parser.set_defaults(run=tui_cmd.run)
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", title="commands", parser_class=OneLineParser
    )
    for module in COMMANDS:
        module.register(sub)
    return parser


def _one_line(message: str) -> str:
    # Service messages may span lines or hold escapes: one visible line, always.
    return visible(" ".join(str(message).split()))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = getattr(args, "debug", False)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except (ClosedOutput, BrokenPipeError):
        return quiet_closed_stdout()
    except DynotuiError as exc:
        if debug:
            traceback.print_exc()
        print(f"dynotui: {_one_line(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except Exception as exc:  # the last line of defence: one line, never a traceback
        if debug:
            traceback.print_exc()
        print(
            f"dynotui: unexpected {type(exc).__name__}: {_one_line(str(exc))} (rerun with --debug)",
            file=sys.stderr,
        )
        return 1
