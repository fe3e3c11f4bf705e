"""The shape the tree promises: every generic UI module is held by the contract that keeps
it free of databases (a module added beside them and left out would escape it)."""

from __future__ import annotations

import pkgutil
import sys
from pathlib import Path

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
