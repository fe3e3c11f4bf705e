"""What a newcomer meets first: help that says what the command does, and no silence."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from typing import Any

from helpers import drain

from dynotui.local import demo

CLI = [sys.executable, "-m", "dynotui"]
ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def help_of(*command: str) -> str:
    result = subprocess.run(
        [*CLI, *command, "--help"], capture_output=True, text=True, timeout=60, env=ENV
    )
    assert result.returncode == 0, result.stderr
    return " ".join(result.stdout.split())


def test_demo_help_does_not_claim_the_endpoint_variable() -> None:
    text = help_of("demo")
    assert "default: AWS_ENDPOINT_URL_DYNAMODB" not in text
    assert "AWS_ENDPOINT_URL_DYNAMODB is not read" in text
    # the other commands do read it
    assert "default: AWS_ENDPOINT_URL_DYNAMODB" in help_of("pages")


def test_count_help_describes_counting() -> None:
    text = help_of("count")
    assert "Count the items a Query or Scan matches" in text
    start = text.index("--filter-expression EXPRESSION", text.index("query (as in"))
    words = text[start : text.index("--projection-expression EXPRESSION", start)]
    assert "count" in words and "page" not in words, words


def run_with_terminal_stderr(args: list[str], timeout: float = 300) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (stdout a pipe): (code, stdout, terminal)."""
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=terminal, stdin=subprocess.DEVNULL, env=ENV
    )
    os.close(terminal)
    seen = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 1.0)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            data = os.read(controller, 65536)
        except OSError:  # EIO: every writer of the terminal is gone
            break
        if not data:
            break
        seen += data
    os.close(controller)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    return proc.wait(timeout=60), out, seen.decode(errors="replace")


def test_count_shows_progress_on_a_terminal_and_nothing_elsewhere(ddb: Any, client: Any) -> None:
    args = [*CLI, "count", "--endpoint-url", ddb.endpoint_url, "--table-name", demo.TABLE]
    # The big customer's partition, filtered, not a Scan of the whole table: this test is
    # about the progress line (the Scan, run three times, cost DynamoDB Local 30 s of CPU).
    values = {":c": {"S": demo.BIG_CUSTOMER}}
    args += ["--key-condition-expression", "customer = :c"]
    args += ["--expression-attribute-values", json.dumps(values)]
    args += ["--filter-expression", "attribute_exists(flag)"]
    truth = len(
        drain(
            client,
            TableName=demo.TABLE,
            KeyConditionExpression="customer = :c",
            ExpressionAttributeValues=values,
            FilterExpression="attribute_exists(flag)",
        )
    )
    assert truth > 0
    code, out, terminal = run_with_terminal_stderr(args)
    assert code == 0, terminal
    assert json.loads(out)["count"] == truth
    assert "Counting…" in terminal and f"Counted: {truth:,} matches" in terminal, terminal
    piped = subprocess.run(args, capture_output=True, text=True, timeout=300, env=ENV)
    assert piped.returncode == 0 and piped.stderr == ""
    assert json.loads(piped.stdout)["count"] == truth
