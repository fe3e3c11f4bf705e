"""The index a wasteful filter points at: the one the advisor names and the app's what-if
form starts from.

A filter that tests an attribute with ``=`` is doing a key condition's job: a GSI with
that attribute as its partition key reads only the items with the value. Its sort key is
the current order's partition key when the query's key condition fixes it with ``=``
(``customer = 'acme'`` becomes the sort key condition, so the new index reads one
customer's RETURNED orders, not every customer's). The first such attribute of the filter
is taken, in the filter's own order; an index the table already has is not suggested, nor
one an order of the table already serves (its partition key, and its sort key if the new
one has one): the advisor names that order as it stands, and compare measures it.
"""

from __future__ import annotations

import shlex

from dynotui.core.errors import InputError
from dynotui.dynamodb.condition import conjuncts, tested_names
from dynotui.dynamodb.schema import SortOrder, TableSchema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex, rewrite


def _equality_names(spec: QuerySpec) -> list[str]:
    """Attributes the filter tests with ``=`` at its top level, in the filter's order."""
    _, filter_tree = spec.trees()
    names: list[str] = []
    for condition in conjuncts(filter_tree):
        if condition[0] == "compare" and condition[1] == "=":
            for name in sorted(tested_names(condition)):
                if name not in names:
                    names.append(name)
    return names


def _serves(order: SortOrder, index: ImaginedIndex) -> bool:
    """Whether an order the table has reads what ``index`` would: the same partition key,
    and the same sort key if ``index`` has one (an index on ``status`` alone reads a
    status's items as ``by_status (status, placed_on)`` does, in another order)."""
    if order.partition_key.name != index.partition_key:
        return False
    return index.sort_key is None or (
        order.sort_key is not None and order.sort_key.name == index.sort_key
    )


def suggested_index(spec: QuerySpec, schema: TableSchema) -> ImaginedIndex | None:
    """The GSI that would serve ``spec``'s filter, or None when its filter tests no
    attribute (outside the current order's keys) with ``=`` and a key-typed value."""
    order = schema.order(spec.index)
    keys = set(order.key_names)
    key_tree, _ = spec.trees()
    fixed = order.partition_key.name
    sort_key = (
        fixed
        if not spec.scan and any(fixed in tested_names(c) for c in conjuncts(key_tree))
        else None
    )
    for name in _equality_names(spec):
        if name in keys:
            continue
        index = ImaginedIndex(name, sort_key if sort_key != name else None)
        if any(_serves(o, index) for o in schema.orders):
            return None  # the table has it: the advisor names it as it is
        try:
            index.check(schema)
            rewrite(spec, index, schema)  # an equality with a value of a key type
        except InputError:
            continue
        return index
    return None


def command_words(index: ImaginedIndex) -> str:
    """The same estimate from the shell: ``dynotui what-if --partition-key status ...``."""
    words = f"dynotui what-if --partition-key {shlex.quote(index.partition_key)}"
    if index.sort_key:
        words += f" --sort-key {shlex.quote(index.sort_key)}"
    return words
