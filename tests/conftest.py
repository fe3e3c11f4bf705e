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
import tempfile
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from tiers import guard, mark

from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.local import demo, demo_cache
from dynotui.local.demo import seed_demo
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DB_FILE_NAME, DynamoDBLocal
from dynotui.local.tables import create_table, table_definition, write_items

_names = itertools.count(1)
JS_DIR = Path(__file__).parent / "js"

# -- no test writes into the user's own config or data folders ------------------------------
# The session's controller points XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME (the
# tables' remembered shapes) and DYNOTUI_CONFIG at a
# temporary folder before any test or worker starts; xdist workers and every subprocess a
# test starts inherit them. The cache (DynamoDB Local, the seeded database) stays shared.
ISOLATED_ROOT = "DYNOTUI_TEST_ROOT"
_root_key = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get(ISOLATED_ROOT):
        return  # a worker: its controller has set everything
    root = Path(tempfile.mkdtemp(prefix="dynotui-tests-"))
    os.environ[ISOLATED_ROOT] = str(root)
    os.environ["XDG_CONFIG_HOME"] = str(root / "config")
    os.environ["XDG_DATA_HOME"] = str(root / "data")
    os.environ["XDG_STATE_HOME"] = str(root / "state")
    os.environ["DYNOTUI_CONFIG"] = str(root / "config" / "dynotui" / "config.toml")
    os.environ["DYNOTUI_EXPORT_CACHE"] = str(root / "export-copies")  # exports read once
    # The `python -m dynotui` processes tests start read dynotui's bytecode as an installed
    # app's, written once into the run's own folder: where PYTHONDONTWRITEBYTECODE is set
    # (as in CI's image) each compiled the modules it imports from source, 0.1 CPU-s for a
    # small command to 0.5 for the app (measured). Nothing is written into the checkout.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(root / "bytecode")
    config.stash[_root_key] = root


