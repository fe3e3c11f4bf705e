"""Every file dynotui reads, read one way: a regular file, of bounded size, its owner's.

A path a user or a setting names may be anything: ``/dev/zero`` (endless), a FIFO (an
open that waits forever for a writer), a symbolic link loop, a path longer than the
system takes, a file another user can change, or a huge file. Each is refused here by
name, before any byte is read, and nothing reads past ``max_bytes`` (a file that grows
while it is read included). The file is opened first and checked through its open
descriptor (``fstat``), so nothing can swap it between the check and the read; the open
never blocks (``O_NONBLOCK``: a FIFO opens at once and is then refused as not a file).

Callers word the refusal: ``Unreadable.problem`` is a phrase that follows the file's
name ("is not a regular file (a FIFO)"), ``kind`` says which check it failed.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NO_BLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOSE_ON_EXEC = getattr(os, "O_CLOEXEC", 0)
_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
}


class Unreadable(Exception):
    """Why a file is not read. ``kind``: missing, not_folder, directory, not_regular,
    link, too_large, permission, owner, others, path, error."""

    def __init__(self, kind: str, problem: str) -> None:
        super().__init__(problem)
        self.kind = kind
        self.problem = problem


MAX_SHOWN_PATH = 160  # characters of a path a one-line message shows


def shown_path(path: Path | str) -> str:
    """A path as a one-line message names it: a very long one cut in its middle, with its
    length said (a 5,000-character path would be the whole message)."""
    text = str(path)
    if len(text) <= MAX_SHOWN_PATH:
        return text
    half = MAX_SHOWN_PATH // 2
    return f"{text[:half]}…{text[-half:]} ({len(text):,} characters)"


def _size(count: int) -> str:
    if count >= 2**20:
        return f"{count / 2**20:,.1f} MiB"
    if count >= 2**10:
        return f"{count / 2**10:,.1f} KiB"
    return f"{count:,} bytes"


def _open(path: Path, follow_links: bool) -> int:
    flags = os.O_RDONLY | _NO_BLOCK | _CLOSE_ON_EXEC | (0 if follow_links else _NO_FOLLOW)
    try:
        return os.open(path, flags)
    except FileNotFoundError:
        raise Unreadable("missing", "does not exist") from None
    except NotADirectoryError:
        raise Unreadable("not_folder", "cannot exist: its folder path holds a file") from None
    except PermissionError:
        raise Unreadable("permission", "cannot be read (permission denied)") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            if follow_links:
                raise Unreadable("link", "is a loop of symbolic links") from None
            raise Unreadable("link", "is a symbolic link, which dynotui does not follow") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise Unreadable("path", "is a longer path than this system takes") from None
        if exc.errno == errno.EISDIR:
            raise Unreadable("directory", "is a directory") from None
        raise Unreadable("error", f"cannot be opened ({exc.strerror or exc})") from None


def _check(info: os.stat_result, max_bytes: int, private: bool) -> None:
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise Unreadable("directory", "is a directory")
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a file")
        raise Unreadable("not_regular", f"is not a regular file ({kind})")
    if hasattr(os, "getuid"):  # Windows has no owners in this sense
        allowed = {os.getuid()} if private else {os.getuid(), 0}
        if info.st_uid not in allowed:
            raise Unreadable("owner", f"belongs to another user (uid {info.st_uid})")
        if private and mode & 0o077:
            raise Unreadable(
                "others", f"can be read or written by others (mode {stat.S_IMODE(mode):04o})"
            )
        if mode & stat.S_IWOTH:
            raise Unreadable("others", f"can be written by anyone (mode {stat.S_IMODE(mode):04o})")
    if info.st_size > max_bytes:
        raise Unreadable(
            "too_large", f"is {_size(info.st_size)}, more than the {_size(max_bytes)} it may be"
        )


def open_checked(
    path: Path | str, max_bytes: int, *, follow_links: bool = True, private: bool = False
) -> BinaryIO:
    """The regular file at ``path`` open for reading, checked as ``read_bounded`` says
    (its size at most ``max_bytes`` when opened), or Unreadable: for a file read in
    parts (an export's data file, hashed as it streams)."""
    descriptor = _open(Path(path), follow_links)
    try:
        _check(os.fstat(descriptor), max_bytes, private)
    except BaseException:
        os.close(descriptor)
        raise
    return os.fdopen(descriptor, "rb")


def read_bounded(
    path: Path | str, max_bytes: int, *, follow_links: bool = True, private: bool = False
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` of them, or
    Unreadable. ``follow_links=False`` refuses a symbolic link at ``path``; ``private``
    asks for a file of the user's own that no one else may read or write (a secret, the
    history); otherwise the file must be the user's or root's, and not writable by all."""
    with open_checked(path, max_bytes, follow_links=follow_links, private=private) as file:
        try:
            data = file.read(max_bytes + 1)
        except OSError as exc:
            raise Unreadable("error", f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:  # it grew while it was read
        raise Unreadable("too_large", f"is more than the {_size(max_bytes)} it may be")
    return data
