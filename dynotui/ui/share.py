"""What users take elsewhere: an item, a page, a signed cursor, a start key, code; and
cursors brought back (paste, inspect). The clipboard route is named every time."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from dynotui.core.cursor import CursorError, CursorSigner
from dynotui.core.errors import InputError
from dynotui.core.page import Cost
from dynotui.core.text import plural
from dynotui.ui import clipboard
from dynotui.ui.adapter import Adapter, CursorStart, NewStack, Shown
from dynotui.ui.host import Host
from dynotui.ui.query import Boundary
from dynotui.ui.widgets.pager_view import PagerView, ViewState

if TYPE_CHECKING:
    # A pasted cursor (and the foreign cursors it may be) is read when one is pasted, not
    # before the first frame (issue 46).
    from dynotui.core.pasted import PastedCursor


class Sharing(Host, Protocol):
    """What sharing needs of the app beyond what an adapter may ask."""

    def copy_to_clipboard(self, text: str) -> None: ...

    def shown(self, view: PagerView) -> Shown: ...

    def spent(self, cost: Cost) -> None: ...

    def cursor_refused(self, error: CursorError) -> None: ...

    def cursor_accepted(self) -> None: ...


class Share:
    def __init__(
        self,
        app: Sharing,
        adapter: Adapter,
        signer: CursorSigner | None,
        system_copy: Callable[[str], None],
    ) -> None:
        self.app = app
        self.adapter = adapter
        self.system_copy = system_copy
        self._made: list[CursorSigner] = [signer] if signer is not None else []

    def signer(self) -> CursorSigner:
        # The secret (and platformdirs) only when a cursor is signed or verified.
        if not self._made:
            from dynotui.core.cursor_secret import default_signer

            self._made.append(default_signer())
        return self._made[0]

    def copy_text(self, text: str, what: str) -> None:
        route = clipboard.copy(text, self.app.copy_to_clipboard, self.system_copy)
        self.app.say(f"Copied {what} to the {route}.", title="Copied")

    def _state(self, view: PagerView) -> ViewState | None:
        state = view.state
        if state is None or state.pager.current is None:
            self.app.say("No page read yet.", severity="warning")
            return None
        return state

    def copy_item(self, view: PagerView, typed: bool) -> None:
        state = self._state(view)
        if state is None:
            return
        item = view.selected_item()
        if item is None:
            self.app.say("This page holds no items.", severity="warning")
            return
        kind = state.query.item_formats()[1 if typed else 0]
        self.copy_text(state.query.item_json(item, typed), f"the item ({kind})")

    def copy_page(self, view: PagerView) -> None:
        state = self._state(view)
        if state is not None and state.pager.current is not None:
            page = state.pager.current
            lines = state.query.page_lines(page.items)
            self.copy_text(lines, f"page {page.number} ({plural(page.shown, 'item')}, JSON lines)")

    def _copy_token(self, state: ViewState, key: Boundary, what: str, page: int) -> None:
        if key is None:
            self.app.say(
                f"{what} has no start key: it opens at the start of the result.",
                severity="warning",
            )
            return
        source = state.pager.source
        try:
            token = self.signer().sign(source.key_to_json(key), source.scope(), page)
        except InputError as exc:
            self.app.say(str(exc), title="Cursor secret", severity="error", timeout=10)
            return
        self.copy_text(token, f"a signed cursor of {what}")

    def copy_next_token(self, view: PagerView) -> None:
        state = self._state(view)
        if state is None or state.pager.current is None:
            return
        page = state.pager.current
        if page.next_start_key is None:
            self.app.say("This is the last page: there is no next cursor.", severity="warning")
            return
        self._copy_token(state, page.next_start_key, f"page {page.number + 1}", page.number + 1)

    def copy_current_token(self, view: PagerView) -> None:
        state = self._state(view)
        if state is not None and state.pager.current is not None:
            page = state.pager.current
            self._copy_token(state, page.start_key, f"page {page.number}", page.number)

    def copy_start_key(self, view: PagerView) -> None:
        state = self._state(view)
        if state is None or state.pager.current is None:
            return
        page = state.pager.current
        if page.start_key is None:
            self.app.say(
                f"Page {page.number} has no start key: it opens at the start of the result.",
                severity="warning",
            )
            return
        self.copy_text(state.query.key_json(page.start_key), f"the start key of page {page.number}")

    def paste_cursor(self, view: PagerView) -> None:
        from dynotui.ui.screens.cursor import PasteCursorScreen

        state = view.state
        if state is None:
            return
        source = state.pager.source
        adapter = self.adapter

        def opened(pasted: PastedCursor | None) -> None:
            if pasted is None:
                return
            if view.state is not state:
                self.app.say("The cursor was not opened: another query came first.")
                return
            self._open_pasted(view, pasted)

        self.app.ask(
            PasteCursorScreen(
                self.signer,
                source.scope(),
                source.key_from_json,
                adapter.foreign_reader(self.app.shown(view)),
                self.app.cursor_refused,
            ),
            opened,
        )

    def _open_pasted(self, view: PagerView, pasted: PastedCursor) -> None:
        """A pasted cursor, verified or checked, as a new stack of ``view``'s query; a
        foreign one is read by its database first. It is counted once, either way."""
        app, state = self.app, view.state
        if state is None:
            return
        if pasted.foreign is None:
            app.cursor_accepted()
            view.start(
                NewStack(
                    state.query,
                    pasted.start_key,
                    note=pasted.note,
                    origin="from a signed cursor",
                    first_number=pasted.page or 1,
                )
            )
            return
        read = self.adapter.foreign_start(app.shown(view), pasted.foreign, pasted.note)
        if read is None:
            return  # nothing foreign is offered to a query that takes none

        def resolved(found: CursorStart) -> None:
            app.cursor_accepted()
            if found.cost is not None:
                app.spent(found.cost)  # billed like any read, whatever happens next
            if view.state is not state:
                app.say("The cursor's page was not opened: another query came first.")
                return
            view.start(NewStack(state.query, found.start_key, note=found.note, origin=found.origin))

        def failed(error: BaseException) -> None:
            if isinstance(error, CursorError):
                app.cursor_refused(error)
            app.fail(error, "Cursor")

        app.call(read, resolved, failed)

    def inspect_cursor(self, view: PagerView) -> None:
        from dynotui.ui.screens.cursor import InspectCursorScreen

        state = view.state
        if state is not None:
            self.app.ask(
                InspectCursorScreen(
                    self.signer,
                    state.pager.source.scope(),
                    self.adapter.foreign_reader(self.app.shown(view)),
                ),
                lambda _: None,
            )

    def show_code(self, view: PagerView, target: object) -> None:
        from dynotui.ui.screens.code import CodeScreen

        state = self._state(view)
        if state is None or state.pager.current is None:
            return
        page = state.pager.current
        code = state.query.code(page, target)
        self.app.ask(
            CodeScreen(state.query.code_title(page), code, self.copy_text),
            lambda _: None,
        )
