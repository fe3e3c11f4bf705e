"""The user's settings: ``config.toml`` in dynotui's config folder.

Absent is normal (every setting has a default). A file that is there but cannot be read
or parsed is reported with its path and what to do, rather than silently ignored, since
a price or a privacy switch the user believes is in force must be in force. Each feature
reads its own table of the file (``[pricing]``, ``[history]``) and checks its own keys.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import platformdirs

from dynotui.core.bounded_file import Unreadable, read_bounded, shown_path
from dynotui.core.errors import InputError
from dynotui.core.json_input import depth

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FILE_NAME = "config.toml"
ENV_CONFIG = "DYNOTUI_CONFIG"
MAX_BYTES = 2**20  # a settings file is a few lines: a megabyte is a stray file
# Tables and arrays nest a level or two in any setting; deeper is not a settings file
# (and tomllib recurses per level: a few hundred reach Python's recursion limit).
MAX_DEPTH = 32


def config_dir() -> Path:
    """dynotui's config folder (``$XDG_CONFIG_HOME/dynotui`` on Linux)."""
    return Path(platformdirs.user_config_dir("dynotui"))


def in_the_way(path: Path) -> Path | None:
    """The nearest existing ancestor of ``path`` that is not a folder (so nothing can be
    made under it), or None."""
    for parent in path.parents:
        if parent.exists() or parent.is_symlink():
            return None if parent.is_dir() else parent
    return None


def not_a_folder(path: Path, what: str, fix: str) -> InputError:
    """The error for ``path`` (``what`` says what it is) whose folder cannot exist."""
    blocker = in_the_way(path)
    because = f"{blocker} is a file, not a folder" if blocker else "its folder path holds a file"
    home = os.environ.get("XDG_CONFIG_HOME")
    if home and path.is_relative_to(home):
        because += f" (XDG_CONFIG_HOME is {home})"
    return InputError(f"{what} {path} cannot exist: {because}; {fix}")


def config_path() -> Path:
    """The settings file: ``$DYNOTUI_CONFIG`` when set, else ``config.toml`` in the folder."""
    named = os.environ.get(ENV_CONFIG)
    return Path(named) if named else config_dir() / FILE_NAME


def read_text(path: Path) -> str | None:
    """The settings file's text (None when there is none), read as every file is
    (core/bounded_file.py): a regular file of at most MAX_BYTES, the user's own or
    root's, never a FIFO or a device; any other is refused in one line."""
    try:
        data = read_bounded(path, MAX_BYTES)
    except Unreadable as exc:
        if exc.kind == "missing":
            return None
        if exc.kind == "not_folder":
            raise not_a_folder(
                path, "the settings file", f"point XDG_CONFIG_HOME (or {ENV_CONFIG}) elsewhere"
            ) from None
        named = os.environ.get(ENV_CONFIG)
        elsewhere = (
            f"point {ENV_CONFIG} at a settings file"
            if named and Path(named) == path
            else "remove it, or replace it with a settings file"
        )
        fix = {
            "permission": "check its permissions",
            "others": f"run 'chmod o-w {shown_path(path)}'",
            "path": f"set {ENV_CONFIG} to a shorter path",
        }.get(exc.kind, elsewhere)
        raise InputError(f"the settings file {shown_path(path)} {exc.problem}: {fix}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"the settings file {shown_path(path)} is not UTF-8 text") from None


def load(path: Path | None = None) -> Mapping[str, Any]:
    """The parsed settings file, or an empty mapping when there is none."""
    path = path or config_path()
    text = read_text(path)
    if text is None:
        return {}
    too_deep = InputError(
        f"the settings file {shown_path(path)} nests tables or arrays more than {MAX_DEPTH} "
        "levels deep: not a settings file"
    )
    try:
        settings: dict[str, Any] = tomllib.loads(text)
    except RecursionError:
        raise too_deep from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"the settings file {shown_path(path)} is not valid TOML: {exc}") from None
    if depth(settings) > MAX_DEPTH:
        raise too_deep
    return settings


def table(name: str, settings: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """One ``[name]`` table of the settings (empty when absent); refused if not a table."""
    settings = load() if settings is None else settings
    value = settings.get(name, {})
    if not isinstance(value, Mapping):
        raise InputError(f"[{name}] in the settings file {config_path()} must be a table")
    return value
