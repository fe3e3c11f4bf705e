"""Copy text to the system clipboard, else to the terminal's own (OSC 52)."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App

SYSTEM = "system clipboard"
TERMINAL = "terminal clipboard (OSC 52)"


def system_copy(text: str) -> None:
    """pyperclip's copy, loaded on first use (it is not needed to start)."""
    import pyperclip

    pyperclip.copy(text)


def copy(app: App[object], text: str, copier: Callable[[str], None] = system_copy) -> str:
    """Copy ``text`` and name the route it took.

    pyperclip needs xclip, xsel or wl-copy (or a desktop's own tool); over SSH or on a
    bare server it has none, and the terminal's OSC 52 clipboard is the way left.
    """
    import pyperclip

    try:
        copier(text)
    except (pyperclip.PyperclipException, OSError):
        app.copy_to_clipboard(text)
        return TERMINAL
    return SYSTEM
