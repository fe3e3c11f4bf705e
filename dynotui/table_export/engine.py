"""DuckDB, set up to read a table export and nothing else: no extension fetched at run
time, S3 through the httpfs extension shipped as a Python package, credentials from the
chain boto3 uses, handed over as a secret.

DuckDB would install and load extensions from the network on first use; here both are
off, and httpfs is loaded from the ``duckdb-ext-httpfs`` package's own folder (its
version is pinned to DuckDB's). JSON is built into DuckDB's Python package. Spill files
go to a private temporary folder, not the current directory.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import shutil
import stat
import tempfile
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from dynotui.core.errors import InputError, ServiceError

# Order-preserving text for a DynamoDB number (N): exact, 38 significant digits, any
# exponent DynamoDB allows, never a double. 0.DIGITS x 10^E becomes: a sign class ('0'
# negative, '1' zero, '2' positive), E biased to four digits (complemented for
# negatives), the digits padded to 40 (nines' complement for negatives). Equal numbers
# have equal keys ("1.0" and "1E0"); text that is no number has none (NULL).
# Each part is computed once per value (a lambda binds it; a macro's argument used twice
# is computed twice), and a plain integer, the usual key, takes a path with no regexp
# extraction: a full read of 300,000 number keys went from 0.83 to 0.14 CPU-s.
NUMBER_KEY_MACRO = r"""
CREATE OR REPLACE TEMP MACRO dyn_nkey_z(negative, d, e) AS (
    CASE
        WHEN d = '' THEN '1'
        WHEN length(d) > 38 OR e NOT BETWEEN -3999 AND 3999 THEN NULL
        WHEN negative THEN '0' || CAST(4999 - e AS VARCHAR)
            || translate(rpad(d, 40, '0'), '0123456789', '9876543210')
        ELSE '2' || CAST(5000 + e AS VARCHAR) || rpad(d, 40, '0')
    END
);
CREATE OR REPLACE TEMP MACRO dyn_nkey_p(negative, whole, digits, e) AS (
    list_transform([ltrim(digits, '0')], lead -> dyn_nkey_z(
        negative, rtrim(lead, '0'), length(whole) + e - (length(digits) - length(lead))))[1]
);
CREATE OR REPLACE TEMP MACRO dyn_nkey_any(t) AS (
    list_transform(
        [regexp_extract(
            t, '^([+-]?)([0-9]*)(?:[.]([0-9]*))?(?:[eE]([+-]?[0-9]{1,6}))?$',
            ['sign', 'whole', 'part', 'e'])],
        m -> CASE WHEN m.whole <> '' OR m.part <> '' THEN dyn_nkey_p(
            m.sign = '-', m.whole, m.whole || m.part,
            coalesce(TRY_CAST(nullif(m.e, '') AS INTEGER), 0)) END)[1]
);
CREATE OR REPLACE TEMP MACRO dyn_nkey(t) AS (
    CASE
        WHEN regexp_full_match(t, '[1-9][0-9]{0,37}')
            THEN '2' || CAST(5000 + length(t) AS VARCHAR) || rpad(t, 40, '0')
        ELSE dyn_nkey_any(t)
    END
);
"""

MEMORY_LIMIT = "2GB"
SETTINGS: Mapping[str, Any] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "default_collation": "",  # strings compare by their UTF-8 bytes, as DynamoDB's do
    # DuckDB's default is 80% of the machine's memory: what an export holds beyond this
    # spills to the private temporary folder instead (a hostile line is refused long
    # before: reading.MAX_LINE_BYTES).
    "memory_limit": MEMORY_LIMIT,
}


def extension_directory() -> str | None:
    """Where the ``duckdb-ext-*`` packages put their extension files (None: not installed)."""
    found = importlib.util.find_spec("duckdb_ext")
    paths = list(found.submodule_search_locations or []) if found is not None else []
    return os.path.join(paths[0], "extensions") if paths else None


@dataclass(frozen=True)
class S3Access:
    """How DuckDB reaches S3: the endpoint and credentials boto3 would use."""

    region: str
    key_id: str | None
    secret: str | None
    session_token: str | None
    endpoint: str | None  # host[:port], no scheme (None: AWS's own)
    use_ssl: bool

    def secret_parameters(self) -> dict[str, Any]:
        found: dict[str, Any] = {"region": self.region, "use_ssl": self.use_ssl}
        if self.key_id is not None:
            found.update(key_id=self.key_id, secret=self.secret or "")
        if self.session_token:
            found["session_token"] = self.session_token
        if self.endpoint:
            found.update(endpoint=self.endpoint, url_style="path")
        return found


def s3_endpoint(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    return env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL") or None


def resolve_s3_access(
    profile: str | None = None, region: str | None = None, env: Mapping[str, str] | None = None
) -> S3Access:
    """The endpoint from AWS_ENDPOINT_URL_S3 (else AWS_ENDPOINT_URL), credentials and
    region from botocore's own chain (profile, variables, SSO, process, metadata)."""
    import botocore.session
    from botocore.exceptions import BotoCoreError

    endpoint_url = s3_endpoint(env)
    endpoint, use_ssl = None, True
    if endpoint_url:
        parsed = urlparse(endpoint_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise InputError(
                f"the S3 endpoint {endpoint_url!r} is not a URL: give one like "
                "http://127.0.0.1:5000"
            )
        endpoint = parsed.netloc
        use_ssl = parsed.scheme == "https"
    try:
        session = botocore.session.Session(profile=profile)
        credentials = session.get_credentials()
        frozen = credentials.get_frozen_credentials() if credentials is not None else None
        found_region = region or session.get_config_variable("region") or "us-east-1"
    except BotoCoreError as exc:
        raise ServiceError(f"cannot resolve AWS credentials for S3: {exc}") from exc
    return S3Access(
        region=found_region,
        key_id=frozen.access_key if frozen else None,
        secret=frozen.secret_key if frozen else None,
        session_token=frozen.token if frozen else None,
        endpoint=endpoint,
        use_ssl=use_ssl,
    )


SPILL_PREFIX = "dynotui-duckdb-"
LOCK_NAME = ".dynotui-engine.lock"  # held (flock) by the engine using the folder
# A folder whose lock nobody holds may be one just made, not yet locked: it must be this
# old to be stale. One of an older dynotui (no lock file) must be empty, and this old.
UNLOCKED_STALE_SECONDS = 60
LEGACY_STALE_SECONDS = 3600


def _held(lock: str) -> bool:
    """Whether some process holds ``lock`` (an engine using its folder)."""
    try:
        descriptor = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(descriptor)  # releases the lock taken to test it
    return False


def clean_stale_folders(folder: str | None = None, now: float | None = None) -> list[str]:
    """Remove the spill folders engines left in the temporary folder ``folder`` when their
    process ended before closing them (a kill, a crash): the user's own, whose lock no
    engine holds (an older dynotui's: empty and an hour old). Returns what was removed."""
    folder = folder or tempfile.gettempdir()
    now = time.time() if now is None else now
    removed = []
    try:
        names = [n for n in os.listdir(folder) if n.startswith(SPILL_PREFIX)]
    except OSError:
        return []
    for name in names:
        path = os.path.join(folder, name)
        try:
            info = os.lstat(path)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                continue
            age = now - info.st_mtime
            lock = os.path.join(path, LOCK_NAME)
            if os.path.lexists(lock):
                stale = age > UNLOCKED_STALE_SECONDS and not _held(lock)
            else:
                stale = age > LEGACY_STALE_SECONDS and not os.listdir(path)
        except OSError:
            continue
        if stale:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _remove_spill(path: str, lock: int) -> None:
    shutil.rmtree(path, ignore_errors=True)
    os.close(lock)


class Engine:
    """One DuckDB connection, in memory, with the number-key macros; S3 on demand.

    Its spill folder (``dynotui-duckdb-*`` in the temporary folder) goes when it closes,
    is collected, or the process exits; it holds a lock on a file there all along, so a
    folder whose process died without any of these is known stale, and removed by the
    next engine made."""

    def __init__(self, threads: int | None = None) -> None:
        import duckdb

        clean_stale_folders()
        self._spill = tempfile.mkdtemp(prefix=SPILL_PREFIX)
        lock = os.open(
            os.path.join(self._spill, LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600
        )
        fcntl.flock(lock, fcntl.LOCK_EX)
        # Whatever ends the engine removes the folder: close(), collection, the exit.
        self._remove_spill = weakref.finalize(self, _remove_spill, self._spill, lock)
        config: dict[str, Any] = {**SETTINGS, "temp_directory": self._spill}
        directory = extension_directory()
        if directory is not None:
            config["extension_directory"] = directory
        if threads is not None:
            config["threads"] = threads
        try:
            self.connection = duckdb.connect(config=config)
            self.connection.execute(NUMBER_KEY_MACRO)
        except BaseException:
            self._remove_spill()
            raise
        self._s3 = False

    def use_s3(self, access: S3Access) -> None:
        if self._s3:
            return
        try:
            self.connection.execute("LOAD httpfs")
        except Exception as exc:
            raise InputError(
                "reading an export on S3 needs DuckDB's httpfs extension from the "
                "duckdb-ext-httpfs package, at DuckDB's own version: reinstall dynotui "
                f"({type(exc).__name__}: {exc})"
            ) from None
        parameters = access.secret_parameters()
        names = ", ".join(f"{name} ${name}" for name in parameters)
        self.connection.execute(
            f"CREATE OR REPLACE SECRET dynotui_s3 (TYPE s3, {names})", parameters
        )
        self._s3 = True

    def execute(self, sql: str, parameters: Any = None) -> Any:
        return self.connection.execute(sql, parameters)

    def close(self) -> None:
        self.connection.close()
        self._remove_spill()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