def _share_botocore_models() -> None:
    """One parsed copy of botocore's service models per test process.

    Every in-process ``dynotui`` command and every app makes its own boto3 session, as a
    real process does once, and a new session parses DynamoDB's model and endpoint rules
    again: about a quarter of a second each (0.25 s against 0.02 s shared, measured on a
    busy machine), many times a module. The files are botocore's own and never change
    during a run, so loaders with the same search paths share what they parsed (as every
    client of one session already does).
    """
    from botocore import loaders

    shared: dict[tuple, dict] = {}
    original = loaders.Loader.__init__

    def init(self: loaders.Loader, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        where = (tuple(self.search_paths), tuple(self.extras_types), type(self.file_loader))
        self._cache = shared.setdefault(where, {})

    loaders.Loader.__init__ = init  # type: ignore[method-assign]


_share_botocore_models()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark(items)  # ``server``: the tests that need one (tests/tiers.py); -m "not server"


__all__ = ["guard"]  # an autouse fixture: every test of the fast tier starts no process


def pytest_unconfigure(config: pytest.Config) -> None:
    root = config.stash.get(_root_key, None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)
        os.environ.pop(ISOLATED_ROOT, None)


@pytest.fixture(scope="session")
def ddb() -> Iterator[DynamoDBLocal]:
    home = ensure_home()
    db, _ = demo_cache.ensure(home)
    # The copy in memory-backed storage where there is one: SQLite waits for the disk at
    # every write, and the tests write thousands of items; what DynamoDB Local answers is
    # the same (measured: the what-if test that copies acme's orders, 12-36 s against
    # 25-66 s on a busy machine).
    # Only with room to spare: a container's /dev/shm is often 64 MB, and a full one fails
    # DynamoDB Local's writes where a disk would not.
    memory = Path("/dev/shm")
    roomy = (
        memory.is_dir()
        and os.access(memory, os.W_OK)
        and shutil.disk_usage(memory).free > 2 * 1024**3
    )
    where = memory if roomy else None
    folder = Path(tempfile.mkdtemp(prefix="dynotui-tests-db-", dir=where))
    try:
        shutil.copyfile(db, folder / DB_FILE_NAME)
        with DynamoDBLocal(home=home, db_dir=folder) as server:
            yield server
    finally:
        shutil.rmtree(folder, ignore_errors=True)


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


def hostile_items() -> list[dict]:
    """Values and names that would act on a terminal, a markup parser or a layout."""
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
    return items


HOSTILE_TABLE = "hostile-values"


@pytest.fixture(scope="session")
def hostile_table(client: Any) -> str:
    create_table(client, table_definition(HOSTILE_TABLE, ("pk", "S"), ("sk", "S")))
    write_items(client, HOSTILE_TABLE, hostile_items())
    return HOSTILE_TABLE


# -- DynamoDB in memory (dynamodb/memory.py): for what sits above paging --------------------


@pytest.fixture(scope="session")
def memory_demo() -> MemoryDynamoDB:
    """The demo table (and the hostile values' table) in memory, made once per process:
    the same items DynamoDB Local's seeded copy holds. Tests may add tables of their own."""
    memory = MemoryDynamoDB()
    memory.create_table(**demo.TABLE_DEFINITION)
    memory.put(demo.TABLE, demo.demo_items())
    memory.create_table(**table_definition(HOSTILE_TABLE, ("pk", "S"), ("sk", "S")))
    memory.put(HOSTILE_TABLE, hostile_items())
    return memory


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


# -- PostgreSQL ----------------------------------------------------------------------------

AWKWARD_SQL = '''
CREATE TABLE ticks (
    id integer PRIMARY KEY,
    at timestamptz NOT NULL,
    amount numeric(40, 20) NOT NULL,
    label text
);
-- Eight rows in each second, one microsecond apart or tied: a cursor that kept
-- milliseconds would skip or repeat them; an exact numeric of 40 digits.
INSERT INTO ticks
SELECT g,
       timestamptz '2026-01-01 00:00:00+00' + (g / 8) * interval '1 second'
           + (g % 3) * interval '1 microsecond',
       (g::numeric / 7)::numeric(40, 20) + 123456789012345678,
       CASE WHEN g % 5 = 0 THEN NULL ELSE E'tick \\u001b[31m' || g END
FROM generate_series(1, 400) AS g;
CREATE INDEX ticks_at_id ON ticks (at, id);
-- No primary key, a non-unique index: keyset paging cannot name one row.
CREATE TABLE events (kind text NOT NULL, n integer NOT NULL);
INSERT INTO events SELECT 'k' || (g % 4), g FROM generate_series(1, 60) AS g;
CREATE INDEX events_kind ON events (kind);
CREATE SCHEMA "odd schema";
CREATE TABLE "odd schema"."Mixed ""Case""" ("Key" integer PRIMARY KEY, "v" text);
INSERT INTO "odd schema"."Mixed ""Case""" SELECT g, 'v' || g FROM generate_series(1, 30) AS g;
ANALYZE;
'''


@pytest.fixture(scope="session")
def pg_uri() -> Iterator[str]:
    """An embedded PostgreSQL 18 with the demo's orders and a few awkward tables. The
    fixture writes them with its own connection; dynotui's sessions are read-only."""
    import psycopg  # the postgres extra is part of the test extra: no skip if missing

    from dynotui.local import pg_demo
    from dynotui.local.pg_runner import EmbeddedPostgres

    with EmbeddedPostgres() as server:
        pg_demo.seed(server.uri)
        with psycopg.connect(server.uri, autocommit=True) as conn:
            conn.execute(AWKWARD_SQL)  # type: ignore[arg-type]
        yield server.uri


@pytest.fixture(scope="session")
def pg_admin(pg_uri: str) -> Iterator[Any]:
    """A writable connection of the test's own: ground truth and sabotage."""
    import psycopg

    with psycopg.connect(pg_uri, autocommit=True) as conn:
        yield conn


@pytest.fixture
def pg(pg_uri: str) -> Iterator[Any]:
    from dynotui.postgres.connection import PgOptions, connect

    session = connect(PgOptions(uri=pg_uri))
    yield session
    session.close()
