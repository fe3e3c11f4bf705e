"""One setting remembered in the user's settings file (the app's theme, say).

The file is the user's own, written by hand: its comments, blank lines, order, spelling and
every other setting stay as they were. tomlkit edits it (a TOML library that keeps all of
that by design): the key's value is replaced where it stands (in a ``[table]``, a dotted key
or an inline table), or the key is added at the end of its table, or the table at the end
of the file. The new text is read back with the reader used at start: it must hold the old
settings with that one value changed, or nothing is written. It replaces the file in one
rename, so no reader sees half of it.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Table

from dynotui.core import config
from dynotui.core.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def with_value(text: str, table: str, key: str, value: str) -> str:
    """``text`` with ``key = "value"`` in ``table``: its value replaced, else the key added
    at the table's end (the table at the file's end). InputError when ``table`` is not a
    table there (an array of tables, a value) or the text is not TOML."""
    if text and not text.endswith("\n"):
        text += "\n"  # a table added after the last line starts on a line of its own
    try:
        document = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise InputError(f"the settings file is not TOML: {exc}") from None
    found = document.get(table)
    if found is None:
        document[table] = {key: value}
    elif not isinstance(found, MutableMapping):
        raise InputError(f"[{table}] in the settings file must be a table")
    elif key not in found and isinstance(found, Table):
        _add_after_last_key(found, key, value)
    else:
        found[key] = value
    return tomlkit.dumps(document)


def _add_after_last_key(table: Table, key: str, value: str) -> None:
    """``key`` on the line after the table's last key: the comments and blank lines that
    end a table in the text are read as the next table's (tomlkit would add after them)."""
    body = table.value.body
    keys = [i for i, (k, v) in enumerate(body) if k is not None and not isinstance(v, Table | AoT)]
    if keys and keys[-1] + 1 < len(body):
        table.value._insert_at(keys[-1] + 1, key, value)  # tomlkit's only insert at a place
    else:
        table[key] = value  # nothing after the last key: at the end is after it


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
    try:
        new_text = with_value(text, table, key, value)
        written = tomllib.loads(new_text)
    except (InputError, tomllib.TOMLDecodeError):
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
