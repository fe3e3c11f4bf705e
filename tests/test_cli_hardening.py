"""The CLI against bad input and odd environments: one line, the right exit code."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import page_lines, run_in_process

from dynotui.dynamodb.connection import ConnectionOptions, make_client
from dynotui.local import demo

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}
QUERY = [
    "--key-condition-expression",
    "customer = :c",
    "--expression-attribute-values",
    json.dumps({":c": {"S": demo.BIG_CUSTOMER}}),
]


def dynotui(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_in_process(args, env=env or ENV)


def one_line_error(result: subprocess.CompletedProcess, code: int, needle: str) -> None:
    assert result.returncode == code, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("dynotui: "), result.stderr
    assert needle in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


def pages(ddb: Any, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return dynotui(
        "pages", "--endpoint-url", ddb.endpoint_url, "--table-name", demo.TABLE, *args, env=env
    )


@pytest.mark.parametrize("age", ["nan", "inf", "-inf", "0", "-5", "604801"])
def test_expiry_cannot_be_turned_off_from_the_command_line(ddb, age) -> None:
    token = "eyJ2IjoyfQ." + "A" * 43
    verify = dynotui(
        "cursor", "verify", token, "--table-name", "t", "--scan", f"--cursor-max-age={age}"
    )
    for result in (pages(ddb, *QUERY, f"--cursor-max-age={age}"), verify):
        if age in ("0", "604801"):  # a number out of range: the expiry's to refuse
            one_line_error(result, 2, "cursor max age")
        else:  # no number at all (ASCII digits only): a usage error of the flag's own
            assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
            assert "argument --cursor-max-age: takes a number" in result.stderr


@pytest.mark.parametrize("issued", ["100000000000000000000", "1e20", "1e400"])
def test_a_token_issued_beyond_any_date_is_malformed_everywhere(ddb, issued) -> None:
    text = '{"k":{"customer":{"S":"acme"},"order_no":{"S":"1"}},"s":"0123456789abcdef","t":'
    body = base64.urlsafe_b64encode((text + issued + ',"v":2}').encode()).rstrip(b"=").decode()
    token = f"{body}.{'A' * 43}"
    one_line_error(dynotui("cursor", "decode", token), 2, "malformed (bad issue time)")
    one_line_error(
        dynotui("cursor", "verify", token, "--table-name", demo.TABLE, *QUERY),
        2,
        "malformed (bad issue time)",
    )
    one_line_error(pages(ddb, *QUERY, "--starting-token", token), 2, "malformed (bad issue time)")


def test_an_empty_starting_token_is_refused(ddb) -> None:
    one_line_error(pages(ddb, *QUERY, "--starting-token", ""), 2, "malformed (it is empty)")
    one_line_error(pages(ddb, *QUERY, "--starting-token", "  "), 2, "malformed (it is empty)")


def test_empty_table_name_and_bad_endpoint_are_one_line_each() -> None:
    one_line_error(
        dynotui("pages", "--table-name", "", "--scan", "--endpoint-url", "http://127.0.0.1:9"),
        2,
        "--table-name is empty",
    )
    one_line_error(
        dynotui("pages", "--table-name", "t", "--scan", "--endpoint-url", "notaurl"),
        2,
        "--endpoint-url 'notaurl' is not a URL",
    )
    one_line_error(
        dynotui("tables", "--endpoint-url", "http://localhost:port"),
        2,
        "port that is not a number",
    )


def test_a_closed_pipe_ends_quietly(ddb) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dynotui",
            "pages",
            "--endpoint-url",
            ddb.endpoint_url,
            "--table-name",
            demo.TABLE,
            *QUERY,
            "--page-size",
            "100",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(100)) == 100  # what `head -c 100` reads before it exits
    proc.stdout.close()
    assert proc.wait(120) == 141
    assert proc.stderr.read() == b"", "a closed stdout is not an error to report"


def test_a_broken_secret_file_matters_only_when_a_cursor_is_signed(ddb, tmp_path: Path) -> None:
    (tmp_path / "dynotui" / "cursor-secret").mkdir(parents=True)
    env = {k: v for k, v in ENV.items() if not k.startswith("DYNOTUI_CURSOR_SECRET")}
    env["XDG_CONFIG_HOME"] = str(tmp_path)
    quiet = pages(ddb, *QUERY, "--max-pages", "2", "--no-tokens", env=env)
    assert quiet.returncode == 0, quiet.stderr
    lines = page_lines(quiet.stdout)
    assert len(lines) == 2 and all(line["next_token"] is None for line in lines)
    signing = pages(ddb, *QUERY, "--max-pages", "1", env=env)
    one_line_error(signing, 2, "is a directory")


@pytest.mark.parametrize("blocked", ["home", "folder"])
def test_a_config_home_that_is_a_file_is_named(ddb, tmp_path: Path, blocked: str) -> None:
    """XDG_CONFIG_HOME (or dynotui's folder in it) is a file: one line naming that file."""
    home = tmp_path / "config"
    if blocked == "home":
        home.write_text("not a folder")
        in_the_way = home
    else:
        home.mkdir()
        in_the_way = home / "dynotui"
        in_the_way.write_text("not a folder")
    env = {k: v for k, v in ENV.items() if not k.startswith("DYNOTUI_CURSOR_SECRET")}
    env["XDG_CONFIG_HOME"] = str(home)
    env.pop("DYNOTUI_CONFIG", None)
    signing = pages(ddb, *QUERY, "--max-pages", "1", env=env)
    one_line_error(signing, 2, f"{in_the_way} is a file, not a folder")
    assert "XDG_CONFIG_HOME" in signing.stderr


def test_aws_region_is_honoured_like_the_aws_cli_v2(monkeypatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    client = make_client(ConnectionOptions(endpoint_url="http://127.0.0.1:9"))
    assert client.meta.region_name == "eu-west-3"
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-south-1")
    assert make_client(ConnectionOptions(endpoint_url="http://127.0.0.1:9")).meta.region_name == (
        "eu-west-3"
    )
    assert (
        make_client(
            ConnectionOptions(endpoint_url="http://127.0.0.1:9", region="us-west-2")
        ).meta.region_name
        == "us-west-2"
    )


def test_demo_says_it_ignores_an_endpoint_variable() -> None:
    env = {**ENV, "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:9"}
    result = subprocess.run(  # the demo starts and stops a JVM of its own: a real process
        [sys.executable, "-m", "dynotui", "demo", "--no-tui"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "AWS_ENDPOINT_URL_DYNAMODB is set" in result.stderr
    assert "ignores it" in result.stderr and "--endpoint-url" in result.stderr
    assert demo.TABLE in result.stdout


def test_pages_help_shows_defaults_and_explains_modes() -> None:
    result = dynotui("pages", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "(default: 25)" in text and "(default: raw)" in text and "(default: 900)" in text
    assert "raw: one call per page with Limit = page size" in text
    assert "fill: calls until page size + 1 matches" in text
