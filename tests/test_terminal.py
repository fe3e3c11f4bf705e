"""The app in a real pseudo-terminal: hostile data leaves the window alone, and quitting is
instant even when the endpoint never answers."""

from __future__ import annotations

import os
import re
from typing import Any

from faultproxy import FaultProxy
from terminal import Terminal

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def test_data_cannot_retitle_the_window_or_write_the_clipboard(
    ddb: Any, hostile_table: str
) -> None:
    terminal = Terminal(
        [
            "--endpoint-url",
            ddb.endpoint_url,
            "--table-name",
            hostile_table,
            "--partition-value",
            "p",
        ],
        ENV,
    )
    try:
        text = terminal.wait_for(lambda t: "01-title" in t and "Page 1" in t)
        assert "␛]2;PWNED-TIT" in text
        assert not any("PWNED" in title for title in terminal.titles), terminal.titles
        assert b"\x1b]2;PWNED" not in terminal.raw and b"\x1b]52;c;aGVsbG8" not in terminal.raw
        assert b"\x1b[2Jafter" not in terminal.raw
        terminal.send(b"q")
        assert terminal.wait_exit(10) == 0
    finally:
        terminal.close()


def _spinner_seconds(text: str) -> float:
    found = re.search(r"([0-9]+\.[0-9]) s \(Esc cancels\)", text)
    return float(found.group(1)) if found else -1.0


def test_quitting_is_instant_when_the_endpoint_never_answers(ddb: Any) -> None:
    with FaultProxy(ddb.endpoint_url) as proxy:
        proxy.silent = True
        terminal = Terminal(
            [
                "--endpoint-url",
                proxy.endpoint_url,
                "--table-name",
                "anything",
                "--partition-value",
                "p",
                "--read-timeout",
                "120",
            ],
            ENV,
        )
        try:
            first = terminal.wait_for(
                lambda t: "Opening table anything" in t and "Esc cancels" in t
            )
            seconds = _spinner_seconds(first)
            # The seconds pass on screen: the UI is not blocked by the call.
            terminal.wait_for(lambda t: _spinner_seconds(t) > seconds)
            terminal.send(b"q")
            # The call would hold a waiting exit for its 120 s read timeout: an exit well
            # within it is one that did not wait (order, not a duration on a busy machine).
            code = terminal.wait_exit(60)
            assert code == 0, f"exit code {code}"
        finally:
            terminal.close()
