"""The installed package's version, as its metadata says (pyproject.toml is the one source).

Read on first use: importlib.metadata costs tens of milliseconds that starting the pager
need not pay.
"""

from __future__ import annotations

import functools

DISTRIBUTION = "dynotui"


@functools.cache
def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"
