"""The column picker: show, hide and reorder the grid's columns for this session."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Label, SelectionList
from textual.widgets.selection_list import Selection

from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.column_layout import ColumnLayout
from dynotui.ui.widgets.safe_text import plain


@dataclass(frozen=True)
class ColumnChoice:
    order: list[str]
    hidden: set[str]
    fit: bool
    fold_empty: bool = True

    def apply_to(self, layout: ColumnLayout) -> bool:
        """This choice made ``layout``'s; True when widths are to be fitted afresh to what
        was read (asked for, or columns folded or shown again)."""
        unfolded = layout.fold_empty != self.fold_empty
        # Columns that came while the picker was open keep their place at the end.
        layout.order[:] = self.order + [n for n in layout.order if n not in self.order]
        layout.hidden = set(self.hidden)
        layout.fold_empty = self.fold_empty
        return self.fit or unfolded


class ColumnsScreen(Dialog[ColumnChoice | None]):
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("a,ctrl+s", "apply", "Apply"),
        Binding("shift+up,minus", "move(-1)", "Move up"),
        Binding("shift+down,plus", "move(1)", "Move down"),
        Binding("f", "fit", "Fit widths to content"),
        Binding("e", "toggle_fold", "Fold / show empty columns"),
    ]

    def __init__(self, layout: ColumnLayout) -> None:
        super().__init__()
        self.order = list(layout.order)
        self.hidden = set(layout.hidden)
        self.keys = set(layout.key_names)
        self.fold_empty = layout.fold_empty

    def compose(self) -> ComposeResult:
        with Vertical(id="columns-box", classes="modal-box"):
            yield Label(
                "Columns: space shows or hides, shift+↑/↓ (or - / +) moves, f fits widths to "
                "what was read, e folds or shows the columns a page has no value in, a "
                "applies, Esc cancels.",
                id="columns-title",
                classes="modal-title",
            )
            yield Label(self._fold_words(), id="columns-fold")
            yield SelectionList[str](id="columns-list")
        yield Footer()

    def on_mount(self) -> None:
        self._fill(0)

    def _fill(self, highlighted: int) -> None:
        listing = self.query_one(SelectionList)
        listing.clear_options()
        listing.add_options(
            [
                Selection(
                    # The state in words as well as in the box's colour.
                    plain(
                        f"{'hidden' if name in self.hidden else 'shown '}  {name}"
                        f"{'  (key)' if name in self.keys else ''}"
                    ),
                    name,
                    name not in self.hidden,
                )
                for name in self.order
            ]
        )
        listing.highlighted = highlighted
        listing.focus()

    def _sync(self) -> None:
        listing = self.query_one(SelectionList)
        shown = set(listing.selected)
        self.hidden = {name for name in self.order if name not in shown}

    def action_move(self, step: int) -> None:
        listing = self.query_one(SelectionList)
        at = listing.highlighted
        if at is None:
            return
        self._sync()
        to = max(0, min(len(self.order) - 1, at + step))
        self.order.insert(to, self.order.pop(at))
        self._fill(to)

    def on_selection_list_selection_toggled(
        self, event: SelectionList.SelectionToggled[str]
    ) -> None:
        self._sync()
        self._fill(event.selection_index)

    def _fold_words(self) -> str:
        if self.fold_empty:
            return "Empty columns: folded into narrow markers on each page (e shows them)"
        return "Empty columns: shown on every page (e folds them)"

    def action_toggle_fold(self) -> None:
        self.fold_empty = not self.fold_empty
        self.query_one("#columns-fold", Label).update(self._fold_words())

    def action_apply(self, fit: bool = False) -> None:
        self._sync()
        self.dismiss(ColumnChoice(self.order, self.hidden, fit, self.fold_empty))

    def action_fit(self) -> None:
        self.action_apply(fit=True)
