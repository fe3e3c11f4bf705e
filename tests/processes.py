"""Child processes of a test: Ctrl-C reaches them, and none outlives its test.

A shell starts a background job (``pytest ... &`` in a script) with SIGINT ignored, and
an ignored signal stays ignored across fork and exec: a test that sends SIGINT to its
child would then be sending nothing. The child gets SIGINT's default back before it
runs (Python then installs its KeyboardInterrupt handler as it does at any start).
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
from collections.abc import Iterator
from typing import Any


def default_sigint() -> None:  # pragma: no cover - runs in the child before exec
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stop(proc: subprocess.Popen[Any], timeout: float = 15) -> None:
    """End ``proc`` if it still runs: SIGTERM (the runner stops its JVM on it), then SIGKILL."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


@contextlib.contextmanager
def interruptible(args: list[str], **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """``Popen(args)`` with SIGINT at its default, stopped when the block ends, however."""
    proc = subprocess.Popen(args, preexec_fn=default_sigint, **popen)
    try:
        yield proc
    finally:
        stop(proc)


@contextlib.contextmanager
def as_a_background_job() -> Iterator[None]:
    """This test process ignores SIGINT for the block, as a shell's background job does,
    so a child that relied on inheriting a working SIGINT would show it."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
