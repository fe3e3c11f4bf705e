"""``dynotui pages --code``: the code of the first page the command reads, run for real.

For each mode (raw, fill that runs out of rounds, Scan, an index, PartiQL) the printed
boto3, AWS CLI and JavaScript are run against DynamoDB Local and must print the items
that ``dynotui pages --max-pages 1`` prints for the same flags; from a start key too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from helpers import run_in_process

from dynotui.local import demo

JS_DIR = Path(__file__).parent / "js"
ENV = {
    **os.environ,
    "AWS_ACCESS_KEY_ID": "dynotui",
    "AWS_SECRET_ACCESS_KEY": "dynotui",
    "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789",
}
LANGUAGES = ["boto3", "cli", "js"]


def values(**named: str) -> str:
    return json.dumps({f":{k}": {"S": v} for k, v in named.items()})


STATUS = ["--expression-attribute-names", '{"#s": "status"}']
MODES: dict[str, list[str]] = {
    "raw": [
        "--table-name",
        demo.TABLE,
        "--key-condition-expression",
        "customer = :c",
        "--filter-expression",
        "#s = :s",
        *STATUS,
        "--expression-attribute-values",
        values(c=demo.BIG_CUSTOMER, s="SHIPPED"),
        "--page-size",
        "30",
    ],
    # One round finds 6 matches: the page holds 6, not 25.
    "fill-capped": [
        "--table-name",
        demo.TABLE,
        "--key-condition-expression",
        "customer = :c",
        "--filter-expression",
        "#s = :s",
        *STATUS,
        "--expression-attribute-values",
        values(c=demo.BIG_CUSTOMER, s="SHIPPED"),
        "--mode",
        "fill",
        "--max-rounds",
        "1",
    ],
    "scan-fill": [
        "--table-name",
        demo.TABLE,
        "--scan",
        "--filter-expression",
        "#s = :s",
        *STATUS,
        "--expression-attribute-values",
        values(s=demo.RARE_STATUS),
        "--mode",
        "fill",
        "--page-size",
        "4",
    ],
    "index-fill": [
        "--table-name",
        demo.TABLE,
        "--index-name",
        "by_status",
        "--key-condition-expression",
        "#s = :s",
        "--filter-expression",
        "attribute_exists(flag)",
        *STATUS,
        "--expression-attribute-values",
        values(s="PLACED"),
        "--mode",
        "fill",
        "--page-size",
        "3",
    ],
    "partiql": [
        "--statement",
        f'SELECT * FROM "{demo.TABLE}" WHERE customer = ? AND status = ?',
        "--parameters",
        json.dumps([{"S": demo.BIG_CUSTOMER}, {"S": "SHIPPED"}]),
        "--page-size",
        "40",
    ],
}


def dynotui(ddb: Any, *args: str) -> subprocess.CompletedProcess[str]:
    return run_in_process(["pages", "--endpoint-url", ddb.endpoint_url, *args], env=ENV)


def first_page(ddb: Any, *args: str) -> dict[str, Any]:
    result = dynotui(ddb, *args, "--max-pages", "1", "--no-summary")
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout.splitlines()[0]))


def run_code(language: str, code: str) -> list[Any]:
    if language == "boto3":
        command = [sys.executable, "-c", code]
    elif language == "cli":
        aws = shutil.which("aws") or str(Path(sys.executable).parent / "aws")
        command = ["bash", "-c", code.replace("aws dynamodb", f"{aws} dynamodb", 1)]
    else:
        path = JS_DIR / f"gen-{uuid.uuid4().hex}.mjs"
        path.write_text(code)
        command = ["node", str(path)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, env=ENV)
    finally:
        if language == "js":
            path.unlink()
    assert result.returncode == 0, result.stderr
    if language == "cli":
        return list(json.loads(result.stdout)["Items"])
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.fixture(scope="module")
def shown(ddb: Any, demo_table: str) -> dict[str, dict[str, Any]]:
    """Page 1 of each mode as ``pages`` prints it."""
    return {mode: first_page(ddb, *args) for mode, args in MODES.items()}


def test_the_fill_case_runs_out_of_rounds(shown) -> None:
    page = shown["fill-capped"]
    assert page["ended_by"] == "rounds" and 0 < page["shown"] < 25


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("mode", list(MODES))
def test_the_code_prints_the_first_page(ddb, shown, request, mode: str, language: str) -> None:
    if language == "js":
        request.getfixturevalue("node_modules")
    result = dynotui(ddb, *MODES[mode], "--code", language)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Page 1 of") == 1
    page = shown[mode]
    assert page["items"], f"{mode}: pick a case whose first page shows items"
    assert run_code(language, result.stdout) == page["items"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_code_starts_where_a_token_or_start_key_says(ddb, shown, request, language) -> None:
    if language == "js":
        request.getfixturevalue("node_modules")
    args = MODES["fill-capped"]
    token = shown["fill-capped"]["next_token"]
    key = json.dumps(shown["fill-capped"]["next_start_key"])
    page_two = first_page(ddb, *args, "--starting-token", token)
    assert page_two["items"] and page_two["items"] != shown["fill-capped"]["items"]
    for start in (["--starting-token", token], ["--exclusive-start-key", key]):
        result = dynotui(ddb, *args, *start, "--code", language)
        assert result.returncode == 0, result.stderr
        assert run_code(language, result.stdout) == page_two["items"]


def test_code_is_refused_where_it_has_no_meaning(ddb) -> None:
    result = dynotui(ddb, *MODES["raw"], "--code", "python")
    assert result.returncode == 2 and "invalid choice" in result.stderr
    segmented = dynotui(ddb, *MODES["scan-fill"], "--segments", "2", "--code", "boto3")
    assert segmented.returncode == 2 and segmented.stderr.count("\n") == 1
    assert "drop --segments" in segmented.stderr
