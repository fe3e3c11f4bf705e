"""The same query read another way (``m``: raw or fill mode; ``d``: direction): a new
cursor stack, since page boundaries differ between modes and a direction is fixed within
one paging session. A change the query cannot take says why and changes nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dynotui.core.errors import InputError
from dynotui.dynamodb.advice import Measurements
from dynotui.dynamodb.query_form import build_spec
from dynotui.ui.adapter import NewStack
from dynotui.ui.dynamodb.imagined_query import ImaginedQuery
from dynotui.ui.dynamodb.partiql import PartiQLQuery
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.dynamodb.segmented import SegmentClients, split_now, whole
from dynotui.ui.dynamodb.stacks import DynamoShown, DynamoStack, MakeQuery
from dynotui.ui.host import Host


def toggle_mode(
    host: Host,
    shown: DynamoShown,
    make: MakeQuery,
    segment_clients: SegmentClients,
    measurements: Measurements,
) -> DynamoStack | None:
    """``shown``'s query in the other mode, from where its stack began (a segment's view:
    a new segmented read, from the start)."""
    query = shown.query
    if isinstance(query, DynamoQuery):
        mode = "fill" if query.spec.mode == "raw" else "raw"
        if query.spec.segment is not None:  # a new segmented read, from the start
            shown = replace(shown, query=whole(query))
            new = restart_with(host, shown, make, "Mode", mode=mode)
            if new is None:
                return None
            return split_now(host, segment_clients, measurements, new)
        return restart_with(host, shown, make, "Mode", mode=mode)
    if isinstance(query, PartiQLQuery):
        partiql_has_no(host, "Mode")
    if isinstance(query, ImaginedQuery):
        imagined_has_no(host, "Mode")
    return None


def flip_direction(host: Host, shown: DynamoShown, make: MakeQuery) -> DynamoStack | None:
    """``shown``'s query read backwards, from the start."""
    query = shown.query
    if isinstance(query, DynamoQuery):
        if query.spec.scan:
            host.say("A Scan has no direction.", severity="warning")
            return None
        return restart_with(host, shown, make, "Direction", descending=not query.form.descending)
    if isinstance(query, PartiQLQuery):
        partiql_has_no(host, "Direction")
    if isinstance(query, ImaginedQuery):
        imagined_has_no(host, "Direction")
    return None


def restart_with(
    host: Host, shown: DynamoShown, make: MakeQuery, what: str, **changes: Any
) -> DynamoStack | None:
    """The same query with other options (mode, direction): a new stack, if valid."""
    query, pager = shown.query, shown.pager
    if pager is None or not isinstance(query, DynamoQuery):
        return None
    form = query.form.with_(**changes)
    try:
        spec = build_spec(query.schema, form)
    except InputError as exc:
        host.say(f"{exc} — nothing was changed.", title=what, severity="error")
        return None
    new = make(query.schema, form, spec)
    if "mode" in changes:
        # Page boundaries differ between modes: a new stack from where this one began.
        first = pager.first_number
        return NewStack(
            new,
            pager.start_key_of(first),
            note=f"{spec.mode} mode: a new cursor stack",
            origin=shown.origin,
            first_number=first,
        )
    order = "descending" if form.descending else "ascending"
    return NewStack(new, None, note=f"{order}: a new cursor stack from the start")


def imagined_has_no(host: Host, what: str) -> None:
    host.say(
        "An imagined index pages as the query it was estimated for: change that query "
        "and estimate again (W).",
        title=what,
        severity="warning",
    )


def partiql_has_no(host: Host, what: str) -> None:
    host.say(
        "A PartiQL statement pages one ExecuteStatement call per page, in the order its "
        "SELECT reads: no fill mode, no direction to flip.",
        title=what,
        severity="warning",
    )
