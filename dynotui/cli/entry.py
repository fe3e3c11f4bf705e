"""The ``dynotui`` console script and ``python -m dynotui``: the process is the command,
so start-up objects are frozen once the first screen is up (``process.heap`` says why)."""

from __future__ import annotations


def main() -> int:
    import sys

    from dynotui.cli import early_open
    from dynotui.process import heap

    heap.arm()
    # Before the parser loads: the opening's child loads botocore meanwhile.
    early_open.start(sys.argv[1:])
    from dynotui.cli.main import main as run

    return run()
