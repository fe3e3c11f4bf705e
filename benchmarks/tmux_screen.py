"""Drive the real app in tmux, a real terminal, and time what appears on its screen.

Shared by the benchmarks: Textual's Pilot adds tens of milliseconds per key, a real
terminal does not. The floor of this method (a capture-pane round trip) is a few ms.
"""

from __future__ import annotations

import shlex
import subprocess
import time
import uuid
from collections.abc import Callable


class TmuxApp:
    def __init__(
        self,
        command: str,
        *,
        width: int = 160,
        height: int = 48,
        env: dict | None = None,
        prefix: str = "bench",
    ):
        self.name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        command_line = [
            "tmux",
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            str(width),
            "-y",
            str(height),
            f"env {exports} {command}; sleep 30",
        ]
        for attempt in range(3):
            # A tmux server whose last session just closed may still be exiting: retry.
            self.began = time.perf_counter()
            done = subprocess.run(command_line, capture_output=True, text=True)
            if done.returncode == 0:
                break
            time.sleep(0.2 * (attempt + 1))
        else:
            raise RuntimeError(f"tmux new-session failed: {done.stderr.strip()}")

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        ).stdout

    def wait_for(
        self, found: Callable[[str], bool], timeout: float = 120, poll: float = 0.005
    ) -> tuple[float, list[float]]:
        """Seconds until ``found`` holds for the screen, and when the screen changed."""
        changes: list[float] = []
        last = None
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            text = self.screen()
            now = time.perf_counter()
            if text != last:
                changes.append(now - self.began)
                last = text
            if found(text):
                return now - self.began, changes
            time.sleep(poll)
        raise TimeoutError(f"not on screen after {timeout} s:\n{last}")

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def timed_key(self, key: str, found: Callable[[str], bool], timeout: float = 30) -> float:
        """Seconds from sending ``key`` until ``found`` holds."""
        began = time.perf_counter()
        self.keys(key)
        deadline = began + timeout
        while time.perf_counter() < deadline:
            if found(self.screen()):
                return time.perf_counter() - began
            time.sleep(0.002)
        raise TimeoutError(f"{key!r}: not on screen after {timeout} s:\n{self.screen()}")

    def timed_change(self, key: str, pause: float = 0.0) -> float:
        """After ``pause`` seconds, seconds from sending ``key`` until the screen changes."""
        time.sleep(pause)
        before = self.screen()
        return self.timed_key(key, lambda text: text != before)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)

    def __enter__(self) -> TmuxApp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
