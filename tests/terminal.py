"""The real app in a real pseudo-terminal, read back through a terminal emulator (pyte).

Pilot renders through Textual's own pipeline; only a terminal shows what escape
sequences in the output would do to a user's window: its title, its clipboard.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable

import pyte


class Terminal:
    def __init__(self, args: list[str], env: dict[str, str], size: tuple[int, int] = (120, 36)):
        columns, rows = size
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.titles: list[str] = []
        original = self.screen.set_title

        def record(title: str) -> None:
            self.titles.append(title)
            original(title)

        self.screen.set_title = record  # type: ignore[method-assign]
        self.raw = bytearray()
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.master = master
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dynotui", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**env, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(rows)},
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)

    def pump(self, seconds: float = 0.05) -> None:
        ready, _, _ = select.select([self.master], [], [], seconds)
        if ready:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            self.raw.extend(data)
            self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, found: Callable[[str], bool], timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump()
            text = self.text()
            if found(text):
                return text
        raise TimeoutError(f"not on screen after {timeout} s:\n{self.text()}")

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def wait_exit(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump(0.01)
            code = self.process.poll()
            if code is not None:
                return code
        return None

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        os.close(self.master)


def on_the_demo_table(endpoint_url: str, *args: str, size: tuple[int, int] = (120, 36)) -> Terminal:
    """dynotui on the demo table's biggest customer, page 1, keeping no history."""
    from dynotui.local import demo

    return Terminal(
        [
            "--endpoint-url",
            endpoint_url,
            "--table-name",
            demo.TABLE,
            "--partition-value",
            demo.BIG_CUSTOMER,
            "--no-history",
            *args,
        ],
        {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"},
        size,
    )
