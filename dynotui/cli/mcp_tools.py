"""The tools ``dynotui mcp`` serves: each one of dynotui's read-only commands, called with
its own flags in snake_case and answering with its own JSON.

A tool is one entry of ``TOOLS``: the command, the flags it takes (an allow-list: no file
output, no PostgreSQL, no export, no code), the flags every call passes (``--json``) and
how its output becomes one object. The input schema is derived from the command's own
parser, and a call is parsed and run by the command itself, so its checks hold as they do
on the command line: a PartiQL statement that is not a SELECT is refused, a cursor token
is verified, and every read stops at ``max_read_units`` (the server's cap by default, never
above it). Nothing here knows a tool's query: adding a command is adding an entry.

Table exports (``--from-export``) are left out of every tool: reading one costs no read
units, so the server's one limit would not bound it, and an ``s3://`` path would have the
server fetch whatever the caller names.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Any

from dynotui.cli.command_args import command_args, command_parser
from dynotui.core.errors import InputError

DEFAULT_MAX_READ_UNITS = 100.0
PAGES_PER_CALL = 10  # pages's default max_pages in a call
MAX_PAGES_PER_CALL = 100
JSON_METAVARS = ("JSON", "DYNAMODB_JSON")

QUERY = (
    "table_name",
    "index_name",
    "key_condition_expression",
    "filter_expression",
    "expression_attribute_names",
    "expression_attribute_values",
    "consistent_read",
    "scan",
)


@dataclass(frozen=True)
class Call:
    """What a tool's output is shaped with: the server's cap and the call's arguments."""

    max_read_units: float | None
    arguments: Mapping[str, Any]


def one_object(text: str, call: Call) -> dict[str, Any]:
    """The command printed one JSON object."""
    found = json.loads(text)
    if not isinstance(found, dict):
        raise InputError("the command printed no JSON object")
    return found


def pages_object(text: str, call: Call) -> dict[str, Any]:
    """``pages``'s lines as one object: the pages, the summary, the token to go on from
    and what stopped the read."""
    lines = [json.loads(line) for line in text.splitlines()]
    pages, summary = lines[:-1], lines[-1]["summary"]
    last = pages[-1] if pages else None
    if last is None or last["next_start_key"] is None:
        stopped = "end"
    elif len(pages) >= int(call.arguments.get("max_pages") or PAGES_PER_CALL):
        stopped = "max_pages"
    else:
        stopped = "max_read_units"
    return {
        "pages": pages,
        "summary": summary,
        "next_token": None if last is None else last["next_token"],
        "stopped_by": stopped,
    }


PLAN_MOST_UNITS = Decimal("999999999999.999999")  # plan's flag: 12 digits, 6 decimals
ENTITIES_MOST_UNITS = 10**9  # entities' flag


def decimal_units(units: float) -> str:
    """Read units as ``plan --max-read-units`` takes them: digits, six decimals at most,
    rounded down from the float's exact value (never above the cap)."""
    exact = min(Decimal(units), PLAN_MOST_UNITS)
    text = f"{exact.quantize(Decimal('0.000001'), rounding=ROUND_DOWN):f}"
    text = text.rstrip("0").rstrip(".")
    if Decimal(text) <= 0:
        raise InputError("max_read_units is at least 0.000001 for this tool")
    return text


def whole_units(units: float) -> str:
    """Read units as ``entities --max-read-units`` takes them: a whole number, rounded
    down (never above the cap)."""
    if units < 1:
        raise InputError("max_read_units is at least 1 for this tool (it takes whole units)")
    return str(min(math.floor(units), ENTITIES_MOST_UNITS))


@dataclass(frozen=True)
class Tool:
    name: str
    module: str
    command: str
    description: str
    flags: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()  # flags every call passes
    positional: tuple[str, ...] = ()  # arguments passed as the command's positionals
    required: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # files: inside the server's folder
    capped: bool = True  # reads items: takes max_read_units
    enums: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    bounds: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    # JSON types of flags whose parser takes a function of its own (ASCII digits only)
    kinds: Mapping[str, str] = field(default_factory=dict)
    helps: Mapping[str, str] = field(default_factory=dict)  # where the flag's help misleads here
    shape: Callable[[str, Call], dict[str, Any]] = one_object
    units: Callable[[float], str] = repr  # max_read_units as the command's flag takes it


