"""dynotui: a terminal pager for Amazon DynamoDB query results."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # ``dynotui.__version__`` for those who look for it there; read lazily (see version.py).
    if name == "__version__":
        from dynotui.version import package_version

        return package_version()
    raise AttributeError(f"module 'dynotui' has no attribute {name!r}")
