"""Benchmark: how long `dynotui pages` takes to give up on an endpoint that never answers.

    python benchmarks/silent_endpoint.py [-- extra pages flags, e.g. --max-attempts 1]

A loopback socket accepts every connection and never sends a byte (a hung server, a
firewall that swallows replies). The command runs with its default connection
settings unless flags are passed after ``--``; the time from start to its one-line
error is printed, beside the bound that the defaults promise (read timeout times
attempts, plus botocore's backoff between them).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

from dynotui.dynamodb.connection import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_READ_TIMEOUT,
)


def silent_server() -> tuple[socket.socket, list[socket.socket]]:
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)  # kept open, never answered

    threading.Thread(target=accept, daemon=True).start()
    return server, held


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("extra", nargs="*", help="flags for dynotui pages (after --)")
    args = parser.parse_args()
    server, held = silent_server()
    endpoint = f"http://127.0.0.1:{server.getsockname()[1]}"
    command = [sys.executable, "-m", "dynotui", "pages", "--endpoint-url", endpoint]
    command += ["--table-name", "any-table", "--scan", "--no-tokens", *args.extra]
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x"}
    began = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
    seconds = time.perf_counter() - began
    server.close()
    for conn in held:
        conn.close()
    print(
        json.dumps(
            {
                "seconds_to_give_up": round(seconds, 1),
                "exit_code": result.returncode,
                "connections": len(held),
                "defaults": {
                    "connect_timeout": DEFAULT_CONNECT_TIMEOUT,
                    "read_timeout": DEFAULT_READ_TIMEOUT,
                    "max_attempts": DEFAULT_MAX_ATTEMPTS,
                },
                "read_timeouts_alone": DEFAULT_READ_TIMEOUT * DEFAULT_MAX_ATTEMPTS,
                "extra_flags": args.extra,
                "stderr": result.stderr.strip(),
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
