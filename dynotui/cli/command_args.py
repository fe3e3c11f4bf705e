"""A command's arguments from flags given as data (a patterns file, an MCP tool call),
parsed by the command's own parser, so every type, choice and default is the command's.

Flags are passed as ``--flag=value``: a value that starts with a dash is a value, never
another flag. A parser's complaint is an InputError here, not an exit.
"""

from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from dynotui.core.errors import InputError

# The connection flags every command takes: the serving command's own, never the data's.
CONNECTION = (
    "profile",
    "region",
    "endpoint_url",
    "connect_timeout",
    "read_timeout",
    "max_attempts",
    "debug",
)


class RefusingParser(argparse.ArgumentParser):
    """argparse that raises InputError instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise InputError(message)

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise InputError(message or "the flags asked for help, not a run")


def command_parser(module: str, name: str) -> argparse.ArgumentParser:
    """The parser of the command ``name`` registered by ``module``."""
    parser = RefusingParser(prog="dynotui", add_help=False)
    sub = parser.add_subparsers(dest="command", parser_class=RefusingParser)
    importlib.import_module(module).register(sub, "")
    chosen: argparse.ArgumentParser = sub.choices[name]
    return chosen


def flag_argv(flags: Mapping[str, Any]) -> list[str]:
    """Flags by snake_case name as ``--kebab-case=value``; true booleans as the bare flag,
    false ones left out; tables and lists as JSON text."""
    argv: list[str] = []
    for key, value in flags.items():
        if value is None:
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            if value:
                argv.append(flag)
        elif isinstance(value, (dict, list)):
            argv.append(f"{flag}={json.dumps(value, ensure_ascii=False)}")
        else:
            argv.append(f"{flag}={value}")
    return argv


def command_args(
    module: str,
    name: str,
    argv: Sequence[str],
    connection: argparse.Namespace | None = None,
) -> argparse.Namespace:
    """``argv`` parsed as ``dynotui NAME`` parses it; the connection flags taken from
    ``connection`` (the serving command's own) when given."""
    args = command_parser(module, name).parse_args(list(argv))
    if connection is not None:
        for key in CONNECTION:
            setattr(args, key, getattr(connection, key))
    return args
