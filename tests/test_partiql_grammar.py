"""PartiQL: what is sent is what was checked.

The tokenizer and grammar are checked three ways: pure properties (whatever is accepted
is rebuilt as one SELECT with no comment, and re-parses to the same tokens), against
DynamoDB Local's own reading (an accepted statement as typed and as rebuilt return the
same items), and against writes (no accepted statement changes a sentinel table; the
crafted writes of the attack are refused by the CLI with exit 2 and change nothing).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest
from helpers import page_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynotui.core.cursor import CursorSigner
from dynotui.core.errors import InputError
from dynotui.dynamodb.partiql import Statement
from dynotui.dynamodb.partiql_grammar import (
    MAX_NESTING,
    PartiQLSyntaxError,
    parse_select,
    tokenize,
)
from dynotui.local.tables import create_table, table_definition, write_items

CLI = [sys.executable, "-m", "dynotui"]
ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}

# Every character DynamoDB or a terminal might take for a line end, and the ones it
# takes for whitespace (measured on DynamoDB Local: only LF and CR end a -- comment).
TERMINATORS = {
    "LF": "\n",
    "CR": "\r",
    "CRLF": "\r\n",
    "VT": "\x0b",
    "FF": "\x0c",
    "NEL": "\x85",
    "LS": "\u2028",
    "PS": "\u2029",
}
ENDS_A_COMMENT = {"LF", "CR", "CRLF"}


# -- the rebuilt text, with no server ------------------------------------------------------


def test_comments_and_spelling_do_not_reach_the_server() -> None:
    typed = "select  *\n from \"t\" -- a note\r where PK = ? /* and */ AND begins_with ( sk ,'a');"
    statement = Statement(typed, ({"S": "x"},))
    assert statement.text == "SELECT * FROM \"t\" WHERE PK = ? AND begins_with(sk, 'a')"
    assert statement.request(None, 5)["Statement"] == statement.text
    assert statement.target() == ("t", None) and statement.equalities() == {"PK"}


@pytest.mark.parametrize("name", list(TERMINATORS))
def test_a_line_comment_ends_where_dynamodb_ends_it(name: str) -> None:
    parsed = parse_select(f"SELECT * FROM \"t\" --c{TERMINATORS[name]}WHERE pk = 'B'")
    if name in ENDS_A_COMMENT:
        assert parsed.text == "SELECT * FROM \"t\" WHERE pk = 'B'"
    else:
        assert parsed.text == 'SELECT * FROM "t"'


@pytest.mark.parametrize(
    "text, words",
    [
        ('--\rUPDATE "t" SET a = 77 WHERE pk = \'x\' /*\nSELECT * FROM "t" */', "only SELECT"),
        ('--\rDELETE FROM "t" WHERE pk = \'x\' /*\nSELECT * FROM "t" */', "only SELECT"),
        ('SELECT * FROM "t"; DELETE FROM "t"', "one statement at a time"),
        ('SELECT * FROM "t";;', "one statement at a time"),
        (
            "SELECT * FROM \"t\" /* a /* b */ WHERE pk = 'B' */",
            "'/' is not part of a DynamoDB SELECT at character 48",
        ),
        ('SELECT * FROM "t" /* never closed', "never closed"),
        ('SELECT * FROM "t" WHERE pk = \'never closed', "never closed"),
        ('SELECT * FROM "t" WHERE a = `1`', "Ion literals"),
        ('SELECT * FROM "t" WHERE a = 1\u2028', "'\\u2028' is not part"),
        ('SELECT * FROM "t"\u00a0WHERE a = 1', "'\\xa0' is not part"),
        ("SELECT * FROM t WHERE value = 1", "'value' is a keyword"),
        ("SELECT * FROM t WHERE a = 1e", "runs into"),
        ('SELECT * FROM t WHERE "" = 1', "is empty"),
        ("SELECT * FROM t WHERE EXISTS(SELECT * FROM t)", "'EXISTS' is a keyword"),
        ("SELECT * FROM t WHERE a = - -1", "a sign goes only before a number"),
        ("SELECT * FROM t WHERE a = 1 + 1", "expected the end"),
        ("SELECT * FROM t WHERE $a = 1", "'$' is not part"),
        ("SELECT * FROM t WHERE a = 'x' \\ ", "'\\\\' is not part"),
        ("", "empty"),
        ("  -- only a comment\n", "empty"),
    ],
)
def test_what_the_grammar_does_not_model_is_refused(text: str, words: str) -> None:
    with pytest.raises(PartiQLSyntaxError, match=re.escape(words)):
        parse_select(text)


def test_nesting_is_bounded_not_a_recursion_error() -> None:
    deep = "SELECT * FROM t WHERE " + "(" * 500 + "a = 1" + ")" * 500
    with pytest.raises(InputError, match=f"nested more than {MAX_NESTING} deep"):
        parse_select(deep)
    lists = "SELECT * FROM t WHERE a = " + "[" * 500 + "]" * 500
    with pytest.raises(InputError, match="nested more than"):
        parse_select(lists)
    assert parse_select("SELECT * FROM t WHERE " + "(" * 30 + "a = 1" + ")" * 30)


def test_selected_attributes_and_equalities_come_from_the_parse() -> None:
    statement = Statement(
        'SELECT a.b, "c", a[0] FROM "t"."i" WHERE x = ? AND (y = 1 OR z = 2) AND w IN [1]',
        ({"S": "v"},),
    )
    assert statement.selected() == ["a", "c"]
    assert statement.target() == ("t", "i")
    assert statement.equalities() == {"x", "w"}
    assert Statement("SELECT * FROM t WHERE x = 1 OR y = 2").equalities() == set()
    assert Statement("SELECT * FROM t WHERE NOT x = 1").equalities() == set()
    assert Statement("SELECT * FROM t WHERE ? = x AND y.z = 1").equalities() == {"x"}
    assert Statement("SELECT * FROM t WHERE x NOT IN [1]").equalities() == set()


def test_a_hidden_where_changes_the_cursor_scope() -> None:
    """The attack: `--\\rWHERE pk = 'B'` used to get the scope of the statement without it."""
    hidden = Statement("SELECT * FROM \"t\" --\rWHERE pk = 'B'")
    plain = Statement('SELECT * FROM "t"')
    written = Statement("SELECT * FROM \"t\" WHERE pk = 'B'")
    assert hidden.scope() != plain.scope()
    assert hidden.scope() == written.scope()
    signer = CursorSigner(b"k" * 32)
    token = signer.sign("NEXT", plain.scope())
    with pytest.raises(InputError, match="another query"):
        signer.verify(token, hidden.scope())


# -- random statements: accepted means one SELECT, no comment, a fixed point ---------------

ALPHABET = [
    "SELECT", "select", "*", "FROM", '"t"', "t", '"t"."i"', "WHERE", "pk", "sk", '"a""b"',
    "=", "<>", "<", ">=", "?", "'x'", "''", "'it''s'", "'--'", "'/*'", "1", "-1", "1.5e3",
    ".5", "AND", "OR", "NOT", "IN", "[", "]", "(", ")", "{", "}", "<<", ">>", ",", ".", ":",
    ";", "-", "+", "BETWEEN", "IS", "MISSING", "NULL", "TRUE", "begins_with", "size",
    "ORDER BY", "DESC", "UPDATE", "DELETE", "INSERT", "INTO", "VALUE", "SET", "EXISTS",
    "REMOVE", "--", "--c", "/*", "*/", "/* c */", "`", "\\", "'", '"', "$",
]  # fmt: skip
SEPARATORS = ["", " ", *TERMINATORS.values(), "\t", " -- note\n", " /* note */ "]
SKELETONS = [
    'SELECT * FROM "t"',
    "SELECT * FROM \"t\" WHERE pk = 'x'",
    'SELECT pk, sk FROM "t" WHERE pk = ? AND sk > ?',
    "SELECT * FROM \"t\" WHERE pk IN ['x', ?] ORDER BY sk DESC",
]


COMMENTS = [
    "--",
    "--c",
    '-- UPDATE "t" SET a = 1',
    "/* c */",
    "/* DELETE FROM t */",
    "/**/",
    "/* -- */",
    "/*",
    "*/",
]


@st.composite
def statements(draw: st.DrawFn) -> str:
    """Random text from the alphabet, often around a valid SELECT so that much is accepted:
    noise alone, noise cut into a SELECT, or comments and line ends cut into one."""
    shape = draw(st.sampled_from(["noise", "cut", "comments"]))
    alphabet = COMMENTS if shape == "comments" else ALPHABET
    pieces = draw(st.lists(st.sampled_from(alphabet), max_size=12))
    separators = draw(st.lists(st.sampled_from(SEPARATORS), min_size=13, max_size=13))
    noise = "".join(s + p for s, p in zip(separators, pieces, strict=False))
    if shape == "noise":
        return noise
    skeleton = draw(st.sampled_from(SKELETONS))
    at = draw(st.integers(0, len(skeleton)))
    cut = draw(st.sampled_from([at, skeleton.rfind(" ", 0, at) + 1]))
    return skeleton[:cut] + draw(st.sampled_from(SEPARATORS)) + noise + skeleton[cut:]


_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")


def check_rebuilt(text: str) -> str | None:
    """The rebuilt text of an accepted statement, checked; None when it is refused."""
    try:
        parsed = parse_select(text)
    except PartiQLSyntaxError:
        return None
    rebuilt = parsed.text
    assert rebuilt.startswith("SELECT ")
    outside_quotes = _QUOTED.sub("''", rebuilt)
    assert "--" not in outside_quotes and "/*" not in outside_quotes and ";" not in outside_quotes
    assert not any(c in outside_quotes for c in "\n\r\x0b\x0c")
    again = parse_select(rebuilt)
    assert again.tokens == parsed.tokens and again.text == rebuilt
    assert (again.table, again.index, again.columns) == (parsed.table, parsed.index, parsed.columns)
    assert [t.kind for t in tokenize(rebuilt)] == [
        "name" if t.kind == "function" else t.kind for t in parsed.tokens
    ]
    return rebuilt


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statements())
def test_accepted_statements_are_one_select_with_no_comment(text: str) -> None:
    check_rebuilt(text)


def test_the_generator_reaches_both_sides() -> None:
    """The property above means little if every random statement were refused."""
    accepted = refused = 0

    @settings(max_examples=400, deadline=None, database=None, derandomize=True)
    @given(statements())
    def tally(text: str) -> None:
        nonlocal accepted, refused
        if check_rebuilt(text) is None:
            refused += 1
        else:
            accepted += 1

    tally()
    assert accepted >= 40 and refused >= 40, (accepted, refused)


# -- against DynamoDB Local ----------------------------------------------------------------


@pytest.fixture(scope="module")
def sentinel(client: Any) -> str:
    name = "partiql-sentinel"
    if create_table(client, table_definition(name, ("pk", "S"), ("sk", "S"))):
        items = [{"pk": "x", "sk": f"{i:03d}", "a": i} for i in range(10)]
        items += [{"pk": "B", "sk": "1", "a": 1}, {"pk": "it's", "sk": "--", "a": 2}]
        write_items(client, name, items)
    return name


def everything(client: Any, table: str) -> list[dict]:
    items: list[dict] = []
    params: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        response = client.scan(**params)
        items += response["Items"]
        if "LastEvaluatedKey" not in response:
            return sorted(items, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))
        params["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def outcome(client: Any, statement: str, parameters: list[dict]) -> Any:
    """Every item the statement returns (following NextToken), or the error code."""
    params: dict[str, Any] = {"Statement": statement}
    if parameters:
        params["Parameters"] = parameters
    items: list[dict] = []
    try:
        while True:
            response = client.execute_statement(**params)
            items += response["Items"]
            if not response.get("NextToken"):
                return sorted(json.dumps(i, sort_keys=True) for i in items)
            params["NextToken"] = response["NextToken"]
    except client.exceptions.ClientError as exc:
        return exc.response["Error"]["Code"]


@pytest.mark.parametrize("name", list(TERMINATORS))
def test_dynamodb_ends_comments_where_the_tokenizer_does(client, sentinel, name) -> None:
    """The measured facts, kept measured: the server reads the typed text as rebuilt."""
    typed = f"SELECT * FROM \"{sentinel}\" --c{TERMINATORS[name]}WHERE pk = 'B'"
    rebuilt = parse_select(typed).text
    assert outcome(client, typed, []) == outcome(client, rebuilt, [])
    whole = outcome(client, f'SELECT * FROM "{sentinel}"', [])
    assert (outcome(client, typed, []) != whole) == (name in ENDS_A_COMMENT)


def _on_sentinel(text: str, table: str) -> str:
    return text.replace('"t"."i"', f'"{table}"').replace('"t"', f'"{table}"')


@settings(
    max_examples=120,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(statements())
def test_no_accepted_statement_writes_and_the_server_reads_it_as_rebuilt(
    client, sentinel, text
) -> None:
    text = _on_sentinel(text, sentinel)
    rebuilt = check_rebuilt(text)
    if rebuilt is None:
        return
    before = everything(client, sentinel)
    parameters = [{"S": "x"}] * parse_select(text).placeholders
    as_rebuilt = outcome(client, rebuilt, parameters)
    # The typed text is sent only because the parser accepted it: were the two readings
    # ever to differ, a write would show in the sentinel table below.
    assert outcome(client, text, parameters) == as_rebuilt, (text, rebuilt)
    assert everything(client, sentinel) == before


CRAFTED_WRITES = [
    "--\rUPDATE \"{t}\" SET a = 77 WHERE pk = 'x' AND sk = '005' /*\nSELECT * FROM \"{t}\" */",
    "--\rDELETE FROM \"{t}\" WHERE pk = 'x' AND sk = '005' /*\nSELECT * FROM \"{t}\" */",
    "--\rINSERT INTO \"{t}\" VALUE {{'pk': 'x', 'sk': '999', 'a': 1}} /*\nSELECT * FROM \"{t}\" */",
]


@pytest.mark.parametrize("template", CRAFTED_WRITES, ids=["update", "delete", "insert"])
def test_the_crafted_writes_are_refused_and_change_nothing(ddb, client, sentinel, template):
    before = everything(client, sentinel)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "dynotui",
            "pages",
            "--endpoint-url",
            ddb.endpoint_url,
            "--statement",
            template.format(t=sentinel),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert result.returncode == 2, result.stderr
    assert "only SELECT" in result.stderr and result.stderr.count("\n") == 1
    assert result.stdout == ""
    after = everything(client, sentinel)
    assert after == before
    item = client.get_item(
        TableName=sentinel, Key={"pk": {"S": "x"}, "sk": {"S": "005"}}, ConsistentRead=True
    )["Item"]
    assert item["a"] == {"N": "5"}


def test_a_hidden_where_is_sent_and_scoped(ddb, client, sentinel) -> None:
    """`--\\rWHERE` pages only pk = 'B', and its token is not good for the whole table."""
    typed = f"SELECT * FROM \"{sentinel}\" --\rWHERE pk = 'B'"

    def pages(statement: str, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*CLI, "pages", "--endpoint-url", ddb.endpoint_url, "--statement", statement, *extra],
            capture_output=True,
            text=True,
            timeout=120,
            env=ENV,
        )

    hidden = pages(typed, "--page-size", "1", "--max-pages", "1")
    assert hidden.returncode == 0, hidden.stderr
    (first,) = page_lines(hidden.stdout)
    assert [i["pk"] for i in first["items"]] == [{"S": "B"}]
    whole = pages(f'SELECT * FROM "{sentinel}"', "--page-size", "1", "--max-pages", "1")
    token = json.loads(whole.stdout.splitlines()[0])["next_token"]
    refused = pages(typed, "--page-size", "1", "--starting-token", token)
    assert refused.returncode == 2 and "another query" in refused.stderr
