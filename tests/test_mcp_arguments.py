"""The MCP tools' arguments, fuzzed without a server: any JSON a client sends becomes the
command's own arguments or one InputError line, never another exception, and no flag
outside a tool's allow-list reaches its command."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynotui.cli.command_args import command_args
from dynotui.cli.mcp_tools import TOOLS, argument_words, command_argv, input_schema
from dynotui.core.errors import InputError

CAP = 25.0
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def names(tool: Any) -> st.SearchStrategy[str]:
    known = [*tool.flags, "max_read_units"]
    return st.sampled_from(known) | st.text(min_size=1, max_size=12)


@pytest.mark.parametrize("tool", TOOLS, ids=[t.name for t in TOOLS])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_arguments_are_the_command_s_or_one_line(tool: Any, data: st.DataObject) -> None:
    arguments = data.draw(st.dictionaries(names(tool), json_values, max_size=5))
    root = Path.cwd()
    try:
        argv = command_argv(tool, arguments, CAP, root)
        command_args(tool.module, tool.command, argv)
    except InputError as exc:
        assert "\n" not in str(exc).strip()
        said = argument_words(tool, str(exc))  # as the server says it
        flags = ["--" + f.replace("_", "-") for f in (*tool.flags, "max_read_units")]
        assert not [f for f in flags if re.search(re.escape(f) + r"(?![\w-])", said)], said
        return
    allowed = {"--" + f.replace("_", "-") for f in (*tool.flags, "max_read_units")}
    for arg in argv:
        if arg == "--":
            break
        flag = arg.split("=", 1)[0]
        assert flag in allowed or arg in tool.fixed, arg
    capped = [a for a in argv if a.startswith("--max-read-units=")]
    if tool.capped:
        (cap,) = capped
        assert 0 < float(cap.split("=", 1)[1]) <= CAP
    else:
        assert not capped


@pytest.mark.parametrize("tool", TOOLS, ids=[t.name for t in TOOLS])
def test_every_schema_names_only_its_allowed_flags(tool: Any) -> None:
    schema = input_schema(tool, CAP)
    assert set(schema["properties"]) == set(tool.flags) | (
        {"max_read_units"} if tool.capped else set()
    )
    assert schema["additionalProperties"] is False
    if tool.capped:
        assert math.isclose(schema["properties"]["max_read_units"]["maximum"], CAP)


@pytest.mark.parametrize("tool", [t for t in TOOLS if t.paths], ids=lambda t: t.name)
@pytest.mark.parametrize("name", ["a\x00b", "../outside.toml", "/etc/passwd"])
def test_a_file_outside_the_folder_or_no_file_name_is_one_line(tool: Any, name: str) -> None:
    with pytest.raises(InputError) as refused:
        command_argv(tool, {tool.paths[0]: name}, CAP, Path("."))  # mcp's default --root
    assert "\n" not in str(refused.value)
    if "\x00" not in name:  # the folder named in full ("folder ." told an agent nothing)
        assert str(refused.value).endswith(f"folder {Path.cwd()}"), refused.value


@given(units=st.floats(min_value=1e-9, max_value=1e300, allow_nan=False, allow_infinity=False))
def test_plan_and_entities_take_the_cap_as_their_flags_do_never_above_it(units: float) -> None:
    from dynotui.cli.entities_cmd import MAX_READ_UNITS, whole_number
    from dynotui.cli.mcp_tools import decimal_units, whole_units
    from dynotui.cli.plan_cmd import read_units

    for convert, parse in (
        (decimal_units, read_units),
        (whole_units, whole_number(1, MAX_READ_UNITS)),
    ):
        try:
            text = convert(units)
        except InputError as exc:
            assert units < 1 and "at least" in str(exc)
            continue
        taken = parse(text)  # the command's own flag type takes it
        assert 0 < taken <= units


def test_an_error_names_the_tools_arguments_and_leaves_the_rest() -> None:
    pages = next(t for t in TOOLS if t.name == "pages")
    said = argument_words(pages, "argument --page-size: bad; drop --table-name, --scan")
    assert said == "page_size: bad; drop table_name, scan"
    assert argument_words(pages, "max is --max-read-units=5") == "max is max_read_units=5"
    # Not the tool's (a flag of the command only), or not a flag at all: left as it is.
    for text in ("give --foreign-token TEXT", "no table 'a--scan'", "--scanner", "--scan-x"):
        assert argument_words(pages, text) == text
    tables = next(t for t in TOOLS if t.name == "tables")  # takes no max_read_units
    assert argument_words(tables, "--max-read-units 5") == "--max-read-units 5"
