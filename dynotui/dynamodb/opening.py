"""Open a table while the terminal UI loads: client, DescribeTable, then page 1.

Importing Textual and starting the app take about as long as importing botocore and
asking DynamoDB for the table and its first page; done in a thread beside each other,
page 1 is on screen when the app is. Nothing here waits on the network for the caller:
the app takes what has arrived, and the rest when it arrives.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dynotui.core.errors import DynotuiError, InputError
from dynotui.core.page import Page
from dynotui.core.pager import Pager
from dynotui.dynamodb.advice import Measurements
from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.query_form import QueryForm, build_spec
from dynotui.dynamodb.schema import TableSchema, describe_table
from dynotui.dynamodb.source import QuerySource
from dynotui.dynamodb.spec import QuerySpec


@dataclass
class Opened:
    """What arrived: each part is None until it did (or if it could not)."""

    schema: TableSchema | None = None
    spec: QuerySpec | None = None
    pager: Pager | None = None
    page: Page[Any] | None = None
    error: BaseException | None = None


class Opening:
    def __init__(
        self,
        options: ConnectionOptions,
        table: str | None,
        form: QueryForm,
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.options = options
        self.table = table
        self.form = form
        self.clock = clock
        self.measurements = Measurements()
        self.client: Any = None
        self.client_error: BaseException | None = None
        self.opened = Opened()
        self._client_ready = threading.Event()
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dynotui-open", daemon=True)

    def start(self) -> Opening:
        self._thread.start()
        return self

    def wait_for_client(self) -> Any:
        """The client (made without any network call), or its setup error, raised."""
        self._client_ready.wait()
        if self.client_error is not None:
            raise self.client_error
        return self.client

    def _run(self) -> None:
        try:
            try:
                self.client = make_client(self.options)
            except BaseException as exc:  # raised in the caller's thread
                self.client_error = exc
                return
            finally:
                self._client_ready.set()
            if self.table is None:
                return
            self.opened.schema = schema = describe_table(self.client, self.table)
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
            source = QuerySource(
                self.client, spec, schema, measurements=self.measurements, clock=self.clock
            )
            pager = Pager(source)
            self.opened.spec, self.opened.pager = spec, pager
            self.opened.page = pager.read(pager.plan("next"))
        except DynotuiError as exc:
            self.opened.error = exc
        except Exception as exc:  # shown in the app, never a traceback
            self.opened.error = exc
        finally:
            self.done.set()
