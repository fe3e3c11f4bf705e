"""Query specs and expressions: pure code, no server."""

from __future__ import annotations

import pytest

from dynotui.core.errors import InputError
from dynotui.dynamodb.expressions import auto_names
from dynotui.dynamodb.schema import parse_schema
from dynotui.dynamodb.source import query_pager
from dynotui.dynamodb.spec import from_expressions, from_key, key_condition, typed_value
from dynotui.local.demo import TABLE_DEFINITION

SCHEMA = parse_schema({**TABLE_DEFINITION, "TableStatus": "ACTIVE", "ItemCount": 10})


class NoCalls:
    def __getattr__(self, name: str):
        raise AssertionError(f"no call may be made, but {name} was used")


def test_schema_lists_every_order() -> None:
    assert [o.name for o in SCHEMA.orders] == ["table", "by_total", "by_status", "flagged"]
    assert [o.kind for o in SCHEMA.orders] == ["table", "lsi", "gsi", "gsi"]
    assert SCHEMA.order("by_status").projected == ("total", "flag")
    assert SCHEMA.cursor_key_names("by_status") == ("status", "placed_on", "customer", "order_no")
    assert SCHEMA.cursor_key_names(None) == ("customer", "order_no")
    with pytest.raises(InputError, match="has no index 'nope'"):
        SCHEMA.order("nope")


def test_auto_names_handles_reserved_words_functions_and_paths() -> None:
    text, names = auto_names(
        "status = :s AND size(lines) > :n AND begins_with(name, :p) AND a.b[0] <> :x",
        {},
    )
    assert (
        text == "#status = :s AND size(#lines) > :n AND begins_with(#name, :p) AND #a.#b[0] <> :x"
    )
    assert names == {"#status": "status", "#lines": "lines", "#name": "name", "#a": "a", "#b": "b"}
    text, names = auto_names("status = :s", {"#status": "other", "#st": "status"})
    assert text == "#st = :s"


def test_scope_ignores_placeholder_spelling_but_not_values_or_direction() -> None:
    a = from_expressions(
        "t", key_condition="#p = :v", names={"#p": "pk"}, values={":v": {"S": "x"}}
    )
    b = from_expressions("t", key_condition="pk   =  :other", values={":other": {"S": "x"}})
    assert a.scope() == b.scope()
    assert a.scope() != a.with_(values={":v": {"S": "y"}}).scope()
    assert a.scope() != a.with_(forward=False).scope()
    assert a.scope() != a.with_(index="by_total").scope()
    assert a.scope() != a.with_(filter="#p = :v").scope()
    assert a.scope() == a.with_(page_size=99, mode="fill").scope()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"page_size": 0}, "page size must be 1 to 1000"),
        ({"page_size": 1001}, "page size must be 1 to 1000"),
        ({"max_rounds": 0}, "max rounds"),
        ({"index": "by_status", "consistent_read": True}, "GSIs serve only eventually consistent"),
        (
            {"key_condition": None, "values": {}, "names": {}},
            "needs a key condition on its partition key",
        ),
        ({"scan": True}, "a Scan takes no key condition"),
        ({"filter": "#nope = :pk"}, "filter uses #nope but no value or name"),
        ({"values": {":pk": {"S": "a"}, ":unused": {"S": "b"}}}, ":unused is defined but used"),
    ],
)
def test_bad_specs_are_refused_before_any_call(changes: dict, message: str) -> None:
    spec = from_key(SCHEMA, partition_value="acme").with_(**changes)
    with pytest.raises(InputError, match=message):
        query_pager(NoCalls(), spec, SCHEMA)


def test_lsi_allows_consistent_read() -> None:
    spec = from_key(SCHEMA, index="by_total", partition_value="acme", consistent_read=True)
    query_pager(NoCalls(), spec, SCHEMA)  # no error, no call
    assert spec.request(SCHEMA, None, 10)["ConsistentRead"] is True


def test_key_condition_types_values_from_the_schema() -> None:
    order = SCHEMA.order("by_total")
    expr, names, values = key_condition(order, "acme", "BETWEEN", ["9.5", "10"])
    assert expr == "#pk = :pk AND #sk BETWEEN :sk1 AND :sk2"
    assert names == {"#pk": "customer", "#sk": "total"}
    assert values[":sk1"] == {"N": "9.5"}
    with pytest.raises(InputError, match="lower bound first"):
        key_condition(order, "acme", "BETWEEN", ["10", "9.5"])
    with pytest.raises(InputError, match="is a number"):
        key_condition(order, "acme", ">", ["ten"])
    with pytest.raises(InputError, match="begins_with works on strings"):
        key_condition(order, "acme", "begins_with", ["1"])
    with pytest.raises(InputError, match="has no sort key"):
        key_condition(
            parse_schema(
                {
                    **TABLE_DEFINITION,
                    "LocalSecondaryIndexes": [],
                    "KeySchema": TABLE_DEFINITION["KeySchema"][:1],
                }
            ).base,
            "a",
            "=",
            ["x"],
        )
    # "10" < "9" as strings: BETWEEN "10" AND "9" is a valid string range
    expr, _, _ = key_condition(SCHEMA.base, "acme", "BETWEEN", ["10", "9"])
    assert "BETWEEN" in expr


