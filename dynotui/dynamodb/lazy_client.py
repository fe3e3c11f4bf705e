"""A DynamoDB client made when it is first used, or warmed in the background.

Making a client imports botocore: 0.2-0.3 s of the one thread Python runs at a time.
When page 1 was read by a forked child (``opening``), the app has no call to make until
the user moves, so the client is made after the first screen is up, not before it.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from dynotui.dynamodb.connection import ConnectionOptions, make_client


class LazyClient:
    def __init__(self, options: ConnectionOptions) -> None:
        self._options = options
        self._client: Any = None
        self._lock = threading.Lock()

    def resolve(self) -> Any:
        """The client, made now if it has not been (by one thread; the others wait)."""
        with self._lock:
            if self._client is None:
                self._client = make_client(self._options)
            return self._client

    def warm(self) -> None:
        """Make the client in a daemon thread; a setup error shows at first use instead."""

        def make() -> None:
            with contextlib.suppress(Exception):  # raised again by the first real use
                self.resolve()

        threading.Thread(target=make, name="dynotui-client", daemon=True).start()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.resolve(), name)
