"""A read-only PostgreSQL session: libpq URI or the usual PG* variables.

Every statement runs in a transaction begun ``READ ONLY`` and rolled back, on a session
whose default is read-only too. Each transaction first sets, ``LOCAL`` to it, the
timeouts, the output settings that make values read back exactly (``extra_float_digits``,
``bytea_output``), SQL read as it was checked (``standard_conforming_strings``), and the
search path: a role's or database's own settings, or a pooler that drops startup options,
change nothing. The settings that say how a literal is read (``TimeZone``, ``DateStyle``,
``IntervalStyle``) are left as the server, the role, the database or the URI's
``options`` have them, so a filter means what it means in psql; the boundaries dynotui
writes and reads back are spelled in forms none of them change (``sql.boundary_text``).

Every statement goes over the extended query protocol (psycopg's pipeline mode), which
carries exactly one statement: a ``;`` and a second statement is a syntax error on the
server, never run. The pipeline sends the settings, the statement and the rollback in
one round trip.

The cost of a page is that of the statement that produced it: where the server allows
it, auto_explain sends the statement's plan back as a notice; otherwise the statement
runs once as ``EXPLAIN (ANALYZE, BUFFERS)`` with its rows handed back through a
transaction-local setting, so a page is still executed only once.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import DynotuiError, InputError, ReadCancelled, ServiceError
from dynotui.core.extras import missing

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

# Output settings under which every value's text reads back as the same value, whatever
# the role, database or server default says (extra_float_digits = 0 rounds a float8
# boundary, and a drain never ends), and the filter's deparsed text means what was checked.
# None of them changes how a literal in a filter is read.
EXACT_SETTINGS = {
    "extra_float_digits": "3",
    "bytea_output": "hex",
    "standard_conforming_strings": "on",
    "transform_null_equals": "off",
}

ONE_PASS = (
    "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON)\n"
    "SELECT pg_catalog.set_config('dynotui.rows',"
    " COALESCE(pg_catalog.json_agg(dynotui_page)::text, '[]'), true)\n"
    "FROM (\n{statement}\n) AS dynotui_page"
)
ONE_PASS_ROWS = "SELECT pg_catalog.current_setting('dynotui.rows')"
MEASURED_AUTO_EXPLAIN = "auto_explain"
MEASURED_ONE_PASS = "EXPLAIN ANALYZE, one execution"
MEASURED_AGAIN = "EXPLAIN ANALYZE, run again (auto_explain sent no plan)"


# Unless the session trusts the database's code, dynotui's statements run with only
# PostgreSQL's own schema on the search path (pg_temp last, where no function is found by
# an unqualified name): an unqualified name in a filter finds a built-in or nothing, never
# a user's function or operator that shadows one.
OWN_SEARCH_PATH = "pg_catalog, pg_temp"


@dataclass(frozen=True)
class PgOptions:
    uri: str | None = None  # None: libpq's PG* environment variables
    connect_timeout: float = 5.0
    statement_timeout: float = 30.0
    idle_in_transaction_timeout: float = 60.0
    # A filter may run the database's own functions, operators, types and views (never a
    # VOLATILE or denied one): for a database whose code its reader trusts.
    trust_database_code: bool = False
    # The demo's own server, started by this run in a folder of its own: history keeps
    # "the demo" rather than a socket that goes with it, and the next demo reopens it.
    demo: bool = False

    def describe(self) -> str:
        return redacted(self.uri) or "PostgreSQL (PG* variables)"

    def settings(self, *, user_search_path: bool = False) -> dict[str, str]:
        """What each transaction sets LOCAL: the timeouts, the exact-text settings, and
        the search path (``user_search_path``: the session's own, to read names as the
        user means them: a table's name)."""
        settings = {
            "statement_timeout": f"{int(self.statement_timeout * 1000)}ms",
            "idle_in_transaction_session_timeout": (
                f"{int(self.idle_in_transaction_timeout * 1000)}ms"
            ),
            **EXACT_SETTINGS,
        }
        if not self.trust_database_code and not user_search_path:
            settings["search_path"] = OWN_SEARCH_PATH
        return settings


def _startup_options(options: PgOptions) -> str:
    """The same settings as libpq startup options (no value holds a space), but the
    search path (names the user types are read on the session's own), after whatever
    the URI's ``options`` (or ``PGOPTIONS``) already say: ``-c TimeZone=...`` there is
    the user's reading of literals, and stays."""
    import os

    from psycopg.conninfo import conninfo_to_dict

    values = {
        "default_transaction_read_only": "on",
        **{k: v.replace(" ", "") for k, v in options.settings(user_search_path=True).items()},
    }
    ours = " ".join(f"-c {name}={value}" for name, value in values.items())
    try:
        theirs = conninfo_to_dict(options.uri or "").get("options")
    except Exception:
        theirs = None  # connect() reports a URI that does not parse
    if theirs is None:
        theirs = os.environ.get("PGOPTIONS")
    return f"{theirs} {ours}" if theirs and str(theirs).strip() else ours


class PgSession:
    """One connection, read-only; plans arrive as auto_explain notices or from a one-pass
    EXPLAIN ANALYZE of the statement itself.

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
        self._in_flight = False  # a statement (any) is on the server now
        self._closing = False
        self._running_lock = threading.Lock()
        self._plans: list[dict[str, Any]] = []
        self.verified_filters: set[str] = set()  # deparsed filters this server vouched for
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
        trusting = (
            " · trusts database code" if self.options and self.options.trust_database_code else ""
        )
        return f"PostgreSQL {info.server_version // 10000} · {where}{trusting}"

    @property
    def measured_by(self) -> str:
        """How a page's cost is measured on this session (for the status line)."""
        return MEASURED_AUTO_EXPLAIN if self.auto_explain else MEASURED_ONE_PASS

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
        self,
        sql: str,
        params: Any = None,
        ticket: object | None = None,
        *,
        settings: dict[str, str] | None = None,
    ) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
        """Rows of one statement and its plan, from one execution of it.
        ``cancel(ticket)`` stops this statement and no other. The plan's ``waited_ms`` is
        the time spent waiting for another view's statement on this connection.
        ``settings``: more LOCAL settings for this statement's transaction."""
        asked = time.perf_counter()
        with self.lock:
            waited = (time.perf_counter() - asked) * 1000
            try:
                if self.auto_explain:
                    (rows,) = self._transaction([(sql, params)], ticket, settings=settings)
                    plans = [p for p in self._plans if "Plan" in p]
                    if plans:
                        plan = dict(plans[-1])
                        plan["measured"] = MEASURED_AUTO_EXPLAIN
                    else:
                        # No notice came back (a pooler, a reset session): measure in one
                        # pass from now on; this page's statement runs a second time.
                        self.auto_explain = False
                        _, plan = self._one_pass(sql, params, ticket, settings)
                        plan["measured"] = MEASURED_AGAIN
                else:
                    rows, plan = self._one_pass(sql, params, ticket, settings)
                    plan["measured"] = MEASURED_ONE_PASS
            except DynotuiError:
                raise
            except Exception as exc:
                raise translate(exc) from exc
        plan["waited_ms"] = waited
        return rows, plan

    @property
    def server_version(self) -> int:
        return int(self.conn.info.server_version) if self.conn is not None else 0

    def query(
        self, sql: str, params: Any = None, *, user_search_path: bool = False
    ) -> list[tuple[Any, ...]]:
        """Catalogue reads (no plan wanted). ``user_search_path``: names are read on the
        session's own search path (a table's name as the user typed it)."""
        with self.lock:
            try:
                (rows,) = self._transaction(
                    [(sql, params)], None, user_search_path=user_search_path
                )
            except DynotuiError:
                raise
            except Exception as exc:
                raise translate(exc) from exc
        return rows

    def explain_hypothetical(
        self, hypopg_schema: str, create_index: str, sql: str, params: Any
    ) -> list[list[tuple[Any, ...]]]:
        """EXPLAIN of one statement, then the same with a hypothetical index, for
        ``what-if``. The one path that calls a VOLATILE function, by design and apart from
        any user filter: ``hypopg_create_index`` (of an installed hypopg, schema-qualified)
        on a CREATE INDEX dynotui wrote from checked column names. A hypothetical index
        lives in this backend's memory only (no catalog write, allowed in the READ ONLY
        transaction every statement here runs in); ``hypopg_reset`` drops any before and
        after, in the same round trip, since a rollback does not. auto_explain is off
        for this transaction: explaining a plan that holds a hypothetical index fails
        ("cache lookup failed for index"), and no page is measured here."""
        from dynotui.postgres.schema import quote

        schema = quote(hypopg_schema)
        explain = f"EXPLAIN (FORMAT JSON) {sql}"
        with self.lock:
            try:
                return self._transaction(
                    [
                        (
                            "SELECT pg_catalog.set_config("
                            "'auto_explain.log_min_duration', '-1', true)",
                            None,
                        ),
                        (f"SELECT {schema}.hypopg_reset()", None),
                        (explain, params),
                        (
                            f"SELECT indexrelid, indexname, {schema}.hypopg_relation_size("
                            f"indexrelid) FROM {schema}.hypopg_create_index(%(ddl)s)",
                            {"ddl": create_index},
                        ),
                        (explain, params),
                        (f"SELECT {schema}.hypopg_reset()", None),
                    ],
                    None,
                )
            except DynotuiError:
                raise
            except Exception as exc:
                raise translate(exc) from exc

    def queries(self, statements: list[tuple[str, Any]]) -> list[list[tuple[Any, ...]]]:
        """Several catalogue reads (no plan wanted) in one transaction: one round trip."""
        with self.lock:
            try:
                return self._transaction(statements, None)
            except DynotuiError:
                raise
            except Exception as exc:
                raise translate(exc) from exc

    def _one_pass(
        self, sql: str, params: Any, ticket: object | None, settings: dict[str, str] | None = None
    ) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
        """The statement run once under EXPLAIN ANALYZE; its rows come back as JSON in a
        transaction-local setting, read in the same transaction."""
        explained, fetched = self._transaction(
            [(ONE_PASS.format(statement=sql), params), (ONE_PASS_ROWS, None)],
            ticket,
            settings=settings,
        )
        document = explained[0][0]
        document = document[0] if isinstance(document, list) else document
        rows = json.loads(
            fetched[0][0],
            object_pairs_hook=lambda pairs: tuple(value for _, value in pairs),
            parse_float=Decimal,
        )
        return list(rows), _inner_plan(document)

    def _transaction(
        self,
        statements: list[tuple[str, Any]],
        ticket: object | None,
        *,
        user_search_path: bool = False,
        settings: dict[str, str] | None = None,
    ) -> list[list[tuple[Any, ...]]]:
        """Statements in one transaction begun READ ONLY, with the LOCAL settings, and
        rolled back: whatever a statement set (set_config included) is undone, and
        nothing can write. One pipeline: one round trip."""
        self._plans.clear()
        if not self._usable():
            self._reopen()
        if self._closing or (isinstance(ticket, CancelToken) and ticket.cancelled):
            raise ReadCancelled()  # cancelled while another statement ran
        options = self.options or PgOptions()
        settings = {**options.settings(user_search_path=user_search_path), **(settings or {})}
        settings_sql = "SELECT " + ", ".join(
            f"pg_catalog.set_config(%(n{i})s, %(v{i})s, true)" for i in range(len(settings))
        )
        settings_params = {}
        for i, (name, value) in enumerate(settings.items()):
            settings_params[f"n{i}"], settings_params[f"v{i}"] = name, value
        with self._running_lock:
            self._running = ticket
            self._in_flight = True
        cursors = []
        try:
            with self.conn.pipeline():
                self.conn.execute(settings_sql, settings_params)
                for sql, params in statements:
                    cursors.append(self.conn.execute(sql, params))
                # The auto_explain plan arrives when the statement's portal closes: here.
                self.conn.rollback()
            return [cursor.fetchall() for cursor in cursors]
        finally:
            with self._running_lock:
                self._running = None
                self._in_flight = False
            self._end()

    def _end(self) -> None:
        conn = self.conn
        if conn is None or conn.closed or conn.broken:
            return
        import psycopg

        if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            with contextlib.suppress(Exception):
                conn.rollback()

    def cancel(self, ticket: object | None = None) -> None:
        """Stop the statement running for ``ticket`` (any, if None): another view's
        statement on the same connection is left alone. Returns at once."""
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

    def cancel_running(self, timeout: float = 2.0, *, closing: bool = False) -> bool:
        """Cancel whatever statement is on the server now, and wait (at most ``timeout``
        seconds) until the server has the request: for quitting, where a daemon thread
        would die with the process before it is sent. Safe from any thread; returns
        whether a statement was in flight. ``closing``: statements not yet begun on this
        session are refused (ReadCancelled) instead of sent."""
        with self._running_lock:
            if closing:
                self._closing = True
            busy, conn = self._in_flight, self.conn
        if not busy or conn is None:
            return False
        try:
            conn.cancel_safe(timeout=timeout)
        except Exception:
            return False
        return True

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def _inner_plan(document: dict[str, Any]) -> dict[str, Any]:
    """The plan of the statement inside the one-pass wrapper (its Aggregate and the
    subquery scan read no buffers of their own), with the whole execution's time."""
    node = document["Plan"]
    children = node.get("Plans") or []
    if node.get("Node Type") == "Aggregate" and children:
        node = children[0]
        if node.get("Node Type") == "Subquery Scan" and node.get("Plans"):
            node = node["Plans"][0]
    plan = {"Plan": node}
    if "Execution Time" in document:
        plan["Execution Time"] = document["Execution Time"]
    return plan


