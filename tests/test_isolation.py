"""A test run keeps out of the user's own config and data folders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs

from dynotui.core.config import config_dir, config_path
from dynotui.core.cursor_secret import secret_file

ROOT = Path(__file__).parent.parent
ISOLATED_ROOT = "DYNOTUI_TEST_ROOT"


def test_this_run_writes_only_into_its_own_folders() -> None:
    """Here and in subprocesses, dynotui's folders are the session's temporary ones; a
    command that signs a cursor makes its secret there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DYNOTUI_CURSOR_SECRET")}
    verify = ["cursor", "verify", "e30.AAAA", "--table-name", "t", "--scan"]
    result = subprocess.run(
        [sys.executable, "-m", "dynotui", *verify],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2, result.stderr  # the token is bad; the secret was read
    root = Path(os.environ.get(ISOLATED_ROOT, "/nonexistent"))
    assert config_dir().is_relative_to(root) and config_path().is_relative_to(root)
    assert Path(platformdirs.user_data_dir("dynotui")).is_relative_to(root)
    assert secret_file().is_file() and secret_file().is_relative_to(root)


def test_a_run_from_a_plain_shell_leaves_home_untouched(tmp_path: Path) -> None:
    """A run as a user starts it (a HOME of its own, no XDG variables set) writes nothing
    under that HOME: not ~/.config/dynotui, not ~/.local."""
    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("XDG_", "DYNOTUI_", "PYTEST_")) and k != "HOME"
    }
    # DynamoDB Local and the seeded database stay in the real cache: nothing is fetched.
    env.update(HOME=str(home), XDG_CACHE_HOME=str(Path(platformdirs.user_cache_dir()).parent))
    test = f"{Path(__file__).relative_to(ROOT)}::test_this_run_writes_only_into_its_own_folders"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", test],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "1 passed" in result.stdout
    assert not (home / ".config").exists() and not (home / ".local").exists(), sorted(
        str(p.relative_to(home)) for p in home.rglob("*")
    )
