"""Work done in a forked child process, its results sent back pickled through a pipe.

Python runs one thread at a time: a thread that imports botocore and reads a page
while the main thread imports and starts Textual only takes turns with it. A child
made by ``fork`` runs on another core and starts with what the parent has already
loaded. It writes nothing to the terminal (its standard streams are /dev/null) and
leaves by ``os._exit``, so nothing of the parent's (buffers, atexit) runs twice.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

Send = Callable[[Any], None]


def can_fork() -> bool:
    # macOS frameworks may not survive a fork once loaded; Linux is where it is measured.
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def portable(error: BaseException | None) -> BaseException | None:
    """``error`` if it survives pickling, else a RuntimeError that says what it was."""
    if error is None:
        return None
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")


class Forked:
    """Fork now; the child runs ``work(send, receive)``. The parent ``receive``s what the
    child sent, in order, and may ``send`` it requests (the child ``receive``s None once
    the parent is done with it).

    Fork before starting any thread: a child copies only the thread that forked.
    """

    def __init__(self, work: Callable[[Send, Callable[[], Any]], None]) -> None:
        from_child, to_parent = os.pipe()
        from_parent, to_child = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            try:
                os.close(from_child)
                os.close(to_child)
                quiet = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(quiet, fd)
                with os.fdopen(to_parent, "wb") as out, os.fdopen(from_parent, "rb") as into:

                    def send(value: Any) -> None:
                        pickle.dump(value, out)
                        out.flush()

                    def receive() -> Any:
                        try:
                            return pickle.load(into)
                        except Exception:  # the parent has gone
                            return None

                    work(send, receive)
            finally:
                os._exit(0)
        os.close(to_parent)
        os.close(from_parent)
        self.pid: int | None = pid
        self._in: BinaryIO = os.fdopen(from_child, "rb")
        self._out: BinaryIO = os.fdopen(to_child, "wb")

    def receive(self) -> Any:
        """The next value the child sent (blocks). EOFError if it ended without one."""
        try:
            return pickle.load(self._in)
        except Exception as exc:  # ended, killed, or sent what does not load
            self.close()
            raise EOFError("the child process sent nothing more") from exc

    def send(self, value: Any) -> None:
        """A request to the child. EOFError if it has ended."""
        try:
            pickle.dump(value, self._out)
            self._out.flush()
        except Exception as exc:
            self.close()
            raise EOFError("the child process has ended") from exc

    def close(self) -> None:
        """Stop the child if it still runs, and reap it."""
        pid, self.pid = self.pid, None
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        for stream in (self._in, self._out):
            with contextlib.suppress(Exception):
                stream.close()
