"""Copy text to the system clipboard, else to the terminal's own (OSC 52)."""

from __future__ import annotations

from collections.abc import Callable

SYSTEM = "system clipboard"
TERMINAL = "terminal clipboard (OSC 52)"


def system_copy(text: str) -> None:
    """pyperclip's copy, loaded on first use (it is not needed to start)."""
    import pyperclip

    pyperclip.copy(text)


def copy(
    text: str,
    terminal_copy: Callable[[str], None],
    copier: Callable[[str], None] = system_copy,
) -> str:
    """Copy ``text`` and name the route it took.

    pyperclip needs xclip, xsel or wl-copy (or a desktop's own tool); over SSH or on a
    bare server it has none, and the terminal's OSC 52 clipboard (``terminal_copy``,
    Textual's ``App.copy_to_clipboard``) is the way left.
    """
    import pyperclip

    try:
        copier(text)
    except (pyperclip.PyperclipException, OSError):
        terminal_copy(text)
        return TERMINAL
    return SYSTEM
