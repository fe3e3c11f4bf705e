"""Run DynamoDB Local as a child JVM that never outlives this process.

In memory by default; or on a private copy of a database file (the demo's seeded
table), so the original stays pristine and every run starts from the same data.

Three guards keep the JVM from leaking: the context manager (normal exit, Ctrl-C,
exceptions), an ``atexit`` hook (a forgotten ``stop``), and on Linux the kernel's
parent-death signal (this process killed outright).
"""

from __future__ import annotations

import atexit
import ctypes
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from dynotui.local.jvm_exit import exit_reason
from dynotui.local.locate import JAR, LIB, LocalSetupError, ensure_home, find_java

# DynamoDB Local without -sharedDb keeps one database per access key and region;
# shared, every client (demo seeding, the TUI, a user's own CLI) sees the same tables.
LOCAL_CREDENTIALS = {
    "aws_access_key_id": "dynotui",
    "aws_secret_access_key": "dynotui",
    "region_name": "us-east-1",
}

DB_FILE_NAME = "shared-local-instance.db"  # what -sharedDb -dbPath DIR reads and writes

_running: weakref.WeakSet[DynamoDBLocal] = weakref.WeakSet()


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def port_is_free(port: int) -> bool:
    # DynamoDB Local listens on every interface; probe the same.
    with socket.socket() as sock:
        # As the JVM does: a port held only by TIME_WAIT connections counts as free.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("", port))
        except OSError:
            return False
        return True


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class DynamoDBLocal:
    """DynamoDB Local on ``http://127.0.0.1:<port>``, in memory, shared across credentials."""

    def __init__(
        self,
        port: int | None = None,
        home: Path | None = None,
        java: str | None = None,
        startup_timeout: float = 60.0,
        db_file: Path | None = None,
        db_dir: Path | None = None,
        quick_start: bool = False,
    ) -> None:
        """``db_file``: run on a private copy of this database file; ``db_dir``: run on
        the database in this folder itself (to build one); neither: in memory.
        ``quick_start``: a JVM that starts faster (C1 only, serial GC) but runs long
        drains slower; right for the demo, wrong for benchmarks."""
        self.quick_start = quick_start
        self.db_file = db_file
        self.db_dir = db_dir
        self._db_dir: Path | None = None
        self.port = port
        self.home = home
        self.java = java
        self.startup_timeout = startup_timeout
        self.startup_seconds: float | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._began = 0.0
        self._log: IO[bytes] | None = None

    @property
    def endpoint_url(self) -> str:
        if self.port is None:
            raise RuntimeError("DynamoDB Local has not been started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def client(self, **config: Any) -> Any:
        import boto3
        from botocore.config import Config

        from dynotui.dynamodb.loopback import DIRECT

        # Straight to the JVM on loopback, whatever HTTP_PROXY says.
        return boto3.client(
            "dynamodb",
            endpoint_url=self.endpoint_url,
            config=Config(proxies=DIRECT, **config),
            aws_access_key_id=LOCAL_CREDENTIALS["aws_access_key_id"],
            aws_secret_access_key=LOCAL_CREDENTIALS["aws_secret_access_key"],
            region_name=LOCAL_CREDENTIALS["region_name"],
        )

    def start(self) -> DynamoDBLocal:
        """Launch the JVM and wait until it answers."""
        if self._process is None:
            self.launch()
        return self.ready()

    def ready(self) -> DynamoDBLocal:
        """Wait for a launched JVM to answer (the caller may do other work meanwhile)."""
        if self.startup_seconds is not None:
            return self
        try:
            self.wait_ready(self.startup_timeout)
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.perf_counter() - self._began
        return self

    def launch(self) -> DynamoDBLocal:
        """Start the JVM without waiting for it."""
        if self._process is not None:
            return self
        java = self.java or find_java()
        home = self.home or ensure_home()
        if self.port is not None and not port_is_free(self.port):
            # Otherwise the readiness probe would be answered by whatever holds the port.
            raise LocalSetupError(
                f"port {self.port} is already in use: choose another with --port, or omit it."
            )
        self.port = self.port or free_port()
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the JVM
        storage = ["-inMemory"]
        if self.db_file is not None:
            self._db_dir = Path(tempfile.mkdtemp(prefix="dynotui-dynamodb-"))
            shutil.copyfile(self.db_file, self._db_dir / DB_FILE_NAME)
            storage = ["-dbPath", str(self._db_dir)]
        elif self.db_dir is not None:
            storage = ["-dbPath", str(self.db_dir)]
        tuning = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"] if self.quick_start else []
        cmd = [
            java,
            f"-Djava.library.path={home / LIB}",
            *tuning,
            "-jar",
            str(home / JAR),
            *storage,
            "-sharedDb",
            "-disableTelemetry",
            "-port",
            str(self.port),
        ]
        # The parent-death signal follows the *thread* that forks; only the main thread
        # lives as long as the process.
        on_linux_main = sys.platform.startswith("linux") and (
            threading.current_thread() is threading.main_thread()
        )
        self._began = time.perf_counter()
        self._process = subprocess.Popen(
            cmd,
            cwd=home,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches us, and we stop the JVM in order
            preexec_fn=_die_with_parent if on_linux_main else None,
        )
        _running.add(self)
        return self

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def exit_code(self) -> int | None:
        return self._process.poll() if self._process is not None else None

    def exit_words(self) -> str:
        """Why the JVM ended, in words (its exit code and the lines that say why), not
        the start-up banner its output ends with."""
        return exit_reason(self.exit_code, self._output(), self.port)

    def wait_ready(self, timeout: float) -> None:
        """Block until ListTables answers, the JVM dies, or ``timeout`` passes."""
        from botocore.exceptions import BotoCoreError, ClientError

        client = self.client(connect_timeout=1, read_timeout=5, retries={"max_attempts": 1})
        deadline = time.monotonic() + timeout
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                raise LocalSetupError(f"DynamoDB Local exited at start: {self.exit_words()}")
            try:
                client.list_tables(Limit=1)
                return
            except (BotoCoreError, ClientError):
                if time.monotonic() > deadline:
                    raise LocalSetupError(
                        f"DynamoDB Local did not answer on {self.endpoint_url} within "
                        f"{timeout:.0f} s: {self._log_tail()}"
                    ) from None
                time.sleep(0.1)

    def stop(self, timeout: float = 10.0) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._db_dir is not None:
            shutil.rmtree(self._db_dir, ignore_errors=True)
            self._db_dir = None
        _running.discard(self)

    def _output(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def _log_tail(self) -> str:
        lines = self._output().strip().splitlines()
        return " | ".join(lines[-3:]) or "no output"

    def __enter__(self) -> DynamoDBLocal:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


@atexit.register
def _stop_all() -> None:
    for runner in list(_running):
        runner.stop()
