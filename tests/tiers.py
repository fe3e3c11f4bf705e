"""The two tiers: every test that needs a server is marked ``server``, found, not listed.

A test needs a server when it uses one of the fixtures that start one (DynamoDB Local,
PostgreSQL, npm's SDK for the generated JavaScript), carries a marker that says it starts
one (``jvm``, ``system_postgres``, ``install``), or, in its own code, its fixtures' code or
the code of any test helper it calls (followed through the tests' own modules), starts a
process or a server: ``subprocess.run`` and its kin, ``os.fork``, one of the helpers (or
dynotui's own calls) named in ``STARTERS``, or a ``fork`` parameter that is true.
``make test-fast`` runs ``-m "not server"``; the whole suite runs both tiers.

What the reading misses, a guard catches: a test left in the fast tier that starts a
process fails, saying so (``guard``), so the fast tier cannot quietly come to need one.
"""

from __future__ import annotations

import ast
import inspect
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
SERVER = "server"
SERVER_FIXTURES = {
    "ddb",  # DynamoDB Local (and everything on it: client, demo_table, hostile_table)
    "pg_uri",  # embedded PostgreSQL (pg, pg_admin)
    "node_modules",  # the AWS SDK for JavaScript, run by node
}
SERVER_MARKERS = {"jvm", "system_postgres", "install"}
# Helpers that start a process or a server, by the name a test calls them.
STARTERS = {
    "Terminal",  # dynotui in a pseudo-terminal
    "on_the_demo_table",
    "interruptible",
    "as_a_background_job",
    "DynamoDBLocal",
    "EmbeddedPostgres",
    "SystemPostgres",
    "MotoS3",
    "ThreadedMotoServer",
    "FaultProxy",
    "Browser",
    # dynotui's own calls that start one
    "find_java",  # java -version
    "edit_text",  # $EDITOR
}
PROCESS_PARAMS = {"fork"}  # a test parametrized with fork=True forks (the early opening)
PROCESS_CALLS = {
    ("subprocess", name) for name in ("run", "Popen", "call", "check_call", "check_output")
} | {("os", name) for name in ("fork", "system", "execv", "execvp", "posix_spawn", "spawnv")}
PROCESS_CALLS |= {("early_open", "start")}  # forks the opening's child, as the command starts


def _source_tree(thing: Any) -> ast.AST | None:
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(thing)))
    except (OSError, TypeError, SyntaxError):
        return None


def _ours(thing: Any) -> bool:
    """A function or class of the tests' own modules (not dynotui's, not a library's)."""
    module = sys.modules.get(getattr(thing, "__module__", "") or "")
    where = getattr(module, "__file__", None)
    return where is not None and Path(where).resolve().parent == TESTS


class Reader:
    """Whether a function (or class) starts a process, following the tests' helpers."""

    def __init__(self) -> None:
        self._known: dict[Any, bool] = {}

    def starts(self, thing: Any) -> bool:
        key = getattr(thing, "__code__", thing)
        if key in self._known:
            return self._known[key]
        self._known[key] = False  # a helper calling itself is not a process
        found = self._read(thing)
        self._known[key] = found
        return found

    def _read(self, thing: Any) -> bool:
        tree = _source_tree(thing)
        if tree is None:
            return False
        module = sys.modules.get(getattr(thing, "__module__", "") or "")
        scope: dict[str, Any] = dict(vars(module)) if module is not None else {}
        called: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if (node.value.id, node.attr) in PROCESS_CALLS:
                    return True
                if node.attr in STARTERS:
                    return True
            elif isinstance(node, ast.Name):
                if node.id in STARTERS:
                    return True
                called.add(node.id)
        for name in called:
            target = scope.get(name)
            helper = inspect.isfunction(target) or inspect.isclass(target)
            if helper and _ours(target) and self.starts(target):
                return True
        return False


def needs_server(item: pytest.Item, reader: Reader) -> bool:
    if any(item.get_closest_marker(name) for name in SERVER_MARKERS):
        return True
    info = getattr(item, "_fixtureinfo", None)
    names = set(getattr(item, "fixturenames", ()))
    if names & SERVER_FIXTURES:
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    if any(params.get(name) for name in PROCESS_PARAMS):
        return True
    function = getattr(item, "function", None)
    if function is not None and reader.starts(function):
        return True
    if info is not None:
        for name in names:
            for definition in info.name2fixturedefs.get(name, ()):
                fixture = getattr(definition, "func", None)
                mine = fixture is not None and _ours(fixture) and fixture.__module__ != __name__
                if mine and reader.starts(fixture):  # (the guard below is the tiers' own)
                    return True
    return False


def mark(items: list[pytest.Item]) -> None:
    reader = Reader()
    for item in items:
        if needs_server(item, reader):
            item.add_marker(SERVER)


@pytest.fixture(autouse=True)
def guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test of the fast tier that starts a process fails, saying why."""
    if request.node.get_closest_marker(SERVER):
        yield
        return
    name = request.node.nodeid
    original = subprocess.Popen._execute_child  # type: ignore[attr-defined]
    fork = os.fork

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(
            f"{name} starts a process but is not marked '{SERVER}': tests/tiers.py did not "
            "see it (name its helper in STARTERS)"
        )

    subprocess.Popen._execute_child = refuse  # type: ignore[attr-defined]
    os.fork = refuse
    try:
        yield
    finally:
        subprocess.Popen._execute_child = original  # type: ignore[attr-defined]
        os.fork = fork
