"""A read-only PostgreSQL session: libpq URI or the usual PG* variables.

Every statement runs in a read-only transaction (``default_transaction_read_only``):
dynotui cannot write, whatever a filter says. Where the server allows it, auto_explain
sends the plan of each statement dynotui runs back as a notice, so the cost shown is
that of the very statement that produced the page.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import DynotuiError, InputError, ReadCancelled, ServiceError

AUTO_EXPLAIN = (
    "LOAD 'auto_explain'",
    "SET auto_explain.log_min_duration = 0",
    "SET auto_explain.log_analyze = on",
    "SET auto_explain.log_buffers = on",
    "SET auto_explain.log_timing = on",
    "SET auto_explain.log_format = json",
    "SET auto_explain.log_level = notice",
    "SET client_min_messages = notice",
)


@dataclass(frozen=True)
class PgOptions:
    uri: str | None = None  # None: libpq's PG* environment variables
    connect_timeout: float = 5.0
    statement_timeout: float = 30.0

    def describe(self) -> str:
        return redacted(self.uri) or "PostgreSQL (PG* variables)"


class PgSession:
    """One connection, autocommit, read-only; plans arrive as auto_explain notices.

    A connection that broke (the server restarted, a network drop, a terminated backend)
    is opened again before the next statement, so R retries a failed page as it does on
    DynamoDB. Statements are serialised: two views may share one session.
    """

    def __init__(self, conn: Any, auto_explain: bool, options: PgOptions | None = None) -> None:
        self.conn = conn
        self.auto_explain = auto_explain
        self.options = options
        self.lock = threading.Lock()  # one statement at a time on one connection
        self._running: object | None = None  # the ticket of the statement under way
        self._running_lock = threading.Lock()
        self._plans: list[dict[str, Any]] = []
        if conn is not None:
            conn.add_notice_handler(self._notice)

    def fork(self) -> PgSession:
        """A second session on the same server, connected on its first statement (in the
        reader's thread): two views then read side by side instead of taking turns."""
        return PgSession(None, self.auto_explain, self.options)

    def _usable(self) -> bool:
        return self.conn is not None and not self.conn.closed and not self.conn.broken

    @property
    def label(self) -> str:
        info = self.conn.info
        host = "local socket" if info.host.startswith("/") else f"{info.host}:{info.port}"
        where = f"{info.user}@{host}/{info.dbname}"
        return f"PostgreSQL {info.server_version // 10000} · {where}"

    def reopen(self) -> None:
        """A new connection in place of this one (E in the app)."""
        with self.lock:
            self._reopen()

    def _reopen(self) -> None:
        if self.options is None:
            raise ServiceError("the PostgreSQL connection was closed")
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()
        fresh = connect(self.options)
        self.conn, self.auto_explain = fresh.conn, fresh.auto_explain
        self.conn.add_notice_handler(self._notice)

    def _notice(self, diagnostic: Any) -> None:
        text = diagnostic.message_primary or ""
        _, found, plan = text.partition("plan:")
        if found:
            with contextlib.suppress(ValueError):
                self._plans.append(json.loads(plan))

    def run(
        self, sql: Any, params: Any = None, ticket: object | None = None
    ) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
        """Rows of one statement and its plan (auto_explain's, else EXPLAIN ANALYZE's).
        ``cancel(ticket)`` stops this statement and no other. The plan's ``waited_ms`` is
        the time spent waiting for another view's statement on this connection."""
        asked = time.perf_counter()
        with self.lock:
            waited = (time.perf_counter() - asked) * 1000
            rows, plan = self._in_transaction(sql, params, ticket, explain=True)
        plan["waited_ms"] = waited
        return rows, plan

    def query(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        """Catalogue reads (no plan wanted)."""
        with self.lock:
            rows, _ = self._in_transaction(sql, params, None, explain=False)
        return rows

    def _in_transaction(
        self, sql: Any, params: Any, ticket: object | None, explain: bool
    ) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
        """One statement in a transaction of its own, begun READ ONLY and rolled back:
        whatever a filter calls (set_config included) is undone, and nothing can write."""
        self._plans.clear()
        try:
            if not self._usable():
                self._reopen()
            if isinstance(ticket, CancelToken) and ticket.cancelled:
                raise ReadCancelled()  # cancelled while another statement ran
            with self._running_lock:
                self._running = ticket
            try:
                rows = self.conn.execute(sql, params).fetchall()
            finally:
                with self._running_lock:
                    self._running = None
                # The plan arrives when the statement's portal closes: at this rollback.
                self._end()
            plan: dict[str, Any] = {}
            if explain:
                plans = [p for p in self._plans if "Plan" in p]
                if plans:
                    plan = dict(plans[-1])
                    plan.setdefault("measured", "auto_explain")
                else:
                    try:
                        explained = self.conn.execute(self._explain(sql), params).fetchone()[0]
                    finally:
                        self._end()
                    plan = dict(explained[0] if isinstance(explained, list) else explained)
                    plan["measured"] = "EXPLAIN ANALYZE, run again"
        except DynotuiError:
            raise
        except Exception as exc:
            raise translate(exc) from exc
        return rows, plan

    def _end(self) -> None:
        conn = self.conn
        if conn is not None and not conn.closed and not conn.broken:
            with contextlib.suppress(Exception):
                conn.rollback()

    @staticmethod
    def _explain(sql: Any) -> Any:
        from psycopg import sql as pgsql

        prefix = pgsql.SQL("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ")
        if isinstance(sql, str):
            return prefix + pgsql.SQL(sql)  # type: ignore[arg-type]
        return prefix + sql

    def cancel(self, ticket: object | None = None) -> None:
        """Stop the statement running for ``ticket`` (any, if None): another view's
        statement on the same connection is left alone."""
        with self._running_lock:
            if ticket is not None and self._running is not ticket:
                return
        conn = self.conn
        if conn is None:
            return
        # A cancel request is a network round trip: never on the caller's (the UI's) thread.
        threading.Thread(
            target=lambda: _quietly(conn.cancel_safe, timeout=5.0), daemon=True
        ).start()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def _quietly(call: Any, **kwargs: Any) -> None:
    with contextlib.suppress(Exception):
        call(**kwargs)


def connect(options: PgOptions) -> PgSession:
    try:
        import psycopg
    except ImportError:
        raise InputError(
            "PostgreSQL support is an extra: pip install 'dynotui[postgres]'"
        ) from None
    settings = (
        "-c default_transaction_read_only=on -c TimeZone=UTC "
        f"-c statement_timeout={int(options.statement_timeout * 1000)}"
    )
    try:
        conn = psycopg.connect(
            options.uri or "",
            autocommit=True,
            connect_timeout=max(1, int(options.connect_timeout)),
            options=settings,
            application_name="dynotui",
        )
    except Exception as exc:
        raise translate(exc) from exc
    auto_explain = True
    try:
        for statement in AUTO_EXPLAIN:
            conn.execute(statement)
    except psycopg.Error:
        auto_explain = False  # not a superuser, or no auto_explain: EXPLAIN ANALYZE instead
    # From here every statement runs in BEGIN READ ONLY ... ROLLBACK (see _in_transaction).
    conn.read_only = True
    conn.autocommit = False
    return PgSession(conn, auto_explain, options)


def redacted(uri: str | None) -> str | None:
    """The URI without its password, for titles and generated code."""
    if not uri:
        return uri
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    try:
        parts = conninfo_to_dict(uri)
    except Exception:
        return "(a connection string that does not parse)"
    if "password" not in parts:
        return uri
    parts.pop("password")
    if "://" in uri:
        scheme, rest = uri.split("://", 1)
        credentials, at, host = rest.rpartition("@")
        if at:
            shorter = f"{scheme}://{credentials.split(':', 1)[0]}@{host}"
            if "password" not in conninfo_to_dict(shorter):
                return shorter
    return make_conninfo("", **{k: v for k, v in parts.items() if v is not None})


def translate(exc: BaseException) -> DynotuiError:
    if isinstance(exc, DynotuiError):
        return exc
    import psycopg

    if isinstance(exc, psycopg.errors.QueryCanceled):
        return ServiceError(f"PostgreSQL stopped the statement: {first_line(exc)}")
    if isinstance(exc, psycopg.errors.ReadOnlySqlTransaction):
        return InputError(f"refused: dynotui's session is read-only ({first_line(exc)})")
    sqlstate = getattr(exc, "sqlstate", None) or ""
    if sqlstate.startswith(("42", "22")):
        return InputError(f"PostgreSQL rejected the query: {first_line(exc)}")
    if isinstance(exc, psycopg.OperationalError):
        return ServiceError(f"cannot reach PostgreSQL: {first_line(exc)}")
    if isinstance(exc, psycopg.Error):
        return ServiceError(f"PostgreSQL error: {first_line(exc)}")
    return ServiceError(f"{type(exc).__name__}: {first_line(exc)}")


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
