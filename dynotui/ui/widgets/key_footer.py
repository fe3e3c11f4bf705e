"""A footer whose keys fit: each key is shown whole or not at all.

Textual's footer lays every key out in a row and lets the screen's edge cut the last
("# Coun" at 80 columns). This one keeps the keys that fit, chosen by importance (an
order of actions given to it) and shown in their usual order; when some are left out,
the help key says so ("? All keys"), since help lists every key.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

HELP_ACTION = "help"
ALL_KEYS = "All keys"  # the help key's words when the footer leaves keys out


def key_width(key: str, description: str, compact: bool) -> int:
    """The cells a footer key takes, as the footer's own styles draw it: compact, the key,
    a space and the words, then a one-cell margin; otherwise a cell of padding each side
    of the key and one after the words."""
    if compact:
        return cell_len(key) + 1 + cell_len(description) + 1
    return 1 + cell_len(key) + 1 + cell_len(description) + 1


def fitting(
    keys: Sequence[tuple[str, str, str]], width: int, compact: bool, importance: Sequence[str]
) -> tuple[list[int], bool]:
    """Which of ``keys`` (action, key shown, words) fit in ``width`` cells: the help key
    always, then the most important (``importance`` lists actions, the others follow in
    their order) until one does not fit. Returns their indexes in the usual order, and
    whether some were left out (the help key then reads ``ALL_KEYS``)."""
    rank = {action: at for at, action in enumerate(importance)}
    order = sorted(range(len(keys)), key=lambda i: (rank.get(keys[i][0], len(rank)), i))

    def widths(left_out: bool) -> list[int]:
        return [
            key_width(shown, ALL_KEYS if left_out and action == HELP_ACTION else words, compact)
            for action, shown, words in keys
        ]

    every = widths(False)
    if sum(every) <= width:
        return list(range(len(keys))), False
    sizes = widths(True)
    kept: set[int] = {i for i, key in enumerate(keys) if key[0] == HELP_ACTION}
    used = sum(sizes[i] for i in kept)
    for index in order:
        if index in kept:
            continue
        if used + sizes[index] > width:
            break  # never a less important key in the room a more important one lacked
        kept.add(index)
        used += sizes[index]
    return sorted(kept), True


# What one FooterKey is made of: key, key shown, words, action, disabled, tooltip, classes.
KeyPlan = tuple[str, str, str, str, bool, str, str]


class KeyFooter(Footer):
    """``importance``: actions, the most important first, for a narrow terminal's choice.

    Textual's footer makes its keys anew whenever its screen's bindings are refreshed, as
    when a dialog opens over the screen and again when it closes: a dozen widgets mounted
    and styled each time, to show the same keys. This one keeps its keys when they would
    be the same (in the UI tests' profile a tenth of their CPU went to that restyling)."""

    def __init__(self, importance: Sequence[str] = (), *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.importance = tuple(importance)
        self._shown: list[KeyPlan] | None = None  # the keys composed last

    def _room(self) -> int:
        width = self.size.width or self.app.size.width
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            binding = Binding(self.app.COMMAND_PALETTE_BINDING, "command_palette", "palette")
            # The palette's key sits at the right, after a one-cell rule.
            width -= key_width(self.app.get_key_display(binding), "palette", False) + 1
        return width

    def _plan(self) -> list[KeyPlan]:
        """The keys to show now, in order (the palette's key last)."""
        active = self.screen.active_bindings
        seen: set[str] = set()
        entries: list[tuple[Binding, bool, str]] = []
        for _, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in seen:  # one key per action
                seen.add(binding.action)
                entries.append((binding, enabled, tooltip))
        keys = [(b.action, self.app.get_key_display(b), b.description) for b, _, _ in entries]
        kept, left_out = fitting(keys, self._room(), self.compact, self.importance)
        plan: list[KeyPlan] = []
        for index in kept:
            binding, enabled, tooltip = entries[index]
            words = ALL_KEYS if left_out and binding.action == HELP_ACTION else binding.description
            plan.append(
                (binding.key, keys[index][1], words, binding.action, not enabled, tooltip, "")
            )
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, _ = found
                plan.append(
                    (
                        binding.key,
                        self.app.get_key_display(binding),
                        binding.description,
                        binding.action,
                        not enabled,
                        binding.tooltip or binding.description,
                        "-command-palette",
                    )
                )
        return plan

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._shown = self._plan()
        for key, shown, words, action, disabled, tooltip, classes in self._shown:
            footer_key = FooterKey(
                key, shown, words, action, classes=classes, disabled=disabled, tooltip=tooltip
            )
            # The palette's key keeps its own look, as in Textual's footer.
            yield footer_key if classes else footer_key.data_bind(compact=Footer.compact)

    async def recompose(self) -> None:
        if self._shown is not None and self.is_attached and self._plan() == self._shown:
            return  # the same keys: nothing to make again
        await super().recompose()

    def on_resize(self, event: Resize) -> None:
        self._refit()

    def watch_compact(self) -> None:
        self._refit()

    def watch_show_command_palette(self) -> None:
        self._refit()

    def _refit(self) -> None:
        """Chosen again when the room may have changed (the width, compact or the palette's
        key): made again only if other keys fit (``recompose``)."""
        if self._bindings_ready and self.is_attached:
            self.call_after_refresh(self.recompose)
