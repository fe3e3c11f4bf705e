"""The settings file: absent is normal, broken is reported with its path."""

from __future__ import annotations

from pathlib import Path

import pytest

from dynotui.core import config
from dynotui.core.errors import InputError


def test_absent_file_is_empty_settings(tmp_path: Path) -> None:
    assert config.load(tmp_path / "none.toml") == {}
    assert config.table("pricing", {}) == {}


def test_tables_are_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[pricing]\nregion = "eu-west-1"\n[history]\nenabled = false\n')
    settings = config.load(path)
    assert config.table("pricing", settings) == {"region": "eu-west-1"}
    assert config.table("history", settings)["enabled"] is False


@pytest.mark.parametrize(
    ("content", "words"),
    [(b"[pricing\n", "not valid TOML"), (b"\xff\xfe", "not UTF-8"), (b"pricing = 3\n", None)],
)
def test_broken_files_name_themselves(tmp_path: Path, content: bytes, words: str | None) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(content)
    if words is None:  # parses, but the table is not a table
        with pytest.raises(InputError, match=r"\[pricing\] .* must be a table"):
            config.table("pricing", config.load(path))
        return
    with pytest.raises(InputError, match=words) as caught:
        config.load(path)
    assert str(path) in str(caught.value)


def test_config_home_that_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(not_a_dir))
    monkeypatch.delenv(config.ENV_CONFIG, raising=False)
    with pytest.raises(InputError, match="XDG_CONFIG_HOME") as caught:
        config.load()
    assert str(not_a_dir) in str(caught.value)


def test_directory_in_place_of_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        config.load(tmp_path)
