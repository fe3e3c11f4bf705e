"""The command palette's entries: every key of the adapter's table but quit, help and
cancel, in the words of what the view holds where the adapter words them so."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from textual.app import SystemCommand

from dynotui.ui.actions import Action
from dynotui.ui.screens.help import key_label


def palette_commands(
    key_table: Sequence[Action],
    worded: Mapping[str, Action],
    run_action: Callable[[str], object],
) -> Iterator[SystemCommand]:
    """``worded``: keys of ``key_table`` by action, reworded for the view (an advisor's
    finding names the index a what-if would estimate)."""
    for listed in key_table:
        if listed.action in ("quit", "help", "cancel"):
            continue
        action = worded.get(listed.action, listed)
        shown_key = key_label(action.keys.split(",")[0])
        yield SystemCommand(
            f"{action.title} ({shown_key})",
            action.help,
            lambda name=action.action: run_action(name),
        )
