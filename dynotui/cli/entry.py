"""The ``dynotui`` console script and ``python -m dynotui``: pause the garbage collector
while the program loads (``core.heap`` says why), then run the command line."""

from __future__ import annotations


def main() -> int:
    from dynotui.core import heap

    heap.pause()
    from dynotui.cli.main import main as run

    return run()
