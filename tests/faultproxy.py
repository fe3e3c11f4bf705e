"""A loopback HTTP proxy in front of DynamoDB Local that misbehaves on purpose.

It forwards each request and, drawn from a seeded random generator, answers some
with throttling (HTTP 400 ProvisionedThroughputExceededException or
ThrottlingException), HTTP 500, a dropped connection or a delay instead. Never more
than ``max_in_a_row`` faults in a row to one reader (a parallel Scan's segments each
count their own: counted across segments, one segment could draw more faults in a row
than its client's attempts whenever the others' successes came between), so botocore's
retries always get through, unless ``fail_all`` is set: then every request fails, as in
an outage.
"""

from __future__ import annotations

import http.client
import json
import random
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlparse

FAULTS = ("throttle", "throttling", "500", "drop")


def reader_of(body: bytes) -> object:
    """Which reader sent a call: a parallel Scan's segment, else None (one chain)."""
    try:
        request = json.loads(body)
    except ValueError:
        return None
    return request.get("Segment") if isinstance(request, dict) else None


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client left mid-call (an app quit while reading ahead): nothing wrong
        super().handle_error(request, client_address)


class FaultProxy:
    def __init__(
        self,
        upstream: str,
        *,
        seed: int = 1,
        fault_rate: float = 0.25,
        max_in_a_row: int = 2,
        delay: float = 0.0,
        latency: float = 0.0,
        operations: tuple[str, ...] = ("Query", "Scan", "ExecuteStatement"),
        faults: tuple[str, ...] = FAULTS,
    ) -> None:
        parsed = urlparse(upstream)
        self.upstream = (parsed.hostname or "127.0.0.1", parsed.port or 80)
        self.rng = random.Random(seed)
        self.fault_rate = fault_rate
        self.max_in_a_row = max_in_a_row
        self.delay = delay
        self.latency = latency  # seconds added to every request: a network's round trip
        self.operations = operations
        self.kinds = faults  # the faults drawn from: throttling alone, or every kind
        self.fail_all = False
        self.silent = False  # accept and never answer
        # When set to an Event, requests wait for it before going on: a test holds a call
        # in flight for as long as it needs, instead of guessing how long a delay must be.
        self.gate: threading.Event | None = None
        self.arrived = 0  # requests received, answered or not
        self.arrivals: list[str] = []  # their operations, in the order they came
        self.lock = threading.Lock()
        self.in_a_row: Counter[object] = Counter()  # per reader: a Scan segment, or None
        self.faults: Counter[str] = Counter()
        self.forwarded: Counter[str] = Counter()
        self.server = _Server(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def injected(self) -> int:
        return sum(self.faults.values())

    def __enter__(self) -> FaultProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _choose(self, operation: str, reader: object = None) -> str | None:
        with self.lock:
            if operation not in self.operations:
                return None
            if self.fail_all:
                return "500"
            if self.in_a_row[reader] < self.max_in_a_row and self.rng.random() < self.fault_rate:
                self.in_a_row[reader] += 1
                return self.rng.choice(self.kinds)
            self.in_a_row[reader] = 0
            return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body apart must not wait on an ACK

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                operation = self.headers.get("X-Amz-Target", "").rpartition(".")[2]
                with proxy.lock:
                    proxy.arrived += 1
                    proxy.arrivals.append(operation)
                gate = proxy.gate
                if gate is not None:
                    gate.wait()
                if proxy.silent:
                    time.sleep(3600)
                    return
                if proxy.latency:
                    time.sleep(proxy.latency)
                if proxy.delay:
                    time.sleep(proxy.rng.uniform(0, proxy.delay))
                fault = proxy._choose(operation, reader_of(body))
                if fault is not None:
                    with proxy.lock:
                        proxy.faults[fault] += 1
                    self._fault(fault)
                    return
                with proxy.lock:
                    proxy.forwarded[operation] += 1
                upstream = http.client.HTTPConnection(*proxy.upstream, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                upstream.request("POST", self.path, body=body, headers=headers)
                response = upstream.getresponse()
                data = response.read()
                self.send_response(response.status)
                for name, value in response.getheaders():
                    if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                upstream.close()

            def _fault(self, fault: str) -> None:
                if fault == "drop":
                    self.close_connection = True  # no answer at all: the socket closes
                    return
                if fault == "500":
                    status, code = 500, "InternalServerError"
                elif fault == "throttle":
                    status, code = 400, "ProvisionedThroughputExceededException"
                else:
                    status, code = 400, "ThrottlingException"
                data = json.dumps(
                    {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": "injected"}
                ).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/x-amz-json-1.0")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
