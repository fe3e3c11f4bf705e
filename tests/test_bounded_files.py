"""Files dynotui reads are bounded in size, depth and type (issue 40, items 16 and 18):
the settings file named by DYNOTUI_CONFIG as /dev/zero, a FIFO, a link loop, a path of
5,000 characters, a huge or deeply nested file, one another user owns or anyone may
write; the cursor secret and the history as FIFOs. Each is refused in one line (exit 2
on the command line), at once, never read without end, never a hang."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dynotui.core import config
from dynotui.core.bounded_file import MAX_SHOWN_PATH, Unreadable, read_bounded
from dynotui.core.cursor_secret import load_secrets, secret_file
from dynotui.core.errors import InputError
from dynotui.core.history import HistoryError, HistoryStore

CLI = [sys.executable, "-m", "dynotui"]
# A command that reads the settings ([pricing]) before it makes any call.
PAGES = [*CLI, "pages", "--table-name", "t", "--scan", "--endpoint-url", "http://127.0.0.1:9"]
OTHER_UID = 54321


def settings_file(tmp_path: Path, kind: str) -> str:
    path = tmp_path / "config.toml"
    if kind == "dev-zero":
        return "/dev/zero"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-loop":
        path.symlink_to(path)
    elif kind == "long-name":
        return str(tmp_path / ("a" * 5000))
    elif kind == "huge":
        path.write_bytes(b"# " + b"x" * (config.MAX_BYTES + 10))
    elif kind == "nested-arrays":
        path.write_text("a = " + "[" * 2000 + "]" * 2000 + "\n")
    elif kind == "nested-tables":
        path.write_text("a = " + "{b = " * 600 + "1" + "}" * 600 + "\n")
    elif kind == "nested-a-little-too-deep":  # well inside tomllib's recursion limit
        path.write_text("a = " + "[" * (config.MAX_DEPTH + 1) + "]" * (config.MAX_DEPTH + 1))
    elif kind == "anyone-writes":
        path.write_text('[pricing]\nregion = "eu-west-1"\n')
        path.chmod(0o666)
    elif kind == "another-owner":
        path.write_text('[pricing]\nregion = "eu-west-1"\n')
        os.chown(path, OTHER_UID, OTHER_UID)
    elif kind == "directory":
        path.mkdir()
    return str(path)


KINDS = {
    "dev-zero": "is not a regular file (a character device)",
    "fifo": "is not a regular file (a FIFO)",
    "link-loop": "is a loop of symbolic links",
    "long-name": "is a longer path than this system takes",
    "huge": "more than the 1.0 MiB it may be",
    "nested-arrays": f"more than {config.MAX_DEPTH} levels deep",
    "nested-tables": f"more than {config.MAX_DEPTH} levels deep",
    "nested-a-little-too-deep": f"more than {config.MAX_DEPTH} levels deep",
    "anyone-writes": "can be written by anyone (mode 0666)",
    "another-owner": f"belongs to another user (uid {OTHER_UID})",
    "directory": "is a directory: point DYNOTUI_CONFIG at a settings file",
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_settings_file_that_is_not_one_is_one_line(tmp_path: Path, kind: str) -> None:
    if kind == "another-owner" and os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")
    env = {**os.environ, config.ENV_CONFIG: settings_file(tmp_path, kind)}
    env.pop("XDG_CONFIG_HOME", None)
    # A FIFO or /dev/zero read without bounds never ends: the timeout is the failure.
    result = subprocess.run(PAGES, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and KINDS[kind] in result.stderr, result.stderr
    assert "unexpected" not in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr) < 2 * MAX_SHOWN_PATH + 300, "a long path is shown cut"


def test_a_link_to_a_settings_file_is_followed(tmp_path: Path) -> None:
    """Settings kept elsewhere (a dotfiles folder) and linked into place still count."""
    kept = tmp_path / "dotfiles" / "dynotui.toml"
    kept.parent.mkdir()
    kept.write_text('[pricing]\nregion = "eu-west-1"\n')
    link = tmp_path / "config.toml"
    link.symlink_to(kept)
    assert config.table("pricing", config.load(link)) == {"region": "eu-west-1"}


def test_the_reader_stops_at_its_cap_and_says_each_kind(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 100)
    assert read_bounded(path, 100) == b"x" * 100
    with pytest.raises(Unreadable, match="100 bytes, more than the 99 bytes") as info:
        read_bounded(path, 99)
    assert info.value.kind == "too_large"
    link = tmp_path / "link"
    link.symlink_to(path)
    assert read_bounded(link, 100) == b"x" * 100
    with pytest.raises(Unreadable, match="symbolic link, which dynotui does not follow"):
        read_bounded(link, 100, follow_links=False)
    path.chmod(0o640)
    with pytest.raises(Unreadable, match=r"read or written by others \(mode 0640\)"):
        read_bounded(path, 100, private=True)
    with pytest.raises(Unreadable, match="does not exist") as info:
        read_bounded(tmp_path / "none", 100)
    assert info.value.kind == "missing"


def test_a_fifo_in_place_of_the_cursor_secret_or_the_history(tmp_path: Path) -> None:
    """Refused by type, through the one reader (opened without waiting for a writer)."""
    os.mkfifo(secret_file(tmp_path), 0o600)
    with pytest.raises(InputError, match=r"is not a regular file \(a FIFO\)"):
        load_secrets({}, tmp_path)
    history = HistoryStore(tmp_path / "data" / "history.json")
    history.path.parent.mkdir(mode=0o700)
    os.mkfifo(history.path, 0o600)
    with pytest.raises(HistoryError, match=r"is not a regular file \(a FIFO\)"):
        history.entries()
