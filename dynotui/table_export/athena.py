"""The same question for a distributed engine: the command that makes an export, and Athena
SQL over it (CREATE EXTERNAL TABLE with the JSON SerDe, and the SELECT of the count).

The SELECT is written in the subset of SQL that Athena (Trino) and DuckDB share, so the
tests run it with DuckDB over the same export. It keeps DynamoDB's semantics as the
export reader does (types never mix, a missing attribute fails a comparison); numbers
compare as DECIMAL(38, s), with s the constants' own scale, and a second column counts the
items whose number that type cannot hold exactly, so an inexact count says so itself.
What it cannot write is refused by name: nested paths, binary, size(), sets but SS.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from dynotui.core.errors import InputError
from dynotui.dynamodb.condition import Tree, tested_names
from dynotui.dynamodb.spec import QuerySpec
from dynotui.table_export.manifest import Export

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
TAG_TYPES = {
    "s": "string",
    "n": "string",
    "b": "string",
    "bool": "boolean",
    "null": "boolean",
    "ss": "array<string>",
    "ns": "array<string>",
    "bs": "array<string>",
    "m": "string",  # a map or list as its JSON text: enough to say it is there
    "l": "string",
}
TAGS = tuple(TAG_TYPES)


def _refuse(what: str) -> InputError:
    return InputError(f"--code athena cannot write {what}: count it here instead")


def literal(text: str) -> str:
    """A SQL string literal (quotes doubled); text that would act on a terminal is refused."""
    if _CONTROL.search(text):
        raise _refuse("a value holding control or format characters")
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class AthenaCode:
    export_command: str
    create_table: str
    select: str
    table: str  # the external table's name

    def text(self) -> str:
        return (
            "# 1. Export the table (no read capacity; needs point-in-time recovery on):\n"
            f"{self.export_command}\n\n"
            "-- 2. In Athena: a table over the export's data files (DynamoDB JSON).\n"
            f"{self.create_table}\n\n"
            "-- 3. The question.\n"
            f"{self.select}\n"
        )


def number_scale(tree: Any) -> int:
    """The most digits after the point among the tree's number values (at most 38)."""
    if isinstance(tree, list) and tree and tree[0] == "value":
        ((kind, inner),) = tree[1].items()
        if kind != "N":
            return 0
        exponent = Decimal(inner).as_tuple().exponent
        return min(38, max(0, -exponent)) if isinstance(exponent, int) else 0
    if isinstance(tree, list):
        return max((number_scale(child) for child in tree), default=0)
    return 0


class _Writer:
    def __init__(self, scale: int) -> None:
        self.decimal = f"DECIMAL(38, {scale})"
        self.numbers: set[str] = set()  # attributes compared as numbers

    def column(self, name: str, tag: str) -> str:
        if tag == "n":
            self.numbers.add(name)
            return f"TRY_CAST(item.{name}.n AS {self.decimal})"
        return f"item.{name}.{tag}"

    def node(self, node: Tree) -> str:
        head = node[0]
        if head in ("and", "or"):
            return "(" + f" {head.upper()} ".join(self.node(c) for c in node[1]) + ")"
        if head == "not":
            return f"(NOT {self.node(node[1])})"
        if head == "compare":
            return self.compare(node[1], node[2], node[3])
        if head == "between":
            low = self.compare(">=", node[1], node[2])
            high = self.compare("<=", node[1], node[3])
            return f"({low} AND {high})"
        if head == "in":
            return "(" + " OR ".join(self.compare("=", node[1], o) for o in node[2]) + ")"
        if head == "function":
            return self.function(node[1], node[2])
        raise _refuse(f"the condition {head!r}")

    def name(self, node: Tree) -> str:
        if node[0] != "path" or len(node[1]) != 1:
            raise _refuse("a nested path or size()" if node[0] != "value" else "two values")
        return str(node[1][0]).lower()

    def value(self, node: Tree) -> tuple[str, str]:
        ((kind, inner),) = node[1].items()
        if kind == "S":
            return "s", literal(inner)
        if kind == "N":
            return "n", f"CAST({literal(inner)} AS {self.decimal})"
        if kind == "BOOL":
            return "bool", "true" if inner else "false"
        raise _refuse(f"a {kind} value")

    def compare(self, op: str, left: Tree, right: Tree) -> str:
        if left[0] == "value":
            left, right = right, left
            op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
        if right[0] != "value":
            raise _refuse("a comparison of two attributes")
        name = self.name(left)
        tag, value = self.value(right)
        if tag == "bool" and op not in ("=", "<>"):
            raise InputError(f"{op} compares strings, numbers or binary; DynamoDB refuses a BOOL")
        equal = f"coalesce({self.column(name, tag)} {op if op != '<>' else '='} {value}, false)"
        return f"(NOT {equal})" if op == "<>" else equal

    def function(self, function: str, arguments: list[Tree]) -> str:
        name = self.name(arguments[0])
        if function in ("attribute_exists", "attribute_not_exists"):
            present = " OR ".join(f"item.{name}.{tag} IS NOT NULL" for tag in TAGS)
            found = f"({present})"
            return found if function == "attribute_exists" else f"(NOT {found})"
        tag, value = self.value(arguments[1])
        if function == "begins_with" and tag == "s":
            return f"coalesce(starts_with(item.{name}.s, {value}), false)"
        if function == "contains" and tag == "s":
            return (
                f"coalesce(strpos(item.{name}.s, {value}) > 0 "
                f"OR contains(item.{name}.ss, {value}), false)"
            )
        raise _refuse(f"{function}() of a {tag}")


