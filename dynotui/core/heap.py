"""The garbage collector around start-up.

Loading Textual, botocore and the app allocates hundreds of thousands of objects that
live as long as the process; with the collector on, Python walks them again and again
while they load (about 0.2 s of a 0.75 s start here), and every full collection later
walks them once more (40-140 ms pauses in the middle of a key press). So the command
line pauses collection while the program loads, and once the first screen is up the
objects alive then are frozen (``gc.freeze``: never walked again) and collection
resumes for what comes after.

Only the ``dynotui`` command pauses; code that calls ``cli.main`` in-process (tests)
keeps its collector as it is, and ``settle`` then does nothing.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def settle() -> None:
    """Start-up is over: freeze what exists and collect from here on. Idempotent."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def paused() -> bool:
    return _paused