def test_typed_binary_value_is_base64() -> None:
    from dynotui.dynamodb.schema import KeyAttribute

    assert typed_value(KeyAttribute("b", "B"), "AP8=", "sort key") == {"B": b"\x00\xff"}
    with pytest.raises(InputError, match="give it as base64"):
        typed_value(KeyAttribute("b", "B"), "not base64!", "sort key")


def test_request_adds_key_attributes_to_a_projection() -> None:
    spec = from_key(SCHEMA, index="by_status", partition_value="PLACED", projection="total")
    params = spec.request(SCHEMA, None, 5)
    projected = {
        params["ExpressionAttributeNames"].get(p.strip(), p.strip())
        for p in params["ProjectionExpression"].split(",")
    }
    assert projected == {"total", "status", "placed_on", "customer", "order_no"}
    assert params["IndexName"] == "by_status" and params["ReturnConsumedCapacity"] == "INDEXES"


# -- scopes: one canonical identity per query ------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def test_a_name_cannot_pose_as_expression_syntax() -> None:
    """The reproduction: a placeholder name holding expression text must not share a scope."""
    values = {":a": {"S": "COMMON"}, ":b": {"S": "n1"}}
    real = from_expressions(
        "T",
        key_condition="pk = :p",
        filter="status = :a AND name = :b",
        values={":p": {"S": "x"}, **values},
    )
    forged = from_expressions(
        "T",
        key_condition="pk = :p",
        filter="#w = :b",
        names={"#w": 'status = {"S":"COMMON"} AND name'},
        values={":p": {"S": "x"}, ":b": {"S": "n1"}},
    )
    assert real.scope() != forged.scope()


def test_spacing_and_case_of_keywords_do_not_change_the_scope() -> None:
    a = from_expressions("t", key_condition="pk = :p", values={":p": {"S": "x"}})
    b = from_expressions("t", key_condition="pk=:p", values={":p": {"S": "x"}})
    c = from_expressions("t", key_condition="( pk  =:p )", values={":p": {"S": "x"}})
    assert a.scope() == b.scope() == c.scope()
    f1 = a.with_(filter="#pk > :p and not #pk < :p", names=a.names)
    f2 = a.with_(filter="NOT #pk<:p AND (#pk>:p)", names=a.names)
    assert f1.scope() == f2.scope()


def test_a_syntax_error_is_named_before_any_call() -> None:
    spec = from_key(
        SCHEMA, partition_value="acme", filter="status = :r AND", filter_values={":r": {"S": "x"}}
    )
    with pytest.raises(InputError, match="the filter is not a valid expression"):
        query_pager(NoCalls(), spec, SCHEMA)


@pytest.mark.parametrize(
    ("typed", "position"),
    [("status = = :r", 10), ("customer_name =  = :r", 18), ("(status = :r", 13)],
)
def test_a_syntax_error_quotes_what_was_typed(typed: str, position: int) -> None:
    """Bare names become #placeholders before the call; the error must not show that."""
    spec = from_expressions(
        "t",
        key_condition="customer = :c",
        filter=typed,
        values={":c": {"S": "acme"}, ":r": {"S": "x"}},
    )
    with pytest.raises(InputError) as caught:
        spec.check_options()
    assert f"at character {position} of {typed!r}" in str(caught.value)
    assert "#" not in str(caught.value)
    assert typed[position - 1 :].lstrip()[:1] in ("=", "")


ATTRIBUTES = ["a", "b", "status", "two words", "x.y", 'b = {"S":"1"} AND a']
VALUES = [{"S": "1"}, {"S": "2"}, {"N": "1"}, {"S": 'x = {"S":"1"} AND a'}]


def _leaf() -> st.SearchStrategy:
    attribute = st.sampled_from(ATTRIBUTES)
    value = st.sampled_from(range(len(VALUES)))
    return st.one_of(
        st.tuples(st.just("cmp"), attribute, st.sampled_from(["=", "<"]), value),
        st.tuples(st.just("between"), attribute, value, value),
        st.tuples(st.just("begins"), attribute, value),
    )


