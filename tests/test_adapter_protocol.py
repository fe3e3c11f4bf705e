"""The adapter protocol asks every database only what every database must answer; the rest
has defaults, so a new database's adapter (PostgreSQL's, or one to come) stubs nothing."""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from dynotui.core.errors import InputError
from dynotui.ui import adapter as adapter_module
from dynotui.ui.actions import GENERIC, Action
from dynotui.ui.adapter import Adapter, Answer, Shown, Side
from dynotui.ui.host import Host
from dynotui.ui.postgres.adapter import PostgresAdapter

REQUIRED = {
    "label",
    "actions",
    "client",
    "open",
    "choose_table",
    "edit_query",
    "choose_order",
    "close",
}


def _members() -> dict[str, ast.FunctionDef]:
    tree = ast.parse(inspect.getsource(adapter_module))
    protocol = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Adapter")
    return {n.name: n for n in protocol.body if isinstance(n, ast.FunctionDef)}


def _bodiless(function: ast.FunctionDef) -> bool:
    """A docstring and ``...`` alone: mypy takes it as abstract in a subclass."""
    body = [
        s
        for s in function.body
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        or s.value.value is Ellipsis
    ]
    return all(
        isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is ...
        for s in body
    )


def test_only_what_every_database_answers_is_required() -> None:
    members = _members()
    assert len(members) == 24  # the protocol's members: none lost in the split
    assert {name for name, f in members.items() if _bodiless(f)} == REQUIRED


def test_the_postgres_adapter_stubs_no_member_it_has_nothing_for() -> None:
    # Before the defaults it wrote started, prices, palette and run as do-nothing stubs.
    # run is its own again since the plan (A) came to PostgreSQL: a database action, no stub.
    own = set(vars(PostgresAdapter))
    assert not own & {"started", "prices", "palette"}
    assert "db('plan')" in {action.action for action in PostgresAdapter.actions(None)}  # type: ignore[arg-type]
    assert Adapter in PostgresAdapter.__mro__  # the defaults come from the protocol


class Said:
    def __init__(self) -> None:
        self.words: list[tuple[str, str]] = []
        self.failed: list[tuple[BaseException, str]] = []

    def say(self, words: str, *, title: str = "", severity: str = "information", **_: Any):
        self.words.append((words, severity))

    def fail(self, error: BaseException, title: str) -> None:
        self.failed.append((error, title))


class Minimal(Adapter[str, dict, float]):
    """What a new database writes to be paged: the required members, nothing else."""

    @property
    def label(self) -> str:
        return "minimal"

    def actions(self) -> Sequence[Action]:
        return GENERIC

    def client(self, side: Side) -> object:
        return None

    def open(self, host: Host, answer: Answer[str, dict, float]) -> None:
        pass

    def choose_table(self, host: Host, answer: Answer[str, dict, float]) -> None:
        pass

    def edit_query(self, host: Host, shown: Shown, answer: Answer[str, dict, float]) -> None:
        pass

    def choose_order(self, host: Host, shown: Shown, answer: Answer[str, dict, float]) -> None:
        pass

    def close(self) -> None:
        pass


ASKED: list[tuple[str, Callable[[Minimal, Any], object]]] = [
    ("toggle_mode", lambda a, h: a.toggle_mode(h, Shown())),
    ("flip_direction", lambda a, h: a.flip_direction(h, Shown())),
    ("count", lambda a, h: a.count(h, Shown(), lambda _: None)),
    ("reconnect", lambda a, h: a.reconnect(h, Shown())),
    ("reopen", lambda a, h: a.reopen(h, object(), lambda _: None)),
]


@pytest.mark.parametrize(("name", "ask"), ASKED, ids=[n for n, _ in ASKED])
def test_a_default_says_the_database_has_no_such_thing(name: str, ask: Any) -> None:
    host = Said()
    assert ask(Minimal(), host) is None  # no new stack, nothing opened
    assert len(host.words) == 1 and host.words[0][1] == "warning", host.words


def test_the_quiet_defaults_answer_nothing() -> None:
    minimal, host = Minimal(), Said()
    minimal.started()
    minimal.run("anything", host, Shown(), lambda _: None)  # type: ignore[arg-type]
    assert minimal.compare_partner(object()) is None  # type: ignore[arg-type]
    assert minimal.prices() is None
    assert minimal.code_target() is None
    assert minimal.foreign_reader(Shown()) is None
    assert minimal.foreign_start(Shown(), object(), "") is None  # type: ignore[arg-type]
    assert minimal.history_query(object()) is None  # type: ignore[arg-type]
    assert list(minimal.palette(Shown())) == []
    assert host.words == []


def test_a_refused_query_and_a_report_fail_as_input_errors() -> None:
    minimal, host = Minimal(), Said()
    error = InputError("no such column")
    minimal.refused(host, object(), error, lambda _: None)  # type: ignore[arg-type]
    assert host.failed == [(error, "Query")]
    with pytest.raises(InputError, match="no report"):
        minimal.report([], object(), 1)  # type: ignore[arg-type]
