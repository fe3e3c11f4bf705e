"""A form field's text in the user's editor ($VISUAL, else $EDITOR, else vi): written to a
private file, the editor run on it with the terminal handed over (``App.suspend``), and
what was saved read back. What comes back goes into the field as if typed: a one-line
field gets its lines joined by spaces, and controls show as visible symbols, so the form's
own checks judge it as they judge typed text."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported
from textual.widget import Widget
from textual.widgets import Input, TextArea

from dynotui.core.bounded_file import Unreadable, read_bounded
from dynotui.core.errors import InputError
from dynotui.core.text import visible, visible_lines

MAX_SAVED_BYTES = 2**20  # a query's field: far more than any statement DynamoDB takes


def editor_command() -> list[str]:
    """The editor's command line: $VISUAL, then $EDITOR (a command and its arguments, as a
    shell splits them), then vi."""
    named = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        words = shlex.split(named)
    except ValueError as exc:
        raise InputError(f"the editor {named!r} cannot be split into words: {exc}") from None
    if not words:
        raise InputError("$EDITOR is blank: set it to your editor's command")
    return words


def edit_text(
    text: str, suffix: str = ".txt", run: Callable[[list[str]], int] = subprocess.call
) -> str | None:
    """``text`` as the editor leaves it, or None when the editor fails (non-zero exit:
    the field keeps its text). The file is the user's alone and removed afterwards."""
    command = editor_command()
    handle, name = tempfile.mkstemp(prefix="dynotui-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text if not text or text.endswith("\n") else text + "\n")
        try:
            status = run([*command, name])
        except OSError as exc:
            raise InputError(f"the editor {command[0]!r} cannot be run: {exc.strerror}") from None
        if status != 0:
            return None
        try:
            return read_bounded(path, MAX_SAVED_BYTES, follow_links=False).decode("utf-8")
        except Unreadable as exc:
            raise InputError(f"what the editor saved {exc.problem}: the field is kept") from None
        except UnicodeDecodeError:
            raise InputError("the editor saved text that is not UTF-8: the field is kept") from None
    finally:
        path.unlink(missing_ok=True)


def as_typed(saved: str, one_line: bool) -> str:
    """What the editor saved, as it could have been typed into the field."""
    if one_line:
        return visible(" ".join(line.strip() for line in saved.splitlines() if line.strip()))
    return visible_lines(saved.removesuffix("\n"))


def edit_field(app: App[Any], field: Widget | None, suffix: str = ".txt") -> str:
    """Run the editor on ``field`` (an Input or a TextArea) and put back what was saved;
    the words to tell the user."""
    if isinstance(field, Input):
        text, one_line = field.value, True
    elif isinstance(field, TextArea):
        text, one_line = field.text, False
    else:
        return "ctrl+o edits a text field: move to one first"
    try:
        with app.suspend():
            saved = edit_text(text, suffix)
    except SuspendNotSupported:
        return "no terminal to hand to an editor here (in a browser, say): type in the field"
    except InputError as exc:
        return str(exc)
    if saved is None:
        return "the editor failed (non-zero exit): the field is kept"
    new = as_typed(saved, one_line)
    if isinstance(field, Input):
        field.value = new
        field.cursor_position = len(new)
    else:
        field.load_text(new)
    return ""
