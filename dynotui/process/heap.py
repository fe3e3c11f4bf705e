"""The garbage collector once the program has loaded.

Textual, botocore and the app leave hundreds of thousands of objects that live as long
as the process. Every full collection walks them all: 40-140 ms pauses here, in the
middle of a key press, once pages of items come and go. Once the first screen is up,
the objects alive then are frozen (``gc.freeze``: never walked again), and collection
goes on for what comes after: full collections take 4-35 ms instead.

(Pausing collection while the program loads was measured too, and made the start no
faster: 886 ms against 855 median, 8 runs each.)

Only the ``dynotui`` command arms this; code that runs ``cli.main`` in-process (tests,
many apps in one process) keeps its collector as it is, and ``settle`` does nothing.
"""

from __future__ import annotations

import gc

_armed = False


def arm() -> None:
    """This process is the dynotui command: ``settle`` will freeze, once."""
    global _armed
    _armed = True


def settle() -> None:
    """Start-up is over: freeze what exists now. Idempotent."""
    global _armed
    if _armed:
        _armed = False
        gc.freeze()


def armed() -> bool:
    return _armed