CONDITIONS = st.recursive(
    _leaf(),
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(["and", "or"]), st.lists(inner, min_size=2, max_size=3)),
        st.tuples(st.just("not"), inner),
    ),
    max_leaves=5,
)
QUERIES = st.fixed_dictionaries(
    {
        "table": st.sampled_from(["t1", "t2"]),
        "index": st.sampled_from([None, "i1"]),
        "filter": st.none() | CONDITIONS,
        "forward": st.booleans(),
    }
)


def _normal(node: object) -> object:
    """Equivalence as the test defines it, independently of the code under test: AND and
    OR are associative, commutative and idempotent; NOT NOT x is x."""
    if node is None:
        return None
    kind = node[0]  # type: ignore[index]
    if kind in ("and", "or"):
        flat: set = set()
        for child in node[1]:  # type: ignore[index]
            normal = _normal(child)
            if isinstance(normal, tuple) and normal[0] == kind:
                flat |= set(normal[1])
            else:
                flat.add(normal)
        return next(iter(flat)) if len(flat) == 1 else (kind, frozenset(flat))
    if kind == "not":
        inner = _normal(node[1])  # type: ignore[index]
        return inner[1] if isinstance(inner, tuple) and inner[0] == "not" else ("not", inner)
    return tuple(
        (tuple(VALUES[part].items()) if isinstance(part, int) else part)
        for part in node  # type: ignore[union-attr]
    )


class _Renderer:
    """One random spelling: placeholders, spacing, parentheses and keyword case."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.names: dict[str, str] = {}
        self.values: dict[str, dict] = {}

    def space(self) -> str:
        return self.draw(st.sampled_from(["", " ", "  ", "\t"]))

    def word(self, word: str) -> str:
        return self.draw(st.sampled_from([word.upper(), word.lower()]))

    def name(self, attribute: str) -> str:
        bare = attribute.isidentifier() and attribute not in ("status",)
        if bare and self.draw(st.booleans()):
            return attribute
        placeholder = f"#n{len(self.names)}"
        self.names[placeholder] = attribute
        return placeholder

    def value(self, index: int) -> str:
        placeholder = f":v{len(self.values)}"
        self.values[placeholder] = VALUES[index]
        return placeholder

    def render(self, node: object) -> str:
        s = self.space
        kind = node[0]  # type: ignore[index]
        if kind in ("and", "or"):
            children = self.draw(st.permutations(node[1]))  # type: ignore[index]
            parts = [self.render(child) for child in children]
            text = f"{s()} {self.word(kind)} {s()}".join(f"({p})" for p in parts)
        elif kind == "not":
            text = f"{self.word('not')} ({self.render(node[1])})"  # type: ignore[index]
        elif kind == "cmp":
            _, attribute, op, value = node  # type: ignore[misc]
            text = f"{self.name(attribute)}{s()}{op}{s()}{self.value(value)}"
        elif kind == "between":
            _, attribute, low, high = node  # type: ignore[misc]
            text = (
                f"{self.name(attribute)} {self.word('between')} {self.value(low)} "
                f"{self.word('and')} {self.value(high)}"
            )
        else:
            _, attribute, value = node  # type: ignore[misc]
            text = f"begins_with({s()}{self.name(attribute)},{s()}{self.value(value)})"
        return f"({s()}{text}{s()})" if self.draw(st.booleans()) else text


@st.composite
def _spelled(draw: st.DrawFn, query: dict) -> tuple[dict, str]:
    renderer = _Renderer(draw)
    key = f"pk = {renderer.value(0)}"
    text = renderer.render(query["filter"]) if query["filter"] is not None else None
    spec = from_expressions(
        query["table"],
        index=query["index"],
        key_condition=key,
        filter=text,
        names=renderer.names,
        values=renderer.values,
        forward=query["forward"],
    )
    return query, spec.scope()


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[tuple[dict, str], tuple[dict, str]]:
    first = draw(QUERIES)
    second = first if draw(st.booleans()) else draw(QUERIES)
    return draw(_spelled(first)), draw(_spelled(second))


@settings(max_examples=600, deadline=None)
@given(_pairs())
def test_equal_scope_if_and_only_if_equivalent(pair) -> None:
    (q1, scope1), (q2, scope2) = pair

    def meaning(query: dict) -> tuple:
        return (query["table"], query["index"], _normal(query["filter"]), query["forward"])

    assert (scope1 == scope2) == (meaning(q1) == meaning(q2))
