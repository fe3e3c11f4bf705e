"""When DynamoDB Local's JVM dies, dynotui says why (a port in use, a signal, memory, an
old Java), never the start-up banner its output ends with. The real JVM on a port held
by a listener, and one killed while ``dynotui local`` watches it; the output patterns of
causes that cannot be made on demand, alone."""

from __future__ import annotations

import os
import signal
import socket
import threading
from pathlib import Path

import pytest

from dynotui.cli.local_cmd import watch
from dynotui.core.errors import ServiceError
from dynotui.local import runner
from dynotui.local.jvm_exit import exit_reason
from dynotui.local.locate import LocalSetupError, ensure_home
from dynotui.local.runner import DynamoDBLocal

BANNER_WORDS = ("CorsParams", "SharedDb", "shouldDelayTransientStatuses", "InMemory")


@pytest.mark.jvm
def test_a_port_taken_before_the_jvm_binds_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as holder:
        holder.bind(("0.0.0.0", 0))
        holder.listen()
        port = holder.getsockname()[1]
        # Taken between dynotui's own check and the JVM's bind (another program's race):
        # the check passes, the JVM fails to bind.
        monkeypatch.setattr(runner, "port_is_free", lambda port: True)
        server = DynamoDBLocal(port=port, home=ensure_home(), startup_timeout=120, quick_start=True)
        with pytest.raises(LocalSetupError) as refused:
            server.start()
    words = str(refused.value)
    assert f"port {port} is already in use by another program" in words
    assert not any(banner in words for banner in BANNER_WORDS), words
    assert "\tat " not in words and "ServerConnector" not in words, "no stack frame"


@pytest.mark.jvm
def test_a_killed_jvm_is_said_to_be_killed(tmp_path: Path) -> None:
    server = DynamoDBLocal(home=ensure_home(), startup_timeout=120, quick_start=True).start()
    try:
        assert server.pid is not None
        errors: list[BaseException] = []

        def watching() -> None:
            try:
                watch(server, interval=0.05)
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=watching)
        thread.start()
        os.kill(server.pid, signal.SIGKILL)
        thread.join(60)
        assert not thread.is_alive()
    finally:
        server.stop()
    assert len(errors) == 1 and isinstance(errors[0], ServiceError)
    words = str(errors[0])
    assert words.startswith("DynamoDB Local stopped unexpectedly: killed (SIGKILL"), words
    assert "exit code -9" in words
    assert not any(banner in words for banner in BANNER_WORDS), words


BANNER = (
    "Initializing DynamoDB Local with the following configuration:\n"
    "Port:\t8000\nInMemory:\ttrue\nVersion:\t3.3.0\nDbPath:\tnull\nSharedDb:\ttrue\n"
    "shouldDelayTransientStatuses:\tfalse\nCorsParams:\tnull\n\n"
)


@pytest.mark.parametrize(
    ("code", "tail", "said"),
    [
        (
            1,
            'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space\n'
            "\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)\n",
            "ran out of memory",
        ),
        (
            1,
            "Error: LinkageError occurred while loading main class\n"
            "java.lang.UnsupportedClassVersionError: compiled by a more recent version\n",
            "this Java is too old",
        ),
        (1, "Error: Unable to access jarfile DynamoDBLocal.jar\n", "files are missing"),
        (143, "", "stopped by a SIGTERM"),
        (
            1,
            'Exception in thread "main" java.lang.IllegalStateException: odd state\n'
            "\tat software.amazon.dynamodb.Main.main(Main.java:1)\n",
            'exit code 1: Exception in thread "main" java.lang.IllegalStateException: odd state',
        ),
        (3, "", "exit code 3, and it printed no error (only its start-up banner)"),
    ],
)
def test_the_cause_is_read_past_the_banner_and_the_stack(code: int, tail: str, said: str) -> None:
    words = exit_reason(code, BANNER + tail, 8000)
    assert said in words
    assert not any(banner in words for banner in BANNER_WORDS), words
    assert "\tat " not in words
