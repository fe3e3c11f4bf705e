"""The app in a real pseudo-terminal: hostile data leaves the window alone, and quitting is
instant even when the endpoint never answers."""

from __future__ import annotations

import os
import time
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
            terminal.wait_for(lambda t: "Opening table anything" in t and "Esc cancels" in t)
            time.sleep(1.0)
            text = terminal.wait_for(lambda t: "Opening table anything" in t)
            assert " s (Esc cancels)" in text, "a spinner with the seconds passing"
            began = time.monotonic()
            terminal.send(b"q")
            code = terminal.wait_exit(5)
            elapsed = time.monotonic() - began
            assert code == 0, f"exit code {code}"
            assert elapsed < 1.0, f"quitting took {elapsed:.2f} s"
        finally:
            terminal.close()
