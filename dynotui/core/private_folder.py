"""Files in a folder of the user's own: refused when others could change them underneath.

A folder another user can write (group- or world-writable, or owned by someone else)
lets that user swap a file for a symbolic link between our check and our open, or plant
a file we then trust (a history entry pointing at their endpoint, say). So such a folder
is refused by name, and files that are created in it by name are opened with
``O_NOFOLLOW``: a symbolic link there is refused, and nothing is created at its target.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from dynotui.core.errors import InputError

_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)  # every POSIX system; Windows has no such links
_CLOSE_ON_EXEC = getattr(os, "O_CLOEXEC", 0)


class NotPrivateError(InputError):
    """A folder or file others could change; the message says which and what to do."""


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` (which exists) is not the user's own, or None when it is."""
    if not hasattr(os, "getuid"):
        return None  # Windows: its ACLs are not modes; nothing here reads them
    info = folder.stat()
    if info.st_uid != os.getuid():
        return f"belongs to another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"can be written by others (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def check_folder(folder: Path, what: str, fix: str) -> None:
    """Refuse ``folder`` if it exists and others can write it; ``what`` names its use
    ("dynotui's data folder"), ``fix`` the way around it besides chmod."""
    try:
        problem = folder_problem(folder)
    except FileNotFoundError:
        return
    except (PermissionError, NotADirectoryError):
        raise NotPrivateError(f"{what} {folder} cannot be reached; {fix}") from None
    if problem is not None:
        chmod = "" if "another user" in problem else f"run 'chmod 700 {folder}', or "
        raise NotPrivateError(f"{what} {folder} {problem}: {chmod}{fix}")


def open_no_follow(path: Path, what: str) -> int:
    """``os.open`` for reading and writing, created 0600 if missing; a symbolic link at
    ``path`` is refused (nothing is created where it points)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | _NO_FOLLOW | _CLOSE_ON_EXEC, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotPrivateError(
                f"{what} {path} is a symbolic link: dynotui does not follow it; delete it"
            ) from None
        raise
