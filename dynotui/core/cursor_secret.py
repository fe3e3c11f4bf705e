"""Where cursor secrets come from: the environment, else a per-user file made once."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

import platformdirs

from dynotui.core.cursor import DEFAULT_MAX_AGE, CursorSigner
from dynotui.core.errors import InputError

ENV_SECRET = "DYNOTUI_CURSOR_SECRET"
ENV_PREVIOUS = "DYNOTUI_CURSOR_SECRET_PREVIOUS"
FILE_NAME = "cursor-secret"


def secret_file(config_dir: Path | None = None) -> Path:
    return (config_dir or Path(platformdirs.user_config_dir("dynotui"))) / FILE_NAME


def _file_secret(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # O_EXCL: two first runs at once must not each write a different secret.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
    return path.read_text().strip().encode()


def load_secrets(
    env: Mapping[str, str] | None = None, config_dir: Path | None = None
) -> tuple[bytes, bytes | None]:
    """(current, previous): from DYNOTUI_CURSOR_SECRET[_PREVIOUS], else the user's file."""
    env = os.environ if env is None else env
    current = env.get(ENV_SECRET)
    previous = env.get(ENV_PREVIOUS) or None
    if current:
        if len(current.encode()) < 16:
            raise InputError(f"{ENV_SECRET} must be at least 16 characters long")
        return current.encode(), previous.encode() if previous else None
    return _file_secret(secret_file(config_dir)), previous.encode() if previous else None


def default_signer(
    max_age: float = DEFAULT_MAX_AGE,
    env: Mapping[str, str] | None = None,
    config_dir: Path | None = None,
) -> CursorSigner:
    current, previous = load_secrets(env, config_dir)
    return CursorSigner(current, previous, max_age=max_age)
