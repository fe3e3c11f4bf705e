"""Widths are measured in cells, as the terminal draws them: a CJK character takes two."""

from __future__ import annotations

import os
import subprocess
import sys

from rich.text import Text
from textual.app import App, ComposeResult

from dynotui.ui.widgets.column_layout import ColumnLayout, label_cells
from dynotui.ui.widgets.safe_text import TextStatic

WIDE = "漢字漢字漢字"  # six characters, twelve cells


class OneLine(App[None]):
    CSS = "TextStatic { width: 10; height: auto; }"

    def compose(self) -> ComposeResult:
        yield TextStatic("", id="line")


async def test_a_line_wider_in_cells_than_its_widget_is_laid_out_again() -> None:
    # Six characters fit ten columns by len(), twelve cells do not: the widget must grow a
    # line rather than keep the shape of the short text before it (and cut this one).
    app = OneLine()
    async with app.run_test(size=(40, 10)) as pilot:
        line = app.query_one("#line", TextStatic)
        line.show(Text("abc"))
        await pilot.pause()
        assert line.size.height == 1
        line.show(Text(WIDE))
        await pilot.pause()
        assert line.size.height == 2


def test_a_column_header_is_as_wide_as_its_name_in_cells() -> None:
    layout = ColumnLayout(("名前",))
    assert label_cells("名前") == 4 and layout.seen["名前"] == 4
    layout.observe([{"名前": "a", "値": "b"}])
    assert layout.seen["値"] == 2
    # A header is as wide as the name as shown (control characters made visible).
    assert label_cells("a\x1bb") == 3 and label_cells("a\u200bb") > 2


def test_importing_the_ui_leaves_the_environment_alone() -> None:
    # The frame rate is the command's choice, made before it starts the app, not a side
    # effect of importing the UI (tests and scripts import it too).
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    code = (
        "import os, dynotui.ui.app; print(os.environ.get('TEXTUAL_FPS'));"
        "from dynotui.cli.app_launch import set_frame_rate; set_frame_rate();"
        "print(os.environ.get('TEXTUAL_FPS'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["None", "120"]
    mine = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "TEXTUAL_FPS": "30"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert mine == ["30", "30"], "a user's own value wins"
