"""The session's what-if estimates, the latest per query, and the flow that makes one: the
form (prefilled from the advisor's finding or this query's last what-if), the estimate on
its screen, then the imagined index beside the query in compare, its choice among the
orders, and its section in the report.

The DynamoDB adapter holds one ``WhatIfs`` and asks the app only through its ``Host``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dynotui.core.pager import Pager
from dynotui.core.text import visible
from dynotui.dynamodb.advice import DynamoAdvisor
from dynotui.ui.actions import Action
from dynotui.ui.dynamodb.imagined_query import ImaginedQuery
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.host import Host

if TYPE_CHECKING:
    # The what-if form, its run and its report load when a what-if is first asked for,
    # not with the app's start.
    from dynotui.dynamodb.codegen import CodeTarget
    from dynotui.dynamodb.what_if.rewrite import ImaginedIndex
    from dynotui.report.model import Estimated
    from dynotui.ui.dynamodb.what_if_form import WhatIfAsk
    from dynotui.ui.dynamodb.what_if_run import WhatIfBroken, WhatIfMade

WHAT_IF = Action(
    "W",
    "db('what_if')",
    "What if: an index",
    "Estimate an index that does not exist for this query: its reads, writes and storage, "
    "before it is made (the advisor's index finding prefills it)",
)
CHOICE = "what-if: "  # an order picker's value for an imagined index (no order name has ':')


@dataclass(frozen=True)
class Made:
    number: int  # the session's what-ifs in the order made
    ask: WhatIfAsk
    made: WhatIfMade
    query: ImaginedQuery


def index_words(index: ImaginedIndex) -> str:
    return index.partition_key + (f", {index.sort_key}" if index.sort_key else "")


def _suggested(pager: Pager | None) -> ImaginedIndex | None:
    """The index of the advisor's what-if finding on ``pager``'s pages, if it has one."""
    advisor = pager.advisor if pager is not None else None
    if not isinstance(advisor, DynamoAdvisor):
        return None
    if not any(f.kind == "index-what-if" for f in advisor.findings()):
        return None
    return advisor.suggested


class WhatIfs:
    def __init__(self) -> None:
        self._by_scope: dict[str, Made] = {}
        self._numbers = itertools.count(1)

    # -- making one --------------------------------------------------------------------------

    def start(
        self,
        host: Host,
        client: Any,
        query: DynamoQuery,
        prices: Any,
        target: Callable[[], CodeTarget],
        index: ImaginedIndex | None = None,
    ) -> None:
        """The form for ``query``; then the estimate on its screen."""
        from dynotui.dynamodb.what_if.suggest import suggested_index
        from dynotui.ui.dynamodb.what_if_form import WhatIfAsk, WhatIfForm
        from dynotui.ui.dynamodb.what_if_screen import WhatIfScreen

        earlier = self._by_scope.get(query.spec.scope())
        if index is not None:
            start: WhatIfAsk | None = WhatIfAsk(index)
        elif earlier is not None:
            start = earlier.ask
        else:
            found = suggested_index(query.spec, query.schema)
            start = WhatIfAsk(found) if found is not None else None

        def asked(ask: WhatIfAsk | None) -> None:
            if ask is None:
                return
            screen = WhatIfScreen(
                client,
                query,
                ask,
                prices,
                target(),
                finished=lambda result: self._finished(host, query, ask, result),
                copy=host.copy,
                clock=host.read_clock(),
            )
            host.ask(screen, closed(ask))

        def closed(ask: WhatIfAsk) -> Callable[[str | None], None]:
            def then(answer: str | None) -> None:
                made = self._by_scope.get(query.spec.scope())
                if answer == "compare" and made is not None:
                    host.compare(made.query)
                elif answer == "again":
                    self.start(host, client, query, prices, target, ask.index)

            return then

        host.ask(WhatIfForm(query.schema, query.spec, query.conditions_text(), start), asked)

    def _finished(
        self, host: Host, query: DynamoQuery, ask: WhatIfAsk, result: WhatIfMade | WhatIfBroken
    ) -> None:
        from dynotui.ui.dynamodb.what_if_run import WhatIfMade

        host.what_if_finished(result)
        if isinstance(result, WhatIfMade):
            imagined = ImaginedQuery(query, result.imagined, result.provisioned)
            self._by_scope[query.spec.scope()] = Made(next(self._numbers), ask, result, imagined)

    # -- what the rest of the app asks ------------------------------------------------------

    def imagined_for(self, query: object) -> ImaginedQuery | None:
        """The imagined index of ``query``'s latest what-if (None: none made)."""
        if not isinstance(query, DynamoQuery):
            return None
        made = self._by_scope.get(query.spec.scope())
        return made.query if made is not None else None

    def order_choices(self, table: str) -> list[tuple[str, str]]:
        """Every imagined index of the session on ``table``, as order picker choices."""
        found = sorted(
            (m for m in self._by_scope.values() if m.query.table == table),
            key=lambda m: -m.number,
        )
        return [
            (
                f"{CHOICE}{m.number}",
                f"{m.query.index_name} · imagined GSI ({index_words(m.ask.index)}): pages "
                f"estimated, nothing read · what-if for {m.query.base.conditions_text()}",
            )
            for m in found
        ]

    def chosen(self, value: str) -> ImaginedQuery | None:
        if not value.startswith(CHOICE):
            return None
        number = int(value[len(CHOICE) :])
        return next((m.query for m in self._by_scope.values() if m.number == number), None)

    def palette(self, query: object, pager: Pager | None) -> list[Action]:
        """W in the palette, named after the index the advisor's finding points at."""
        index = _suggested(pager) if isinstance(query, DynamoQuery) else None
        if index is None:
            return []
        return [WHAT_IF._replace(title=visible(f"What if: an index on {index_words(index)}"))]

    def report(
        self, pagers: Sequence[Pager], target: CodeTarget
    ) -> tuple[list[Pager], Estimated | None, list[str]]:
        """The pagers a report shows (an imagined side is estimated, not measured: its
        figures are the what-if section's), the latest what-if of their queries, notes."""
        from dynotui.dynamodb.what_if.imagined import EstimatedSource
        from dynotui.dynamodb.what_if.report_section import section

        measured = [p for p in pagers if not isinstance(p.source, EstimatedSource)]
        notes = []
        if len(measured) < len(pagers):
            notes.append(
                "The compare view's right side paged an imagined index: its figures are "
                "estimates, given in the what-if section, not a measured side."
            )
        scopes = {p.source.scope() for p in measured}
        latest = max(
            (m for scope, m in self._by_scope.items() if scope in scopes),
            key=lambda m: m.number,
            default=None,
        )
        if latest is None:
            return measured, None, notes
        return measured, section(latest.made.data, target, latest.made.provisioned), notes
