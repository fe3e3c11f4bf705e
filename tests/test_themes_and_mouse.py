"""Textual's themes from the palette, the one chosen kept in config.toml for the next
start; ``--no-mouse`` leaves the mouse to the terminal."""

from __future__ import annotations

import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from terminal import on_the_demo_table
from textual.command import CommandList, CommandPalette
from uihelpers import make_app, messages, until

from dynotui.core.config_write import remember, with_value
from dynotui.core.errors import InputError
from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.ui.testing import settle

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MOUSE_ON = b"\x1b[?1000h"  # xterm's "report button presses": Textual's mouse tracking

USERS_OWN = """# my settings, by hand
[pricing]  # kept as written
read_per_million = 0.25

[ui]
# the look
theme = "textual-light"
"""


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config folder of this test's own, found the way a user's is (XDG_CONFIG_HOME)."""
    monkeypatch.delenv("DYNOTUI_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    return tmp_path / "dynotui" / "config.toml"


async def choose_theme(pilot: Any, name: str) -> None:
    """As a user does: ctrl+p, the Theme command, then the theme by name."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    commands = pilot.app.screen
    assert isinstance(commands, CommandPalette)
    await pilot.press(*"theme")
    await until(pilot, lambda: first_hit(commands).startswith("theme"))
    await pilot.press("enter")
    await until(pilot, lambda: pilot.app.screen is not commands)
    themes = pilot.app.screen
    assert isinstance(themes, CommandPalette)  # the themes' own palette
    await pilot.press(*name)
    await until(pilot, lambda: first_hit(themes).startswith(name))
    await pilot.press("enter")
    await pilot.pause()


def first_hit(palette: CommandPalette) -> str:
    """The palette's highlighted command as typed (searches run off the key presses)."""
    hits = palette.query_one(CommandList)
    if hits.highlighted is None:
        return ""
    return str(hits.get_option_at_index(hits.highlighted).prompt).strip().lower()


async def test_a_theme_chosen_is_kept_and_is_the_next_starts(
    memory_demo: MemoryDynamoDB, config_home: Path
) -> None:
    app = make_app(memory_demo)
    assert app.theme == "textual-dark"  # nothing configured: Textual's default
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        assert not config_home.exists()  # starting writes nothing
        await choose_theme(pilot, "nord")
        assert app.theme == "nord"
        assert any("Theme nord, kept" in m for m in messages(app))
    settings = tomllib.loads(config_home.read_text(encoding="utf-8"))
    assert settings == {"ui": {"theme": "nord"}}
    assert stat.S_IMODE(config_home.stat().st_mode) == 0o600
    again = make_app(memory_demo)
    assert again.theme == "nord"
    async with again.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        assert again.current_theme.name == "nord"
        # The theme it started in, chosen again, is no change: nothing is written.
        written = config_home.read_text(encoding="utf-8")
        config_home.chmod(0o400)  # a write would fail, and say so
        await choose_theme(pilot, "nord")
        assert again.theme == "nord"
        assert not any("Theme nord" in m for m in messages(again))
        assert config_home.read_text(encoding="utf-8") == written


async def test_the_users_own_file_keeps_all_but_the_theme(
    memory_demo: MemoryDynamoDB, config_home: Path
) -> None:
    config_home.parent.mkdir(parents=True)
    config_home.write_text(USERS_OWN, encoding="utf-8")
    config_home.chmod(0o640)
    app = make_app(memory_demo)
    assert app.theme == "textual-light"
    async with app.run_test(size=(120, 35)) as pilot:
        await settle(pilot)
        await choose_theme(pilot, "gruvbox")
        assert app.theme == "gruvbox"
    assert config_home.read_text(encoding="utf-8") == USERS_OWN.replace(
        'theme = "textual-light"', 'theme = "gruvbox"'
    )
    assert stat.S_IMODE(config_home.stat().st_mode) == 0o640
    assert [p.name for p in config_home.parent.iterdir()] == ["config.toml"]  # no temporary


