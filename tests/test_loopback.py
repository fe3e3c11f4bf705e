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
from hypothesis import given
from hypothesis import strategies as st

from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.history_entry import connection_record
from dynotui.dynamodb.loopback import is_loopback_url, loopback_problem, plain_reading


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


def _urllib3_and_urllib(url: str) -> tuple[tuple, tuple] | None:
    """(scheme, host, port) as urllib3 connects and as urllib reads, or None if either
    refuses the URL."""
    from urllib.parse import urlsplit

    from urllib3.util import parse_url

    try:
        connect, split = parse_url(url), urlsplit(url)
        return (connect.scheme, connect.host, connect.port), (
            split.scheme,
            split.hostname,
            split.port,
        )
    except Exception:
        return None


OCTET = st.one_of(st.integers(0, 999).map(str), st.from_regex(r"[0-9]{1,3}", fullmatch=True))
PLAINISH = st.builds(
    lambda scheme, host, port, slash: f"{scheme}://{host}{port}{slash}",
    st.sampled_from(["http", "https", "HTTP", "ftp", "http:"]),
    st.one_of(
        st.just("localhost"),
        st.sampled_from(["LOCALHOST", "localhost.", "127.1", "[::1]", "0x7f.0.0.1"]),
        st.builds(lambda *o: ".".join(o), OCTET, OCTET, OCTET, OCTET),
    ),
    st.one_of(
        st.just(""),
        st.integers(0, 99999).map(lambda p: f":{p}"),
        st.from_regex(r":[0-9]{1,6}", fullmatch=True),
        st.sampled_from([":", ":0x50", ":+80", ":٨٠"]),
    ),
    st.sampled_from(["", "/", "//", "/x", "?", "#"]),
)


@given(PLAINISH)
def test_a_plainly_written_url_is_read_as_both_parsers_read_it(url: str) -> None:
    """The loopback check reads plain URLs without urllib3 (sparing its import at
    start-up): what it reads is exactly what urllib3 connects to and urllib reads, and
    whatever either parser would refuse or read otherwise is left to both parsers."""
    plain = plain_reading(url)
    if plain is None:
        return
    readings = _urllib3_and_urllib(url)
    assert readings is not None, url
    connect, split = readings
    assert connect == split == plain, url


@given(PLAINISH)
def test_history_keeps_a_plain_endpoint_as_urllib3_rebuilds_it(url: str) -> None:
    """History keeps the endpoint rebuilt from urllib3's parse (no user:password); a
    plainly written one is rebuilt without urllib3, to the same text."""
    from urllib3.util import Url, parse_url

    try:
        parts = parse_url(url)
        expected = Url(scheme=parts.scheme, host=parts.host, port=parts.port, path=parts.path)
        wanted = expected.url or None
    except ValueError:
        wanted = None
    kept = connection_record(ConnectionOptions(endpoint_url=url))["endpoint_url"]
    assert kept == wanted, url


@pytest.mark.parametrize(
    "url",
    ["http://localhost:8000", "https://127.0.0.1", "http://10.1.2.3:65535/", "http://localhost"],
)
def test_the_usual_local_endpoints_are_read_plainly(url: str) -> None:
    assert plain_reading(url) is not None


