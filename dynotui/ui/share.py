"""Copy, cursor and code actions of the app: what users take elsewhere."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dynotui.core.codegen import LANGUAGES, CodeTarget, generate
from dynotui.core.cursor import CursorSigner
from dynotui.core.cursor_secret import default_signer
from dynotui.core.dynamo_json import Item, plain_item, to_wire
from dynotui.core.page import Page
from dynotui.ui import clipboard
from dynotui.ui.code_screen import CodeScreen
from dynotui.ui.cursor_screen import InspectCursorScreen, PasteCursorScreen

if TYPE_CHECKING:
    from dynotui.core.pager import Pager


class ShareActions:
    """Mixed into the app: it provides ``pager``, ``client``, ``start`` and Textual's App."""

    pager: Pager | None
    client: Any
    _signer: CursorSigner | None
    system_copy: Callable[[str], None]
    notify: Callable[..., None]
    push_screen: Callable[..., Any]
    active_view: Any
    start: Callable[..., None]

    @property
    def signer(self) -> CursorSigner:
        if self._signer is None:
            self._signer = default_signer()
        return self._signer

    def copy_text(self, text: str, what: str) -> None:
        route = clipboard.copy(self, text, self.system_copy)  # type: ignore[arg-type]
        self.notify(f"Copied {what} to the {route}.", title="Copied")

    def _page(self) -> Page | None:
        if self.pager is None or self.pager.current is None:
            self.notify("No page read yet.", severity="warning")
            return None
        return self.pager.current

    def _selected_item(self) -> Item | None:
        page = self._page()
        if page is None:
            return None
        if not page.items:
            self.notify("This page holds no items.", severity="warning")
            return None
        row = self.active_view.table.cursor_row
        return page.items[min(max(row, 0), len(page.items) - 1)]

    def action_copy_item(self, dynamodb_json: bool = False) -> None:
        item = self._selected_item()
        if item is not None:
            data = to_wire(item) if dynamodb_json else plain_item(item)
            kind = "DynamoDB JSON" if dynamodb_json else "plain JSON"
            self.copy_text(json.dumps(data, indent=2, ensure_ascii=False), f"the item ({kind})")

    def action_copy_page(self) -> None:
        page = self._page()
        if page is not None:
            lines = "".join(json.dumps(to_wire(i), ensure_ascii=False) + "\n" for i in page.items)
            self.copy_text(lines, f"page {page.number} ({len(page.items)} items, JSON lines)")

    def _copy_token(self, key: Item | None, what: str) -> None:
        assert self.pager is not None
        if not key:
            self.notify(
                f"{what} has no start key: it opens at the start of the result.", severity="warning"
            )
            return
        self.copy_text(self.signer.sign(key, self.pager.spec.scope()), f"a signed cursor of {what}")

    def action_copy_next_token(self) -> None:
        page = self._page()
        if page is None:
            return
        if page.next_start_key is None:
            self.notify("This is the last page: there is no next cursor.", severity="warning")
            return
        self._copy_token(page.next_start_key, f"page {page.number + 1}")

    def action_copy_current_token(self) -> None:
        page = self._page()
        if page is not None:
            self._copy_token(page.start_key, f"page {page.number}")

    def action_copy_start_key(self) -> None:
        page = self._page()
        if page is not None:
            text = json.dumps(to_wire(page.start_key), ensure_ascii=False)
            self.copy_text(text, f"the start key of page {page.number}")

    def action_paste_cursor(self) -> None:
        if self.pager is None:
            return
        spec = self.pager.spec

        def opened(start_key: Item | None) -> None:
            if start_key:
                self.start(spec, start_key)
                self.notify("A new cursor stack: page 1 is the cursor's page.")

        self.push_screen(PasteCursorScreen(self.signer, spec.scope()), opened)

    def action_inspect_cursor(self) -> None:
        if self.pager is not None:
            self.push_screen(InspectCursorScreen(self.signer, self.pager.spec.scope()))

    def code_target(self) -> CodeTarget:
        endpoint = self.client.meta.endpoint_url
        default = "amazonaws.com" in endpoint  # the SDKs find AWS's own endpoints themselves
        return CodeTarget(
            region=self.client.meta.region_name, endpoint_url=None if default else endpoint
        )

    def action_show_code(self) -> None:
        page = self._page()
        if page is None or self.pager is None:
            return
        code = {
            language: generate(
                language,
                self.pager.spec,
                self.pager.schema,
                page.start_key,
                page.number,
                self.code_target(),
            )
            for language in LANGUAGES
        }
        self.push_screen(CodeScreen(f"Code for page {page.number}, from its start key", code))
