"""A DynamoDB query in the history file, and back: Query/Scan specs, the query form,
PartiQL statements, and the connection they were read through (no secrets).

Everything read back is checked as strictly as a user's input: the file is the user's
own, but anything may have edited it. The stored boundary is opened through the
source's ``key_from_json``, as a signed token's is, so it must fit the order's keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.history import (
    HistoryEntry,
    HistoryError,
    HistoryQuery,
    reopened_note,
)
from dynotui.core.pager import Pager
from dynotui.core.text import visible
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.dynamo_json import from_wire, to_wire
from dynotui.dynamodb.expressions import substitute
from dynotui.dynamodb.loopback import plain_reading
from dynotui.dynamodb.partiql import PartiQLSource, Statement
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import TableSchema, describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec

DATABASE = "dynamodb"
PARTIQL = "dynamodb-partiql"
LABEL_LENGTH = 160


def _endpoint(url: str | None) -> str | None:
    """The endpoint without any user:password in it, rebuilt from urllib3's parse."""
    if not url:
        return None
    plain = plain_reading(url)
    if plain is not None:  # rebuilt as urllib3 would, without loading it (see loopback)
        scheme, host, port = plain
        at = "" if port is None else f":{port}"
        return f"{scheme}://{host}{at}{'/' if url.endswith('/') else ''}"
    from urllib3.util import Url, parse_url

    try:
        parts = parse_url(url)
    except ValueError:
        return None  # not a URL: nothing worth keeping, and nothing to leak
    return Url(scheme=parts.scheme, host=parts.host, port=parts.port, path=parts.path).url or None


def connection_record(options: ConnectionOptions) -> dict[str, Any]:
    """Profile, region, endpoint and timeouts: never a key (boto3 finds those again). The
    demo's own DynamoDB Local is recorded as the demo, without its port: every demo
    listens on a new one, and the next demo reopens the entry on its own."""
    record = {
        "profile": options.profile,
        "region": options.region,
        "endpoint_url": None if options.is_demo else _endpoint(options.endpoint_url),
        "connect_timeout": options.connect_timeout,
        "read_timeout": options.read_timeout,
        "max_attempts": options.max_attempts,
    }
    if options.is_demo:
        record["demo"] = True
    return record


def read_on_demo(entry: HistoryEntry) -> bool:
    """True when the entry was read on a demo's own DynamoDB Local."""
    return entry.connection.get("demo") is True


def _text_or_none(data: Mapping[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise HistoryError(f"the history entry's {name} is not text")
    return value


def _of_type(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise HistoryError(f"the history entry's {name} is missing or of the wrong type")
    return value


def connection_from_record(data: Mapping[str, Any]) -> ConnectionOptions:
    return ConnectionOptions(
        profile=_text_or_none(data, "profile"),
        region=_text_or_none(data, "region"),
        endpoint_url=_text_or_none(data, "endpoint_url"),
        connect_timeout=float(_of_type(data, "connect_timeout", (int, float))),
        read_timeout=float(_of_type(data, "read_timeout", (int, float))),
        max_attempts=_of_type(data, "max_attempts", int),
    )


def spec_record(spec: QuerySpec) -> dict[str, Any]:
    return {
        "table": spec.table,
        "index": spec.index,
        "scan": spec.scan,
        "key_condition": spec.key_condition,
        "filter": spec.filter,
        "projection": spec.projection,
        "names": dict(spec.names),
        "values": to_wire(dict(spec.values)),
        "forward": spec.forward,
        "page_size": spec.page_size,
        "mode": spec.mode,
        "max_rounds": spec.max_rounds,
        "consistent_read": spec.consistent_read,
        "typed": {field: list(pair) for field, pair in spec.typed.items()},
    }


def spec_from_record(data: Mapping[str, Any]) -> QuerySpec:
    names = _of_type(data, "names", dict)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in names.items()):
        raise HistoryError("the history entry's attribute names are not text")
    typed = _of_type(data, "typed", dict)
    if not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)
        for pair in typed.values()
    ):
        raise HistoryError("the history entry's typed expressions are not text")
    mode = _of_type(data, "mode", str)
    if mode not in ("raw", "fill"):
        raise HistoryError(f"the history entry's mode {mode!r} is not raw or fill")
    try:
        values = from_wire(_of_type(data, "values", dict), "the history entry's values")
    except InputError as exc:
        raise HistoryError(str(exc)) from None
    spec = QuerySpec(
        table=_of_type(data, "table", str),
        index=_text_or_none(data, "index"),
        scan=_of_type(data, "scan", bool),
        key_condition=_text_or_none(data, "key_condition"),
        filter=_text_or_none(data, "filter"),
        projection=_text_or_none(data, "projection"),
        names=names,
        values=values,
        forward=_of_type(data, "forward", bool),
        page_size=_of_type(data, "page_size", int),
        mode=mode,
        max_rounds=_of_type(data, "max_rounds", int),
        consistent_read=_of_type(data, "consistent_read", bool),
        typed={field: (pair[0], pair[1]) for field, pair in typed.items()},
    )
    spec.check_options()  # what the schema does not decide is refused here
    return spec


def form_record(form: QueryForm) -> dict[str, Any]:
    return {f.name: getattr(form, f.name) for f in fields(QueryForm)}


def form_from_record(data: Mapping[str, Any]) -> QueryForm:
    values: dict[str, Any] = {}
    for f in fields(QueryForm):
        default = getattr(QueryForm(), f.name)
        value = data.get(f.name, default)
        if type(value) is not type(default):
            raise HistoryError(f"the history entry's form field {f.name} is of the wrong type")
        values[f.name] = value
    return QueryForm(**values)


