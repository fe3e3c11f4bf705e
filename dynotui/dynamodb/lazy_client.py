"""A DynamoDB client made when it is first used, or warmed in the background.

Making a client imports botocore: 0.2-0.3 s of the one thread Python runs at a time.
When page 1 was read by a forked child (``opening``), the app makes its own client
after its first screen is up, not before it. Until that client is ready, the reads
the pager makes go to the child's client (``stand_in``), which is warm already: a key
pressed as page 1 appears does not wait for botocore to load.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from dynotui.dynamodb.connection import ConnectionOptions, make_client

# What the pager calls; anything else (meta, exceptions, ...) waits for the own client.
STAND_IN_CALLS = frozenset({"query", "scan", "execute_statement", "describe_table"})

StandIn = Callable[[str, dict[str, Any]], Any]


class StandInGone(Exception):
    """The stand-in has ended before or while making the call (released, or its child
    died): the call is made with the own client instead. One closed while making the
    call raises ReadCancelled instead (``Opening._stand_in``)."""


class LazyClient:
    # make_client installs the cancel and fast-items hooks: read_page need not.
    dynotui_hooked = True

    def __init__(self, options: ConnectionOptions, stand_in: StandIn | None = None) -> None:
        self._options = options
        self._client: Any = None
        self._lock = threading.Lock()
        self.stand_in = stand_in
        self.on_resolved: Callable[[], None] | None = None

    def resolve(self) -> Any:
        """The client, made now if it has not been (by one thread; the others wait)."""
        with self._lock:
            if self._client is None:
                self._client = make_client(self._options)
                done, self.on_resolved = self.on_resolved, None
                if done is not None:
                    done()
            return self._client

    def stand_in_until_made(self, stand_in: StandIn, release: Callable[[], None]) -> None:
        """Calls go to ``stand_in`` until the client is made, then ``release`` is called
        (at once, if it has been made already)."""
        with self._lock:
            made = self._client is not None
            if not made:
                self.stand_in, self.on_resolved = stand_in, release
        if made:
            release()

    def warm(self) -> None:
        """Make the client in a daemon thread; a setup error shows at first use instead."""

        def make() -> None:
            with contextlib.suppress(Exception):  # raised again by the first real use
                self.resolve()

        threading.Thread(target=make, name="dynotui-client", daemon=True).start()

    def __getattr__(self, name: str) -> Any:
        stand_in = self.stand_in
        if self._client is None and stand_in is not None and name in STAND_IN_CALLS:

            def call(**params: Any) -> Any:
                try:
                    return stand_in(name, params)
                except StandInGone:
                    return getattr(self.resolve(), name)(**params)

            return call
        return getattr(self.resolve(), name)
