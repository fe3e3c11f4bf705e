"""The shape the tree promises: every generic UI module is held by the contract that keeps
it free of databases (a module added beside them and left out would escape it)."""

from __future__ import annotations

import pkgutil
import sys
from pathlib import Path
from typing import Any

import grimp

import dynotui
import dynotui.ui

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ADAPTERS = {"dynotui.ui.dynamodb", "dynotui.ui.postgres"}
PYPROJECT = Path(__file__).parent.parent / "pyproject.toml"


def _contract(name_start: str) -> dict:
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["name"].startswith(name_start))


def test_the_generic_ui_contract_names_every_module_but_the_adapters() -> None:
    held = set(_contract("the generic UI is generic")["source_modules"])
    top = {
        f"dynotui.ui.{info.name}"
        for info in pkgutil.iter_modules(dynotui.ui.__path__)
        if f"dynotui.ui.{info.name}" not in ADAPTERS
    }
    assert top == held, f"left out: {sorted(top - held)}; gone: {sorted(held - top)}"


def test_the_adapters_are_the_only_database_packages_of_the_ui() -> None:
    packages = {
        f"dynotui.ui.{info.name}"
        for info in pkgutil.iter_modules(dynotui.ui.__path__)
        if info.ispkg
    }
    assert packages >= ADAPTERS
    assert _contract("the two adapters")["modules"] == sorted(ADAPTERS)


def _graph() -> grimp.ImportGraph:
    # Type-only imports (under TYPE_CHECKING) are edges too: a circle through them is still
    # a circle a reader must hold in mind, and one refactor away from a runtime one.
    return grimp.build_graph("dynotui", cache_dir=None)


def _circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan's algorithm)."""
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in edges.get(module, ()):
            if imported not in edges:
                continue  # outside dynotui
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            part = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.append(top)
                if top == module:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return found


def test_no_import_circle_anywhere_type_only_imports_included() -> None:
    assert _circles(_graph()) == []


def test_the_circle_finder_finds_a_circle(tmp_path: Path, monkeypatch: Any) -> None:
    # The finder itself, on a package made here with a type-only circle a -> b -> c -> a.
    package = tmp_path / "circled"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circled import b\n")
    (package / "b.py").write_text("from circled import c\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from circled import a\n"
    )
    (package / "d.py").write_text("from circled import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circled", cache_dir=None)
    assert _circles(graph) == [["circled.a", "circled.b", "circled.c"]]


def test_the_host_protocol_imports_nothing_else_of_the_ui() -> None:
    graph = _graph()
    imported = graph.find_modules_directly_imported_by("dynotui.ui.host")
    assert not [m for m in imported if m.startswith("dynotui.ui")], imported


def test_adapters_reach_neither_the_app_nor_a_view() -> None:
    # The app asks and the adapter answers: no adapter module, nor anything it imports,
    # reaches the app, the views or the sharing that drives them.
    graph = _graph()
    adapters = {"dynotui.ui.adapter"} | {
        m
        for m in graph.modules
        if m.split(".")[:3] in (["dynotui", "ui", "dynamodb"], ["dynotui", "ui", "postgres"])
    }
    for module in sorted(adapters):
        for driver in ("dynotui.ui.app", "dynotui.ui.share", "dynotui.ui.widgets.pager_view"):
            chain = graph.find_shortest_chain(importer=module, imported=driver)
            assert chain is None, f"{module} reaches {driver}: {' -> '.join(chain or ())}"


PACKAGE = Path(__file__).parent.parent / "dynotui"
MAX_LINES = 600
# Over the limit at the time of writing, each being split by its owner this session
# (PostgreSQL's reach): remove a name once its module is under the limit. No other module
# may join them.
SPLITTING = {"postgres/reach.py"}


def test_no_module_is_over_600_lines() -> None:
    over = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert set(over) <= SPLITTING, {p: n for p, n in over.items() if p not in SPLITTING}


def test_the_layers_contract_names_every_top_level_package() -> None:
    # Exhaustive in the contract too, but said here where a newcomer looks first.
    layers = _contract("the layers")
    named = {part.strip() for layer in layers["layers"] for part in layer.split("|")}
    children = {info.name for info in pkgutil.iter_modules(dynotui.__path__)}
    assert children - named == set(layers["exhaustive_ignores"])
    assert layers["layers"][:2] == ["cli", "ui"] and layers["layers"][-1] == "core"


def test_no_import_runs_back_up_to_the_cli() -> None:
    # dynamo_shape lived in the CLI and the UI imported it: the one import running up.
    graph = _graph()
    below = [m for m in graph.modules if not m.startswith(("dynotui.cli", "dynotui.__main__"))]
    up = [
        (m, i)
        for m in below
        for i in graph.find_modules_directly_imported_by(m)
        if i.startswith("dynotui.cli")
    ]
    assert up == []