def _quietly(call: Any, **kwargs: Any) -> None:
    with contextlib.suppress(Exception):
        call(**kwargs)


def connect(options: PgOptions) -> PgSession:
    try:
        import psycopg
    except ImportError:
        raise InputError(missing("postgres", "PostgreSQL support")) from None
    try:
        conn = psycopg.connect(
            options.uri or "",
            autocommit=True,
            connect_timeout=max(1, int(options.connect_timeout)),
            options=_startup_options(options),
            application_name="dynotui",
        )
    except Exception as exc:
        raise translate(exc) from exc
    auto_explain = True
    for statement in AUTO_EXPLAIN:
        try:
            with conn.pipeline():  # the extended protocol here too
                conn.execute(statement)
        except psycopg.Error:
            auto_explain = False  # not a superuser, or no auto_explain: one-pass EXPLAIN
            break
    # From here every statement runs in BEGIN READ ONLY ... ROLLBACK (see _transaction).
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


# SQLSTATE classes that are the query's fault, not the connection's: syntax and access
# (42), data (22), a feature the statement used (0A), a sub-select of several rows (21),
# a write refused by the read-only transaction (25).
INPUT_CLASSES = ("42", "22", "0A", "21", "25")


def translate(exc: BaseException) -> DynotuiError:
    if isinstance(exc, DynotuiError):
        return exc
    import psycopg

    if isinstance(exc, psycopg.errors.QueryCanceled):
        return ServiceError(f"PostgreSQL stopped the statement: {first_line(exc)}")
    if isinstance(exc, psycopg.errors.ReadOnlySqlTransaction):
        return InputError(f"refused: dynotui's session is read-only ({first_line(exc)})")
    sqlstate = getattr(exc, "sqlstate", None) or ""
    if sqlstate.startswith(INPUT_CLASSES):
        return InputError(f"PostgreSQL rejected the query: {first_line(exc)}")
    diag = getattr(exc, "diag", None)
    severity = getattr(diag, "severity_nonlocalized", None) or getattr(diag, "severity", None)
    if sqlstate and severity == "ERROR":
        # The server answered with an error about the statement (dblink failing to
        # connect elsewhere is 08001): the connection to this server is fine.
        detail = getattr(diag, "message_detail", None)
        more = f" ({detail.splitlines()[0]})" if detail else ""
        return ServiceError(f"PostgreSQL reported an error ({sqlstate}): {first_line(exc)}{more}")
    if isinstance(exc, psycopg.OperationalError):
        return ServiceError(f"cannot reach PostgreSQL: {first_line(exc)}")
    if isinstance(exc, psycopg.Error):
        return ServiceError(f"PostgreSQL error: {first_line(exc)}")
    return ServiceError(f"{type(exc).__name__}: {first_line(exc)}")


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
