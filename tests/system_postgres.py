"""Debian's own PostgreSQL server (the ``postgresql`` package), started as a throwaway
cluster in a temporary folder: the embedded build has no ICU and only C locales, so
collations that sort differently can only be tested here.

``SystemPostgres.find()`` says why not where the binaries are missing; ``.ci/run``
installs the package when they are.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType


def _version(bindir: Path) -> int:
    out = subprocess.run(
        [str(bindir / "postgres"), "--version"], capture_output=True, text=True, check=True
    ).stdout
    match = re.search(r"(\d+)", out)
    return int(match.group(1)) if match else 0


def find_bindir() -> tuple[Path | None, str]:
    """The newest installed server's bin folder, or None and why."""
    candidates = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    config = shutil.which("pg_config")
    if config:
        out = subprocess.run([config, "--bindir"], capture_output=True, text=True).stdout
        if out.strip() and (Path(out.strip()) / "initdb").exists():
            candidates.append(Path(out.strip()))
    usable = [c for c in candidates if (c / "postgres").exists() and (c / "pg_ctl").exists()]
    if not usable:
        return None, (
            "Debian's postgresql server (initdb, postgres) is not installed; .ci/run "
            "installs it (apt-get install postgresql)"
        )
    best = max(usable, key=_version)
    if _version(best) < 15:
        return None, f"the installed PostgreSQL {_version(best)} cannot initdb with ICU (15+)"
    return best, ""


class SystemPostgres:
    """``with SystemPostgres(bindir) as server: server.uri`` — an ICU cluster whose default
    collation is ICU's "en" (so "a" < "B" < "b"), deleted afterwards."""

    def __init__(self, bindir: Path, *, tcp: bool = False) -> None:
        """``tcp``: listen on 127.0.0.1 too, where a password is required (scram): what
        lets an ordinary role's dblink connect back (a socket stays trusted)."""
        self.bindir = bindir
        self.tcp = tcp
        self.folder = Path(tempfile.mkdtemp(prefix="dynotui-syspg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.uri = f"host={self.folder} port={self.port} user=postgres dbname=postgres"
        self._user: str | None = None
        if os.geteuid() == 0:
            # initdb refuses to run as root: the package's own system user runs it.
            self._user = "postgres"
            pwd.getpwnam(self._user)
            os.chown(self.folder, pwd.getpwnam(self._user).pw_uid, -1)
        self.folder.chmod(0o755)

    def _run(self, *args: str) -> None:
        subprocess.run(
            [*args],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
            user=self._user,
            cwd=self.folder,
        )

    def __enter__(self) -> SystemPostgres:
        try:
            self._run(
                str(self.bindir / "initdb"),
                "-D", str(self.data),
                "--auth-local=trust",
                f"--auth-host={'scram-sha-256' if self.tcp else 'trust'}",
                "-U", "postgres", "-E", "UTF8",
                "--locale-provider=icu", "--icu-locale=en", "--locale=C.UTF-8",
            )  # fmt: skip
            self._run(
                str(self.bindir / "pg_ctl"),
                "-D", str(self.data),
                "-l", str(self.folder / "log"),
                "-o",
                f"-k {self.folder} -c listen_addresses='{'127.0.0.1' if self.tcp else ''}'"
                f" -p {self.port}",
                "-w", "start",
            )  # fmt: skip
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(subprocess.SubprocessError):  # already gone
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)


def _free_port() -> int:
    # The socket file's name carries the port: any port no local server uses will do.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
