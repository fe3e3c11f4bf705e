"""The PostgreSQL demo table: orders built so that every keyset rule shows up.

- ``created_at`` is shared by many rows (about eight a second), with microsecond
  differences between some of them: ordering by it alone loses rows at page boundaries,
  and a millisecond cursor would too; its index is ``(created_at, id)``, the seed's.
- ``status`` has an index of its own, not unique: its order is tie-broken by ``id``,
  which the index does not hold, so each page sorts a whole status (a lesson).
  RETURNED is about 2.5% of orders: a filter on it discards most of what other orders read.
- ``shipped_at`` is NULL for orders not shipped yet: a nullable sort column, served by
  an index on ``(COALESCE(shipped_at, '-infinity'), id)``.
- ``(customer, created_at DESC, id DESC)``: mixed directions (the expanded form).
- ``total`` has no index: ordering by it sorts the whole table per page.
- ``updated_at``: a sort key that changes as rows do.
"""

from __future__ import annotations

import time
from typing import Any

TABLE = "orders"
ROWS = 200_000
# Change when the statements below change.
DATA_VERSION = "1"

SEED = f"""
DROP TABLE IF EXISTS {TABLE};
CREATE TABLE {TABLE} (
    id bigint PRIMARY KEY,
    customer text NOT NULL,
    status text NOT NULL,
    created_at timestamptz NOT NULL,
    shipped_at timestamptz,
    total numeric(12, 2) NOT NULL,
    note text,
    updated_at timestamptz NOT NULL
);
SELECT setseed(0.42);
INSERT INTO {TABLE}
SELECT g,
       'c' || lpad((1 + (g * 7919) % 500)::text, 3, '0'),
       CASE WHEN r < 0.72 THEN 'DELIVERED' WHEN r < 0.86 THEN 'SHIPPED'
            WHEN r < 0.93 THEN 'PLACED' WHEN r < 0.975 THEN 'CANCELLED' ELSE 'RETURNED' END,
       created,
       CASE WHEN r < 0.86 THEN created + (1 + g % 96) * interval '1 hour' END,
       round((3 + (g * 2654435761 % 90000) / 100.0)::numeric, 2),
       CASE WHEN g % 97 = 0 THEN 'call before delivery' END,
       created + (g % 240) * interval '1 day'
FROM (
    SELECT g, random() AS r,
           timestamptz '2026-09-01 00:00:00+00' + (g / 8) * interval '1 second'
               + ((g * 31) % 3) * interval '1 microsecond' AS created
    FROM generate_series(1, {ROWS}) AS g
) AS s;
UPDATE {TABLE} SET note = E'hostile \\u001b[2J [bold red]markup[/] \\u202eevil' WHERE id = 7;
CREATE INDEX {TABLE}_created_id ON {TABLE} (created_at, id);
CREATE INDEX {TABLE}_customer_created ON {TABLE} (customer, created_at DESC, id DESC);
CREATE INDEX {TABLE}_status ON {TABLE} (status);
CREATE INDEX {TABLE}_shipped ON {TABLE} (COALESCE(shipped_at, '-infinity'::timestamptz), id);
ANALYZE {TABLE};
"""


def seed(uri: str) -> float:
    """Create and fill the demo table (the only write dynotui makes, to its own server)."""
    import psycopg

    began = time.perf_counter()
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute(SEED)
    return time.perf_counter() - began


def exists(conn: Any) -> bool:
    return bool(conn.execute("SELECT to_regclass(%s) IS NOT NULL", (TABLE,)).fetchone()[0])
