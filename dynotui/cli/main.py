"""The ``dynotui`` command: parse arguments, run one subcommand, turn errors into one line."""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence
from typing import Any, NoReturn

from dynotui.cli import early_open, tui_cmd
from dynotui.cli.options import HelpFormatter, add_connection_options
from dynotui.cli.output import ClosedOutput, quiet_closed_stdout
from dynotui.core.errors import DynotuiError
from dynotui.core.text import visible
from dynotui.process import heap

# Each command's module is imported only when that command runs: `dynotui --help` and
# the TUI start without loading what `demo` or `pages` need.
COMMANDS = {
    "demo": (
        "dynotui.cli.demo_cmd",
        "start DynamoDB Local, seed the demo orders table and open the pager on it",
    ),
    "local": (
        "dynotui.cli.local_cmd",
        "run DynamoDB Local in memory (fetched once into the cache) until Ctrl-C",
    ),
    "tables": (
        "dynotui.cli.tables_cmd",
        "list the tables, or a table's key schema and sort orders (base, LSIs, GSIs)",
    ),
    "pages": (
        "dynotui.cli.pages_cmd",
        "page through a Query, Scan or PartiQL SELECT headless: one JSON object per page",
    ),
    "report": (
        "dynotui.cli.report_cmd",
        "page through a query and write what it cost as HTML (inline SVG charts) and Markdown",
    ),
    "count": (
        "dynotui.cli.count_cmd",
        "count a Query's or Scan's matches (Select: COUNT), with forecast and cost",
    ),
    "exports": (
        "dynotui.cli.exports_cmd",
        "list or clear the copies of table exports kept in the cache (read once, then reused)",
    ),
    "what-if": (
        "dynotui.cli.what_if_cmd",
        "estimate what an index you have not made would cost and save for a query",
    ),
    "plan": (
        "dynotui.cli.plan_cmd",
        "every path that answers a query (table, indexes, Scan, export), costed side by side",
    ),
    "check": (
        "dynotui.cli.check_cmd",
        "read each access pattern of a patterns file and hold it to its budget (CI)",
    ),
    "mcp": (
        "dynotui.cli.mcp_cmd",
        "serve the read-only commands to coding agents over MCP (stdio)",
    ),
    "entities": (
        "dynotui.cli.entities_cmd",
        "a single-table design by entity: counts, sizes, attributes and read units of each",
    ),
    "cursor": (
        "dynotui.cli.cursor_cmd",
        "decode a cursor token, or verify one for a query (no AWS call)",
    ),
    "serve": (
        "dynotui.cli.serve_cmd",
        "serve the pager to a web browser, one app per tab, behind a URL with a token",
    ),
}


class VersionAction(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        from dynotui.version import package_version

        print(f"dynotui {package_version()}")  # on stdout, as argparse's own version action
        parser.exit(0)


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr, exit 2, like every other bad input."""

    argv: Sequence[str] = ()  # the top-level parser's, to name a stray flag

    def error(self, message: str) -> NoReturn:
        stray = self._stray_flag(message)
        if stray is not None:
            message = f"unrecognized arguments: {stray}"
        self.exit(2, f"{self.prog}: {visible(message)} (see --help)\n")

    def _stray_flag(self, message: str) -> str | None:
        """A flag the app does not take, whose value argparse then read as the command:
        'dynotui --key-condition-expression "pk = :p"' said "invalid choice: 'pk = :p'"."""
        if not message.startswith("argument COMMAND: invalid choice: "):
            return None
        for before, token in zip(self.argv, self.argv[1:], strict=False):
            flag = before.split("=", 1)[0]
            if (
                message.startswith(f"argument COMMAND: invalid choice: {token!r} ")
                and flag.startswith("-")
                and flag not in self._option_string_actions
            ):
                return flag
        return None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="dynotui",
        formatter_class=HelpFormatter,
        description=(
            "A terminal pager for Amazon DynamoDB query results. Without a command it opens "
            "the pager on your AWS account (or --endpoint-url)."
        ),
    )
    parser.argv = list(argv)
    parser.add_argument(
        "--version", action=VersionAction, help="show the installed version and exit"
    )
    tui_cmd.add_open_options(parser)
    add_connection_options(parser)
    parser.set_defaults(run=tui_cmd.run)
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", title="commands", parser_class=OneLineParser
    )
    wanted = set(argv)
    for name, (module, help_text) in COMMANDS.items():
        if name in wanted:
            importlib.import_module(module).register(sub, help_text)
        else:
            sub.add_parser(name, help=help_text)  # listed in --help; loaded when used
    return parser


def _one_line(message: str) -> str:
    # Service messages may span lines or hold escapes: one visible line, always.
    return visible(" ".join(str(message).split()))


def not_text(argv: Sequence[str]) -> str | None:
    """Bytes that are not UTF-8 reach Python as lone surrogates (U+DC80-U+DCFF): no value,
    name or statement is made of them, and no encoder writes them out."""
    for arg in argv:
        if any("\ud800" <= char <= "\udfff" for char in arg):
            return f"the argument {arg!r} is not UTF-8 text"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run_command(argv)
    finally:
        # A child forked as the command started (cli/early_open.py) that no opening took
        # (a usage error, bad input): it has nothing to read.
        early_open.release()


def run_command(argv: Sequence[str] | None = None) -> int:
    problem = not_text(sys.argv[1:] if argv is None else argv)
    if problem is not None:
        print(f"dynotui: {visible(problem)}", file=sys.stderr)
        return 2
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    debug = getattr(args, "debug", False)
    if args.run is not tui_cmd.run:
        early_open.release()  # forked in case this run opened the app (cli/entry.py)
        heap.settle()  # what has loaded stays; the terminal UI settles at its first screen
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
