"""The demo writes only to this machine, as the client that connects reads the URL."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from dynotui.dynamodb.loopback import is_loopback_url, loopback_problem


def fake_dns(*addresses: str) -> Any:
    """A resolver that answers every name with these addresses, as getaddrinfo would."""

    def resolve(host: str, port: int, **_: Any) -> list[tuple]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in addresses]

    return resolve


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000",
        "http://127.0.0.2:8000/",
        "https://127.0.0.1",
        "http://localhost:8000",
        "HTTP://LOCALHOST:8000",
        "http://[::1]:8000",
    ],
)
def test_loopback_written_in_full_is_accepted(url: str) -> None:
    assert loopback_problem(url) is None and is_loopback_url(url)


@pytest.mark.parametrize(
    "url, why",
    [
        # the attack: urlsplit reads 127.0.0.1 after the @, urllib3 connects to 192.0.2.1
        ("http://192.0.2.1\\@127.0.0.1:8911", "'@'"),
        ("http://192.0.2.1\\.127.0.0.1:8911", "backslash"),
        ("http://user@127.0.0.1:8000", "'@'"),
        ("http://127.0.0.1:8000#@evil.example", "'@'"),
        ("http://127.0.0.1\t:8000", "whitespace"),
        ("http://127.0.0.1:8000\n", "whitespace"),
        ("http://127.0.0.1: 8000", "whitespace"),
        ("http://127.0.0.1:99999", "not a URL both"),
        ("http://[::1%25lo]:8000", "read its host differently"),
        # inet_aton's short, hex and decimal forms of 127.0.0.1: refused, by decision
        ("http://127.1:8000", "neither localhost nor an IP address written in full"),
        ("http://0x7f000001:8000", "neither localhost"),
        ("http://2130706433:8000", "neither localhost"),
        ("http://localhost.evil.example:8000", "neither localhost"),
        ("http://localhost.:8000", "neither localhost"),
        ("http://[::ffff:127.0.0.1]:8000", "IPv6 form of another address"),
        ("http://0.0.0.0:8000", "not a loopback address"),
        ("http://192.0.2.1:8000", "not a loopback address"),
        ("ftp://127.0.0.1:8000", "not an http"),
        ("http:/127.0.0.1:8000", "names no host"),
        ("", "no endpoint"),
        (None, "no endpoint"),
    ],
)
def test_anything_else_is_refused_with_its_reason(url: str | None, why: str) -> None:
    problem = loopback_problem(url)
    assert problem is not None and why in problem, problem
    assert not is_loopback_url(url)


def test_localhost_must_resolve_to_loopback_only() -> None:
    assert loopback_problem("http://localhost:8000", fake_dns("127.0.0.1", "::1")) is None
    hijacked = loopback_problem("http://localhost:8000", fake_dns("127.0.0.1", "192.0.2.1"))
    assert hijacked is not None and "resolves to 192.0.2.1" in hijacked

    def broken(*_: Any, **__: Any) -> list:
        raise socket.gaierror("no such name")

    assert "does not resolve" in (loopback_problem("http://localhost", broken) or "")


# -- in a network namespace of the test's own: no connection leaves loopback ---------------

NAMESPACE_SCRIPT = textwrap.dedent(
    """
    import json, socket, subprocess, sys, threading
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", "192.0.2.1/32", "dev", "lo"], check=True)
    seen = []
    def listen(host, port):
        server = socket.create_server((host, port))
        while True:
            conn, _ = server.accept()
            seen.append(f"{host}:{port}")
            conn.close()
    for host, port in [("192.0.2.1", 80), ("192.0.2.1", 8911), ("127.0.0.1", 8911)]:
        threading.Thread(target=listen, args=(host, port), daemon=True).start()
    result = subprocess.run(
        [sys.executable, "-m", "dynotui", "demo", "--no-tui", "--region", "us-east-1",
         "--max-attempts", "1", "--connect-timeout", "2", "--read-timeout", "2",
         "--endpoint-url", sys.argv[1]],
        capture_output=True, text=True, timeout=60,
    )
    print(json.dumps({"code": result.returncode, "stderr": result.stderr, "seen": seen}))
    """
)


def _namespaces_allowed() -> str | None:
    if not (shutil.which("unshare") and shutil.which("ip")):
        return "unshare and ip are needed to make a private network namespace"
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        return f"unshare -n is not permitted here: {probe.stderr.decode().strip()}"
    return None


def test_the_backslash_url_reaches_no_host_in_a_private_network(tmp_path) -> None:
    """192.0.2.1 is given to lo inside a namespace of this test's own, with listeners on
    it and on 127.0.0.1: the demo refuses the URL before any connection is made."""
    reason = _namespaces_allowed()
    if reason is not None:
        pytest.skip(reason)
    script = tmp_path / "inside.py"
    script.write_text(NAMESPACE_SCRIPT)
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x"}
    result = subprocess.run(
        ["unshare", "-n", sys.executable, str(script), "http://192.0.2.1\\@127.0.0.1:8911"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["seen"] == [], report
    assert report["code"] == 2 and "refusing to create or seed" in report["stderr"], report
    assert report["stderr"].count("\n") == 1
