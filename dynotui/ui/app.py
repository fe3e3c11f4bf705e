"""The dynotui app: one PagerView on the main screen, two on the compare screen.

Keys act on the active view; the app holds the connection, the clipboard and the
cursor secret, and no paging logic.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import pyperclip
from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header

from dynotui.core.cursor import CursorSigner
from dynotui.core.errors import DynotuiError
from dynotui.core.pager import Pager
from dynotui.core.query_form import QueryForm
from dynotui.core.schema import list_tables
from dynotui.core.spec import QuerySpec
from dynotui.ui.compare_screen import CompareScreen
from dynotui.ui.pager_view import PagerView
from dynotui.ui.picker_screen import PickerScreen
from dynotui.ui.share import ShareActions

# key, action, title, help, shown in the footer; the help panel and the command
# palette list them all.
ACTIONS = [
    ("n,right", "next", "Next", "Read the next page from the start key stored for it", True),
    ("p,left", "prev", "Prev", "Previous page: cached, or re-read from its start key", True),
    ("g,home", "first", "First", "Go to page 1", True),
    ("r", "refresh", "Refresh", "Re-read the current page", True),
    ("m", "toggle_mode", "Raw/Fill", "Toggle raw and fill mode (a new cursor stack)", True),
    ("o", "choose_order", "Order", "Choose a sort order: base table, LSI or GSI", True),
    ("e", "edit_query", "Query", "Edit the query: keys, filter, projection, page size", True),
    ("s", "show_stack", "Stack", "The cursor stack: jump to any page reached", True),
    ("t", "choose_table", "Tables", "Choose another table", False),
    ("c", "show_code", "Code", "Code that reproduces this page: boto3, AWS CLI, JS", True),
    ("y", "copy_item(False)", "Copy item", "Copy the selected item as plain JSON", False),
    ("Y", "copy_item(True)", "Copy item (DynamoDB JSON)", "Copy the item, lossless", False),
    ("a", "copy_page", "Copy page", "Copy the page as JSON lines (DynamoDB JSON)", False),
    ("k", "copy_next_token", "Copy next cursor", "Copy a signed cursor of the next page", True),
    ("K", "copy_current_token", "Copy this cursor", "Copy a signed cursor of this page", False),
    ("x", "copy_start_key", "Copy start key", "Copy this page's start key (DynamoDB JSON)", False),
    ("v", "paste_cursor", "Paste cursor", "Open the page a pasted cursor token points at", True),
    ("i", "inspect_cursor", "Inspect cursor", "Decode a cursor token and check it", False),
    ("w", "compare", "Compare", "Compare two sort orders side by side", True),
    ("question_mark", "help", "Help", "Show or hide the help panel with every key", True),
    ("q", "quit", "Quit", "Quit dynotui", True),
]


class DynotuiApp(ShareActions, App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "dynotui"
    BINDINGS = [
        Binding(key, action, title, show=shown, tooltip=help_text)
        for key, action, title, help_text, shown in ACTIONS
    ]

    def __init__(
        self,
        client: Any,
        *,
        connection_label: str = "",
        table: str | None = None,
        form: QueryForm | None = None,
        clock: Callable[[], float] = time.perf_counter,
        signer: CursorSigner | None = None,
        system_copy: Callable[[str], None] = pyperclip.copy,
    ) -> None:
        super().__init__()
        self._signer = signer
        self.system_copy = system_copy
        self.client = client
        self.connection_label = connection_label
        self.initial_table = table
        self.initial_form = form or QueryForm()
        self.clock = clock
        self._main: PagerView | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield PagerView(self.client, form=self.initial_form, clock=self.clock, id="main-view")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.connection_label
        if self.initial_table:
            form = self.initial_form
            self.main_view.load_table(
                self.initial_table, open_form=not form.partition_value and not form.scan
            )
        else:
            self.action_choose_table()

    # -- the view keys act on ------------------------------------------------------------

    @property
    def main_view(self) -> PagerView:
        if self._main is None:  # kept, so the last page stays readable after exit
            self._main = self.screen_stack[0].query_one("#main-view", PagerView)
        return self._main

    @property
    def active_view(self) -> PagerView:
        for screen in reversed(self.screen_stack):
            if isinstance(screen, CompareScreen):
                return screen.active_view
        return self.main_view

    @property
    def pager(self) -> Pager | None:
        return self.active_view.pager

    def start(self, spec: QuerySpec, start_key: Any = None) -> None:
        self.active_view.start(spec, start_key)

    def action_next(self) -> None:
        self.active_view.navigate("next")

    def action_prev(self) -> None:
        self.active_view.navigate("prev")

    def action_first(self) -> None:
        self.active_view.navigate("first")

    def action_refresh(self) -> None:
        self.active_view.navigate("refresh")

    def action_toggle_mode(self) -> None:
        self.active_view.toggle_mode()

    def action_choose_order(self) -> None:
        self.active_view.choose_order()

    def action_edit_query(self) -> None:
        self.active_view.edit_query()

    def action_show_stack(self) -> None:
        self.active_view.show_stack()

    def action_compare(self) -> None:
        view = self.main_view
        if view.schema is None or view.pager is None:
            self.notify("Open a query first; the compare view starts from it.", severity="warning")
            return
        if isinstance(self.screen, CompareScreen):
            return
        self.push_screen(CompareScreen(self.client, view.schema, view.form, self.clock))

    @work(thread=True, exclusive=True, group="schema")
    def action_choose_table(self) -> None:
        try:
            names = list_tables(self.client)
        except DynotuiError as exc:
            self.call_from_thread(self.notify, str(exc), title="Tables", severity="error")
            return

        def chosen(name: str | None) -> None:
            if name:
                view = self.main_view
                view.form = QueryForm()
                view.load_table(name, open_form=True)

        self.call_from_thread(
            self.push_screen,
            PickerScreen(f"Tables ({len(names)}) — Enter opens one", [(n, n) for n in names]),
            chosen,
        )

    def action_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    # -- command palette -----------------------------------------------------------------

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for key, action, title, help_text, _ in ACTIONS:
            if action in ("quit", "help"):
                continue
            shown_key = key.split(",")[0].replace("question_mark", "?")
            yield SystemCommand(
                f"{title} ({shown_key})",
                help_text,
                lambda action=action: self.run_action(action),
            )