TOOLS: tuple[Tool, ...] = (
    Tool(
        "tables",
        "dynotui.cli.tables_cmd",
        "tables",
        "List the tables at the endpoint (ListTables to the end; no read units).",
        fixed=("--json",),
        capped=False,
    ),
    Tool(
        "describe_table",
        "dynotui.cli.tables_cmd",
        "tables",
        "A table's key schema and its sort orders: the base table, each LSI and GSI with "
        "its keys, projection and whether it serves consistent reads (no read units).",
        flags=("table_name",),
        required=("table_name",),
        fixed=("--json",),
        capped=False,
    ),
    Tool(
        "pages",
        "dynotui.cli.pages_cmd",
        "pages",
        "Page through a Query, Scan or PartiQL SELECT as 'dynotui pages' does: each page "
        "with its items (DynamoDB JSON), Count, ScannedCount, consumed capacity and a signed "
        "next_token; then the summary (the measures, totals and price). Give next_token "
        "back as starting_token to go on: every item once, in order. Only SELECT "
        f"statements run. At most max_pages pages (default {PAGES_PER_CALL}, at most "
        f"{MAX_PAGES_PER_CALL}) a call.",
        flags=(
            *QUERY,
            "projection_expression",
            "no_scan_index_forward",
            "statement",
            "parameters",
            "page_size",
            "mode",
            "max_rounds",
            "max_pages",
            "starting_token",
            "exclusive_start_key",
            "plain",
        ),
        enums={"mode": ("raw", "fill")},
        defaults={"max_pages": PAGES_PER_CALL},
        bounds={"max_pages": (1, MAX_PAGES_PER_CALL)},
        shape=pages_object,
    ),
    Tool(
        "count",
        "dynotui.cli.count_cmd",
        "count",
        "Count a Query's or Scan's matches with Select COUNT, as 'dynotui count' does: "
        "count, scanned_count, consumed capacity, calls and the forecast made first; "
        "complete is false when max_read_units stopped it.",
        flags=(*QUERY, "max_calls"),
    ),
    Tool(
        "what_if",
        "dynotui.cli.what_if_cmd",
        "what-if",
        "Estimate what a GSI that does not exist would cost and save for a query, as "
        "'dynotui what-if --json' does: the query rewritten for it, its pages and read "
        "units against the query's own (read as pages reads them), the index's writes per "
        "put and storage. Nothing is created.",
        flags=(
            *QUERY,
            "page_size",
            "mode",
            "max_rounds",
            "partition_key",
            "sort_key",
            "partition_key_type",
            "sort_key_type",
            "projection",
            "include",
            "new_index_name",
            "table_sample",
        ),
        required=("partition_key",),
        fixed=("--json",),
        enums={"mode": ("raw", "fill")},
    ),
    Tool(
        "check",
        "dynotui.cli.check_cmd",
        "check",
        "Hold each access pattern of a patterns file (TOML, inside the server's folder) to "
        "its budget, as 'dynotui check --json' does: each pattern within or over, by which "
        "figure, with the figures measured; against an earlier receipt when given.",
        flags=("file", "against", "tolerance"),
        positional=("file",),
        required=("file",),
        paths=("file", "against"),
        fixed=("--json",),
    ),
    Tool(
        "plan",
        "dynotui.cli.plan_cmd",
        "plan",
        "Every path that answers a query, costed side by side, as 'dynotui plan --json' "
        "does: the base table, each LSI and GSI with the query rewritten onto its keys, a "
        "Scan and the index the advisor would add; for each its pages, matches, read units "
        "(per page p50 and p99), money per million page views and drain time, marked "
        "estimated or measured; paths that cannot serve say why; the cheapest is named, "
        "and what the plan itself read. It never Scans the table unless no Query serves. "
        "Or, with patterns (a patterns file inside the server's folder, no query flags), "
        "every pattern planned and those whose cheapest path is not the one they use "
        "named, with what moving would save a month at their calls_per_day.",
        flags=(
            *QUERY,
            "projection_expression",
            "no_scan_index_forward",
            "page_size",
            "mode",
            "max_rounds",
            "segments",
            "no_imagined",
            "patterns",
        ),
        paths=("patterns",),
        fixed=("--json",),
        kinds={"page_size": "integer", "max_rounds": "integer", "segments": "integer"},
        units=decimal_units,
    ),
    Tool(
        "entities",
        "dynotui.cli.entities_cmd",
        "entities",
        "A single-table design by entity, as 'dynotui entities --json' does: entities told "
        "apart by an entity attribute or by key prefixes; per entity its count (exact when "
        "every item was read, else an estimate with its 95% range), shares of items and "
        "bytes, item size p50/p99, attributes and how often each is present, and what "
        "reading its items costs. Reads a bounded parallel Scan; max_read_units is whole "
        "read units here.",
        flags=(
            "table_name",
            "index_name",
            "segments",
            "entity_attribute",
            "no_entity_attribute",
        ),
        required=("table_name",),
        fixed=("--json",),
        kinds={"segments": "integer"},
        helps={"table_name": "the table to read"},
        units=whole_units,
    ),
)


