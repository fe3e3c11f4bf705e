"""What dynotui lets the server run for it, as names and numbers: which objects are
PostgreSQL's own (created by initdb: an OID below 16384), and the built-in functions that
STABLE does not make harmless (the deny-list). ``reach`` (a filter), ``boundary_code`` (an
order's boundary and operator class) and ``by_name`` (a built-in given an object's name)
judge what they find by these."""

from __future__ import annotations

from typing import Any

FIRST_NORMAL_OBJECT_ID = 16384  # PostgreSQL's FirstNormalObjectId: initdb's objects lie below
TRUST_FLAG = "--trust-database-code"

# Functions refused whatever their volatility says: they reach files, other sessions or
# servers, hold locks past the transaction, or run SQL text that was never checked here.
DENIED_NAMES = {
    "pg_read_file": "reads server files",
    "pg_read_binary_file": "reads server files",
    "pg_stat_file": "reads server files",
    "pg_current_logfile": "reads server files",
    "pg_logdir_ls": "reads server files",
    "loread": "reads large objects",
    "lowrite": "writes large objects",
    "pg_terminate_backend": "ends another session",
    "pg_cancel_backend": "cancels another session's statement",
    "pg_signal_backend": "signals another session",
    "pg_log_backend_memory_contexts": "acts on another session",
    "pg_notify": "sends a notification to other sessions",
    "pg_reload_conf": "changes the server's configuration",
    "pg_promote": "changes the server's state",
    "pg_switch_wal": "changes the server's state",
    "pg_create_restore_point": "changes the server's state",
    "pg_import_system_collations": "changes the catalog",
    "pg_prewarm": "changes the server's buffers",
    "set_config": "changes session settings",
    "txid_current": "assigns a transaction id",
    "pg_current_xact_id": "assigns a transaction id",
    "nextval": "advances a sequence",
    "setval": "changes a sequence",
    "ts_stat": "runs SQL text",
    "ts_rewrite": "runs SQL text",
    "connectby": "runs SQL text",
}
DENIED_PREFIXES = {
    "pg_ls_": "lists server directories",
    "pg_file_": "writes server files",
    "lo_": "reads or writes large objects, server files included",
    "dblink": "connects to another server or database",
    "postgres_fdw_": "acts on foreign-server connections",
    "pg_advisory": "takes an advisory lock (a session lock outlives the transaction)",
    "pg_try_advisory": "takes an advisory lock (a session lock outlives the transaction)",
    "pg_sleep": "sleeps",
    "pg_rotate_logfile": "changes the server's state",
    "pg_backup_": "changes the server's state",
    "pg_wal_replay_": "changes the server's state",
    "pg_stat_reset": "resets statistics",
    "pg_logical_": "acts on replication",
    "pg_replication_": "acts on replication",
    "pg_create_": "creates replication state",
    "pg_drop_": "drops replication state",
    "pg_copy_": "copies replication state",
    "pg_sync_replication": "acts on replication",
    "query_to_xml": "runs SQL text",
    "cursor_to_xml": "runs SQL text",
    "table_to_xml": "runs SQL on a table it names",
    "schema_to_xml": "runs SQL on every table of a schema",
    "database_to_xml": "runs SQL on every table of the database",
    "crosstab": "runs SQL text",
}


def denied(name: str) -> str | None:
    """Why a function of this name is refused, or None."""
    if name in DENIED_NAMES:
        return DENIED_NAMES[name]
    for prefix, reason in DENIED_PREFIXES.items():
        if name.startswith(prefix):
            return reason
    return None


def function_problem(what: Any, *, own: bool, trusted: bool, subject: str) -> str | None:
    """Why ``subject`` ("a filter", "an order") may not run this function (``what``: its
    name and volatility, a ``catalog_edges.Described``), as the end of a sentence, or None."""
    reason = denied(what.name or "")
    if reason is not None:
        return f"which {reason}"
    if not own and not trusted:
        return (
            f"which is not PostgreSQL's own: {subject} runs only PostgreSQL's built-in "
            f"code unless you trust this database's code ({TRUST_FLAG})"
        )
    if what.volatility == "v":
        return (
            f"which is VOLATILE (it may change something); {subject} may only run "
            "IMMUTABLE or STABLE functions"
        )
    return None
