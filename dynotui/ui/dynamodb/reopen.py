"""A history entry reopened as a new stack: its table described again, its query rebuilt
(a Query, a Scan or a PartiQL statement), numbered from the page it was left on and that
page re-read from its stored start key (checked as the source checks any)."""

from __future__ import annotations

from typing import Any

from dynotui.core.history import HistoryQuery
from dynotui.dynamodb import history_entry
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import BASE, TableSchema, describe_table
from dynotui.ui.adapter import NewStack
from dynotui.ui.dynamodb.partiql import PartiQLQuery
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.dynamodb.stacks import (
    DynamoAnswer,
    DynamoDBQuery,
    DynamoQueryShown,
    DynamoStack,
    MakeQuery,
)
from dynotui.ui.host import Host


def history_query(query: DynamoQueryShown, options: ConnectionOptions) -> HistoryQuery | None:
    """What the history keeps of a query shown (None: one it does not keep)."""
    if isinstance(query, DynamoQuery):
        return history_entry.query_entry(query.spec, options, query.form)
    if isinstance(query, PartiQLQuery):
        return history_entry.statement_entry(query.statement, options)
    return None


def table_of(reopening: history_entry.DynamoReopening) -> str:
    """The table the entry reads (a PartiQL statement's, from its FROM)."""
    spec, statement = reopening.spec, reopening.statement
    return spec.table if spec is not None else statement.target()[0] if statement else ""


def connect_for(options: ConnectionOptions, table: str) -> Any:
    """The entry's own connection, as E would make it: a client once the table answers
    (an error leaves the old connection in place)."""
    client = make_client(options)
    describe_table(client, table)
    return client


def reopen_on(
    host: Host,
    client: Any,
    reopening: history_entry.DynamoReopening,
    make: MakeQuery,
    answer: DynamoAnswer,
) -> None:
    """The entry's table described through ``client``, then its stack answered."""
    spec, statement = reopening.spec, reopening.statement
    table = table_of(reopening)

    def described(schema: TableSchema) -> None:
        query: DynamoDBQuery
        form = reopening.form or QueryForm(order=spec.index or BASE if spec else BASE)
        if spec is not None:
            query = make(schema, form, spec)
        else:
            assert statement is not None
            query = PartiQLQuery(schema, form, statement)
        answer(reopened(query, reopening))

    host.open_table(
        table,
        lambda: describe_table(client, table),
        described,
        lambda error: host.fail(error, "History"),
    )


def reopened(query: DynamoQueryShown, reopening: history_entry.DynamoReopening) -> DynamoStack:
    """A history entry's query as a new stack: numbered from the page it was left on, that
    page re-read from its stored start key (checked as the source checks any)."""
    page = max(reopening.page, 1)
    return NewStack(
        query,
        note=reopening.note,
        origin=f"reopened from history at page {page}",
        first_number=page,
        key_json=reopening.start_json,
    )