def _made(convert: Any) -> Any:
    """What a flag's ``type=`` makes: int and float themselves, or what a converter of the
    project's says it returns (numbers are read by cli/number_flags.py, ASCII digits only)."""
    if convert in (int, float) or convert is None:
        return convert
    try:
        return typing.get_type_hints(convert).get("return")
    except (NameError, TypeError):  # a converter with no hints to read: taken as text
        return None


def _kind(action: argparse.Action, given: str | None = None) -> dict[str, Any]:
    if given is not None:
        return {"type": given}
    if isinstance(action, argparse._StoreTrueAction):
        return {"type": "boolean"}
    made = _made(action.type)
    if made is int:
        return {"type": "integer"}
    if made is float:
        return {"type": "number"}
    if action.metavar in JSON_METAVARS:
        return {"type": ["string", "object", "array"]}
    if action.choices:
        return {"type": "string", "enum": list(action.choices)}
    return {"type": "string"}


def _actions(tool: Tool) -> dict[str, argparse.Action]:
    parser = command_parser(tool.module, tool.command)
    return {action.dest: action for action in parser._actions}


def input_schema(tool: Tool, cap: float) -> dict[str, Any]:
    """The tool's arguments: its command's flags, typed and described by its parser."""
    actions = _actions(tool)
    properties: dict[str, Any] = {}
    for name in tool.flags:
        action = actions[name]
        kind = _kind(action, tool.kinds.get(name))
        if name in tool.enums:
            kind = {"type": "string", "enum": list(tool.enums[name])}
        if name in tool.bounds:
            kind["minimum"], kind["maximum"] = tool.bounds[name]
        words = tool.helps.get(name) or (action.help or "").replace(
            "%(default)s", str(action.default)
        )
        if action.metavar in JSON_METAVARS:
            what = "DynamoDB JSON" if action.metavar == "DYNAMODB_JSON" else "JSON"
            words = (words + " " if words else "") + f"({what}, as an object or text)"
        if name in tool.defaults:
            words += f" (default {tool.defaults[name]})"
        if words:
            kind["description"] = words
        properties[name] = kind
    if tool.capped:
        properties["max_read_units"] = {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": cap,
            "description": f"stop reading once this many read units are spent (a page is "
            f"never cut; default and most: {cap:g}, this server's cap)",
        }
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if tool.required:
        schema["required"] = list(tool.required)
    return schema


def description(tool: Tool, cap: float) -> str:
    text = tool.description + " Read-only."
    if tool.capped:
        text += f" Reads at most max_read_units read units a call (default and cap: {cap:g})."
    return text


def _value(name: str, value: Any, action: argparse.Action | None, given: str | None = None) -> Any:
    """A call's value, checked against the flag's kind before the parser sees it."""
    kind = _kind(action, given)["type"] if action is not None else "number"
    if kind == "boolean":
        ok = isinstance(value, bool)
    elif kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "number":
        ok = (
            isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        )
    elif isinstance(kind, list):
        ok = isinstance(value, (str, dict, list))
    else:
        ok = isinstance(value, str)
    if not ok:
        raise InputError(f"{name} takes {_a(kind)}, not {type(value).__name__}")
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return repr(value)
    return value


