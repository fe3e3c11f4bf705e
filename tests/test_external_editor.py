"""ctrl+o in the query form: the field's text in $EDITOR, what is saved back in the field,
checked by the form as typed text is."""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from terminal import Terminal, on_the_demo_table

from dynotui.core.errors import InputError
from dynotui.ui.external_editor import as_typed, edit_text

# An editor for the tests: keeps what it was given in $SEEN, saves $NEXT's text instead.
EDITOR = """\
import os, shutil, sys
with open(os.environ["SEEN"], "a", encoding="utf-8") as seen:
    seen.write(open(sys.argv[1], encoding="utf-8").read() + "\\x00")
shutil.copyfile(os.environ["NEXT"], sys.argv[1])
sys.exit(int(os.environ.get("EDITOR_EXIT", "0")))
"""


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    script = tmp_path / "editor.py"
    script.write_text(EDITOR, encoding="utf-8")
    files = {"seen": tmp_path / "seen", "next": tmp_path / "next"}
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    monkeypatch.setenv("SEEN", str(files["seen"]))
    monkeypatch.setenv("NEXT", str(files["next"]))
    return files


def seen(files: dict[str, Path]) -> list[str]:
    return files["seen"].read_text(encoding="utf-8").split("\x00")[:-1]


def test_the_editor_round_trip(editor: dict[str, Path], tmp_path: Path) -> None:
    editor["next"].write_text("status = :r\n  AND total > :t\n", encoding="utf-8")
    saved = edit_text("status = :r")
    assert seen(editor) == ["status = :r\n"]
    assert saved == "status = :r\n  AND total > :t\n"
    assert as_typed(saved, one_line=True) == "status = :r AND total > :t"
    assert as_typed(saved, one_line=False) == "status = :r\n  AND total > :t"
    assert not list(Path(tempfile.gettempdir()).glob("dynotui-*.txt"))


def test_what_cannot_be_typed_comes_back_visible(editor: dict[str, Path]) -> None:
    editor["next"].write_text("status\x1b[2J = :r\x07\n", encoding="utf-8")
    saved = edit_text("")
    assert saved is not None
    typed = as_typed(saved, one_line=True)
    assert "\x1b" not in typed and "\x07" not in typed and "[2J" in typed


def test_a_failing_editor_keeps_the_field(
    editor: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    editor["next"].write_text("changed\n", encoding="utf-8")
    monkeypatch.setenv("EDITOR_EXIT", "1")
    assert edit_text("kept") is None
    monkeypatch.setenv("EDITOR", "/no/such/editor")
    with pytest.raises(InputError, match="the editor '/no/such/editor' cannot be run"):
        edit_text("kept")
    monkeypatch.setenv("EDITOR", "'unclosed")
    with pytest.raises(InputError, match="cannot be split into words"):
        edit_text("kept")


def _open(ddb: Any) -> Terminal:
    return on_the_demo_table(
        ddb.endpoint_url,
        "--filter-expression",
        "status = :r",
        "--expression-attribute-values",
        '{":r": "RETURNED"}',
        size=(200, 40),  # the query line on one line
    )


def to_the_filter(terminal: Terminal) -> None:
    """e, then Tab from the partition value past the sort operator to the filter, once
    the form takes keys (it drops those pressed before it is drawn)."""
    terminal.send(b"e")
    terminal.wait_for(lambda t: "Run (ctrl+s)" in t)
    for _ in range(20):
        terminal.pump(0.1)
    terminal.send(b"\t\t")
    for _ in range(10):
        terminal.pump(0.1)


def test_ctrl_o_edits_the_filter_in_the_editor(
    ddb: Any, demo_table: str, editor: dict[str, Path]
) -> None:
    terminal = _open(ddb)
    try:
        terminal.wait_for(lambda t: "Page 1" in t and "filter status = 'RETURNED'" in t)
        # A filter over lines, saved: one line in the field, run as typed.
        editor["next"].write_text("status = :r\n  OR status = :r\n", encoding="utf-8")
        to_the_filter(terminal)
        terminal.send(b"\x0f")  # ctrl+o
        terminal.wait_for(lambda t: "status = :r OR status = :r" in t)
        assert seen(editor) == ["status = :r\n"]
        terminal.send(b"\x13")  # ctrl+s
        terminal.wait_for(
            lambda t: "filter status = 'RETURNED' OR status = 'RETURNED'" in t and "Page 1" in t
        )
        # A filter the form refuses is refused as typed: the form stays, with its error.
        editor["next"].write_text("status = = :r\n", encoding="utf-8")
        to_the_filter(terminal)
        terminal.send(b"\x0f")
        terminal.wait_for(lambda t: "status = = :r" in t)
        terminal.send(b"\x13")
        text = terminal.wait_for(lambda t: "Check the query" in t)
        assert "Run (ctrl+s)" in text
        terminal.send(b"\x1b")  # Esc: the query read before is still the one shown
        terminal.wait_for(
            lambda t: (
                "Run (ctrl+s)" not in t and "filter status = 'RETURNED' OR status = 'RETURNED'" in t
            )
        )
        terminal.send(b"q")
        assert terminal.wait_exit(30) == 0
    finally:
        terminal.close()
