"""What a newcomer meets first: help that says what the command does, and no silence."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import drain

from dynotui.local import demo

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

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


# -- an extra the install lacks: the command that adds it, to this install -----------------

ROOT = Path(__file__).resolve().parents[1]
POSTGRES = tuple(
    tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"][
        "postgres"
    ]
)


def command_and_requirements(hint: str, words: int) -> tuple[list[str], set[str]]:
    """A hint's first ``words`` words, and the requirements after them (in any order)."""
    split = shlex.split(hint)
    return split[:words], set(split[words:])


def test_the_hint_for_a_venv_is_this_interpreters_pip_with_pyprojects_requirements(
    tmp_path: Path,
) -> None:
    from dynotui.core.extras import install_hint, requirements

    assert set(requirements("postgres")) == set(POSTGRES)  # the installed metadata's
    hint = install_hint("postgres", prefix=tmp_path, python="/opt/my env/bin/python")
    assert command_and_requirements(hint, 4) == (
        ["/opt/my env/bin/python", "-m", "pip", "install"],
        set(POSTGRES),
    )


def test_the_hint_for_pipx_injects_and_for_uv_reinstalls_its_source(tmp_path: Path) -> None:
    from dynotui.core.extras import install_hint

    pipx, uv = tmp_path / "pipx", tmp_path / "uv"
    pipx.mkdir()
    uv.mkdir()
    (pipx / "pipx_metadata.json").write_text("{}")
    hint = install_hint("postgres", prefix=pipx)
    assert command_and_requirements(hint, 3) == (["pipx", "inject", "dynotui"], set(POSTGRES))
    receipt = uv / "uv-receipt.toml"
    receipt.write_text(
        '[tool]\nrequirements = [{ name = "dynotui", directory = "/src/dyno tui" }]\n'
    )
    assert install_hint("postgres", prefix=uv) == "uv tool install '/src/dyno tui[postgres]'"


@pytest.mark.parametrize(
    "receipt",
    [
        "[tool]\nrequirements = []\n",
        "not toml [",
        '[tool]\nrequirements = [{ name = "dynotui", directory = "/a\\u001b[2Jb" }]\n',
        "# " + "x" * 100_000 + "\n",
    ],
    ids=["empty", "not-toml", "escape", "huge"],
)
def test_a_uv_receipt_that_names_no_usable_source_gets_words(tmp_path: Path, receipt: str) -> None:
    from dynotui.core.extras import install_hint

    (tmp_path / "uv-receipt.toml").write_text(receipt)
    hint = install_hint("postgres", prefix=tmp_path)
    assert hint.startswith("uv tool install 'PATH[postgres]' (PATH: the folder or wheel")
    assert "\x1b" not in hint


def test_no_message_names_a_dynotui_package_on_an_index() -> None:
    # pip install 'dynotui[postgres]' finds nothing: dynotui is on no package index.
    named = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "dynotui").rglob("*.py")
        if "dynotui[" in path.read_text(encoding="utf-8")
    ]
    assert named == []


def test_a_missing_driver_is_one_line_naming_the_command_for_this_install() -> None:
    # psycopg made unimportable, as in an install without the postgres extra.
    script = (
        "import sys\n"
        "sys.modules['psycopg'] = None\n"
        "sys.argv = ['dynotui', 'pages', '--postgres', 'postgresql://127.0.0.1:1/x',"
        " '--table', 't']\n"
        "from dynotui.cli.entry import main\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=ENV
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    said, hint = line.split("add it with: ")
    assert "PostgreSQL" in said
    assert command_and_requirements(hint, 4) == (
        [sys.executable, "-m", "pip", "install"],
        set(POSTGRES),
    )


# -- the figures a newcomer reads: measured as a newcomer meets them -----------------------


def _demo_benchmark() -> Any:
    import importlib.util

    path = ROOT / "benchmarks" / "demo_start.py"
    spec = importlib.util.spec_from_file_location("demo_start", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_demo_benchmark_times_the_first_run_from_nothing(tmp_path: Path) -> None:
    bench = _demo_benchmark()
    env = bench.environment(tmp_path / "cache", tmp_path / "own", None)
    # No DynamoDB Local of this machine's: the first run fetches it, as a newcomer's does.
    assert "DYNOTUI_DYNAMODB_LOCAL" not in env
    assert env["XDG_CACHE_HOME"] == str(tmp_path / "cache")
    reused = bench.environment(tmp_path / "cache", tmp_path / "own", tmp_path / "local")
    assert reused["DYNOTUI_DYNAMODB_LOCAL"] == str(tmp_path / "local")


def test_the_demo_benchmark_times_reseed_and_the_postgres_demo() -> None:
    steps = [command.split("dynotui demo")[1] for _, command in _demo_benchmark().plan(2, 2, True)]
    assert steps == ["", "", "", " --reseed", " --reseed", " --postgres"]


def test_the_getting_started_figures_say_their_load_and_cover_each_start() -> None:
    text = (ROOT / "docs" / "getting-started.md").read_text()
    section = text[text.index("## Run the demo") :]
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]
    kinds = ["fetched", "later runs", "--reseed", "--postgres"]
    assert [next(k for k in kinds if k in row) for row in rows] == kinds
    for row in rows:  # each figure beside the load it was measured under
        assert re.search(r"\| [\d.]+ to [\d.]+ \|$|\| [\d.]+ \|$", row), row
    assert "about a second" not in (ROOT / "docs" / "postgresql.md").read_text()


@pytest.mark.parametrize(
    "argv",
    [
        ["--table-name", "t", "--key-condition-expression", "pk = :p"],
        ["--key-condition-expression", "pk = :p", "--table-name", "t"],
        ["--limit", "5"],
    ],
)
def test_a_flag_the_app_does_not_take_is_named_not_its_value(argv: list[str]) -> None:
    # `pages`'s flags given to the app: argparse read the flag's value as the command and
    # said "invalid choice: 'pk = :p' (choose from 'demo', ...)".
    result = subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=60, env=ENV)
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    flag = next(a for a in argv if a not in ("--table-name",) and a.startswith("--"))
    assert line == f"dynotui: unrecognized arguments: {flag} (see --help)", line
