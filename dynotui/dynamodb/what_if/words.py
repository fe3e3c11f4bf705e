"""An estimate in words: the rows both the terminal and the report show.

They are made from the estimate's JSON (``Estimate.as_json()``, what ``what-if --json``
prints), so a report made later from a saved estimate says exactly what the terminal
said. A JSON read from a file is checked first (``checked``): it is user input.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from dynotui.core.errors import InputError
from dynotui.core.figures_text import number
from dynotui.core.money import usd
from dynotui.core.text import plural
from dynotui.dynamodb.what_if.figures import short_number

FIGURES = ("pages", "matches", "scanned_count", "read_units")
MARK = " *"


def _figure(value: Any, where: str) -> None:
    if value is None or isinstance(value, bool):
        raise InputError(f"the what-if JSON's {where} is not a figure")
    if isinstance(value, int | float):
        return
    if (
        isinstance(value, Mapping)
        and set(value) == {"low", "high"}
        and isinstance(value["low"], int | float)
        and (value["high"] is None or isinstance(value["high"], int | float))
    ):
        return
    raise InputError(f"the what-if JSON's {where} is not a figure")


def checked(data: Any) -> dict[str, Any]:
    """A what-if JSON as printed by ``what-if --json``, or an InputError naming what is not."""
    if not isinstance(data, dict):
        raise InputError("the what-if JSON is not an object: use what 'what-if --json' printed")
    for side in ("now", "what_if"):
        if not isinstance(data.get(side), dict):
            raise InputError(f"the what-if JSON has no '{side}' object")
        for name in FIGURES:
            _figure(data[side].get(name), f"{side}.{name}")
    for name in ("items", "index_bytes"):
        _figure(data["what_if"].get(name), f"what_if.{name}")
    if not isinstance(data.get("sample"), dict) or not isinstance(
        data["sample"].get("complete"), bool
    ):
        raise InputError("the what-if JSON has no sample.complete")
    if not isinstance(data.get("index"), dict) or not isinstance(data["index"].get("name"), str):
        raise InputError("the what-if JSON names no index")
    if not isinstance(data.get("table"), str):
        raise InputError("the what-if JSON names no table")
    return data


def figure_text(value: Any, unit: str = "") -> str:
    tail = f" {unit}" if unit else ""
    if isinstance(value, Mapping):
        low, high = value["low"], value["high"]
        if high is None:
            return f"at least {short_number(low)}{tail}"
        return f"{short_number(low)} to {short_number(high)}{tail}"
    return f"{short_number(value)}{tail}"


def bytes_text(value: Any) -> str:
    def one(size: float) -> str:
        for unit, scale in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
            if size >= scale:
                return f"{size / scale:,.1f} {unit}"
        return f"{size:,.0f} B"

    if isinstance(value, Mapping):
        low = one(value["low"])
        if value["high"] is None:
            return f"at least {low}"
        high = one(value["high"])
        return low if low == high else f"{low} to {high}"
    return one(value)


def money_text(amounts: Any) -> str:
    if not isinstance(amounts, Mapping) or not amounts:
        return "not reported, no estimate"
    return ", ".join(f"{usd(Decimal(str(v)))} {k}" for k, v in amounts.items())


def _per_page(side: Mapping[str, Any]) -> str:
    per_page = side.get("read_units_per_page")
    if not isinstance(per_page, Mapping):
        return "not reported"
    return f"p50 {number(float(per_page['p50']))} · p99 {number(float(per_page['p99']))}"


def index_words(data: Mapping[str, Any]) -> str:
    index = data["index"]
    partition = index.get("partition_key") or {}
    sort = index.get("sort_key")
    keys = f"{partition.get('name')} {partition.get('type')}"
    if isinstance(sort, Mapping):
        keys += f" / {sort.get('name')} {sort.get('type')}"
    include = index.get("include") or []
    projects = f"{index.get('projection')}" + (
        f" {', '.join(map(str, include))}" if include else ""
    )
    return f"GSI {index['name']} ({keys}, projects {projects})"


def comparison_rows(data: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(figure, now, what-if) rows; what-if cells carry the estimate mark."""
    now, what_if = data["now"], data["what_if"]
    order = "base table" if not now.get("index") else f"index {now['index']}"

    def est(text: str) -> str:
        return text + MARK

    return [
        (
            "reads",
            f"{now.get('operation')} on the {order}",
            f"Query on GSI {data['index']['name']}",
        ),
        (
            "key condition",
            now.get("key_condition") or "(none: a Scan)",
            est(what_if.get("key_condition") or ""),
        ),
        ("filter", now.get("filter") or "(none)", est(what_if.get("filter") or "(none)")),
        ("pages", figure_text(now["pages"]), est(figure_text(what_if["pages"]))),
        ("matches", figure_text(now["matches"]), est(figure_text(what_if["matches"]))),
        (
            "items read (Scanned)",
            figure_text(now["scanned_count"]),
            est(figure_text(what_if["scanned_count"])),
        ),
        (
            "read units",
            figure_text(now["read_units"], "RCU"),
            est(figure_text(what_if["read_units"], "RCU")),
        ),
        ("read units per page", _per_page(now), est(_per_page(what_if))),
        (
            "per million page views",
            money_text(now.get("usd_per_million_page_views")),
            est(money_text(what_if.get("usd_per_million_page_views"))),
        ),
    ]


def cost_rows(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The index's own cost: (label, value)."""
    what_if = data["what_if"]
    per_put = what_if.get("write_units_per_put")
    storage = what_if.get("usd_per_month_storage") or {}
    low, high = storage.get("low"), storage.get("high")
    if low is None:
        money = "no estimate"
    elif high is None:
        money = f"at least {usd(Decimal(str(low)))}"
    else:
        a, b = usd(Decimal(str(low))), usd(Decimal(str(high)))
        money = a if a == b else f"{a} to {b}"
    return [
        ("items it would hold", figure_text(what_if["items"])),
        (
            "write units per put",
            "no item read would be in it"
            if per_put is None
            else f"{number(float(f'{per_put:.3g}'))} (from {what_if.get('members_seen', 0):,} "
            f"items read; {number(float(f'{2 * per_put:.3g}'))} for an update that changes a "
            "key attribute: the old entry deleted, the new one put)",
        ),
        ("per million puts", money_text(what_if.get("usd_per_million_puts"))),
        ("storage", f"{bytes_text(what_if['index_bytes'])} ({money} a month)"),
    ]


def sample_words(data: Mapping[str, Any]) -> str:
    sample = data["sample"]
    how = "complete: the figures are points" if sample["complete"] else "incomplete: ranges"
    return (
        f"Sample: {plural(sample.get('items', 0), 'item')} read in "
        f"{plural(sample.get('calls', 0), 'call')}, "
        f"{number(float(sample.get('read_units', 0)))} RCU, "
        f"{float(sample.get('seconds', 0)):.1f} s; {how}."
    )


def notes(data: Mapping[str, Any]) -> list[str]:
    found = data.get("notes") or []
    return [str(n) for n in found] if isinstance(found, list) else []


FOOTNOTE = "* estimated from the items read and DynamoDB's published formulas"
