"""The ``dynotui`` console script and ``python -m dynotui``: the process is the command,
so start-up objects are frozen once the first screen is up (``core.heap`` says why)."""

from __future__ import annotations


def main() -> int:
    from dynotui.core import heap

    heap.arm()
    from dynotui.cli.main import main as run

    return run()
