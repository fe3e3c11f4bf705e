"""Where cursor secrets come from: the environment, else a per-user file made once.

The file is created atomically (written under a temporary name with mode 0600, then
linked into place), so two first runs at once agree on one secret. It is read, and
its problems reported, only when a cursor is signed or verified.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path

from dynotui.core.bounded_file import Unreadable, read_bounded
from dynotui.core.config import config_dir as default_config_dir
from dynotui.core.config import in_the_way, not_a_folder
from dynotui.core.cursor import DEFAULT_MAX_AGE, CursorSigner
from dynotui.core.errors import InputError

ENV_SECRET = "DYNOTUI_CURSOR_SECRET"
ENV_PREVIOUS = "DYNOTUI_CURSOR_SECRET_PREVIOUS"
FILE_NAME = "cursor-secret"
MIN_LENGTH = 16
MAX_FILE_BYTES = 4096  # the secret dynotui writes is 65 bytes
_ELSEWHERE = f"point XDG_CONFIG_HOME elsewhere, or set {ENV_SECRET}"


def secret_file(config_dir: Path | None = None) -> Path:
    return (config_dir or default_config_dir()) / FILE_NAME


def _create(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    except (FileExistsError, NotADirectoryError):
        raise not_a_folder(path, "the cursor secret file", _ELSEWHERE) from None
    except PermissionError:
        raise _problem(path, "cannot be made", "check the permissions of its folder") from None
    temporary = path.with_name(f".{FILE_NAME}.{os.getpid()}.{secrets.token_hex(6)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
            out.flush()
            os.fsync(out.fileno())
        # link() never replaces: the first of several racing runs wins, the rest read its file.
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def _problem(path: Path, what: str, fix: str) -> InputError:
    return InputError(f"the cursor secret file {path} {what}: {fix}, or set {ENV_SECRET}")


def _read(path: Path) -> bytes:
    remove = "delete it and dynotui makes a new one (tokens signed with it stop verifying)"
    try:
        # Not through a link, the user's own and no one else's, never a FIFO or a device.
        data = read_bounded(path, MAX_FILE_BYTES, follow_links=False, private=True)
    except Unreadable as exc:
        if exc.kind == "not_folder":
            raise not_a_folder(path, "the cursor secret file", _ELSEWHERE) from None
        if exc.kind == "permission":
            raise _problem(path, "cannot be read", "check that it is yours and readable") from None
        if exc.kind == "others":
            raise _problem(path, exc.problem, f"run 'chmod 600 {path}'") from None
        if exc.kind == "directory":
            raise _problem(path, "is a directory", f"remove it ({remove})") from None
        raise _problem(path, exc.problem, remove) from None
    try:
        text = data.decode("ascii").strip()
    except UnicodeDecodeError:
        raise _problem(path, "holds binary data", remove) from None
    if not text:
        raise _problem(path, "is empty", remove)
    if not text.isprintable() or len(text) < MIN_LENGTH:
        raise _problem(
            path, f"holds {len(text)} characters, fewer than {MIN_LENGTH} printable", remove
        )
    return text.encode()


def _env_secret(env: Mapping[str, str], name: str) -> bytes | None:
    value = env.get(name)
    if not value:
        return None
    if len(value.encode()) < MIN_LENGTH:
        raise InputError(f"{name} must be at least {MIN_LENGTH} characters long")
    return value.encode()


def load_secrets(
    env: Mapping[str, str] | None = None, config_dir: Path | None = None
) -> tuple[bytes, bytes | None]:
    """(current, previous): from DYNOTUI_CURSOR_SECRET[_PREVIOUS], else the user's file."""
    env = os.environ if env is None else env
    previous = _env_secret(env, ENV_PREVIOUS)
    current = _env_secret(env, ENV_SECRET)
    if current is not None:
        return current, previous
    path = secret_file(config_dir)
    if not os.path.lexists(path) and in_the_way(path) is None:
        _create(path)
    return _read(path), previous


def default_signer(
    max_age: float = DEFAULT_MAX_AGE,
    env: Mapping[str, str] | None = None,
    config_dir: Path | None = None,
) -> CursorSigner:
    current, previous = load_secrets(env, config_dir)
    return CursorSigner(current, previous, max_age=max_age)


def lazy_signer(max_age: float = DEFAULT_MAX_AGE) -> Callable[[], CursorSigner]:
    """The signer, made on first use: runs that sign nothing never read the secret."""
    return functools.cache(lambda: default_signer(max_age))
