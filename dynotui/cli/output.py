"""Writing JSON lines to stdout: terminal-safe text, and a closed pipe ends quietly."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from dynotui.core.exact_json import dumps as exact_dumps
from dynotui.core.text import safe_json, safe_json_text

SIGPIPE_EXIT = 141  # what a shell reports for a tool killed by SIGPIPE, as `yes | head` does


class ClosedOutput(Exception):
    """stdout was closed by its reader (``| head``): stop quietly."""


def json_text(value: Any, exact: bool = False) -> str:
    """JSON text safe to print; ``exact`` for values holding ``exact_json.Number``."""
    return safe_json_text(exact_dumps(value)) if exact else safe_json(value)


def write_line(out: TextIO, value: Any, exact: bool = False) -> None:
    """One JSON line; ``exact`` for values holding ``exact_json.Number``."""
    try:
        out.write(json_text(value, exact))
        out.write("\n")
        out.flush()
    except BrokenPipeError:
        raise ClosedOutput() from None


def quiet_closed_stdout() -> int:
    """After a BrokenPipeError: point stdout at /dev/null so Python's own flush at exit
    does not complain, and report a SIGPIPE exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)
    return SIGPIPE_EXIT
