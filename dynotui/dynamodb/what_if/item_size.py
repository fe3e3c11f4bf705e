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
    negative). Plain text is read as text (an item holds many numbers); an exponent
    through Decimal."""
    if "e" in text or "E" in text:
        text = format(Decimal(text), "f")
    negative = text.startswith("-")
    integer, _, fraction = text.lstrip("+-").partition(".")
    integer, fraction = integer.lstrip("0"), fraction.rstrip("0")
    if not integer and not fraction:
        return 1  # zero, however written
    # Pairs aligned at the decimal point: 1.5 is 01.50.
    digits = ("0" * (len(integer) % 2)) + integer + fraction + ("0" * (len(fraction) % 2))
    start, end = 0, len(digits)
    while digits[start : start + 2] == "00":
        start += 2
    while end > start and digits[end - 2 : end] == "00":
        end -= 2
    return (end - start) // 2 + 1 + (1 if negative else 0)


def value_size(value: Mapping[str, Any]) -> int:
    """Bytes of one attribute value (without its name)."""
    for kind, inner in value.items():  # one pair: the loop is the cheap way to read it
        if kind == "S":
            return len(inner.encode())
        if kind == "N":
            return number_size(inner)
        if kind == "M":
            total = 3
            for name, element in inner.items():
                total += 1 + len(name.encode()) + value_size(element)
            return total
        if kind == "L":
            total = 3
            for element in inner:
                total += 1 + value_size(element)
            return total
        if kind == "B":
            return len(inner)
        if kind in ("BOOL", "NULL"):
            return 1
        if kind == "SS":
            return sum(len(s.encode()) for s in inner)
        if kind == "NS":
            return sum(number_size(n) for n in inner)
        if kind == "BS":
            return sum(len(b) for b in inner)
    raise ValueError(f"not one DynamoDB value: {value!r}")


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
