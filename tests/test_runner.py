"""The DynamoDB Local runner: it answers, and its JVM never outlives the Python process.

The JVMs started here only start, answer and stop: they start as the demo's do
(``quick_start``: C1 only, serial GC), at about half the CPU (2.8 s against 5 s here)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from processes import as_a_background_job, interruptible

from dynotui.local.runner import DynamoDBLocal

CHILD = textwrap.dedent(
    """
    import os, sys, time
    from dynotui.local.runner import DynamoDBLocal
    mode = sys.argv[1]
    if mode == "forgot-stop":
        server = DynamoDBLocal(quick_start=True).start()
        print(server.pid, flush=True)
        sys.exit(0)
    with DynamoDBLocal(quick_start=True) as server:
        print(server.pid, flush=True)
        if mode == "exception":
            raise RuntimeError("boom")
        if mode in ("sigint", "sigkill"):
            time.sleep(120)
    """
)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def wait_gone(pid: int, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_runner_answers_and_stops(ddb: DynamoDBLocal) -> None:
    assert ddb.endpoint_url.startswith("http://127.0.0.1:")
    assert "TableNames" in ddb.client().list_tables()
    with DynamoDBLocal(quick_start=True) as second:
        pid = second.pid
        assert pid is not None and alive(pid)
        assert second.port != ddb.port
        assert second.client().list_tables()["TableNames"] == []
    assert wait_gone(pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("mode", ["normal", "exception", "sigint", "sigkill", "forgot-stop"])
def test_no_jvm_left_after_python_exits(mode: str, ddb: DynamoDBLocal) -> None:
    jvm: int | None = None
    with (
        as_a_background_job(),
        interruptible(
            [sys.executable, "-c", CHILD, mode],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as child,
    ):
        try:
            assert child.stdout is not None
            line = child.stdout.readline()
            assert line.strip().isdigit(), child.stderr.read() if child.stderr else line
            jvm = int(line)
            assert alive(jvm)
            if mode == "sigint":
                child.send_signal(signal.SIGINT)
            elif mode == "sigkill":
                child.send_signal(signal.SIGKILL)
            child.wait(60)
            assert wait_gone(jvm), f"JVM {jvm} outlived the Python process ({mode})"
        finally:
            if jvm is not None and alive(jvm):
                os.kill(jvm, signal.SIGKILL)  # the test failed: leave no JVM behind


def test_port_in_use_is_a_clear_error(ddb: DynamoDBLocal) -> None:
    from dynotui.local.locate import LocalSetupError

    with pytest.raises(LocalSetupError, match=f"port {ddb.port} is already in use"):
        DynamoDBLocal(port=ddb.port, startup_timeout=30).start()
    # the failed start left nothing behind and the first server still answers
    assert "TableNames" in ddb.client().list_tables()


def test_cli_local_prints_endpoint_and_stops_on_ctrl_c(ddb: DynamoDBLocal) -> None:
    with (
        as_a_background_job(),
        interruptible(
            [sys.executable, "-m", "dynotui", "local"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as proc,
    ):
        assert proc.stdout is not None
        first = proc.stdout.readline()
        second = proc.stdout.readline()
        assert "DynamoDB Local is running at http://127.0.0.1:" in first
        endpoint = first.split(" at ")[1].split(" ")[0]
        assert second.strip() == f"export AWS_ENDPOINT_URL_DYNAMODB={endpoint}"
        jvms = subprocess.run(
            ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True
        ).stdout.split()
        assert jvms, "no child JVM found"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 130
    for pid in jvms:
        assert wait_gone(int(pid))


def test_cli_local_notices_its_database_died() -> None:
    with interruptible(
        [sys.executable, "-m", "dynotui", "local"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert "DynamoDB Local is running" in proc.stdout.readline()
        jvms = subprocess.run(
            ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True
        ).stdout.split()
        assert jvms, "no child JVM found"
        for pid in jvms:
            os.kill(int(pid), signal.SIGKILL)
        assert proc.wait(15) == 1, "dynotui local must fail when its database dies"
        errors = [line for line in proc.stderr.read().splitlines() if line.startswith("dynotui:")]
    assert len(errors) == 1 and "DynamoDB Local stopped unexpectedly" in errors[0]
