"""Every number a flag takes is ASCII digits (issue 40, item 22): full-width and Arabic-Indic
digits, ``1_000``,
``+5``, ``nan`` and 5,000 digits were read as numbers by every flag with ``type=int`` or
``float`` (and by the hand-parsed ones). The parser of every command is walked for its
numeric flags, so a flag added later is held to it too."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import Any

import pytest
from helpers import run_in_process

from dynotui.cli.main import COMMANDS, build_parser
from dynotui.cli.number_flags import seconds, whole
from dynotui.core.numbers import decimal_number, whole_number

BAD = ["\uff13", "\u0663", "1_000", "+5", "-5", " 5x", "", "nan", "inf", "1e3", "5" * 5000, "²"]
BAD_WHOLE = [*BAD, "2.5", ".5"]
# Flags whose text a command reads itself (not argparse's type=), each a number.
HAND_PARSED = {
    "--read-ahead": whole,
    "--price-read-million": seconds,
    "--price-rcu-hour": seconds,
    "--price-write-million": seconds,
    "--price-wcu-hour": seconds,
    "--price-storage-gb-month": seconds,
}
# A command line reaching each command's checks without a server: a table, an
# endpoint nothing listens on (a check after a call would be exit 1, and fail).
ENDPOINT = ["--endpoint-url", "http://127.0.0.1:9", "--region", "us-east-1"]
WHERE = {
    "": ["--table-name", "t", "--partition-value", "p", *ENDPOINT],
    "pages": ["--table-name", "t", "--scan", *ENDPOINT],
    "report": ["--table-name", "t", "--scan", "--output", "/nonexistent/r", *ENDPOINT],
    "count": ["--table-name", "t", "--scan", *ENDPOINT],
    "what-if": ["--table-name", "t", "--scan", "--partition-key", "a", *ENDPOINT],
    "cursor": ["decode", "x"],
    "serve": [],
    "local": [],
    "demo": ["--no-tui"],
    "tables": [*ENDPOINT],
}
ENV = {
    **os.environ,
    "AWS_ACCESS_KEY_ID": "x",
    "AWS_SECRET_ACCESS_KEY": "x",
    "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
}


def numeric_flags() -> list[tuple[str, str, Any]]:
    """(command, flag, its type) of every numeric flag of every command ("" is the TUI)."""
    parser = build_parser(list(COMMANDS))
    found = []
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    commands = [("", parser), *subparsers[0].choices.items()]
    for name, command in commands:
        for action in command._actions:
            assert action.type not in (int, float), (
                f"{name or 'dynotui'} {action.option_strings}: type=int or float takes "
                "non-ASCII digits; use cli/number_flags.py"
            )
            for flag in action.option_strings:
                if action.type in (whole, seconds):
                    found.append((name, flag, action.type))
                elif flag in HAND_PARSED:
                    found.append((name, flag, HAND_PARSED[flag]))
    return found


FLAGS = numeric_flags()


def test_every_numeric_flag_was_found() -> None:
    names = {flag for _, flag, _ in FLAGS}
    assert {"--page-size", "--segments", "--port", "--read-timeout", "--max-pages"} <= names
    assert {"--statement-timeout", "--partitions", "--cursor-max-age", "--read-ahead"} <= names
    assert len(FLAGS) >= 40, len(FLAGS)


@pytest.mark.parametrize(
    ("command", "flag", "kind"), FLAGS, ids=lambda v: getattr(v, "__name__", v)
)
def test_a_numeric_flag_takes_ascii_digits_only(command: str, flag: str, kind: Any) -> None:
    argv = [command] if command else []
    for bad in BAD_WHOLE if kind is whole else BAD:
        args = [*argv, *WHERE.get(command, []), f"{flag}={bad}"]
        if command in ("", "demo", "serve", "local"):
            # These start an app, a JVM or a server when they take the value: a process.
            result = subprocess.run(
                [sys.executable, "-m", "dynotui", *args],
                env=ENV,
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
            )
        else:
            result = run_in_process(args, env=ENV)
        assert result.returncode == 2, (args[-1][:60], result.returncode, result.stderr[-300:])
        assert result.stderr.count("\n") == 1, result.stderr
        assert flag in result.stderr and "unexpected" not in result.stderr, result.stderr
        assert len(result.stderr) < 400, "a value of 5,000 digits is not shown whole"


def test_the_checkers_read_what_they_should() -> None:
    assert whole_number("25", "x") == 25 and whole_number(" 7 ", "x") == 7
    assert decimal_number("0.5", "x") == decimal_number(".5", "x") == decimal_number("0.50", "x")
    assert float(decimal_number("30", "x")) == 30.0
    for bad in BAD_WHOLE:
        with pytest.raises(Exception, match="ASCII digits"):
            whole_number(bad, "--x")
