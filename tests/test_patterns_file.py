"""The patterns file refused before anything is read: exit 2 and one line naming the file,
the pattern and the key, for wrong types, unknown keys, bad TOML, deep nesting and huge
files (fuzzed). No database runs here: the endpoint is a closed port on loopback, so a
file that got past the checks would fail with exit 1 (a connection error), not 2.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import run_in_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynotui.patterns.load import MAX_FILE_BYTES, load, parse
from dynotui.patterns.model import PatternFileError

CLOSED = "http://127.0.0.1:9"  # discard's port: nothing listens on loopback
ENV = {
    **os.environ,
    "AWS_ACCESS_KEY_ID": "x",
    "AWS_SECRET_ACCESS_KEY": "y",
    "AWS_REGION": "us-east-1",
    "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
}

VALID: dict[str, Any] = {
    "name": "orders by customer",
    "table_name": "orders",
    "key_condition_expression": "customer = :c",
    "filter_expression": "#s = :s",
    "expression_attribute_names": {"#s": "status"},
    "expression_attribute_values": {":c": {"S": "acme"}, ":s": {"S": "OPEN"}},
    "page_size": 25,
    "mode": "fill",
    "pages": 2,
    "calls_per_day": 5000,
    "budget": {"read_units_per_page": 2, "waste": 0.5, "scan": False},
}
# What each key takes, to make a value of any other kind: every key of a pattern and of
# its budget ("json" keys also take their JSON as a string, as the flag does).
KINDS: dict[str, Any] = {
    "name": str,
    "description": str,
    "table_name": str,
    "index_name": str,
    "key_condition_expression": str,
    "filter_expression": str,
    "projection_expression": str,
    "expression_attribute_names": (dict, str),
    "expression_attribute_values": (dict, str),
    "no_scan_index_forward": bool,
    "consistent_read": bool,
    "scan": bool,
    "statement": str,
    "parameters": (list, str),
    "page_size": int,
    "mode": str,
    "max_rounds": int,
    "pages": int,
    "calls_per_day": float,
    "budget.read_units_per_page": float,
    "budget.read_units_per_item": float,
    "budget.waste": float,
    "budget.scan": bool,
}


def toml_string(text: str) -> str:
    """A TOML basic string: controls and DEL escaped, everything else as it is."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return (
        '"'
        + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else c for c in escaped)
        + '"'
    )


