"""Items written out as a file, CSV, JSON lines or one JSON array, for any database.

CSV has one header, and it names every attribute any item holds: keys first, then the
others in the order they were first seen (as the grid shows them). That header is known
only once the last item is read, so the rows wait in a temporary file (one JSON list per
row, as long as the columns known when it came: columns only grow at the end, so each
row is a prefix of the final one) and the CSV is written at ``finish``. Memory holds the
column names, not the rows; a read that fails or is cancelled writes no row at all, so a
CSV with fewer rows than the query is never left behind. Cells are the values' exact
text, quoted as RFC 4180 says (Python's ``csv``): a file is data, not a terminal.

A JSON array is written as the items come: each item is already whole JSON, and an array
left open by a failed read is not valid JSON.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TextIO


@dataclass(frozen=True)
class ItemShape:
    """How one database's items are written: its key attributes (the first columns), one
    value as CSV text, one item as JSON text (one line: no raw line break in it)."""

    key_names: tuple[str, ...]
    cell: Callable[[Any], str]
    json: Callable[[Mapping[str, Any]], str]


class ItemWriter(Protocol):
    """Where a read's items go: ``add`` each page's, then ``finish`` once at the end (or
    ``close`` alone, to drop what was not finished)."""

    count: int  # items added so far

    def add(self, items: Iterable[Mapping[str, Any]]) -> None: ...

    def finish(self) -> None: ...

    def close(self) -> None: ...


def text_shape(key_names: tuple[str, ...]) -> ItemShape:
    """Items whose values are text already (PostgreSQL's own text): NULL an empty cell."""
    from dynotui.core.text import safe_json

    return ItemShape(key_names, lambda v: "" if v is None else str(v), safe_json)


class CsvItems:
    """``cell`` turns one value into its CSV text; an attribute an item lacks is an empty
    cell."""

    def __init__(self, out: TextIO, key_names: Sequence[str], cell: Callable[[Any], str]) -> None:
        self.out = out
        self.cell = cell
        self.columns: dict[str, int] = {}
        for name in key_names:
            self.columns.setdefault(name, len(self.columns))
        self.count = 0
        # Lives as long as the read: close() or finish() ends it, and the file with it.
        self._spool = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115

    def add(self, items: Iterable[Mapping[str, Any]]) -> None:
        columns = self.columns
        for item in items:
            row = [""] * len(columns)
            for name, value in item.items():
                at = columns.setdefault(name, len(columns))
                if at >= len(row):
                    row.extend([""] * (at + 1 - len(row)))
                row[at] = self.cell(value)
            # JSON escapes line breaks: one row, one line, whatever the values hold.
            self._spool.write(json.dumps(row, ensure_ascii=False))
            self._spool.write("\n")
            self.count += 1

    def finish(self) -> None:
        """The header, then every row padded to its width."""
        width = len(self.columns)
        writer = csv.writer(self.out, lineterminator="\r\n")
        writer.writerow(list(self.columns))
        self._spool.seek(0)
        for line in self._spool:
            row = json.loads(line)
            writer.writerow(row + [""] * (width - len(row)))
        self.out.flush()
        self.close()

    def close(self) -> None:
        self._spool.close()


class JsonArrayItems:
    """``text`` turns one item into its JSON text (the caller's choice of DynamoDB JSON or
    plain, made safe to print)."""

    def __init__(self, out: TextIO, text: Callable[[Mapping[str, Any]], str]) -> None:
        self.out = out
        self.text = text
        self.count = 0

    def add(self, items: Iterable[Mapping[str, Any]]) -> None:
        for item in items:
            self.out.write(",\n" if self.count else "[\n")
            self.out.write(self.text(item))
            self.count += 1
        self.out.flush()

    def finish(self) -> None:
        self.out.write("\n]\n" if self.count else "[]\n")
        self.out.flush()

    def close(self) -> None:
        pass  # nothing held: what was written stays, an open array that says it is cut


class JsonLinesItems:
    """One item per line, as the items come (``text``: one item as one line of JSON)."""

    def __init__(self, out: TextIO, text: Callable[[Mapping[str, Any]], str]) -> None:
        self.out = out
        self.text = text
        self.count = 0

    def add(self, items: Iterable[Mapping[str, Any]]) -> None:
        for item in items:
            self.out.write(self.text(item))
            self.out.write("\n")
            self.count += 1

    def finish(self) -> None:
        self.out.flush()

    def close(self) -> None:
        pass
