"""A writer that PostgreSQL runs behind a read-only transaction's back: ``<schema>.write(what)``
inserts a row through dblink (a second connection, which no READ ONLY transaction covers),
and ``<schema>.writes`` counts what ran. Installed on Debian's PostgreSQL (a throwaway
cluster) or on the embedded 18 (the shared one: in a database of its own, dropped after,
so that its extensions are its own)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from system_postgres import SystemPostgres, find_bindir

SERVERS = ["debian", "embedded18"]


def install(uri: str, schema: str, setup: str) -> None:
    """A fresh ``schema`` with ``writes`` and ``write(what)``, then ``setup`` (``%(target)s``
    in it is the connection string dblink writes through)."""
    with psycopg.connect(uri, autocommit=True) as admin:
        info = admin.info
        target = f"host={info.host} port={info.port} dbname={info.dbname} user={info.user}"
        admin.execute("CREATE EXTENSION IF NOT EXISTS dblink")
        admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")  # type: ignore[arg-type]
        admin.execute(f"CREATE SCHEMA {schema}")  # type: ignore[arg-type]
        # Committed before anything writes to it: dblink's connection is another session.
        admin.execute(f"CREATE TABLE {schema}.writes (what text)")  # type: ignore[arg-type]
        admin.execute(
            f"""CREATE FUNCTION {schema}.write(what text) RETURNS integer VOLATILE
            LANGUAGE sql AS $$ SELECT 1 FROM public.dblink_exec('{target}',
            'INSERT INTO {schema}.writes VALUES (' || quote_literal(what) || ')') $$"""  # type: ignore[arg-type]
        )
        admin.execute(setup.replace("%(target)s", f"'{target}'"))  # type: ignore[arg-type]
        admin.execute(f"TRUNCATE {schema}.writes")  # type: ignore[arg-type]


@contextmanager
def server(request: pytest.FixtureRequest, schema: str, setup: str) -> Iterator[str]:
    """The URI of the server ``request.param`` names, with the writer and ``setup``."""
    if request.param == "embedded18":
        shared = request.getfixturevalue("pg_uri")
        database = f"dynotui_{schema}"
        with psycopg.connect(shared, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {database}")  # type: ignore[arg-type]
            admin.execute(f"CREATE DATABASE {database}")  # type: ignore[arg-type]
        uri = make_conninfo(shared, dbname=database)
        try:
            install(uri, schema, setup)
            yield uri
        finally:
            with psycopg.connect(shared, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE {database} WITH (FORCE)")  # type: ignore[arg-type]
        return
    request.applymarker(pytest.mark.system_postgres)
    bindir, why = find_bindir()
    if bindir is None:
        pytest.skip(why)
    with SystemPostgres(bindir) as running:
        install(running.uri, schema, setup)
        yield running.uri


def written(admin: Any, schema: str) -> int:
    return int(admin.execute(f"SELECT count(*) FROM {schema}.writes").fetchone()[0])  # type: ignore[arg-type]