def toml_value(value: Any) -> str:
    """A value as TOML (inline tables and arrays)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_pattern(entry: dict[str, Any]) -> str:
    lines = ["[[pattern]]"]
    budget = entry.get("budget")
    for key, value in entry.items():
        if key != "budget" or not isinstance(budget, dict):
            lines.append(f"{toml_string(key)} = {toml_value(value)}")
    if isinstance(budget, dict):
        lines.append("[pattern.budget]")
        lines += [f"{toml_string(k)} = {toml_value(v)}" for k, v in budget.items()]
    return "\n".join(lines) + "\n"


def check(path: Path, *flags: str) -> Any:
    return run_in_process(["check", str(path), "--endpoint-url", CLOSED, *flags], env=ENV)


def assert_one_line(result: Any, path: Path, *parts: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith(f"dynotui: {path}"), line
    assert "unexpected" not in line
    for part in parts:
        assert part in line, (part, line)
    return line


def test_a_valid_file_loads_with_every_key(tmp_path: Path) -> None:
    path = tmp_path / "dynotui.toml"
    second = {
        "name": "by statement",
        "statement": 'SELECT * FROM "orders" WHERE customer = ?',
        "try_parameters": [[{"S": "acme"}], [{"S": "globex"}]],
    }
    path.write_text(toml_pattern(VALID) + toml_pattern(second))
    found = load(path)
    first, statement = found.patterns
    assert first.name == VALID["name"] and first.pages == 2 and first.calls_per_day == 5000
    assert first.budget.read_units_per_page == 2 and first.budget.waste == 0.5
    assert first.query["expression_attribute_values"] == VALID["expression_attribute_values"]
    assert [c.query["parameters"] for c in statement.cases()] == second["try_parameters"]


def test_values_to_try_replace_the_query_s_own(tmp_path: Path) -> None:
    entry = {**VALID, "try_values": [{":c": {"S": "globex"}}, {":c": {"S": "initech"}}]}
    found = parse(toml_pattern(entry), "f.toml").patterns[0]
    cases = found.cases()
    assert [c.query["expression_attribute_values"] for c in cases] == [
        {":c": {"S": "globex"}, ":s": {"S": "OPEN"}},
        {":c": {"S": "initech"}, ":s": {"S": "OPEN"}},
    ]
    assert [c.label for c in cases] == ['{":c":{"S":"globex"}}', '{":c":{"S":"initech"}}']


def test_json_text_is_taken_where_the_flag_takes_json(tmp_path: Path) -> None:
    text = json.dumps(VALID["expression_attribute_values"])
    found = parse(toml_pattern({**VALID, "expression_attribute_values": text}), "f")
    assert found.patterns[0].query["expression_attribute_values"] == json.loads(text)


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        ({"page_size": "25"}, "page_size", "an integer"),
        ({"page_size": True}, "page_size", "an integer"),
        ({"page_size": 0}, "page_size", "1 to 1,000"),
        ({"pages": 1001}, "pages", "1 to 1,000"),
        ({"mode": "keyset"}, "mode", "'raw' or 'fill'"),
        ({"scan": "yes"}, "scan", "true or false"),
        ({"table_name": ""}, "table_name", "empty"),
        ({"calls_per_day": -1}, "calls_per_day", "0 or more"),
        ({"expression_attribute_values": [1]}, "expression_attribute_values", "a table"),
        ({"expression_attribute_values": "{"}, "expression_attribute_values", "not valid JSON"),
        ({"budget": {"waste": 1.5}}, "budget.waste", "0 to 1"),
        ({"budget": {"read_units_per_page": "2"}}, "budget.read_units_per_page", "a number"),
        ({"budget": {"scan": 1}}, "budget.scan", "true or false"),
        ({"budget": {"read_unit_per_page": 2}}, "budget.read_unit_per_page", "not a budget"),
        ({"budget": 3}, "budget", "a table"),
        ({"table_nme": "x"}, "table_nme", "not a key of a pattern"),
        ({"try_parameters": [[]]}, "try_parameters", "try_values"),
        ({"try_values": []}, "try_values", "non-empty"),
        ({"try_values": [{}]}, "try_values", "at least one placeholder"),
        # pages' own checks, through its own flags: named by the file's keys
        ({"key_condition_expression": "customer = :c AND"}, "key_condition_expression", ""),
        ({"filter_expression": "#t = :s"}, "filter_expression", "#t"),
        ({"expression_attribute_values": {":c": {"N": "x"}, ":s": {"S": "a"}}}, None, ""),
        ({"scan": True}, "scan", "no key condition"),
        ({"max_rounds": 101}, "max_rounds", "1 to 100"),
    ],
)
def test_a_bad_key_is_one_line_naming_the_file_pattern_and_key(
    tmp_path: Path, change: dict[str, Any], key: str | None, words: str
) -> None:
    path = tmp_path / "patterns.toml"
    path.write_text(toml_pattern({**VALID, **change}))
    named = key or "expression_attribute_values"
    assert_one_line(check(path), path, 'pattern "orders by customer"', f"key {named}:", words)


@pytest.mark.parametrize(
    ("entry", "key", "words"),
    [
        (
            {"name": "w", "statement": "DELETE FROM \"t\" WHERE pk = 'a'"},
            "statement",
            "only SELECT",
        ),
        (
            {"name": "w", "statement": 'UPDATE "t" SET a = 1 WHERE pk = ?'},
            "statement",
            "only SELECT",
        ),
        ({"name": "w", "statement": "INSERT INTO \"t\" VALUE {'pk': 'a'}"}, "statement", ""),
        ({"name": "w", "statement": 'SELECT * FROM "t" WHERE pk = ?'}, "parameters", "1 ?"),
        (
            {"name": "w", "statement": 'SELECT * FROM "t"', "table_name": "t"},
            "table_name",
            "drop table_name",
        ),
        (
            {"name": "w", "statement": 'SELECT * FROM "t"', "budget": {"waste": 0.1}},
            "budget.waste",
            "ScannedCount",
        ),
        ({"name": "w", "table_name": "t", "scan": True, "parameters": []}, "parameters", ""),
    ],
)
def test_a_statement_s_keys_are_checked_as_pages_checks_them(
    tmp_path: Path, entry: dict[str, Any], key: str, words: str
) -> None:
    path = tmp_path / "p.toml"
    path.write_text(toml_pattern(entry))
    assert_one_line(check(path), path, 'pattern "w"', f"key {key}:", words)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[pattern]\nname = 'a'\n", "not valid TOML"),
        ("", "no [[pattern]]"),
        ("pattern = 3\n", "key pattern"),
        ("title = 'x'\n[[pattern]]\nname = 'a'\ntable_name = 't'\n", "key title"),
        ("[[pattern]]\ntable_name = 't'\n", "pattern #1, key name"),
        ('[[pattern]]\nname = "a\\u001b[2J"\ntable_name = "t"\n', "pattern #1, key name"),
        (
            "[[pattern]]\nname = 'a'\ntable_name = 't'\nscan = true\n"
            "[[pattern]]\nname = 'a'\ntable_name = 't'\nscan = true\n",
            'pattern "a", key name: another',
        ),
        ("[[pattern]]\nname = 'a'\ntable_name = 't'\npage_size = 1" + "0" * 5000, "digits"),
        ("[[pattern]]\nname = 'a'\nscan = true\n", "key table_name"),
        ("[[pattern]]\nname = 'a'\ntable_name = 't'\ncalls_per_day = nan\n", "calls_per_day"),
        (
            "[[pattern]]\nname = 'a'\ntable_name = 't'\nexpression_attribute_values = "
            "{ ':d' = { S = 1979-05-27 } }\n",
            "expression_attribute_values",
        ),
    ],
)
def test_a_bad_file_is_one_line(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(text)
    assert_one_line(check(path), path, words)


def test_what_is_not_a_small_regular_text_file_is_refused(tmp_path: Path) -> None:
    huge = tmp_path / "huge.toml"
    huge.write_text("# " + "x" * MAX_FILE_BYTES + "\n")
    assert_one_line(check(huge), huge, "larger than")
    assert_one_line(check(tmp_path), tmp_path, "directory")
    assert_one_line(check(tmp_path / "none.toml"), tmp_path / "none.toml", "does not exist")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"name = '\xff'\n")
    assert_one_line(check(binary), binary, "not UTF-8")
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)  # opening it must not wait for a writer
    assert_one_line(check(fifo), fifo, "not a regular file")


@pytest.mark.parametrize("depth", [60, 200, 5000, 200_000])
def test_deep_nesting_is_refused(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "deep.toml"
    arrays = "x = " + "[" * depth + "]" * depth + "\n"
    path.write_text(f"[[pattern]]\nname = 'a'\ntable_name = 't'\nbudget = {{}}\n{arrays}")
    line = assert_one_line(check(path), path)
    assert "nested" in line or "key x" in line


def test_deep_values_nest_no_further_than_dynamodb_json_may(tmp_path: Path) -> None:
    value: Any = {"S": "a"}
    for _ in range(100):
        value = {"M": {"k": value}}
    path = tmp_path / "deep.toml"
    path.write_text(toml_pattern({**VALID, "expression_attribute_values": {":c": value}}))
    assert_one_line(check(path), path, "nested more than")


def test_a_huge_number_of_patterns_is_refused_by_count_or_size(tmp_path: Path) -> None:
    path = tmp_path / "many.toml"
    path.write_text("[[pattern]]\nname = 'a'\n" * 60_000)
    assert_one_line(check(path), path)


def test_output_folders_are_checked_before_anything_is_read(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(toml_pattern(VALID))
    missing = tmp_path / "no" / "junit.xml"
    result = check(path, "--junit", str(missing))
    assert result.returncode == 2 and "does not exist" in result.stderr
    result = check(path, "--receipt", str(tmp_path))
    assert result.returncode == 2 and "is a folder" in result.stderr
    result = check(path, "--junit", str(path))
    assert result.returncode == 2 and "the patterns file itself" in result.stderr
    result = check(path, "--junit", str(tmp_path / "x"), "--receipt", str(tmp_path / "x"))
    assert result.returncode == 2 and "the same file" in result.stderr
    assert path.read_text() == toml_pattern(VALID)


@pytest.mark.parametrize("tolerance", ["", "%", "abc", "1e3", "\u0662\u0660", "-5", "1.2.3", "."])
def test_a_tolerance_is_ascii_digits(tmp_path: Path, tolerance: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(toml_pattern(VALID))
    result = check(path, "--tolerance", tolerance)
    assert result.returncode == 2 and "--tolerance" in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize("cap", ["0", "-1", "nan", "inf"])
def test_check_s_read_units_cap_is_a_finite_number_above_0(tmp_path: Path, cap: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(toml_pattern(VALID))
    result = check(path, "--max-read-units", cap)
    assert result.returncode == 2 and "--max-read-units" in result.stderr, result.stderr


@given(text=st.text(max_size=12))
def test_fuzz_a_tolerance_is_a_percentage_or_one_line(text: str) -> None:
    from dynotui.core.errors import InputError
    from dynotui.patterns.receipt import MAX_TOLERANCE_PERCENT, parse_tolerance

    try:
        found = parse_tolerance(text)
    except InputError as exc:
        assert "\n" not in str(exc) and "--tolerance" in str(exc)
    else:
        assert 0 <= found <= MAX_TOLERANCE_PERCENT / 100


def test_a_receipt_that_is_not_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(toml_pattern(VALID))
    for text in (
        "[",
        "{}",
        '{"kind": "dynotui check receipt", "version": 1, "patterns": {"a": '
        '{"read_units_per_page": "1"}}}',
        "[" * 10_000,
    ):
        receipt = tmp_path / "r.json"
        receipt.write_text(text)
        result = check(path, "--against", str(receipt))
        assert result.returncode == 2, result.stderr
        assert len(result.stderr.splitlines()) == 1 and "receipt" in result.stderr


# -- fuzzed ----------------------------------------------------------------------------------

scalars = st.one_of(
    st.text(max_size=20),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


def _wrong_kind(key: str, value: Any) -> bool:
    wanted = KINDS[key]
    if wanted is float:
        return isinstance(value, bool) or not isinstance(value, (int, float))
    if wanted is int:
        return isinstance(value, bool) or not isinstance(value, int)
    if wanted is bool:
        return not isinstance(value, bool)
    return not isinstance(value, wanted)


FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(key=st.sampled_from(sorted(KINDS)), value=values)
def test_fuzz_wrong_types(tmp_path: Path, key: str, value: Any) -> None:
    """Every key of a pattern and of its budget, given a value of another kind."""
    if not _wrong_kind(key, value):
        return
    entry = dict(VALID)
    if key.startswith("budget."):
        entry["budget"] = {**VALID["budget"], key.removeprefix("budget."): value}
    else:
        entry[key] = value
    path = tmp_path / "wrong.toml"
    path.write_text(toml_pattern(entry))
    pattern = "pattern #1" if key == "name" else 'pattern "orders by customer"'
    assert_one_line(check(path), path, pattern, f"key {key}:")


@FUZZ
@given(
    key=st.text(min_size=1, max_size=12).filter(lambda k: k not in VALID),
    value=values,
    in_budget=st.booleans(),
)
def test_fuzz_unknown_keys(tmp_path: Path, key: str, value: Any, in_budget: bool) -> None:
    from dynotui.patterns.model import BUDGET_KEYS, PATTERN_KEYS

    if key in PATTERN_KEYS or key in BUDGET_KEYS:
        return
    entry = dict(VALID)
    if in_budget:
        entry["budget"] = {**VALID["budget"], key: value}
    else:
        entry[key] = value
    path = tmp_path / "unknown.toml"
    path.write_text(toml_pattern(entry))
    from dynotui.patterns.load import _key

    line = assert_one_line(check(path), path, 'pattern "orders by customer"')
    # The key named as written (a control character in it is shown as a picture of it).
    shown = _key(key) if key.isprintable() else ""
    named = f"key budget.{shown}" if in_budget else f"key {shown}"
    assert named in line, (named, line)
    assert "not a budget's key" in line if in_budget else "not a key of a pattern" in line


@FUZZ
@given(data=st.data())
def test_fuzz_bad_toml(tmp_path: Path, data: st.DataObject) -> None:
    text = toml_pattern(VALID)
    cut = data.draw(st.integers(min_value=1, max_value=len(text) - 1))
    noise = data.draw(st.text(alphabet="[]{}=\"'\\\n#,.", min_size=1, max_size=6))
    mangled = text[:cut] + noise + text[cut:]
    try:
        parse(mangled, "x")
    except PatternFileError:
        pass
    else:
        return  # still a valid file (noise in a string, say): another test's business
    path = tmp_path / "bad.toml"
    path.write_text(mangled)
    assert_one_line(check(path), path)


@FUZZ
@given(raw=st.binary(max_size=200))
def test_fuzz_bytes(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "bytes.toml"
    path.write_bytes(raw)
    assert_one_line(check(path), path)


# -- the budget's judgement, on figures given ------------------------------------------------


def _figures(**given: Any) -> Any:
    from dynotui.patterns.budget import Figures

    base = {
        "label": None,
        "pages": 1,
        "items": 10,
        "scanned": 10,
        "read_units": 1.0,
        "read_units_per_page": 1.0,
        "scan": False,
        "calls": 1,
    }
    return Figures(**{**base, **given})


def test_nothing_unmeasured_passes_and_an_empty_read_is_not_free() -> None:
    from dynotui.patterns.budget import judge
    from dynotui.patterns.model import Budget

    budget = Budget(read_units_per_page=2, read_units_per_item=0.5, waste=0.5)
    assert judge(budget, _figures()) == []
    unreported = judge(budget, _figures(read_units=None, read_units_per_page=None, scanned=None))
    assert [(o.figure, o.measured) for o in unreported] == [
        ("read_units_per_page", None),
        ("read_units_per_item", None),
        ("waste", None),
    ]
    assert "not reported by the endpoint" in unreported[0].words()
    (empty,) = judge(budget, _figures(items=0, scanned=0, read_units=0.5))  # an empty key
    assert empty.figure == "read_units_per_item" and "no item returned" in empty.words()
    assert judge(budget, _figures(items=0, scanned=0, read_units=0.0)) == []  # nothing read
    (scan,) = judge(budget, _figures(scan=True))
    assert scan.figure == "scan"
    assert judge(Budget(scan=True), _figures(scan=True)) == []
