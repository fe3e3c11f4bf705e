"""One DynamoDB Local per test process, on a copy of the seeded demo database.

The seeded database is built once into the user cache (as ``dynotui demo`` does), so
each pytest-xdist worker starts its own server on its own copy in a few seconds.
Each test names its own tables.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from dynotui.local import demo_cache
from dynotui.local.demo import seed_demo
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal

_names = itertools.count(1)


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
