"""How many bytes DynamoDB counts for an item, and what reads and writes of it cost.

The rules are AWS's own, from "DynamoDB item sizes and formats"
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):

- an item is the sum of its attributes; each attribute is the UTF-8 bytes of its name plus
  its value's size;
- a string is its UTF-8 bytes; a binary value its raw bytes (not the base64 sent);
- a number is "approximately 1 byte per two significant digits, plus 1 byte". Measured on
  DynamoDB Local, the two digits are the centesimal digit pairs aligned at the decimal
  point (1.5 is 01.50: two pairs, 3 bytes; 15 is one pair, 2 bytes), from the first
  non-zero pair to the last, and a negative number takes one byte more;
- null and Boolean: 1 byte; a set: the sum of its elements (no overhead);
- a List or a Map: 3 bytes, plus 1 byte for each element, plus the elements (a Map's
  elements with their names).

Capacity, from "DynamoDB read and write operations"
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html)
and "Global secondary indexes: provisioned throughput considerations"
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations):
a Query or Scan call sums the sizes of every item it evaluates (before the filter) and
rounds the sum up to 4 KB, one unit per 4 KB strongly consistent, half for eventually
consistent (a GSI serves only those); on a GSI the sizes are those of the index entries
(the projected attributes), not of the table's items. A write to a GSI costs one unit per
1 KB of the index entry, rounded up per item; an update that changes an index key
attribute costs two writes there (the old entry deleted, the new one put). For storage,
every index item carries 100 bytes of overhead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

READ_UNIT_BYTES = 4096
WRITE_UNIT_BYTES = 1024
INDEX_ITEM_OVERHEAD = 100  # bytes of storage per index item
CALL_BYTES = 1024 * 1024  # a Query or Scan call reads at most 1 MB before it stops


def number_size(text: str) -> int:
    """Bytes of a number (N) as DynamoDB counts them: centesimal digit pairs + 1 (+1 when
    negative)."""
    value = Decimal(text)
    if not value:
        return 1
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    text_digits = "".join(map(str, digits))
    # Align the digits to pairs around the decimal point: pad so that the number of digits
    # before the point is even and the number after it is even.
    before = len(text_digits) + exponent  # digits left of the point (may be <= 0 or > len)
    if before > 0:
        integer, fraction = text_digits[:before], text_digits[before:]
        if before > len(text_digits):
            integer, fraction = text_digits + "0" * (before - len(text_digits)), ""
    else:
        integer, fraction = "", "0" * -before + text_digits
    if len(integer) % 2:
        integer = "0" + integer
    if len(fraction) % 2:
        fraction += "0"
    pairs = [(integer + fraction)[i : i + 2] for i in range(0, len(integer + fraction), 2)]
    while pairs and pairs[0] == "00":
        pairs.pop(0)
    while pairs and pairs[-1] == "00":
        pairs.pop()
    return len(pairs) + 1 + (1 if sign else 0)


def value_size(value: Mapping[str, Any]) -> int:
    """Bytes of one attribute value (without its name)."""
    ((kind, inner),) = value.items()
    if kind == "S":
        return len(inner.encode())
    if kind == "N":
        return number_size(inner)
    if kind == "B":
        return len(bytes(inner))
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(s.encode()) for s in inner)
    if kind == "NS":
        return sum(number_size(n) for n in inner)
    if kind == "BS":
        return sum(len(bytes(b)) for b in inner)
    if kind == "L":
        return 3 + sum(1 + value_size(v) for v in inner)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + value_size(v) for k, v in inner.items())
    raise ValueError(f"unknown DynamoDB type {kind!r}")


def item_size(item: Mapping[str, Mapping[str, Any]]) -> int:
    """Bytes of an item: every attribute's name and value."""
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


def read_units(sizes: Iterable[int], consistent: bool = False) -> float:
    """What one Query or Scan call that evaluated items of these sizes consumes."""
    blocks = math.ceil(sum(sizes) / READ_UNIT_BYTES)
    return float(blocks) if consistent else blocks / 2


def write_units(size: int) -> int:
    """What one put of an index entry (or an item) of ``size`` bytes consumes."""
    return max(1, math.ceil(size / WRITE_UNIT_BYTES))
