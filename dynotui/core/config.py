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

from dynotui.core.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FILE_NAME = "config.toml"
ENV_CONFIG = "DYNOTUI_CONFIG"


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


def load(path: Path | None = None) -> Mapping[str, Any]:
    """The parsed settings file, or an empty mapping when there is none."""
    path = path or config_path()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except NotADirectoryError:
        raise not_a_folder(
            path, "the settings file", f"point XDG_CONFIG_HOME (or {ENV_CONFIG}) elsewhere"
        ) from None
    except IsADirectoryError:
        raise InputError(f"the settings file {path} is a directory: remove it") from None
    except PermissionError:
        raise InputError(
            f"the settings file {path} cannot be read: check its permissions"
        ) from None
    try:
        settings: dict[str, Any] = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"the settings file {path} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"the settings file {path} is not valid TOML: {exc}") from None
    return settings


def table(name: str, settings: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """One ``[name]`` table of the settings (empty when absent); refused if not a table."""
    settings = load() if settings is None else settings
    value = settings.get(name, {})
    if not isinstance(value, Mapping):
        raise InputError(f"[{name}] in the settings file {config_path()} must be a table")
    return value
