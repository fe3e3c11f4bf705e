"""Copy, cursor and code actions of the app: what users take elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dynotui.core.cursor import CursorSigner
from dynotui.core.errors import InputError
from dynotui.ui import clipboard
from dynotui.ui.safe import notify

if TYPE_CHECKING:
    from dynotui.dynamodb.codegen import CodeTarget
    from dynotui.ui.pager_view import PagerView, ViewState


class ShareActions:
    """Mixed into the app: it provides ``active_view``, ``session`` and Textual's App."""

    _signer: Callable[[], CursorSigner]
    system_copy: Callable[[str], None]
    push_screen: Callable[..., Any]
    session: Any

    @property
    def active_view(self) -> PagerView:
        raise NotImplementedError

    def _init_share(self, signer: CursorSigner | None) -> None:
        if signer is not None:
            self._signer = lambda: signer
            return
        made: list[CursorSigner] = []

        def load() -> CursorSigner:
            # The secret (and platformdirs) only when a cursor is signed or verified.
            if not made:
                from dynotui.core.cursor_secret import default_signer

                made.append(default_signer())
            return made[0]

        self._signer = load

    def signer(self) -> CursorSigner:
        return self._signer()

    def copy_text(self, text: str, what: str) -> None:
        route = clipboard.copy(self, text, self.system_copy)  # type: ignore[arg-type]
        notify(self, f"Copied {what} to the {route}.", title="Copied")

    def _state(self) -> ViewState | None:
        state = self.active_view.state
        if state is None or state.pager.current is None:
            notify(self, "No page read yet.", severity="warning")
            return None
        return state

    def action_copy_item(self, typed: bool = False) -> None:
        state = self._state()
        if state is None:
            return
        item = self.active_view.selected_item()
        if item is None:
            notify(self, "This page holds no items.", severity="warning")
            return
        kind = state.query.item_formats()[1 if typed else 0]
        self.copy_text(state.query.item_json(item, typed), f"the item ({kind})")

    def action_copy_page(self) -> None:
        state = self._state()
        if state is not None and state.pager.current is not None:
            page = state.pager.current
            lines = state.query.page_lines(list(page.items))
            self.copy_text(lines, f"page {page.number} ({page.shown:,} items, JSON lines)")

    def _copy_token(self, state: ViewState, key: Any, what: str) -> None:
        if key is None:
            notify(
                self,
                f"{what} has no start key: it opens at the start of the result.",
                severity="warning",
            )
            return
        source = state.pager.source
        try:
            token = self.signer().sign(source.key_to_json(key), source.scope())
        except InputError as exc:
            notify(self, str(exc), title="Cursor secret", severity="error", timeout=10)
            return
        self.copy_text(token, f"a signed cursor of {what}")

    def action_copy_next_token(self) -> None:
        state = self._state()
        if state is None or state.pager.current is None:
            return
        page = state.pager.current
        if page.next_start_key is None:
            notify(self, "This is the last page: there is no next cursor.", severity="warning")
            return
        self._copy_token(state, page.next_start_key, f"page {page.number + 1}")

    def action_copy_current_token(self) -> None:
        state = self._state()
        if state is not None and state.pager.current is not None:
            page = state.pager.current
            self._copy_token(state, page.start_key, f"page {page.number}")

    def action_copy_start_key(self) -> None:
        state = self._state()
        if state is None or state.pager.current is None:
            return
        page = state.pager.current
        if page.start_key is None:
            notify(
                self,
                f"Page {page.number} has no start key: it opens at the start of the result.",
                severity="warning",
            )
            return
        self.copy_text(state.query.key_json(page.start_key), f"the start key of page {page.number}")

    def action_paste_cursor(self) -> None:
        from dynotui.ui.cursor_screen import PasteCursorScreen

        view = self.active_view
        state = view.state
        if state is None:
            return
        source = state.pager.source

        def opened(start_key: Any) -> None:
            if start_key is not None and view.start(
                state.query, start_key, note="A new cursor stack: page 1 is the cursor's page."
            ):
                pass

        self.push_screen(
            PasteCursorScreen(self._signer, source.scope(), source.key_from_json), opened
        )

    def action_inspect_cursor(self) -> None:
        from dynotui.ui.cursor_screen import InspectCursorScreen

        state = self.active_view.state
        if state is not None:
            self.push_screen(InspectCursorScreen(self._signer, state.pager.source.scope()))

    def code_target(self) -> CodeTarget:
        from dynotui.dynamodb.codegen import code_target  # only when code is asked for

        return code_target(self.session.client)

    def action_show_code(self) -> None:
        from dynotui.ui.code_screen import CodeScreen

        state = self._state()
        if state is None or state.pager.current is None:
            return
        page = state.pager.current
        code = state.query.code(page, self.code_target())
        self.push_screen(CodeScreen(f"Code for page {page.number}, from its start key", code))
