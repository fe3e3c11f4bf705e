"""Signing in as the AWS CLI does: a ``credential_process`` profile and SSO profiles (an
``sso_session``, and the older ``sso_start_url``) read DynamoDB Local; a lapsed or
missing SSO sign-in is one line naming ``aws sso login --profile NAME`` (exit 2), at
start and mid-session; ``AWS_ENDPOINT_URL`` and ``AWS_ENDPOINT_URL_DYNAMODB`` are
honoured, and the endpoint in force is in the app's title.

Each test writes its own AWS config and SSO token cache under an empty HOME. botocore's
own SSO provider reads them and asks a loopback stand-in of the SSO portal
(``sso_portal.py``) for role credentials.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from faultproxy import FaultProxy
from sso_portal import SsoPortal
from terminal import Terminal

from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.dynamodb.signin import SignInError
from dynotui.local import demo

START_URL = "https://sso.invalid/start"
TOKEN = "cached-sso-access-token"
LOGIN = "run aws sso login --profile {}"


def _when(hours: float) -> str:
    return (datetime.now(timezone.utc) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


class AwsHome:
    """An empty HOME with an AWS config of the test's own and botocore's SSO token cache."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.cache = self.home / ".aws" / "sso" / "cache"
        self.cache.mkdir(parents=True)
        self.config = self.home / ".aws" / "config"
        self.sso_endpoint = "http://127.0.0.1:9"  # nothing listens: no call leaves the host
        self.config.write_text(
            textwrap.dedent(f"""\
            [profile sso]
            sso_session = corp
            sso_account_id = 111122223333
            sso_role_name = Reader
            region = eu-west-1

            [profile legacy]
            sso_start_url = {START_URL}
            sso_region = eu-west-1
            sso_account_id = 111122223333
            sso_role_name = Reader
            region = eu-west-1

            [sso-session corp]
            sso_start_url = {START_URL}
            sso_region = eu-west-1
            sso_registration_scopes = sso:account:access
            """)
        )

    def add(self, text: str) -> None:
        with self.config.open("a") as config:
            config.write("\n" + textwrap.dedent(text))

    def token(self, cache_key: str, expires: str) -> None:
        """botocore's cache file: named by the SHA-1 of the session name (or, for a
        profile without a session, of the start URL)."""
        name = hashlib.sha1(cache_key.encode()).hexdigest() + ".json"
        (self.cache / name).write_text(
            json.dumps(
                {
                    "startUrl": START_URL,
                    "region": "eu-west-1",
                    "accessToken": TOKEN,
                    "expiresAt": expires,
                }
            )
        )

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update(
            HOME=str(self.home),
            AWS_CONFIG_FILE=str(self.config),
            AWS_SHARED_CREDENTIALS_FILE=str(self.home / ".aws" / "credentials"),
            AWS_ENDPOINT_URL_SSO=self.sso_endpoint,
            DYNOTUI_CURSOR_SECRET="test-secret-0123456789",
        )
        env.update(extra)
        return env


@pytest.fixture
def aws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AwsHome:
    """The AWS home, in force for this process too (for make_client in the test)."""
    home = AwsHome(tmp_path)
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    for name, value in home.env().items():
        if name.startswith("AWS_") or name == "HOME":
            monkeypatch.setenv(name, value)
    return home


@pytest.fixture
def portal(aws: AwsHome, monkeypatch: pytest.MonkeyPatch) -> Iterator[SsoPortal]:
    with SsoPortal(TOKEN) as running:
        aws.sso_endpoint = running.endpoint_url
        monkeypatch.setenv("AWS_ENDPOINT_URL_SSO", running.endpoint_url)
        yield running