def _a(kind: Any) -> str:
    if isinstance(kind, list):
        return "a JSON object or text"
    return {"boolean": "true or false", "integer": "an integer", "number": "a number"}.get(
        kind, "a string"
    )


def _inside(root: Path, name: str, text: str) -> str:
    try:
        path = (root / text).resolve()
    except (ValueError, OSError) as exc:  # a NUL in the name; a symlink loop
        raise InputError(f"{name} is not a file name here: {exc}") from None
    if not path.is_relative_to(root.resolve()):
        # The folder in full: an agent does not know the server's working folder ('.').
        raise InputError(f"{name} must name a file inside the server's folder {root.resolve()}")
    return str(path)


def command_argv(tool: Tool, arguments: Mapping[str, Any], cap: float, root: Path) -> list[str]:
    """The command's argv for a call: each argument as its flag, ``--flag=value``."""
    actions = _actions(tool)
    allowed = set(tool.flags) | ({"max_read_units"} if tool.capped else set())
    for name in arguments:
        if name not in allowed:
            takes = ", ".join(sorted(allowed)) or "no arguments"
            raise InputError(f"{tool.name} takes no argument {name!r} (it takes {takes})")
    for name in tool.required:
        if arguments.get(name) in (None, ""):
            raise InputError(f"{tool.name} needs {name}")
    values = {**tool.defaults, **{k: v for k, v in arguments.items() if v is not None}}
    argv: list[str] = []
    positionals: list[str] = []
    for name, given in values.items():
        if name == "max_read_units":
            continue
        value = _value(name, given, actions.get(name), tool.kinds.get(name))
        if name in tool.enums and value not in tool.enums[name]:
            raise InputError(f"{name} is one of {', '.join(tool.enums[name])}, not {value!r}")
        if name in tool.bounds:
            low, high = tool.bounds[name]
            if not low <= int(value) <= high:
                raise InputError(f"{name} is {low} to {high} here, not {value}")
        if name in tool.paths:
            value = _inside(root, name, str(value))
        if name in tool.positional:
            positionals.append(str(value))
        elif isinstance(value, bool):
            if value:
                argv.append("--" + name.replace("_", "-"))
        else:
            argv.append(f"--{name.replace('_', '-')}={value}")
    if tool.capped:
        units = float(_value("max_read_units", arguments.get("max_read_units", cap), None))
        if not 0 < units <= cap:
            raise InputError(f"max_read_units is above 0 and at most {cap:g} on this server")
        argv.append(f"--max-read-units={tool.units(units)}")
    return [*argv, *tool.fixed, "--", *positionals] if positionals else [*argv, *tool.fixed]


_FLAG = re.compile(r"(?<![\w-])(?:argument )?--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?![\w-])")


def argument_words(tool: Tool, text: str) -> str:
    """A command's error in the words of the tool's call: each flag the tool takes named
    as its argument (``--page-size`` is ``page_size``; argparse's ``argument --segments:``
    is ``segments:``), since a coding agent calling the tool gives arguments, not flags.
    Flags the tool does not take are left as they are: they name the command's own."""
    takes = set(tool.flags) | ({"max_read_units"} if tool.capped else set())

    def named(found: re.Match[str]) -> str:
        name = found.group(1).replace("-", "_")
        return name if name in takes else found.group(0)

    return _FLAG.sub(named, text)


def run_tool(
    tool: Tool,
    arguments: Mapping[str, Any],
    connection: argparse.Namespace,
    cap: float,
    root: Path,
) -> dict[str, Any]:
    """Run the tool's command with the call's arguments; its output as one object."""
    argv = command_argv(tool, arguments, cap, root)
    args = command_args(tool.module, tool.command, argv, connection)
    out = io.StringIO()
    args.run(args, out)  # check's exit 1 (over budget) is its answer, not an error
    shaped = tool.shape(out.getvalue(), Call(cap if tool.capped else None, arguments))
    if tool.capped:  # as the command took it (entities: whole units)
        shaped["max_read_units"] = float(tool.units(float(arguments.get("max_read_units", cap))))
    return shaped
