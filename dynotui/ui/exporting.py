"""``X``: the export dialog for the active view, built from what the view shows. Pages are
read again by a stack of their own made from the view's query (a new source on the view's
client), billed to the session as any page; the view's stack is left as it was."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError
from dynotui.core.export_file import ExportResult, fresh_pages
from dynotui.core.page import Page
from dynotui.ui.host import Host
from dynotui.ui.session import Session
from dynotui.ui.widgets.pager_view import PagerView


class Exporting(Host, Protocol):
    """What the export needs of the app beyond what an adapter may ask."""

    session: Session

    def refresh_costs(self) -> None: ...


def export_items(app: Exporting, view: PagerView, folder: Path) -> None:
    from dynotui.ui.screens.export_items import ExportItemsScreen, ExportJob

    state = view.state
    shown = state.pager.current if state is not None else None
    if state is None or shown is None:
        app.say("No page read yet: an export starts from a page.", severity="warning")
        return
    if state.segments is not None:
        app.say(
            "A parallel Scan is exported whole by dynotui pages --scan --segments N "
            "--format csv; here, open the Scan without segments.",
            severity="warning",
        )
        return
    query, pager = state.query, state.pager
    try:
        shape = query.export_shape()
    except InputError as exc:
        app.say(str(exc), title="Export", severity="warning")
        return
    client, session = view.client, app.session
    first = pager.first_number
    start = pager.start_key_of(first)

    def read(first_number: int, last: int | None, cancel: CancelToken) -> Iterable[Page[Any]]:
        source = query.make_source(client, session.clock)
        return fresh_pages(source, start, first_number, last, ledger=session.ledger, cancel=cancel)

    counted = session.counts.get(pager.scope)
    job = ExportJob(
        table=query.table,
        title=query.title(),
        shape=shape,
        page=shown,
        first_number=first,
        series=tuple(pager.series()),
        count_words=counted.summary() if counted is not None else None,
        folder=folder,
        read=read,
    )

    def finished(result: ExportResult) -> None:
        app.refresh_costs()  # what it read is in the session's ledger already
        if result.path is not None:
            app.say(f"Exported {result.items:,} items to {result.path}", title="Export", timeout=15)

    app.ask(ExportItemsScreen(job, app, finished), lambda _: None)