def statement_record(statement: Statement) -> dict[str, Any]:
    return {
        "text": statement.text,
        "parameters": [to_wire({"v": p})["v"] for p in statement.parameters],
        "page_size": statement.page_size,
        "consistent_read": statement.consistent_read,
    }


def statement_from_record(data: Mapping[str, Any]) -> Statement:
    raw = _of_type(data, "parameters", list)
    try:
        wrapped = from_wire({str(i): v for i, v in enumerate(raw)}, "the history parameters")
    except InputError as exc:
        raise HistoryError(str(exc)) from None
    statement = Statement(
        _of_type(data, "text", str),
        tuple(wrapped[str(i)] for i in range(len(raw))),
        _of_type(data, "page_size", int),
        _of_type(data, "consistent_read", bool),
    )
    statement.check()
    return statement


def _short(text: str) -> str:
    text = visible(" ".join(text.split()))
    return text if len(text) <= LABEL_LENGTH else text[: LABEL_LENGTH - 1] + "…"


def spec_label(spec: QuerySpec) -> str:
    """``orders / by_status · Query status = 'RETURNED' · filter total > 500 · fill``: names
    and values in place, as the query line says them."""
    values = {}
    for name, value in spec.values.items():
        ((kind, inner),) = to_wire({"v": value})["v"].items()
        values[name] = repr(inner) if kind == "S" else str(inner)

    def resolved(text: str) -> str:
        return substitute(text, spec.names, values)

    where = spec.table + (f" / {spec.index}" if spec.index else "")
    parts = [where, "Scan" if spec.scan else f"Query {resolved(spec.key_condition or '')}"]
    if spec.filter:
        parts.append(f"filter {resolved(spec.filter)}")
    if not spec.forward and not spec.scan:
        parts.append("descending")
    parts.append(f"{spec.mode} · {spec.page_size}/page")
    return _short(" · ".join(parts))


def query_entry(
    spec: QuerySpec, connection: ConnectionOptions, form: QueryForm | None = None
) -> HistoryQuery:
    """The history record of a Query or Scan opened (with the form it came from, if any)."""
    query: dict[str, Any] = {"spec": spec_record(spec)}
    if form is not None:
        query["form"] = form_record(form)
    return HistoryQuery(DATABASE, connection_record(connection), query, spec_label(spec))


def statement_entry(statement: Statement, connection: ConnectionOptions) -> HistoryQuery:
    return HistoryQuery(
        PARTIQL,
        connection_record(connection),
        {"statement": statement_record(statement)},
        _short(f"PartiQL {statement.text}"),
    )


@dataclass(frozen=True)
class DynamoReopening:
    """What reopening a history entry needs: the connection, the query, the stored start
    key of the page last viewed (JSON, checked when the source reads it) and its number."""

    connection: ConnectionOptions
    spec: QuerySpec | None
    statement: Statement | None
    form: QueryForm | None
    start_json: Any
    page: int

    @property
    def note(self) -> str:
        return reopened_note(self.page, "start key", "the data may have changed")


def _query(entry: HistoryEntry) -> tuple[QuerySpec | None, Statement | None, QueryForm | None]:
    if entry.database not in (DATABASE, PARTIQL):
        raise HistoryError(f"the history entry is a {entry.database} query, not DynamoDB's")
    spec = statement = form = None
    try:
        if entry.database == PARTIQL:
            statement = statement_from_record(_of_type(entry.query, "statement", dict))
        else:
            spec = spec_from_record(_of_type(entry.query, "spec", dict))
            if "form" in entry.query:
                form = form_from_record(_of_type(entry.query, "form", dict))
    except HistoryError:
        raise
    except InputError as exc:
        raise HistoryError(f"the history entry holds a query dynotui refuses: {exc}") from None
    return spec, statement, form


def check_query(entry: HistoryEntry) -> None:
    """HistoryError if the entry's query is not one dynotui would open (before anything
    is started to open it on)."""
    _query(entry)


def reopen(entry: HistoryEntry, current: ConnectionOptions | None = None) -> DynamoReopening:
    """The query an entry holds, checked; HistoryError if it is not a DynamoDB entry. An
    entry read on a demo reopens on the demo running now (``current``), and only there."""
    spec, statement, form = _query(entry)
    if not read_on_demo(entry):
        connection = connection_from_record(entry.connection)
    elif current is not None and current.is_demo:
        connection = current
    else:
        raise HistoryError(
            "this query was read on the demo's DynamoDB Local: reopen it in 'dynotui demo' "
            "(h), or with 'dynotui --resume', which starts the demo for it"
        )
    return DynamoReopening(connection, spec, statement, form, entry.boundary, entry.page)


def reopened_pager(
    reopening: DynamoReopening, client: Any, schema: TableSchema | None = None
) -> Pager:
    """A pager whose page 1 is the entry's page, read again from its stored start key."""
    source: QuerySource | PartiQLSource
    if reopening.statement is not None:
        source = PartiQLSource(client, reopening.statement, schema)
    else:
        assert reopening.spec is not None
        schema = schema or describe_table(client, reopening.spec.table)
        source = QuerySource(client, reopening.spec, schema)
    start = None if reopening.start_json is None else source.key_from_json(reopening.start_json)
    return Pager(source, start_key=start, first_number=max(reopening.page, 1))
