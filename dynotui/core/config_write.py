"""One setting remembered in the user's settings file (the app's theme, say).

The file is the user's own, written by hand: its comments, its order and every other
setting stay as they were. Only the key's own line is written (or a new line under its
table, or the table at the end), and the new text is read back with the reader used at
start: it must hold the old settings with that one value changed, or nothing is written
(a multi-line value, a table written as dotted keys or inline). The new text replaces the
file in one rename, so no reader sees half of it.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dynotui.core import config
from dynotui.core.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _header(line: str) -> str | None:
    """The table a ``[name]`` line opens (None for any other line)."""
    found = re.fullmatch(r"\s*\[\s*([A-Za-z0-9_-]+)\s*\]\s*(#.*)?", line)
    return found.group(1) if found else None


def with_value(text: str, table: str, key: str, value: str) -> str:
    """``text`` with ``key = "value"`` in ``[table]``: its line replaced, else added."""
    line = f"{key} = {json.dumps(value)}"
    lines = text.splitlines()
    start = next((i for i, each in enumerate(lines) if _header(each) == table), None)
    if start is None:
        ending = "" if not text or text.endswith("\n") else "\n"
        gap = "\n" if text.strip() else ""
        return f"{text}{ending}{gap}[{table}]\n{line}\n"
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")),
        len(lines),
    )
    mine = re.compile(rf"\s*{re.escape(key)}\s*=")
    at = next((i for i in range(start + 1, end) if mine.match(lines[i])), None)
    if at is None:
        lines.insert(start + 1, line)
    else:
        lines[at] = line
    return "\n".join(lines) + "\n"


def _expected(old: Mapping[str, Any], table: str, key: str, value: str) -> dict[str, Any]:
    new = dict(old)
    new[table] = {**dict(old.get(table, {})), key: value}
    return new


def remember(table: str, key: str, value: str, path: Path | None = None) -> Path:
    """Set ``[table] key = "value"`` in the settings file; its path is returned. Refused
    (InputError, nothing written) when the file cannot be read or the one line cannot
    say it."""
    if not (_BARE.fullmatch(table) and _BARE.fullmatch(key)):
        raise InputError(f"not a setting's name: [{table}] {key}")
    path = (path or config.config_path()).resolve()  # a link's target is the file kept
    old = config.load(path)
    current = old.get(table, {})
    if not isinstance(current, Mapping):
        raise InputError(f"[{table}] in the settings file {path} must be a table")
    text = config.read_text(path) or ""
    new_text = with_value(text, table, key, value)
    try:
        written = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError:
        written = None
    if written != _expected(old, table, key, value):
        raise InputError(
            f"cannot set {key} in [{table}] of the settings file {path} without rewriting "
            f"more of it: set {key} = {json.dumps(value)} under [{table}] there yourself"
        )
    write_atomically(path, new_text)
    return path


def write_atomically(path: Path, text: str) -> None:
    """The file's new text in one rename; its mode kept (0600 for a new file)."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = 0o600
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError as exc:
        raise InputError(f"cannot write the settings file {path}: {exc.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write the settings file {path}: {exc.strerror}") from None
        raise