def test_checking_a_plain_local_endpoint_imports_no_urllib3() -> None:
    """The app labels its connection before its first screen: that check leaves urllib3
    (with http.client, ssl, email) unloaded, in a fresh interpreter."""
    script = (
        "import sys\n"
        "from dynotui.dynamodb.loopback import is_loopback_url\n"
        "assert is_loopback_url('http://localhost:8000')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'urllib3'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


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


# -- proxies: a loopback endpoint is reached directly, whatever the proxy variables say -----

PROXY_NAMES = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")

PROXY_SCRIPT = textwrap.dedent(
    """
    import json, os, socket, subprocess, sys, threading
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    seen = []
    def listen(server):
        while True:
            conn, _ = server.accept()
            seen.append(conn.recv(120).decode(errors="replace"))
            conn.close()
    listener = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=listen, args=(listener,), daemon=True).start()
    proxy = f"http://127.0.0.1:{listener.getsockname()[1]}"
    for name in ("NO_PROXY", "no_proxy"):
        os.environ.pop(name, None)
    os.environ.update({name: proxy for name in sys.argv[1:]})
    report = {"seen": seen}
    # The demo as a user runs it: its own DynamoDB Local, then DescribeTable.
    demo = subprocess.run(
        [sys.executable, "-m", "dynotui", "demo", "--no-tui"],
        capture_output=True, text=True, timeout=600,
    )
    report["demo"] = [demo.returncode, demo.stderr[-2000:], demo.stdout[:300]]
    # The demo's writes, with the client dynotui makes for a local endpoint.
    from dynotui.dynamodb.connection import ConnectionOptions, make_client
    from dynotui.local.runner import DynamoDBLocal
    from dynotui.local.tables import create_table, table_definition, write_items
    try:
        with DynamoDBLocal(startup_timeout=120, quick_start=True) as server:
            client = make_client(ConnectionOptions(endpoint_url=server.endpoint_url))
            create_table(client, table_definition("proxied", ("pk", "S")))
            write_items(client, "proxied", [{"pk": str(i)} for i in range(30)])
            report["written"] = server.client().scan(TableName="proxied")["Count"]
    except Exception as exc:
        report["written"] = repr(exc)
    print(json.dumps(report))
    """
)


@pytest.mark.jvm
def test_the_demo_never_reaches_a_proxy_in_a_private_network(tmp_path) -> None:
    """Every proxy variable names a listener inside a network namespace of this test's own;
    the demo (its DynamoDB Local's start, DescribeTable) and the demo's writes (CreateTable,
    BatchWriteItem) reach DynamoDB Local directly and the listener sees nothing."""
    reason = _namespaces_allowed()
    if reason is not None:
        pytest.skip(reason)
    from dynotui.local import demo_cache
    from dynotui.local.locate import ensure_home

    demo_cache.ensure(ensure_home())  # the namespace has no network to fetch it in
    script = tmp_path / "inside.py"
    script.write_text(PROXY_SCRIPT)
    result = subprocess.run(
        ["unshare", "-n", sys.executable, str(script), *PROXY_NAMES],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["seen"] == [], report
    code, stderr, stdout = report["demo"]
    assert code == 0, stderr
    assert "dynotui-demo-orders" in stdout
    assert "connects to DynamoDB Local on this machine directly" in stderr
    assert report["written"] == 30, report


def test_a_client_that_would_use_a_proxy_is_refused_for_the_demo_writes(monkeypatch) -> None:
    """A client made elsewhere, without dynotui's direct setting, is judged by the proxy
    botocore would send it through: no write, no connection."""
    import boto3
    from botocore.config import Config

    from dynotui.dynamodb.connection import ConnectionOptions, make_client
    from dynotui.dynamodb.loopback import client_proxy
    from dynotui.local.tables import NotLocalError, require_local

    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.setenv("HTTP_PROXY", "http://user:secret@127.0.0.1:9")
    monkeypatch.setenv("HTTPS_PROXY", "http://user:secret@127.0.0.1:9")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")  # no credential look-up on the network
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    endpoint = "http://127.0.0.1:8911"
    foreign = boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        config=Config(),
    )
    assert client_proxy(foreign) == "http://user:secret@127.0.0.1:9"
    with pytest.raises(NotLocalError, match=r"through the proxy http://\*\*\*:\*\*\*@127.0.0.1:9;"):
        require_local(foreign)
    assert client_proxy(make_client(ConnectionOptions(endpoint_url=endpoint))) is None
    # A real AWS endpoint keeps the user's proxy: only loopback is reached directly.
    remote = make_client(ConnectionOptions(region="eu-west-1"))
    assert client_proxy(remote) == "http://user:secret@127.0.0.1:9"
