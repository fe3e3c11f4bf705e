"""Export a view's items to a file: this page, the stack's pages, or the whole query, as
CSV or JSON lines, with a forecast first, then progress, and Esc to stop.

The screen holds no paging logic: the app hands it an ``ExportJob`` (what the view
shows, and how to read its pages fresh), and the core writes the file
(``core/export_file.py``), whole or not at all, off the UI thread through the Host.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Footer, Input, Label, ProgressBar, RadioButton, RadioSet, Static

from dynotui.core.cancel import CancelToken
from dynotui.core.errors import InputError, error_words
from dynotui.core.export import ItemShape
from dynotui.core.export_file import (
    SUFFIXES,
    ExportForecast,
    ExportProgress,
    ExportResult,
    Format,
    Scope,
    checked_path,
    default_export_path,
    forecast,
    make_folder,
    write_export,
)
from dynotui.core.page import Page, PageSummary
from dynotui.core.text import plural
from dynotui.ui.host import Host
from dynotui.ui.screens.dialog import Dialog
from dynotui.ui.widgets.safe_text import plain, plain_lines

SCOPES: tuple[Scope, ...] = ("page", "stack", "query")
FORMATS: tuple[Format, ...] = ("csv", "jsonl")


@dataclass(frozen=True)
class ExportJob:
    """What the view shows and how its pages are read again, from the app."""

    table: str
    title: str  # the query line
    shape: ItemShape
    page: Page[Any, Any, Any]  # the page shown: "this page" writes its items as they are
    first_number: int  # the stack's first page (a reopened stack may begin at page 3)
    series: tuple[PageSummary[Any, Any], ...]  # the stack's pages read, for the forecast
    count_words: str | None  # the query's count, when it has been counted
    folder: Path  # where the file goes unless another path is typed
    # Pages read fresh: (first page, last page or None for the end, cancel) -> pages.
    read: Callable[[int, int | None, CancelToken], Iterable[Page[Any, Any, Any]]]

    def pages(self, scope: Scope) -> int | None:
        """How many pages ``scope`` writes (None: unknown until read to the end)."""
        if scope == "page":
            return 1
        if scope == "stack":
            return self.page.number - self.first_number + 1
        return None


def forecast_text(job: ExportJob, scope: Scope) -> Text:
    text = Text()
    if scope == "page":
        text.append(
            f"Page {job.page.number}'s {job.page.shown:,} items as shown: nothing is read.\n"
        )
        return text
    guess: ExportForecast = forecast(job.series, job.pages(scope))
    per = (
        "cost not reported"
        if guess.per_page_units is None
        else f"~{guess.per_page_units:,.4g} {guess.unit}"
    )
    text.append(f"Forecast: {per} and ~{guess.per_page_calls:,.3g} calls a page ", style="bold")
    text.append(f"({guess.basis}).\n", style="dim")
    if scope == "stack":
        total = "" if guess.units is None else f", ~{guess.units:,.4g} {guess.unit}"
        text.append(
            f"Pages {job.first_number}-{job.page.number} read again fresh: "
            f"{guess.pages} pages, ~{guess.calls:,} calls{total}.\n"
        )
    else:
        counted = job.count_words or "not counted yet (# counts it; its forecast is free)"
        text.append(
            "The whole query read from its start, every page billed: as many pages as it "
            "holds. Count: "
        )
        text.append(plain_lines(counted))
        text.append("\n")
    return text


class ExportStep(Message):
    def __init__(self, step: ExportProgress) -> None:
        super().__init__()
        self.step = step


class ExportItemsScreen(Dialog[ExportResult | None]):
    BINDINGS = [
        Binding("escape", "stop_or_close", "Stop / close"),
        Binding("ctrl+s", "run", "Export"),
    ]

    def __init__(
        self,
        job: ExportJob,
        host: Host,
        finished: Callable[[ExportResult], None] = lambda result: None,
        *,
        now: Callable[[], datetime] = datetime.now,
    ) -> None:
        """``finished`` hears every export that ends, written or stopped (what it read
        was billed either way)."""
        super().__init__()
        self.job = job
        self.host = host
        self.finished = finished
        self.default_path = default_export_path(job.folder, job.table, "csv", now())
        self.token: CancelToken | None = None
        self.result: ExportResult | None = None

    def compose(self) -> ComposeResult:
        job = self.job
        with Vertical(id="export-box", classes="modal-box"):
            yield Label(plain(f"Export {job.title}"), classes="modal-title")
            with Horizontal(classes="export-row"):
                yield Label("What:", classes="export-label")
                with RadioSet(id="export-scope"):
                    yield RadioButton("This page", value=True, id="scope-page")
                    yield RadioButton(
                        f"Pages {job.first_number}-{job.page.number}", id="scope-stack"
                    )
                    yield RadioButton("Whole query", id="scope-query")
            with Horizontal(classes="export-row"):
                yield Label("Format:", classes="export-label")
                with RadioSet(id="export-format"):
                    yield RadioButton("CSV", value=True, id="format-csv")
                    yield RadioButton("JSON lines", id="format-jsonl")
            yield Input(value=str(self.default_path), id="export-path")
            yield Static(forecast_text(job, "page"), id="export-forecast")
            bar = ProgressBar(total=None, show_eta=False, id="export-progress")
            bar.display = False
            yield bar
            yield Static("", id="export-details")
            yield Label("", id="export-error", classes="field-error")
            yield Label(
                "Enter exports; Esc stops it (no file is left) or closes.",
                id="export-hint",
            )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @property
    def scope(self) -> Scope:
        pressed = self.query_one("#export-scope", RadioSet).pressed_index
        return SCOPES[max(pressed, 0)]

    @property
    def format(self) -> Format:
        pressed = self.query_one("#export-format", RadioSet).pressed_index
        return FORMATS[max(pressed, 0)]

    @on(RadioSet.Changed, "#export-scope")
    def _scope_changed(self) -> None:
        self.query_one("#export-forecast", Static).update(forecast_text(self.job, self.scope))

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self) -> None:
        field = self.query_one("#export-path", Input)
        path = Path(field.value.strip())
        if path.suffix.lower() in SUFFIXES.values():  # the user's own name, its suffix swapped
            field.value = str(path.with_suffix(SUFFIXES[self.format]))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_run()

    def _refuse(self, words: str) -> None:
        self.query_one("#export-error", Label).update(plain_lines(words))

    def action_run(self) -> None:
        if self.token is not None:
            return
        fmt, scope, job = self.format, self.scope, self.job
        try:
            path = checked_path(self.query_one("#export-path", Input).value, fmt)
            if path.parent == job.folder:
                make_folder(job.folder)
            if os.path.lexists(path):  # a dangling link too: nothing is written through it
                raise InputError(f"path: {path} exists; name another file (nothing is replaced)")
        except InputError as exc:
            self._refuse(str(exc))
            return
        self._refuse("")
        token = self.token = CancelToken()

        def pages() -> Iterable[Page[Any, Any, Any]]:
            if scope == "page":
                return [job.page.as_cached()]  # shown already: nothing read, nothing billed
            return job.read(job.first_number, job.pages(scope), token)

        def step(progress: ExportProgress) -> None:
            self.post_message(ExportStep(progress))  # from the worker's thread: posted

        def work() -> ExportResult:
            return write_export(path, fmt, job.shape, pages(), cancel=token, progress=step)

        bar = self.query_one(ProgressBar)
        bar.update(total=job.pages(scope), progress=0)
        bar.display = True
        self.query_one("#export-hint", Label).update("Exporting… Esc stops at the next call.")
        self.host.call(work, self._done, self._failed)

    @on(ExportStep)
    def _step(self, message: ExportStep) -> None:
        step = message.step
        self.query_one(ProgressBar).update(progress=step.pages)
        self.query_one("#export-details", Static).update(
            Text(
                f"{plural(step.pages, 'page')} · {plural(step.items, 'item')} · "
                + _spent(step.units, step.calls, step.unit)
            )
        )

    def _done(self, result: ExportResult) -> None:
        self.result = result
        self.finished(result)
        spent = _spent(result.units, result.calls, result.unit)
        if result.path is None:
            words = (
                f"Stopped: nothing written ({plural(result.pages, 'page')}, "
                f"{plural(result.items, 'item')} read; {spent})."
            )
        else:
            done = max(result.pages, 1)  # whole: 100%, never "--%" for a total not known
            self.query_one(ProgressBar).update(total=done, progress=done)
            words = (
                f"Written: {result.path}\n"
                f"{plural(result.items, 'item')}, {plural(result.pages, 'page')}; {spent}."
            )
        self.query_one("#export-details", Static).update(plain_lines(words))
        self.query_one("#export-hint", Label).update("Esc closes.")

    def _failed(self, error: BaseException) -> None:
        self.token = None
        self._refuse(error_words(error))
        self.query_one("#export-hint", Label).update(
            "Enter tries again; nothing was left at the path. Esc closes."
        )

    def action_stop_or_close(self) -> None:
        if self.token is not None and self.result is None:
            self.token.cancel()  # the stopped result arrives through the Host
            return
        self.dismiss(self.result)


def _spent(units: float | None, calls: int, unit: str) -> str:
    if not calls:
        return "nothing read"
    cost = f"{calls:,} calls"
    return cost if units is None else f"{cost}, {units:,.4g} {unit}"
