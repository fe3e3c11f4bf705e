"""The query form's placeholders, made from the table's own key schema: an example filter on
an attribute the table defines (a key of another order, which this order's key does not
hold), its value of that attribute's type, and the PartiQL parameter of the partition key's
type. Never the demo's ``status = :r`` on a table that has no ``status``.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynotui.core.text import visible
from dynotui.dynamodb.schema import TableSchema

PLAIN_EXAMPLES = {"S": '"text"', "N": "42", "B": '{"B": "base64"}'}
TYPED_EXAMPLES = {"S": '{"S": "text"}', "N": '{"N": "42"}', "B": '{"B": "base64"}'}


@dataclass(frozen=True)
class FormHints:
    partition_value: str
    filter: str
    values: str
    values_hint: str
    parameters: str


def form_hints(schema: TableSchema, order_name: str) -> FormHints:
    """Placeholders for the form on ``order_name`` of ``schema``."""
    order = schema.order(order_name)
    others = [a for a in schema.attributes if a not in order.key_names]
    if others:
        name = others[0]
    elif order.sort_key is not None:
        name = order.sort_key.name  # the only other attribute the table names
    else:
        name = order.partition_key.name
    example = PLAIN_EXAMPLES.get(schema.attribute_type(name) or "S", PLAIN_EXAMPLES["S"])
    values = f'{{":v": {example}}}'
    key = order.partition_key
    shown = visible(name)
    return FormHints(
        partition_value=visible(f"{key.name} ({key.type}): a Query reads one value"),
        filter=f"{shown} = :v  (bare attribute names are fine)",
        values=values,
        values_hint=f"Filter values are JSON: {values}; numbers keep every digit.",
        parameters=f"the ?s in order, DynamoDB JSON: [{TYPED_EXAMPLES.get(key.type, '')}]",
    )
