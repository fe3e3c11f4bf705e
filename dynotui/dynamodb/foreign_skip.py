"""Where an AWS CLI NextToken that stopped part way into a page really points.

``aws dynamodb query --max-items N`` stops after N items even in the middle of a
response; its NextToken then holds the start key of that response's call (null for the
first) and ``boto_truncate_amount``: how many of that call's items it had shown. botocore
resumes by calling from the key again and dropping that many items. Their count is of
items returned (after the filter), so the position is exact whatever Limit is used to
get there: the n-th match after the key, in this query's order. It is read here (fill
pages, the next start key derived from the last item passed over, as always), once,
and what it cost is said.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynotui.core.cancel import NEVER, CancelToken
from dynotui.core.foreign import ForeignCursorError, ForeignStart
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.dynamo_json import Item, to_wire
from dynotui.dynamodb.reader import read_page
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import MAX_ROUNDS_LIMIT, PAGE_SIZE_MAX


@dataclass(frozen=True)
class ResolvedStart:
    """Page 1's start key for a foreign cursor, after passing over what it had shown."""

    start: ForeignStart
    start_key: Item | None
    passed_over: int = 0
    cost: DynamoCost | None = None  # what reading past them cost (None: nothing read)

    @property
    def key_json(self) -> Any:
        return to_wire(self.start_key)

    @property
    def note(self) -> str:
        """What to show when the new stack opens: what the cursor is, and what passing
        over the items it had shown cost (billed like any read)."""
        words = f"A new cursor stack from an {self.start.warning}."
        if self.passed_over:
            cost = self.cost
            spent = (
                "capacity not reported"
                if cost is None or cost.headline is None
                else f"{cost.headline:g} RCU"
            )
            calls = cost.requests if cost else 0
            words += (
                f" Page 1 starts {self.passed_over:,} item(s) past the cursor's key, where "
                f"the AWS CLI had stopped; reading past them took {calls} call(s), {spent}."
            )
        return words

    def as_json(self) -> dict[str, Any]:
        """How ``dynotui pages`` marks a page 1 that a foreign cursor opened."""
        cursor = self.start.cursor
        return {
            "signed": False,
            "format": cursor.producer,
            "encoding": cursor.wrapping,
            "cursor_start_key": to_wire(self.start.start_key),
            "passed_over": self.passed_over,
            "pass_over_cost": self.cost.as_json() if self.cost else None,
            "start_key": self.key_json,
            "note": cursor.warning,
        }


def resolve_start(
    source: QuerySource, start: ForeignStart, cancel: CancelToken = NEVER
) -> ResolvedStart:
    """The start key of the cursor's position: its own key, or, when it points ``skip``
    items past it, the key of the last of those (read now, in fill pages)."""
    remaining = start.cursor.skip
    if not remaining:
        return ResolvedStart(start, start.start_key)
    key: Item | None = start.start_key
    cost: DynamoCost | None = None
    number = 0
    while remaining:
        number += 1
        spec = source.spec.with_(
            mode="fill", page_size=min(remaining, PAGE_SIZE_MAX), max_rounds=MAX_ROUNDS_LIMIT
        )
        page = read_page(
            source.client,
            spec,
            source.schema,
            key,
            number,
            selectivity=None,
            cancel=cancel,
            clock=source.clock,
        )
        cost = page.cost if cost is None else cost + page.cost
        remaining -= page.shown
        key = page.next_start_key
        if key is None:
            skip = start.cursor.skip
            held = "nothing follows them" if not remaining else f"only {skip - remaining:,} follow"
            raise ForeignCursorError(
                f"the {start.cursor.producer} points {skip:,} item(s) past its start key, and "
                f"{held} in this query: the data changed since it was made, or it belongs to "
                "another query"
            )
    return ResolvedStart(start, key, start.cursor.skip, cost)