def dynotui(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dynotui", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def signed_with(client: Any) -> list[str]:
    """The access key id of every request ``client`` sends (from its Authorization)."""
    keys: list[str] = []

    def record(request: Any, **_: Any) -> None:
        authorization = request.headers["Authorization"].decode()
        keys.append(authorization.split("Credential=")[1].split("/")[0])

    client.meta.events.register("before-send.dynamodb", record)
    return keys


def one_line(result: subprocess.CompletedProcess) -> str:
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    return result.stderr


# -- credential_process --------------------------------------------------------------------


def _process_profile(aws: AwsHome, tmp_path: Path, body: str) -> Path:
    script, log = tmp_path / "credentials.py", tmp_path / "ran.log"
    script.write_text(
        f"import json, sys\nopen({str(log)!r}, 'a').write('ran\\n')\n" + textwrap.dedent(body)
    )
    aws.add(
        f"""\
        [profile proc]
        credential_process = "{sys.executable}" "{script}"
        region = eu-west-1
        """
    )
    return log


GIVES_KEYS = """\
print(json.dumps({"Version": 1, "AccessKeyId": "AKIDFROMPROCESS",
                  "SecretAccessKey": "process-secret"}))
"""


def test_a_credential_process_profile_reads(
    aws: AwsHome, tmp_path: Path, ddb: Any, demo_table: str
) -> None:
    log = _process_profile(aws, tmp_path, GIVES_KEYS)
    client = make_client(ConnectionOptions(profile="proc", endpoint_url=ddb.endpoint_url))
    keys = signed_with(client)
    assert demo_table in client.list_tables()["TableNames"]
    assert keys == ["AKIDFROMPROCESS"]  # the process's keys, not the local placeholders
    assert log.read_text() == "ran\n"
    listed = dynotui(aws.env(), "tables", "--profile", "proc", "--endpoint-url", ddb.endpoint_url)
    assert listed.returncode == 0, listed.stderr
    assert demo_table in listed.stdout.split()
    assert log.read_text() == "ran\nran\n"


def test_a_failing_credential_process_is_one_line(aws: AwsHome, tmp_path: Path, ddb: Any) -> None:
    _process_profile(aws, tmp_path, "sys.exit('the vault is locked: unlock it first')\n")
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        result = dynotui(
            aws.env(), "tables", "--profile", "proc", "--endpoint-url", proxy.endpoint_url
        )
    assert result.returncode == 2
    said = one_line(result)
    assert "profile 'proc'" in said and "credential_process failed" in said
    assert "the vault is locked" in said
    assert proxy.arrived == 0
    with pytest.raises(SignInError, match="credential_process"):
        make_client(ConnectionOptions(profile="proc", endpoint_url=ddb.endpoint_url))


# -- SSO -----------------------------------------------------------------------------------


# botocore fixes where its SSO token cache is (under HOME) when it is imported, so what
# reads through SSO runs in a child process started with the test's HOME.
CHILD = """
import json, sys
from dynotui.dynamodb.connection import ConnectionOptions, make_client
keys = []
client = make_client(ConnectionOptions(profile=sys.argv[1], endpoint_url=sys.argv[2]))
client.meta.events.register("before-send.dynamodb", lambda request, **_: keys.append(
    request.headers["Authorization"].decode().split("Credential=")[1].split("/")[0]))
tables = client.list_tables()["TableNames"]
print(json.dumps({"tables": tables, "keys": keys}), flush=True)
sys.stdin.readline()  # the parent may change the portal meanwhile
try:
    client.describe_table(TableName=tables[0])
    print(json.dumps({"error": None, "keys": keys}), flush=True)
except Exception as exc:
    print(json.dumps({"error": type(exc).__name__, "words": str(exc),
                      "exit_code": getattr(exc, "exit_code", None)}), flush=True)
"""


def child(env: dict[str, str], profile: str, endpoint: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, profile, endpoint],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def answer(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, process.stderr.read() if process.stderr else ""
    return json.loads(line)


def finish(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdin is not None
    process.stdin.write("\n")
    process.stdin.flush()
    found = answer(process)
    assert process.wait(60) == 0
    return found


@pytest.mark.parametrize(("profile", "cache_key"), [("sso", "corp"), ("legacy", START_URL)])
def test_an_sso_profile_reads_with_the_cached_token(
    aws: AwsHome, portal: SsoPortal, ddb: Any, demo_table: str, profile: str, cache_key: str
) -> None:
    aws.token(cache_key, _when(8))
    process = child(aws.env(), profile, ddb.endpoint_url)
    try:
        first = answer(process)
        assert demo_table in first["tables"]
        assert first["keys"] == [portal.access_key]  # the role's keys signed the request
        assert finish(process) == {"error": None, "keys": [portal.access_key] * 2}
    finally:
        process.kill()
        process.wait()
    # botocore asked the portal once, with the cached token, for the profile's account and
    # role; the credentials lasted for the second request.
    assert portal.calls == [
        {
            "path": "/federation/credentials",
            "token": TOKEN,
            "role_name": "Reader",
            "account_id": "111122223333",
        }
    ]
    listed = dynotui(aws.env(), "tables", "--profile", profile, "--endpoint-url", ddb.endpoint_url)
    assert listed.returncode == 0, listed.stderr
    assert demo_table in listed.stdout.split()


@pytest.mark.parametrize(
    ("profile", "cache_key", "expires"),
    [
        ("sso", "corp", _when(-1)),  # expired, and nothing to refresh it with
        ("sso", None, None),  # never signed in: no cache file
        ("legacy", START_URL, _when(-1)),
        ("legacy", None, None),
    ],
    ids=["session-expired", "session-missing", "legacy-expired", "legacy-missing"],
)
def test_a_lapsed_sso_sign_in_says_what_to_run(
    aws: AwsHome,
    portal: SsoPortal,
    ddb: Any,
    profile: str,
    cache_key: str | None,
    expires: str | None,
) -> None:
    if cache_key and expires:
        aws.token(cache_key, expires)
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        for command in (["tables"], ["pages", "--table-name", "t", "--scan"]):
            result = dynotui(
                aws.env(), *command, "--profile", profile, "--endpoint-url", proxy.endpoint_url
            )
            assert result.returncode == 2
            assert one_line(result).rstrip().endswith(LOGIN.format(profile))
    assert proxy.arrived == 0 and portal.calls == []  # nothing sent with a lapsed token


def test_a_revoked_sso_session_says_what_to_run(aws: AwsHome, portal: SsoPortal, ddb: Any) -> None:
    aws.token("corp", _when(8))
    portal.token = "another"  # the portal no longer honours the cached token
    result = dynotui(aws.env(), "tables", "--profile", "sso", "--endpoint-url", ddb.endpoint_url)
    assert result.returncode == 2
    assert one_line(result).rstrip().endswith(LOGIN.format("sso"))
    assert [call["token"] for call in portal.calls] == [TOKEN]


def test_an_sso_session_that_lapses_mid_session_says_what_to_run(
    aws: AwsHome, portal: SsoPortal, ddb: Any, demo_table: str
) -> None:
    # Role credentials that last five minutes are refreshed before every request (botocore
    # refreshes them ten minutes ahead), as an hours-old session's would be.
    portal.lifetime = 300
    aws.token("corp", _when(8))
    with FaultProxy(ddb.endpoint_url, fault_rate=0.0) as proxy:
        process = child(aws.env(), "sso", proxy.endpoint_url)
        try:
            assert demo_table in answer(process)["tables"]
            portal.token = "signed-out-elsewhere"  # the next refresh is refused
            lapsed = finish(process)
        finally:
            process.kill()
            process.wait()
    assert lapsed["error"] == "SignInError" and lapsed["exit_code"] == 2  # as at start
    assert lapsed["words"].endswith(LOGIN.format("sso"))
    # The refresh was asked for and refused, and the request it was for was never sent.
    assert len(portal.calls) >= 2 and all(call["token"] == TOKEN for call in portal.calls)
    assert proxy.forwarded["ListTables"] == 1 and proxy.forwarded["DescribeTable"] == 0


# -- endpoints -----------------------------------------------------------------------------


def test_aws_endpoint_url_is_honoured(aws: AwsHome, ddb: Any, demo_table: str) -> None:
    listed = dynotui(aws.env(AWS_ENDPOINT_URL=ddb.endpoint_url), "tables")
    assert listed.returncode == 0, listed.stderr
    assert demo_table in listed.stdout.split()
    # The service's own variable wins over the global one, as in every AWS SDK.
    both = {"AWS_ENDPOINT_URL": "http://127.0.0.1:9", "AWS_ENDPOINT_URL_DYNAMODB": ddb.endpoint_url}
    listed = dynotui(aws.env(**both), "tables")
    assert listed.returncode == 0, listed.stderr
    assert demo_table in listed.stdout.split()
    bad = dynotui(aws.env(AWS_ENDPOINT_URL="nonsense"), "tables")
    assert bad.returncode == 2
    assert "AWS_ENDPOINT_URL 'nonsense' is not a URL" in one_line(bad)


def test_the_title_shows_the_endpoint_from_the_environment(
    aws: AwsHome, ddb: Any, demo_table: str
) -> None:
    env = aws.env(AWS_ENDPOINT_URL="http://127.0.0.1:9", AWS_ENDPOINT_URL_DYNAMODB=ddb.endpoint_url)
    terminal = Terminal(
        ["--table-name", demo_table, "--partition-value", demo.BIG_CUSTOMER], env, size=(160, 30)
    )
    try:
        text = terminal.wait_for(lambda t: "Page 1" in t)
        title = next(line for line in text.splitlines() if "profile" in line)
        assert f"{ddb.endpoint_url} · us-east-1 · profile: default chain" in title
        assert "127.0.0.1:9 " not in text
        terminal.send(b"q")
        assert terminal.wait_exit(10) == 0
    finally:
        terminal.close()


def test_the_app_says_what_to_run_for_a_lapsed_sso_sign_in(
    aws: AwsHome, ddb: Any, demo_table: str
) -> None:
    aws.token("corp", _when(-1))
    terminal = Terminal(
        ["--profile", "sso", "--endpoint-url", ddb.endpoint_url, "--table-name", demo_table],
        aws.env(),
        size=(160, 30),
    )
    try:
        text = terminal.wait_for(lambda t: "aws sso login" in t)
        assert LOGIN.format("sso") in " ".join(text.split())
        terminal.send(b"q")
        assert terminal.wait_exit(10) == 0
    finally:
        terminal.close()
