"""Copy text to the system clipboard, else to the terminal's own (OSC 52)."""

from __future__ import annotations

from collections.abc import Callable

import pyperclip
from textual.app import App

SYSTEM = "system clipboard"
TERMINAL = "terminal clipboard (OSC 52)"


def copy(app: App, text: str, system_copy: Callable[[str], None] = pyperclip.copy) -> str:
    """Copy ``text`` and name the route it took.

    pyperclip needs xclip, xsel or wl-copy (or a desktop's own tool); over SSH or on a
    bare server it has none, and the terminal's OSC 52 clipboard is the way left.
    """
    try:
        system_copy(text)
    except (pyperclip.PyperclipException, OSError):
        app.copy_to_clipboard(text)
        return TERMINAL
    return SYSTEM