def _table_name(export: Export) -> str:
    return re.sub(r"[^a-z0-9_]", "_", export.table_name.lower())[:100] + "_export"


def athena_code(
    spec: QuerySpec,
    export: Export,
    partition_key: str | None = None,
    index_keys: tuple[tuple[str, str], ...] = (),
) -> AthenaCode:
    """The export command, the CREATE EXTERNAL TABLE and the SELECT counting what the
    spec's key condition and filter keep (of the items an index holds: ``index_keys``,
    each (name, type)); by partition key value, the most items first, when
    ``partition_key`` is given."""
    key_tree, filter_tree = spec.trees()
    trees = [t for t in (key_tree, filter_tree) if t is not None]
    names = set().union(*(tested_names(t) for t in trees)) if trees else set()
    names |= {name for name, _ in index_keys} | ({partition_key} if partition_key else set())
    for name in sorted(names):
        if not _NAME.fullmatch(name):
            raise _refuse(f"the attribute {name!r}: Athena's JSON SerDe would need a mapping")
    lowered = sorted({n.lower() for n in names})
    if len(lowered) != len(names):
        raise _refuse("two attributes whose names differ only in case")
    scale = max((number_scale(t) for t in trees), default=0)
    writer = _Writer(scale)
    parts = [f"item.{name.lower()}.{kind.lower()} IS NOT NULL" for name, kind in index_keys]
    parts += [writer.node(t) for t in trees]
    predicate = " AND ".join(parts) or "true"
    table = _table_name(export)
    fields = (
        ",".join(
            f"`{name}`:struct<" + ",".join(f"`{t}`:{TAG_TYPES[t]}" for t in TAGS) + ">"
            for name in lowered
        )
        or "`_`:string"
    )
    location = (
        export.location.root if export.location.s3 else "s3://YOUR-BUCKET/PREFIX/AWSDynamoDB/ID"
    )
    create = (
        f"CREATE EXTERNAL TABLE IF NOT EXISTS {table} (\n"
        f"  item struct<{fields}>\n"
        ")\n"
        "ROW FORMAT SERDE 'org.openx.data.jsonserde.JsonSerDe'\n"
        f"LOCATION {literal(location + '/data/')}\n"
        "TBLPROPERTIES ('has_encrypted_data' = 'false');"
    )
    fits = f"'^-?[0-9]{{1,{38 - scale}}}" + (f"([.][0-9]{{1,{scale}}})?$'" if scale else "$'")
    inexact = " OR ".join(
        f"(item.{n}.n IS NOT NULL AND NOT regexp_like(item.{n}.n, {fits}))"
        for n in sorted(writer.numbers)
    )
    guard = f",\n  count_if({inexact}) AS numbers_not_exact" if inexact else ""
    if partition_key:
        key = partition_key.lower()
        select = (
            f"SELECT coalesce(item.{key}.s, item.{key}.n, item.{key}.b) AS partition_key, "
            "count(*) AS items\n"
            f"FROM {table}\nWHERE {predicate}\nGROUP BY 1\nORDER BY items DESC, 1\nLIMIT 100;"
        )
    else:
        select = (
            f"SELECT count(*) AS items,\n  count_if({predicate}) AS matches{guard}\nFROM {table};"
        )
    return AthenaCode(export_command(export), create, select, table)


def export_command(export: Export) -> str:
    """``aws dynamodb export-table-to-point-in-time`` for the export's table."""
    if export.location.s3:
        bucket, _, rest = export.location.root[len("s3://") :].partition("/")
        prefix = rest.split("/AWSDynamoDB/")[0]
    else:
        bucket, prefix = "YOUR-BUCKET", "PREFIX"
    parts = [
        "aws dynamodb export-table-to-point-in-time",
        f"--table-arn {_shell(export.table_arn)}",
        f"--s3-bucket {_shell(bucket)}",
    ]
    if prefix:
        parts.append(f"--s3-prefix {_shell(prefix)}")
    parts.append("--export-format DYNAMODB_JSON")
    return " \\\n  ".join(parts)


def _shell(text: str) -> str:
    if _CONTROL.search(text):
        raise _refuse("a name holding control or format characters")
    return "'" + text.replace("'", "'\"'\"'") + "'"


def as_json(code: AthenaCode) -> dict[str, Any]:
    return {
        "export_command": code.export_command,
        "athena_create_table": code.create_table,
        "athena_select": code.select,
    }
