"""What the pager needs from a database: read a page from a boundary, and its scope.

A boundary (a "start key") is whatever the database resumes from: DynamoDB's
ExclusiveStartKey, a PartiQL NextToken, the sort values of the last row shown on
PostgreSQL. The pager stores boundaries and never looks inside them.
"""

from __future__ import annotations

from typing import Any, Protocol

from dynotui.core.advisor import Advisor
from dynotui.core.cancel import CancelToken
from dynotui.core.page import C, I, K, Page


class Source(Protocol[K, I, C]):
    """One query on one database, validated: everything a pager reads from. Generic over
    its boundary ``K`` (what a page starts from), its item ``I`` and its cost ``C``."""

    def scope(self) -> str:
        """The canonical identity of the result set; cursor tokens are bound to it."""

    def read_page(
        self,
        start_key: K | None,
        number: int,
        *,
        selectivity: float | None,
        cancel: CancelToken,
    ) -> Page[C, K, I]:
        """Page ``number`` from ``start_key``; changes nothing; checks ``cancel`` between
        calls. ``selectivity`` is the share of read items that matched so far, a hint."""

    def key_to_json(self, key: K) -> Any:
        """A boundary as JSON, for cursor tokens."""

    def key_from_json(self, data: Any) -> K:
        """A boundary from untrusted JSON; raises InputError unless it is well formed."""

    def advisor(self) -> Advisor:
        """A fresh advisor for this query, fed every page read."""

    def with_client(self, client: Any) -> Source[K, I, C]:
        """The same query read through another connection (after a reconnect)."""
