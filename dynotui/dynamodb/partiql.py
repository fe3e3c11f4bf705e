"""PartiQL SELECT statements as a paging source: ExecuteStatement with Limit and NextToken.

The cursor stack holds NextTokens exactly as it holds start keys. Only SELECT is
accepted, before any call, and what is sent is the statement rebuilt from the tokens
that were checked (``partiql_grammar``): dynotui never writes. ExecuteStatement reports no
ScannedCount, and DynamoDB Local reports no consumed capacity for it (the service
does): "not reported", never 0.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from dynotui.core import json_input
from dynotui.core.advisor import Finding
from dynotui.core.cancel import CancelToken
from dynotui.core.cursor import CursorError
from dynotui.core.errors import InputError
from dynotui.core.page import EndedBy, HasNext, Page
from dynotui.core.pager import Pager
from dynotui.core.text import plural
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.dynamo_json import AttributeValue, Item, from_wire, to_wire
from dynotui.dynamodb.partiql_grammar import Select, parse_select
from dynotui.dynamodb.reader import Clock, call
from dynotui.dynamodb.schema import SortOrder, TableSchema, describe_table
from dynotui.dynamodb.spec import PAGE_SIZE_MAX

MAX_NEXT_TOKEN = 12_000


@dataclass(frozen=True)
class Statement:
    """One PartiQL SELECT with positional parameters (``?``), checked before any call.

    ``text`` is the statement rebuilt from its checked tokens (comments dropped, one
    canonical spelling): it is what is sent, shown, signed and put in generated code.
    A statement outside dynotui's SELECT grammar cannot be made at all.
    """

    text: str
    parameters: tuple[AttributeValue, ...] = ()
    page_size: int = 25
    consistent_read: bool = False
    parsed: Select = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parsed = parse_select(self.text)
        object.__setattr__(self, "parsed", parsed)
        object.__setattr__(self, "text", parsed.text)

    def check(self) -> None:
        wanted = self.parsed.placeholders
        if wanted != len(self.parameters):
            raise InputError(
                f"the statement has {wanted} ? placeholder(s) but {len(self.parameters)} "
                "parameter(s) were given"
            )
        if not 1 <= self.page_size <= PAGE_SIZE_MAX:
            raise InputError(f"page size must be 1 to {PAGE_SIZE_MAX}, got {self.page_size}")

    def check_consistency(self, schema: TableSchema) -> None:
        """A strongly consistent read of a GSI is refused before it is sent, as a Query's
        is (``schema`` is the table's after FROM)."""
        table, index = self.target()
        if not self.consistent_read or table != schema.name:
            return
        try:
            refusal = schema.order(index).consistent_read_refusal()
        except InputError:
            return  # an index the table lacks: DynamoDB's own words say so
        if refusal:
            raise InputError(refusal)

    def target(self) -> tuple[str, str | None]:
        """The table (and index) after FROM."""
        return self.parsed.table, self.parsed.index

    def selected(self) -> list[str] | None:
        """The top-level attributes the SELECT list names (None for SELECT *)."""
        columns = self.parsed.columns
        if columns is None:
            return None
        return list(dict.fromkeys(path.name for path in columns))

    def equalities(self) -> set[str]:
        """Attributes the WHERE clause pins with = or IN through its top-level ANDs."""
        return set(self.parsed.equalities)

    def scope(self) -> str:
        return json.dumps(
            {
                "source": "dynamodb-partiql",
                "statement": self.text,
                "parameters": [to_wire({"v": p})["v"] for p in self.parameters],
                "consistent": self.consistent_read,
            },
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )

    def request(self, next_token: str | None, limit: int) -> dict[str, Any]:
        params: dict[str, Any] = {
            "Statement": self.text,
            "Limit": limit,
            "ReturnConsumedCapacity": "INDEXES",
        }
        if self.parameters:
            params["Parameters"] = list(self.parameters)
        if self.consistent_read:
            params["ConsistentRead"] = True
        if next_token:
            params["NextToken"] = next_token
        return params


def parse_parameters(text: str | None) -> tuple[AttributeValue, ...]:
    """``[{"S": "a"}, {"N": "1"}]``: positional parameters in DynamoDB JSON."""
    if not text or not text.strip():
        return ()
    data = json_input.loads(text, "the parameters")
    if not isinstance(data, list):
        raise InputError('the parameters are a JSON list in DynamoDB JSON: [{"S": "acme"}]')
    wrapped = from_wire({str(i): v for i, v in enumerate(data)}, "parameters")
    return tuple(wrapped[str(i)] for i in range(len(data)))


def pins_partition(statement: Statement, order: SortOrder) -> bool:
    """True when the WHERE clause pins ``order``'s partition key with = or IN: DynamoDB
    runs the statement as a Query; otherwise as a full Scan."""
    return order.partition_key.name in statement.equalities()


def runs_as_scan(statement: Statement, schema: TableSchema) -> bool:
    """Whether DynamoDB runs ``statement`` (on ``schema``'s table) as a full Scan."""
    table, index = statement.target()
    if table != schema.name:
        raise InputError(f"the statement reads '{table}', not '{schema.name}'")
    return not pins_partition(statement, schema.order(index))


class PartiQLAdvisor:
    """A statement with no key condition is a full Scan; say so, and what would serve it."""

    def __init__(self, statement: Statement, schema: TableSchema | None) -> None:
        self.statement = statement
        self.schema = schema
        self.returned = 0
        self.capacity: float | None = None
        self.requests = 0

    def add(self, page: Page[DynamoCost]) -> None:
        self.returned += page.shown
        self.requests += page.cost.requests
        if page.cost.capacity is not None:
            self.capacity = (self.capacity or 0.0) + page.cost.capacity.total

    def _order(self) -> SortOrder | None:
        if self.schema is None:
            return None
        table, index = self.statement.target()
        if table != self.schema.name:
            return None
        try:
            return self.schema.order(index)
        except InputError:
            return None

    def findings(self) -> list[Finding]:
        found: list[Finding] = []
        if self.capacity is not None and self.returned:
            found.append(
                Finding(
                    "partiql-cost",
                    f"{self.capacity / self.returned:.3g} RCU per returned item over "
                    f"{plural(self.returned, 'item')} (ExecuteStatement reports no ScannedCount).",
                )
            )
        order = self._order()
        if order is None or self.schema is None:
            return found
        if pins_partition(self.statement, order):
            return found
        tested = self.statement.equalities()
        where = f"{order.kind.upper()} `{order.name}`" if order.kind != "table" else "the table"
        found.append(
            Finding(
                "partiql-scan",
                f"No = or IN condition on `{order.partition_key.name}`, the partition key of "
                f"{where}: DynamoDB runs this statement as a full Scan "
                f"({self.requests} call(s) so far).",
            )
        )
        for other in self.schema.orders:
            if other.partition_key.name in tested:
                name = (
                    "the table" if other.kind == "table" else f'"{self.schema.name}"."{other.name}"'
                )
                found.append(
                    Finding(
                        "partiql-index",
                        f"`{other.partition_key.name}` is tested with =, and it is the partition "
                        f"key of {other.kind.upper() if other.kind != 'table' else 'the table'}"
                        f"{'' if other.kind == 'table' else ' `' + other.name + '`'}: "
                        f"SELECT ... FROM {name} WHERE {other.partition_key.name} = ? is a Query.",
                    )
                )
        return found


class PartiQLSource:
    def __init__(
        self,
        client: Any,
        statement: Statement,
        schema: TableSchema | None = None,
        *,
        clock: Clock = time.perf_counter,
    ) -> None:
        statement.check()  # refuse before any call
        self.client = client
        self.statement = statement
        self.schema = schema
        self.clock = clock

    def scope(self) -> str:
        return self.statement.scope()

    def read_page(
        self,
        start_key: str | None,
        number: int,
        *,
        selectivity: float | None,
        cancel: CancelToken,
    ) -> Page[DynamoCost, str, Item]:
        limit = self.statement.page_size
        table = self.statement.target()[0]
        response, made = call(
            self.client,
            "execute_statement",
            self.statement.request(start_key, limit),
            limit,
            cancel,
            [],
            self.clock,
            table,
        )
        items = response.get("Items", [])
        token = response.get("NextToken")
        return Page(
            number=number,
            mode="raw",
            start_key=start_key,
            items=items,
            shown=len(items),
            next_start_key=token,
            has_next=HasNext.UNKNOWN if token else HasNext.NO,
            ended_by=EndedBy.LIMIT if token else EndedBy.END,
            cost=DynamoCost.of((made,)),
            extra={"next_token": token},
        )

    def key_to_json(self, key: str) -> Any:
        return key

    def key_from_json(self, data: Any) -> str:
        if not isinstance(data, str) or not data or len(data) > MAX_NEXT_TOKEN:
            raise CursorError(
                "malformed",
                "the cursor holds no ExecuteStatement NextToken (it is for another read)",
            )
        return data

    def advisor(self) -> PartiQLAdvisor:
        return PartiQLAdvisor(self.statement, self.schema)

    def with_client(self, client: Any) -> PartiQLSource:
        return PartiQLSource(client, self.statement, self.schema, clock=self.clock)


def partiql_pager(
    client: Any,
    statement: Statement,
    schema: TableSchema | None = None,
    *,
    start_key: str | None = None,
    cache_pages: int = 20,
) -> Pager[str, Item, DynamoCost]:
    return Pager(
        PartiQLSource(client, statement, schema), start_key=start_key, cache_pages=cache_pages
    )


def check_consistent_read(client: Any, statement: Statement) -> None:
    """Before any read: a strongly consistent read of an index is checked against the
    table's schema (DescribeTable tells a GSI from an LSI)."""
    table, index = statement.target()
    if statement.consistent_read and index is not None:
        statement.check_consistency(describe_table(client, table))


def statement_from(
    text: str, parameters: str | None, page_size: int, consistent_read: bool = False
) -> Statement:
    statement = Statement(text, parse_parameters(parameters), page_size, consistent_read)
    statement.check()
    return statement
