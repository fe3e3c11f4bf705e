"""An export as a paging source: a Query (or Scan) of the export, in the key order of the
table or an index, both directions, with the pager's cursors and stack.

The first page reads the export once (every line, checked against the manifests) and
keeps the matching items with their keys in comparable form, in DuckDB: numbers as exact
keys (``dyn_nkey``), strings by UTF-8 bytes, binary as unsigned bytes. Each page after is
a keyset seek in that: the keys after the last item shown, in order, page size + 1 (the
extra one proves a next page). A page's boundary is a DynamoDB-shaped key (index keys,
then table keys), as ExclusiveStartKey would be, so tokens and start keys read alike.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dynotui.core import json_input
from dynotui.core.advisor import NoAdvice
from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError
from dynotui.core.page import EndedBy, HasNext, Page
from dynotui.dynamodb.condition import canonical, conjuncts
from dynotui.dynamodb.dynamo_json import MAX_NESTING, Item, from_wire, to_wire
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.source import start_key_from_json
from dynotui.dynamodb.spec import QuerySpec
from dynotui.table_export.cache import ATTACHED as COPY
from dynotui.table_export.key_check import check_items, key_attributes, problem_sql
from dynotui.table_export.order_keys import open_order, order_digest
from dynotui.table_export.predicate import Params, pointer
from dynotui.table_export.query import membership, where
from dynotui.table_export.reading import ITEM, OpenExport

_tables = iter(range(1, 1 << 62))
_tables_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class ExportCost:
    """What a page of an export cost: no read units; the export's items and bytes read
    for it (the first page reads the whole export; later pages read none of it)."""

    items_read: int = 0  # the export's items read for this page (the first: all)
    matched: int = 0
    bytes_read: int = 0
    latency_ms: float = 0.0
    requests: int = 0  # no call to DynamoDB
    retries: int = 0
    # Not a billed read: the measures of waste (Count against ScannedCount) do not apply.
    read: int | None = None

    unit = "RCU"
    estimated = False  # read from the export: measured, never modelled

    @property
    def headline(self) -> float | None:
        return 0.0

    @property
    def server_ms(self) -> float | None:
        return None

    def fields(self) -> list[tuple[str, str]]:
        # A later page seeks in what the first page read: "0" alone looked like a fault.
        read = f"{self.bytes_read:,}" if self.bytes_read else "0 (kept from page 1)"
        return [("Read units", "0 (an export)"), ("Bytes read", read)]

    def warnings(self) -> list[str]:
        return []

    def as_json(self) -> dict[str, Any]:
        return {
            "read_units": 0,
            "bytes_read": self.bytes_read,
            "count": self.matched,
            "items_read": self.items_read,
            "latency_ms": round(self.latency_ms, 3),
        }

    def __add__(self, other: ExportCost) -> ExportCost:
        return ExportCost(
            self.items_read + other.items_read,
            self.matched + other.matched,
            self.bytes_read + other.bytes_read,
            self.latency_ms + other.latency_ms,
        )


def _comparable(kind: str, value: str) -> str:
    """SQL turning a key's text (bound or extracted) into its DynamoDB order."""
    if kind == "N":
        return f"dyn_nkey({value})"
    if kind == "B":
        return f"from_base64({value})"
    return value


