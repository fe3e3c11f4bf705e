"""One DynamoDB Local per test process, on a copy of the seeded demo database.

The seeded database is built once into the user cache (as ``dynotui demo`` does), so
each pytest-xdist worker starts its own server on its own copy in a few seconds.
Each test names its own tables.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dynotui.local import demo_cache
from dynotui.local.demo import seed_demo
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal
from dynotui.local.tables import create_table, table_definition, write_items

_names = itertools.count(1)
JS_DIR = Path(__file__).parent / "js"


@pytest.fixture(scope="session")
def ddb() -> Iterator[DynamoDBLocal]:
    home = ensure_home()
    db, _ = demo_cache.ensure(home)
    with DynamoDBLocal(home=home, db_file=db) as server:
        yield server


@pytest.fixture(scope="session")
def client(ddb: DynamoDBLocal) -> Any:
    return ddb.client()


@pytest.fixture(scope="session")
def demo_table(client: Any) -> str:
    return seed_demo(client).table  # present already: the copy holds it


@pytest.fixture
def table_name(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """A fresh, unique table name derived from the test's own name."""
    base = request.node.name.replace("[", "-").replace("]", "").replace("_", "-")[:150]

    def make(suffix: str = "") -> str:
        return f"t{os.getpid()}-{next(_names)}-{base}{suffix}"[:255]

    return make


HOSTILE = {
    "clear": "before\x1b[2Jafter",
    "title": "\x1b]2;PWNED-TITLE\x07tail",
    "clipboard": "\x1b]52;c;aGVsbG8=\x07",
    "markup": "[bold red]x[/]",
    "bidi": "abc\u202edcba",
    "lines": "one\ntwo\tthree",
    "c1": "csi\x9b2J",
    "del": "rub\x7fout",
}


@pytest.fixture(scope="session")
def hostile_table(client: Any) -> str:
    name = "hostile-values"
    create_table(client, table_definition(name, ("pk", "S"), ("sk", "S")))
    items: list[dict] = [
        {"pk": "p", "sk": f"{i:02d}-{key}", "value": value, f"name\x1b[31m{i}": "x"}
        for i, (key, value) in enumerate(HOSTILE.items())
    ]
    items.append(
        {
            "pk": "p",
            "sk": "99-odd",
            "value": "z" * 100_000,
            "nested": {"a\x1b": [Decimal("1.5"), {"b": None}]},
            "blob": bytes(range(40)),
            "tags": {"[red]t[/]", "\x1b[1m"},
            "flag": True,
        }
    )
    write_items(client, name, items)
    return name


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """The AWS SDK for JavaScript, installed from npm once (``.ci/run`` does it too)."""
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("node and npm are needed to run the generated JavaScript")
    if not (JS_DIR / "node_modules" / "@aws-sdk" / "lib-dynamodb").is_dir():
        result = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=JS_DIR,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, f"npm ci in tests/js failed: {result.stderr[-2000:]}"
    return JS_DIR / "node_modules"
