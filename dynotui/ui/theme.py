"""The app's theme: chosen with Textual's own Theme command of the palette (ctrl+p), kept
as ``[ui] theme`` in config.toml, and the theme of every start after it."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.theme import Theme

from dynotui.core import config
from dynotui.core.errors import InputError

if TYPE_CHECKING:
    from dynotui.ui.host import Severity

TABLE, KEY = "ui", "theme"


def configured_theme(available: Collection[str]) -> str | None:
    """The theme config.toml names (None when it names none); one Textual lacks is
    refused by name, before the app starts, as any bad setting is."""
    value = config.table(TABLE).get(KEY)
    if value is None:
        return None
    if not isinstance(value, str) or value not in available:
        raise InputError(
            f"{KEY} = {value!r} in [{TABLE}] of the settings file {config.config_path()} "
            f"is not a theme; the themes are {', '.join(sorted(available))}"
        )
    return value


class ThemeKeeper:
    """Applies the configured theme to ``app`` and writes each one chosen after that."""

    def __init__(self, app: App[Any], say: Callable[[str, Severity], None]) -> None:
        self.app = app
        self.say = say
        configured = configured_theme(app.available_themes)
        if configured is not None:
            app.theme = configured
        self.kept = app.theme  # the theme of this start: choosing it again writes nothing

    def watch(self) -> None:
        """From the app's mount on: a theme set is a theme chosen."""
        self.app.theme_changed_signal.subscribe(self.app, self.chosen)

    def chosen(self, theme: Theme) -> None:
        if theme.name == self.kept:
            return
        try:
            from dynotui.core.config_write import remember  # tomlkit: when a theme is kept

            path = remember(TABLE, KEY, theme.name)
        except InputError as exc:
            self.say(f"Theme {theme.name} for now, not kept: {exc}", "warning")
            return
        self.kept = theme.name
        self.say(f"Theme {theme.name}, kept for the next start in {path}", "information")
