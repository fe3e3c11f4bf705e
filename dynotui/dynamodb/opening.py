"""Open a table while the terminal UI loads: client, DescribeTable, then page 1.

Importing Textual and starting the app take about as long as importing botocore and
asking DynamoDB for the table and its first page. Where it can (Linux), this is done in
a forked child process, on another core, which sends back the connection's label, then
the table and page 1; the app makes its own client only once its first screen is up
(``LazyClient``). Elsewhere, or if the child fails, a thread does the same in-process.
Nothing here waits on the network for the caller: the app takes what has arrived, and
the rest when it arrives.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dynotui.core.errors import DynotuiError, InputError, ReadCancelled
from dynotui.core.page import Page
from dynotui.core.pager import Pager
from dynotui.dynamodb.advice import Measurements
from dynotui.dynamodb.connection import (
    ConnectionOptions,
    describe,
    make_client,
    provisional_label,
)
from dynotui.dynamodb.lazy_client import LazyClient, StandInGone
from dynotui.dynamodb.query_form import QueryForm, build_spec, segment_count
from dynotui.dynamodb.schema import TableSchema, describe_table, list_tables
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec
from dynotui.dynamodb.table_shapes import TableShapes, connection_digest
from dynotui.process.forked import Forked, Send, can_fork, portable


@dataclass
class Opened:
    """What arrived: each part is None until it did (or if it could not)."""

    schema: TableSchema | None = None
    spec: QuerySpec | None = None
    pager: Pager | None = None
    page: Page[Any] | None = None
    error: BaseException | None = None
    # With no table named, the table names (ListTables), or None if they could not be
    # listed here: the app lists them again and says why.
    tables: list[str] | None = None
    # What a page 1 read from a remembered shape spent before the table's description
    # showed the shape no longer holds (it was read again): billed all the same.
    superseded: Any = None


class Opening:
    def __init__(
        self,
        options: ConnectionOptions,
        table: str | None,
        form: QueryForm,
        *,
        clock: Callable[[], float] = time.perf_counter,
        fork: bool | None = None,
        shapes: TableShapes | None = None,
    ) -> None:
        """``shapes``: where tables' key shapes are remembered, so page 1's Query goes out
        beside DescribeTable (``table_shapes.py``); None keeps none (history off)."""
        self.options = options
        self.table = table
        self.form = form
        self.clock = clock
        self.fork = can_fork() if fork is None else fork
        self.measurements = Measurements()
        self.client: Any = None
        self.client_error: BaseException | None = None
        self.label = ""  # the connection in one line, once known
        self.shapes = shapes
        self.opened = Opened()
        self.forked_page = False  # page 1 came from the child process
        # Page 1 read beside DescribeTable from a remembered shape: "kept" when the table's
        # description gave the same request, "read again" when it did not; None if not tried.
        self.early_page: str | None = None
        self.shape_settled = threading.Event()  # the shape is kept (or will not be), here
        self._child: Forked | None = None
        self._closed = False
        self._stand_in_lock = threading.Lock()
        self._client_ready = threading.Event()
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dynotui-open", daemon=True)

    def start(self, child: Forked | None = None) -> Opening:
        """``child``: one forked already, as the command started, and sent this opening's
        options, table, form and shapes (``cli/early_open.ask``): it does what
        ``in_child`` does; without one, a child is forked here."""
        if child is not None and not self.fork:
            child.close()
            child = None
        if self.fork:
            # Forked before any thread: fork copies only one.
            self._child = child if child is not None else Forked(self.in_child)
            # The app starts at once; its own client is made once its first screen is up.
            self.client = LazyClient(self.options)
            self.label = provisional_label(self.options)
            self._client_ready.set()
        self._thread.start()
        return self

    def wait_for_client(self) -> Any:
        """The client (made without any network call), or its setup error, raised."""
        self._client_ready.wait()
        if self.client_error is not None:
            raise self.client_error
        return self.client

    def close(self) -> None:
        """The app is leaving: stop the child process if it is still reading (and do
        not read in its place)."""
        self._closed = True
        if self._child is not None:
            self._child.close()

    # -- in the child process -----------------------------------------------------------

    def in_child(self, send: Send, receive: Callable[[], Any]) -> None:
        """In the child process: the client, then the table and page 1, sent as they
        come; then the parent's reads, until it sends None."""
        try:
            client = make_client(self.options)
        except BaseException as exc:
            send((None, portable(exc)))
            return
        send((describe(client, self.options), None))
        self._open(client)
        opened = self.opened
        error = portable(opened.error)
        send((opened.schema, opened.spec, opened.page, error, opened.tables, opened.superseded))
        # Beside the parent's reads below: n pressed as page 1 appears does not wait on it.
        threading.Thread(target=self._keep_shape, args=(client,), daemon=True).start()
        # Then the parent's reads, until its own client is ready (it sends None).
        while (request := receive()) is not None:
            name, params = request
            try:
                send((getattr(client, name)(**params), None))
            except Exception as exc:
                send((None, portable(exc)))

    # -- in the parent ------------------------------------------------------------------

    def _run(self) -> None:
        opened_here = False
        try:
            if self._child is not None:
                self._from_child(self._child)
                return
            try:
                self.client = make_client(self.options)
                self.label = describe(self.client, self.options)
            except BaseException as exc:  # raised in the caller's thread
                self.client_error = exc
                return
            finally:
                self._client_ready.set()
            self._open(self.client)
            opened_here = True
        finally:
            self._client_ready.set()
            self.done.set()
        if opened_here:  # once page 1 is the app's
            self._keep_shape(self.client)

    def _from_child(self, child: Forked) -> None:
        """What the child sent; what it did not, this thread does with the lazy client."""
        try:
            label, error = child.receive()
        except EOFError:
            if not self._closed:
                self._open(self.client)
            return
        if error is not None:  # the options give no client: the app says so (E fixes)
            self.opened.error = error
            return
        self.label = label
        try:
            schema, spec, page, error, tables, superseded = child.receive()
        except EOFError:
            if not self._closed:
                self._open(self.client)  # page 1 is read here after all
            return
        self.opened = Opened(
            schema=schema, spec=spec, page=page, error=error, tables=tables, superseded=superseded
        )
        if spec is not None and page is not None:
            self.opened.pager = Pager(self._source(self.client, spec, schema))
            if superseded is not None:
                self.opened.pager.abandon(superseded)
            self.forked_page = True
            # Until the app's own client is made, the child's warm one reads for it.
            self.client.stand_in_until_made(self._stand_in, self._release_child)
        else:
            child.close()

    def _stand_in(self, name: str, params: dict[str, Any]) -> Any:
        with self._stand_in_lock:
            child = self._child
            if child is None or child.pid is None:
                raise StandInGone
            try:
                child.send((name, params))
                result, error = child.receive()
            except EOFError:
                if self._closed:
                    # Closed while the child made this call (the app is leaving, or has
                    # a new connection): it may have been sent and billed already, so it
                    # is not made again on the own client; the caller stops there.
                    raise ReadCancelled() from None
                raise StandInGone from None  # the child died: the own client makes it
        if error is not None:
            raise error
        return result

    def _release_child(self) -> None:
        """The app's own client is ready: new calls go to it, and the child may go once
        a call it is answering has returned (in a thread: that call may take a while,
        and this is called while the client's lock is held)."""
        self.client.stand_in = None
        threading.Thread(target=self._let_child_go, name="dynotui-child", daemon=True).start()

    def _let_child_go(self) -> None:
        with self._stand_in_lock:
            child = self._child
            if child is not None and child.pid is not None:
                with contextlib.suppress(EOFError):
                    child.send(None)
                child.close()

    def _source(self, client: Any, spec: QuerySpec, schema: TableSchema) -> QuerySource:
        return QuerySource(client, spec, schema, measurements=self.measurements, clock=self.clock)

    def _open(self, client: Any) -> None:
        """DescribeTable, then page 1 if the command line said enough to read it (sent
        beside DescribeTable when the table's shape is remembered); with no table, the
        table names."""
        try:
            if self.table is None:
                with contextlib.suppress(Exception):  # the app lists them and says why
                    self.opened.tables = list_tables(client)
                return
            early = self._read_early(client)
            self.opened.schema = schema = describe_table(client, self.table)
            form = self.form
            if form.order not in {o.name for o in schema.orders}:
                return
            if not form.partition_value and not form.scan:
                return
            try:
                spec = build_spec(schema, form)
            except InputError as exc:
                self.opened.error = exc
                return
            if segment_count(form) > 1:
                self.opened.spec = spec  # a segmented Scan: the app reads its segments
                return
            pager = Pager(self._source(client, spec, schema))
            self.opened.spec, self.opened.pager = spec, pager
            page = early.page_for(spec, schema) if early is not None else None
            if early is not None:
                self.early_page = "kept" if page is not None else "read again"
                if page is None and early.page is not None:
                    self.opened.superseded = early.page.cost
                    pager.abandon(early.page.cost)
            self.opened.page = page if page is not None else pager.read(pager.plan("next"))
        except DynotuiError as exc:
            self.opened.error = exc
        except Exception as exc:  # shown in the app, never a traceback
            self.opened.error = exc

    def _read_early(self, client: Any) -> EarlyPage | None:
        """Page 1 read in a thread from the remembered shape, while DescribeTable is
        asked; None where nothing is remembered or the form reads no page 1 here."""
        form = self.form
        if self.shapes is None or self.table is None or segment_count(form) > 1:
            return None
        if not form.partition_value and not form.scan:
            return None
        remembered = self.shapes.recall(self._digest(client))
        if remembered is None or remembered.name != self.table:
            return None
        try:
            spec = build_spec(remembered, form)
            source = self._source(client, spec, remembered)
        except Exception:  # the remembered shape does not fit the form: read in turn
            return None
        return EarlyPage(spec, remembered, Pager(source))

    def _digest(self, client: Any) -> str:
        meta = client.meta  # the endpoint and region the client resolved, as it calls them
        endpoint, region = str(meta.endpoint_url), str(meta.region_name)
        return connection_digest(self.options.profile, region, endpoint, self.table or "")

    def _keep_shape(self, client: Any) -> None:
        """Remember the table's shape for the next open, once page 1 has gone to the app
        (nothing here holds it up)."""
        schema = self.opened.schema
        try:
            if self.shapes is not None and schema is not None and not self._closed:
                self.shapes.remember(self._digest(client), schema)
        except Exception:  # a full disk, say: the shape only ever saves a round trip
            return
        finally:
            self.shape_settled.set()


class EarlyPage:
    """Page 1 of ``spec`` on a remembered ``schema``, read in a thread as it is made."""

    def __init__(self, spec: QuerySpec, schema: TableSchema, pager: Pager[Any, Any, Any]) -> None:
        self.spec, self.schema = spec, schema
        self.page: Page[Any] | None = None  # once read (None if the read failed)
        self._thread = threading.Thread(target=self._read, args=(pager,), daemon=True)
        self._thread.start()

    def _read(self, pager: Pager[Any, Any, Any]) -> None:
        with contextlib.suppress(Exception):  # read again in turn, and failed as it fails
            self.page = pager.read(pager.plan("next"))

    def page_for(self, spec: QuerySpec, schema: TableSchema) -> Page[Any] | None:
        """The page read early if the table as described gives the same request and the
        same cursor keys (so the same items and boundary); else None, read it again."""
        same = (
            spec == self.spec
            and spec.request(schema, None, spec.page_size)
            == self.spec.request(self.schema, None, self.spec.page_size)
            and schema.cursor_key_names(spec.index) == self.schema.cursor_key_names(spec.index)
        )
        self._thread.join()  # never two reads of page 1 at once
        return self.page if same else None