class ExportSource:
    """One Query or Scan of one export, validated against the key schema."""

    def __init__(
        self,
        opened: OpenExport,
        spec: QuerySpec,
        schema: TableSchema,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        params = Params()
        self.predicate = where(spec, schema, params)
        self.params = params
        self.opened = opened
        self.spec = spec
        self.schema = schema
        self.clock = clock
        self.order = schema.order(spec.index)
        self.key_names = schema.cursor_key_names(spec.index)
        self.key_types = [schema.attribute_type(name) or "S" for name in self.key_names]
        self.table: str | None = None
        self.by_row = False  # the table holds rows of the export's copy, not its items
        self.projected = self._projected()

    def _projected(self) -> Callable[[str], bool]:
        wanted = set(self.spec.projected_names())
        if self.spec.projection and any(
            ch in p for p in self.spec.projection.split(",") for ch in ".["
        ):
            raise InputError(
                "an export's pages project top-level attributes: drop the nested paths from "
                "--projection-expression"
            )
        keys = self.schema.table_key_names
        order = self.order
        if order.kind == "gsi":
            holds: Callable[[str], bool] = lambda name: order.projects(name, keys)  # noqa: E731
        else:
            holds = lambda name: True  # noqa: E731
        if not wanted:
            return holds
        wanted.update(self.key_names)
        return lambda name: name in wanted and holds(name)

    # -- the protocol ---------------------------------------------------------------------

    def scope(self) -> str:
        return canonical(
            {
                "source": "export",
                "export": self.opened.export.export_arn,
                "query": json.loads(self.spec.scope()),
            }
        )

    def key_to_json(self, key: Any) -> Any:
        return to_wire(key)

    def key_from_json(self, data: Any) -> Any:
        return start_key_from_json(data, self.schema, self.spec.index)

    def advisor(self) -> NoAdvice:
        return NoAdvice()

    def with_client(self, client: Any) -> ExportSource:
        return self  # an export is read with DuckDB, not through a DynamoDB client

    def read_page(
        self, start_key: Any, number: int, *, selectivity: float | None, cancel: CancelToken
    ) -> Page[ExportCost]:
        cancel.check()
        began = self.clock()
        with self.opened.lock:  # one DuckDB connection: one statement at a time
            read, bytes_read = self._materialize()
            cancel.check(ExportCost(read, 0, bytes_read, (self.clock() - began) * 1000))
            rows = self._seek(start_key)
        items = [self._item(doc) for (doc,) in rows]
        size = self.spec.page_size
        shown = items[:size]
        more = len(items) > size
        next_key = {n: shown[-1][n] for n in self.key_names} if more else None
        cost = ExportCost(read, len(shown), bytes_read, (self.clock() - began) * 1000)
        return Page(
            number=number,
            mode="export",
            start_key=start_key,
            items=shown,
            shown=len(shown),
            next_start_key=next_key,
            has_next=HasNext.YES if more else HasNext.NO,
            ended_by=EndedBy.PAGE_SIZE if more else EndedBy.END,
            cost=cost,
            extra={
                "export_time": self.opened.export.export_time.isoformat(),
                "bytes_read": bytes_read,
            },
        )

    # -- reading --------------------------------------------------------------------------

    def _key_sql(self, params: Params) -> list[str]:
        return [
            _comparable(
                kind, f"json_extract_string(doc, {params.bind(pointer([name]) + '/' + kind)})"
            )
            for name, kind in zip(self.key_names, self.key_types, strict=True)
        ]

    def _materialize(self) -> tuple[int, int]:
        """Read the export once: (items read, bytes read) the first time, (0, 0) after."""
        if self.table is not None:
            return 0, 0
        with _tables_lock:
            name = f"export_query_{next(_tables)}"
        relation = self.opened.lines() if self.opened.export.files else ""
        if self.opened.copy is not None:
            # Every line of a copy is an item, counted when it was made; the order's keys
            # are kept beside it: a Query reads its partition's rows alone.
            keys_of = self._order_keys()
            params = Params(dict(self.params.values))
            within = self._partition_bound(params)
            names = ", ".join(f"o.k{i}" for i in range(len(self.key_names)))
            # The matches' keys and rows, no item: a page's items are fetched by row
            # (_seek); with no condition (a Scan, no filter) no item is read at all.
            matched = (
                ""
                if self.predicate == "true"
                else f" JOIN {COPY}.items i ON i.rowid = o.r "
                f"WHERE coalesce({self.predicate}, false)"
            )
            self.opened.query(
                f"CREATE TEMP TABLE {name} AS SELECT {names}, o.r "
                f"FROM (SELECT * FROM {keys_of}.keys{within}) o{matched}",
                params.values,
            )
            self.by_row = True
            items = self.opened.copy.record.items
            self.opened.check_lines(items, items)
            self.table = name
            return items, self.opened.data_bytes()
        params = Params(dict(self.params.values))
        keys = self._key_sql(params)
        columns = ", ".join(f"{sql} AS k{i}" for i, sql in enumerate(keys))
        names = ", ".join(f"k{i}" for i in range(len(keys)))
        problem = problem_sql(self.schema, params)
        try:
            if self.opened.export.files:
                # Each item's disagreement with the key schema (NULL: none), and its file.
                self.opened.query(
                    f"CREATE TEMP TABLE {name} AS SELECT is_item, keep, {names}, doc, problem, "
                    "CASE WHEN problem IS NOT NULL THEN filename END AS file FROM ("
                    f"SELECT {ITEM} AS is_item, coalesce({ITEM} AND {self.predicate}, false) "
                    f"AS keep, {columns}, doc, CASE WHEN {ITEM} THEN {problem} END AS problem, "
                    f"filename FROM {relation})",
                    params.values,
                )
                counts = self.opened.engine.execute(
                    f"SELECT count(*), count(*) FILTER (WHERE is_item) FROM {name}"
                ).fetchone()
                assert counts is not None
                lines, items = int(counts[0]), int(counts[1])
            else:
                self.opened.engine.execute(
                    f"CREATE TEMP TABLE {name} (is_item BOOLEAN, keep BOOLEAN, "
                    + "".join(f"k{i} VARCHAR, " for i in range(len(keys)))
                    + "doc JSON, problem VARCHAR, file VARCHAR)"
                )
                lines = items = 0
            self.opened.check_lines(lines, items)
            check_items(self.opened.engine, name, self._table_key_columns())
            self.opened.engine.execute(f"DELETE FROM {name} WHERE NOT keep")
        except BaseException:
            # Refused or stopped: nothing of it is kept (the next read starts again).
            self.opened.engine.execute(f"DROP TABLE IF EXISTS {name}")
            raise
        self.table = name
        return items, self.opened.data_bytes()

    def _table_key_columns(self) -> list[str]:
        return [f"k{i}" for i, n in enumerate(self.key_names) if n in self.schema.table_key_names]

    def _order_keys(self) -> str:
        """The schema of this order's keys kept beside the copy (order_keys.py); the
        copy's items are checked against the key schema before they are first kept."""
        assert self.opened.copy is not None
        params = Params()
        member = membership(self.order, params)
        keys = self._key_sql(params)
        shape = [self.order.kind] + [
            f"{key.name}:{key.type}"
            for key in (self.order.partition_key, self.order.sort_key)
            if key is not None
        ]
        # The check is the whole key schema's: keys kept under another schema are not these.
        checked = [f"{key.name}:{key.type}:{index}" for key, index in key_attributes(self.schema)]
        digest = order_digest(list(self.key_names), self.key_types, json.dumps([shape, checked]))
        return open_order(
            self.opened.engine,
            self.opened.copy,
            digest,
            keys,
            member,
            params.values,
            check=self._check_copy,
        )

    def _check_copy(self) -> None:
        """Every item of the copy against the key schema (``key_check.py``), as a read of
        the data files checks them; refused by name, and then no keys are kept."""
        assert self.opened.copy is not None
        with _tables_lock:
            name = f"export_check_{next(_tables)}"
        params = Params()
        problem = problem_sql(self.schema, params)
        keys = self._key_sql(params)
        columns = "".join(f", {sql} AS k{i}" for i, sql in enumerate(keys))
        names = "".join(f", k{i}" for i in range(len(keys)))
        try:
            self.opened.query(
                f"CREATE TEMP TABLE {name} AS SELECT true AS is_item, doc, problem, "
                f"CASE WHEN problem IS NOT NULL THEN filename END AS file{names} "
                f"FROM (SELECT doc, filename, {problem} AS problem{columns} "
                f"FROM {self.opened.copy.lines})",
                params.values,
            )
            check_items(self.opened.engine, name, self._table_key_columns())
        finally:
            self.opened.engine.execute(f"DROP TABLE IF EXISTS {name}")

    def _partition_bound(self, params: Params) -> str:
        """`` WHERE k0 = VALUE`` for a Query (its key condition's partition key value,
        which every Query has), else nothing: a Scan reads the whole order."""
        if self.spec.scan:
            return ""
        key_tree, _ = self.spec.trees()
        name = self.order.partition_key.name
        for node in conjuncts(key_tree):
            if node[0] != "compare" or node[1] != "=":
                continue
            for path, value in ((node[2], node[3]), (node[3], node[2])):
                if path == ["path", [name]] and value[0] == "value":
                    kind = self.key_types[0]
                    text = value[1].get(kind)
                    if isinstance(text, str):
                        return f" WHERE k0 = {_comparable(kind, params.bind(text))}"
        return ""

    def _seek(self, start_key: Item | None) -> list[Any]:
        forward = self.spec.forward or self.spec.scan
        direction = "ASC" if forward else "DESC"
        beyond = ">" if forward else "<"
        params = Params()
        condition = "true"
        if start_key is not None:
            bounds = []
            for name, kind in zip(self.key_names, self.key_types, strict=True):
                if name not in start_key:
                    raise InputError(f"the start key lacks {name!r}, a key of this order")
                value = start_key[name]
                text = base64.b64encode(bytes(value["B"])).decode() if kind == "B" else value[kind]
                bounds.append(_comparable(kind, params.bind(text)))
            ors = []
            for i, bound in enumerate(bounds):
                equal = [f"k{j} = {bounds[j]}" for j in range(i)]
                ors.append("(" + " AND ".join([*equal, f"k{i} {beyond} {bound}"]) + ")")
            condition = "(" + " OR ".join(ors) + ")"
        ordering = ", ".join(f"k{i} {direction}" for i in range(len(self.key_names)))
        shown = "r" if self.by_row else "CAST(doc AS VARCHAR)"
        sql = (
            f"SELECT {shown} FROM {self.table} WHERE {condition} "
            f"ORDER BY {ordering} LIMIT {int(self.spec.page_size) + 1}"
        )
        rows = list(self.opened.engine.execute(sql, params.values or None).fetchall())
        if not self.by_row or not rows:
            return rows
        wanted = [int(r) for (r,) in rows]
        found = dict(
            self.opened.engine.execute(
                f"SELECT rowid, CAST(doc AS VARCHAR) FROM {COPY}.items "
                "WHERE rowid IN (SELECT unnest($rows))",
                {"rows": wanted},
            ).fetchall()
        )
        return [(found[r],) for r in wanted]

    def _item(self, doc: str) -> Item:
        try:
            # DynamoDB nests at most MAX_NESTING lists or maps (two JSON levels each, in
            # {"Item": {NAME: ...}}): deeper is no item, and no RecursionError here.
            line = json_input.loads(doc, "an item of the export", max_depth=2 * MAX_NESTING + 3)
            item = from_wire(line["Item"], "an item of the export")
        except json_input.TooDeep:
            raise InputError(
                f"an item of the export nests more than {MAX_NESTING} lists or maps, which "
                "DynamoDB refuses: not an export of a DynamoDB table"
            ) from None
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"an item of the export is not DynamoDB JSON: {exc}") from None
        return {name: value for name, value in item.items() if self.projected(name)}