def test_a_theme_textual_lacks_is_refused_by_name(
    memory_demo: MemoryDynamoDB, config_home: Path
) -> None:
    config_home.parent.mkdir(parents=True)
    config_home.write_text('[ui]\ntheme = "[b]no-such-theme"\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"theme = '\[b\]no-such-theme' in \[ui\].*nord"):
        make_app(memory_demo)


def test_the_one_value_is_set_where_it_belongs() -> None:
    assert with_value("", "ui", "theme", "nord") == '[ui]\ntheme = "nord"\n'
    assert with_value("[a]\nx = 1", "ui", "theme", "nord") == '[a]\nx = 1\n\n[ui]\ntheme = "nord"\n'
    # A key the table lacks goes at the table's end (before tomlkit, at its start).
    assert (
        with_value("[ui]\nother = 1\n[b]\ntheme = 2\n", "ui", "theme", "dracula")
        == '[ui]\nother = 1\ntheme = "dracula"\n[b]\ntheme = 2\n'
    )
    # The line keeps its indent, its quotes and its comment (before tomlkit, the comment
    # went with the old line).
    assert (
        with_value("[ui] # mine\n  theme='a'  # old\n", "ui", "theme", "b")
        == "[ui] # mine\n  theme='b'  # old\n"
    )


USERS_COMMENTED = """\
# dynotui's settings: mine, by hand.

history = true  # keep it

[pricing]
# eu-west-1, checked in March
read_per_million = 0.1425   # on-demand
region = "eu-west-1"

[ui]   # how it looks
# dark at night
theme = "nord"    # was dracula
other = 1

# PostgreSQL: trusted here
[postgres]
trust_database_code = false
"""


def test_a_users_comments_and_order_survive_a_write(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(USERS_COMMENTED, encoding="utf-8")
    remember("ui", "theme", "gruvbox", path)
    changed = USERS_COMMENTED.replace('theme = "nord"', 'theme = "gruvbox"')
    assert path.read_text(encoding="utf-8") == changed
    # A key [ui] lacks: one line added at the table's end, nothing else moved.
    remember("ui", "font", "mono", path)
    assert path.read_text(encoding="utf-8") == changed.replace(
        "other = 1\n", 'other = 1\nfont = "mono"\n'
    )


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ('ui.theme = "nord"  # dotted\n', 'ui.theme = "gruvbox"  # dotted\n'),
        ('ui = { theme = "nord" }  # inline\n', 'ui = { theme = "gruvbox" }  # inline\n'),
        ('[ui]\ntheme = """\nnord\n"""\n# end\n', '[ui]\ntheme = "gruvbox"\n# end\n'),
    ],
    ids=["dotted", "inline", "multi-line"],
)
def test_a_dotted_key_an_inline_table_or_a_long_value_is_set_in_place(
    tmp_path: Path, text: str, written: str
) -> None:
    # Before tomlkit, each of these was refused and the theme left for the user to set.
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    remember("ui", "theme", "gruvbox", path)
    assert path.read_text(encoding="utf-8") == written


@pytest.mark.parametrize(
    "text",
    [
        '[[ui]]\ntheme = "nord"\n',  # an array of tables
        'ui = "nord"\n',  # a value, not a table
    ],
)
def test_what_is_not_a_table_is_refused_and_left_alone(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    refusal = r'set theme = "gruvbox" under \[ui\] there yourself|\[ui\] .* must be a table'
    with pytest.raises(InputError, match=refusal):
        remember("ui", "theme", "gruvbox", path)
    assert path.read_text(encoding="utf-8") == text
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_a_linked_settings_file_is_written_where_it_points(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "dynotui.toml"
    target.parent.mkdir()
    target.write_text("[other]\nx = 1\n", encoding="utf-8")
    link = tmp_path / "config.toml"
    link.symlink_to(target)
    remember("ui", "theme", "nord", link)
    assert link.is_symlink()
    assert tomllib.loads(target.read_text(encoding="utf-8")) == {
        "other": {"x": 1},
        "ui": {"theme": "nord"},
    }


# -- --no-mouse ---------------------------------------------------------------------------


def _first_page(ddb: Any, *extra: str) -> bytes:
    """What the app writes to a real terminal up to its first page, and on quitting."""
    terminal = on_the_demo_table(ddb.endpoint_url, *extra, size=(100, 30))
    try:
        terminal.wait_for(lambda t: "Page 1" in t)
        terminal.send(b"q")
        assert terminal.wait_exit(30) == 0
        return bytes(terminal.raw)
    finally:
        terminal.close()


def test_no_mouse_leaves_the_mouse_to_the_terminal(ddb: Any, demo_table: str) -> None:
    with_mouse = _first_page(ddb)
    assert MOUSE_ON in with_mouse
    without = _first_page(ddb, "--no-mouse")
    assert MOUSE_ON not in without
    assert b"\x1b[?1006h" not in without  # nor SGR mouse reports
