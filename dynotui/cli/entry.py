"""The ``dynotui`` console script and ``python -m dynotui``: the process is the command,
so start-up objects are frozen once the first screen is up (``process.heap`` says why)."""

from __future__ import annotations


def main() -> int:
    from dynotui.process import heap

    heap.arm()
    from dynotui.cli.main import main as run

    return run()
