"""``dynotui report --what-if PATH``: a saved estimate, checked, as the report's section."""

from __future__ import annotations

from typing import Any

from dynotui.core import json_input
from dynotui.core.bounded_file import Unreadable, read_bounded, shown_path
from dynotui.core.errors import InputError
from dynotui.core.pager import Pager
from dynotui.report.model import Estimated

MAX_BYTES = 10 * 2**20  # an estimate is a few KB; refuse to read a stray huge file


def load_what_if(path: str, table: str | None) -> dict[str, Any]:
    """The saved estimate, checked, before anything is read: a file that is not an estimate
    of this table is refused by name."""
    from dynotui.dynamodb.what_if.words import checked

    try:
        text = read_bounded(path, MAX_BYTES).decode("utf-8")
    except Unreadable as exc:
        raise InputError(f"--what-if {shown_path(path)} {exc.problem}") from None
    except UnicodeDecodeError:
        raise InputError(f"--what-if {shown_path(path)}: not UTF-8 text") from None
    data = checked(json_input.loads(text, "--what-if"))
    if data["table"] != table:
        raise InputError(
            f"--what-if {path} estimates table {data['table']!r}; this report reads {table!r}"
        )
    return data


def what_if_section(data: dict[str, Any], pager: Pager) -> Estimated:
    """The section, with the code that would create the index for this connection."""
    from dynotui.dynamodb.codegen import code_target
    from dynotui.dynamodb.what_if.report_section import section

    source: Any = pager.source
    return section(data, code_target(source.client))
