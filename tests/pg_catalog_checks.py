"""What the filter check relies on, asked of a server's own catalog."""

from __future__ import annotations

from typing import Any

from dynotui.postgres.code_rules import FIRST_NORMAL_OBJECT_ID, denied

BUILTIN_CODE = """
WITH code(fn) AS (
    SELECT x FROM pg_type t, LATERAL (VALUES (t.typinput::oid), (t.typoutput::oid),
        (t.typreceive::oid), (t.typsend::oid), (t.typmodin::oid), (t.typmodout::oid),
        (t.typsubscript::oid)) AS v(x) WHERE t.oid < 16384
    UNION SELECT x FROM pg_operator o, LATERAL (VALUES (o.oprcode::oid),
        (o.oprrest::oid), (o.oprjoin::oid)) AS v(x) WHERE o.oid < 16384
    UNION SELECT c.castfunc FROM pg_cast c WHERE c.castsource < 16384 AND c.casttarget < 16384
    UNION SELECT x FROM pg_aggregate a, LATERAL (VALUES (a.aggtransfn::oid),
        (a.aggfinalfn::oid), (a.aggcombinefn::oid), (a.aggserialfn::oid),
        (a.aggdeserialfn::oid), (a.aggmtransfn::oid), (a.aggminvtransfn::oid),
        (a.aggmfinalfn::oid)) AS v(x) WHERE a.aggfnoid < 16384
    UNION SELECT ap.amproc FROM pg_amproc ap WHERE ap.amprocfamily < 16384
    UNION SELECT p.prosupport FROM pg_proc p WHERE p.oid < 16384
    UNION SELECT r.x FROM pg_range g, LATERAL (VALUES (g.rngcanonical::oid),
        (g.rngsubdiff::oid)) AS r(x) WHERE g.rngtypid < 16384
)
SELECT p.oid, p.oid::regprocedure::text, p.proname, p.provolatile
FROM code JOIN pg_proc p ON p.oid = code.fn
"""


def builtin_code_problems(conn: Any) -> list[tuple[Any, ...]]:
    """The check follows no edge out of PostgreSQL's own objects: every function a built-in
    type, operator, cast, aggregate, operator family, range or planner support runs must
    be built in, and none VOLATILE or denied. What breaks that, on this server (asserted
    to have looked at over a thousand functions, so an empty answer means something)."""
    rows = conn.execute(BUILTIN_CODE).fetchall()
    assert len(rows) > 1000, len(rows)
    return [
        row
        for row in rows
        if row[0] >= FIRST_NORMAL_OBJECT_ID or row[3] == "v" or denied(row[2]) is not None
    ]
