"""The pieces of a compact form: a row of a label and its fields, one line each, and an
error line under the row that takes no room until there is something to say.

A form of one-line rows fits 120x35 whole and most of it 80x24; the hint a label cannot
hold goes in the field's placeholder or one dim line under the rows.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import Horizontal
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Label


class ErrorLine(Label):
    """A field's error, under its row: out of the layout while it says nothing."""

    DEFAULT_CSS = """
    ErrorLine {
        color: $error;
        width: 100%;
        height: auto;
        padding-left: 18;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, classes="field-error")
        self.display = False

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(content, layout=layout)
        said = content.plain if isinstance(content, Text) else str(content)
        self.display = bool(said.strip())


class FormRow(Horizontal):
    """A label and the fields it names, on one line."""

    DEFAULT_CSS = """
    FormRow {
        height: auto;
        & > .form-label {
            width: 18;
            padding-right: 1;
            color: $text-muted;
        }
        & > Input {
            width: 1fr;
        }
    }
    """

    def __init__(self, label: str, *fields: Widget, id: str | None = None) -> None:
        super().__init__(Label(label, classes="form-label"), *fields, id=id)
