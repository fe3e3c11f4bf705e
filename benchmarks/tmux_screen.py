"""Drive the real app in tmux, a real terminal, and time what appears on its screen.

Shared by the benchmarks: Textual's Pilot adds tens of milliseconds per key, a real
terminal does not. The floor of this method (a capture-pane round trip) is a few ms.

The screen is read when the app writes to it, not on a clock: tmux copies the pane's
output into a pipe (pipe-pane), and a read of the screen follows each write. Reading it
every few milliseconds instead (as this did) kept most of a core busy with capture-pane
processes while the app started or answered a key, on the machine being measured: on
two cores, a load the app met and a one-process bare app hardly did.
"""

from __future__ import annotations

import os
import select
import shlex
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable

# With no output at all, the screen is read again after this long anyway.
IDLE_READ = 0.1


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
        go = f"{self.name}-go"
        fifo = self._open_pipe()
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
            # The command waits for the go, given once the pane's output is piped here.
            f"tmux wait-for {go}; env {exports} {command}; sleep 30",
        ]
        for attempt in range(3):
            # A tmux server whose last session just closed may still be exiting: retry.
            done = subprocess.run(command_line, capture_output=True, text=True)
            if done.returncode == 0:
                break
            time.sleep(0.2 * (attempt + 1))
        else:
            self._close_pipe()
            raise RuntimeError(f"tmux new-session failed: {done.stderr.strip()}")
        try:
            subprocess.run(
                ["tmux", "pipe-pane", "-t", self.name, f"cat >> {shlex.quote(fifo)}"],
                check=True,
            )
            self.began = time.perf_counter()
            subprocess.run(["tmux", "wait-for", "-S", go], check=True)
        except BaseException:
            self.close()  # the session, the pipe and its folder
            raise

    def _open_pipe(self) -> str:
        self._folder = tempfile.mkdtemp(prefix="tmux-screen-")
        fifo = os.path.join(self._folder, "output")
        os.mkfifo(fifo)
        self._output = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        # A writer of our own, always: select then waits for output, not an end of file.
        self._writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        return fifo

    def _close_pipe(self) -> None:
        for fd in (self._output, self._writer):
            os.close(fd)
        shutil.rmtree(self._folder, ignore_errors=True)

    def _wait_output(self, timeout: float) -> None:
        """Until the app writes to the screen (or ``timeout``): then all it wrote is read."""
        ready, _, _ = select.select([self._output], [], [], max(timeout, 0.0))
        if not ready:
            return
        while True:
            try:
                if not os.read(self._output, 1 << 16):
                    return
            except BlockingIOError:
                return

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True
        ).stdout

    def wait_for(
        self, found: Callable[[str], bool], timeout: float = 120
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
            self._wait_output(min(IDLE_READ, deadline - time.perf_counter()))
        raise TimeoutError(f"not on screen after {timeout} s:\n{last}")

    def cpu_seconds(self, alone: bool = False) -> float:
        """CPU seconds (user + system) the pane's processes have used so far: the app, and
        any child it forked (its threads and waited-for children included); ``alone``:
        the app's own process only (its threads, not its children)."""
        pane = subprocess.run(
            ["tmux", "display-message", "-p", "-t", self.name, "#{pane_pid}"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        if not pane.isdigit():
            return 0.0
        parents: dict[int, int] = {}
        used: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # After the name: state, ppid, ... utime (14th field), stime, cutime, cstime.
            parents[int(entry)] = int(fields[1])
            used[int(entry)] = sum(int(f) for f in fields[11 : 13 if alone else 15])
        if alone:  # the pane's shell runs the app as its child
            apps = [pid for pid, parent in parents.items() if parent == int(pane)]
            return sum(used[pid] for pid in apps) / os.sysconf("SC_CLK_TCK")
        tree, grown = {int(pane)}, True
        while grown:
            found = {pid for pid, parent in parents.items() if parent in tree} - tree
            grown = bool(found)
            tree |= found
        return sum(used.get(pid, 0) for pid in tree) / os.sysconf("SC_CLK_TCK")

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def timed_key(self, key: str, found: Callable[[str], bool], timeout: float = 30) -> float:
        """Seconds from sending ``key`` until ``found`` holds."""
        self._wait_output(0)  # what was written before the key is not its answer
        began = time.perf_counter()
        self.keys(key)
        deadline = began + timeout
        while time.perf_counter() < deadline:
            if found(self.screen()):
                return time.perf_counter() - began
            self._wait_output(min(IDLE_READ, deadline - time.perf_counter()))
        raise TimeoutError(f"{key!r}: not on screen after {timeout} s:\n{self.screen()}")

    def timed_change(self, key: str, pause: float = 0.0) -> float:
        """After ``pause`` seconds, seconds from sending ``key`` until the screen changes."""
        time.sleep(pause)
        before = self.screen()
        return self.timed_key(key, lambda text: text != before)

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)
        self._close_pipe()

    def __enter__(self) -> TmuxApp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
