"""Headless Chromium driven over the DevTools protocol on a pipe: no websocket, no port.

``--remote-debugging-pipe`` makes Chromium read protocol messages on fd 3 and write its
answers on fd 4, each a JSON object ended by a NUL byte. That is enough to open a file,
evaluate JavaScript in it and take a full-page screenshot, with nothing to install but
Debian's ``chromium``. Every wait is bounded.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

# As root in a container, and with nothing reaching out of the machine.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
)
NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    return next((path for name in NAMES if (path := shutil.which(name))), None)


class BrowserError(RuntimeError):
    pass


class Browser:
    """One Chromium with one page; ``with Browser() as b: b.open(path)``."""

    def __init__(self, executable: str | None = None, timeout: float = 60.0) -> None:
        found = executable or find_chromium()
        if found is None:
            raise BrowserError("no chromium on PATH (apt-get install chromium)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="dynotui-chromium-")
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()
        # Above 10, so the child's dup2 onto 3 and 4 cannot overwrite one with the other.
        child_in = fcntl.fcntl(to_child, fcntl.F_DUPFD, 10)
        child_out = fcntl.fcntl(from_child, fcntl.F_DUPFD, 10)
        os.close(to_child)
        os.close(from_child)

        def wire() -> None:
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        self.log = open(Path(self.profile) / "chromium.log", "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            [found, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
            pass_fds=(3, 4),
            preexec_fn=wire,  # the only way to place the pipes at fds 3 and 4
        )
        os.close(child_in)
        os.close(child_out)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        self.session: str | None = None

    # -- the protocol ----------------------------------------------------------------------

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer in time")
            ready, _, _ = select.select([self._read], [], [], left)
            if ready:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise BrowserError(f"chromium exited: {self.log_text()[-2000:]}")
                self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(self, method: str, session: bool = True, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        wanted = self._next_id
        message: dict[str, Any] = {"id": wanted, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") == wanted:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self._events.append(answer)

    def wait_for(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            for i, event in enumerate(self._events):
                if event.get("method") == method:
                    del self._events[i]
                    return event
            self._events.append(self._message(deadline))

    # -- what a test needs -----------------------------------------------------------------

    def open(self, path: Path, width: int = 1400, height: int = 1000) -> None:
        target = self.send("Target.createTarget", session=False, url="about:blank")
        attached = self.send(
            "Target.attachToTarget", session=False, targetId=target["targetId"], flatten=True
        )
        self.session = attached["sessionId"]
        self.send("Page.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self._events.clear()
        self.send("Page.navigate", url=path.resolve().as_uri())
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, width: int = 1400, max_height: int = 16000) -> bytes:
        """The whole page as PNG, at ``width`` CSS pixels and one device pixel each."""
        height = int(self.evaluate("document.documentElement.scrollHeight"))
        height = min(max(height, 1), max_height)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        shot = self.send(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        )
        return base64.b64decode(shot["data"])

    def log_text(self) -> str:
        self.log.flush()
        return (Path(self.profile) / "chromium.log").read_text(errors="replace")

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.send("Browser.close", session=False)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=15)
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
