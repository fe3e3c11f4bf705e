"""What the one pager app needs from a database: the ``Adapter`` each database implements.

``PagerApp`` owns what every database shares (navigation, the cursor stack, jump, columns,
compare, sidebar, help, palette, clipboard, cursors); an adapter owns what only its
database knows: how to open, list and describe tables, its query form and orders, its
modes and direction, counting, the connection, the compare partner and the target of
generated code. The CLI builds ``PagerApp(DynamoDBAdapter(...))`` or
``PagerApp(PostgresAdapter(...))``; this module, like the rest of the generic UI, imports
no database package.

An adapter acts on the app it is given: it pushes its own screens and starts queries on a
view (``view.start``); its calls to the database run through ``app.call`` so the UI never
waits on them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from dynotui.core.errors import InputError
from dynotui.core.foreign import ForeignReader, ForeignStart
from dynotui.core.history import HistoryEntry, HistoryQuery
from dynotui.core.ledger import SessionLedger
from dynotui.core.money import PriceList
from dynotui.core.page import Cost
from dynotui.core.pager import Pager
from dynotui.report.model import Report
from dynotui.ui.actions import Action
from dynotui.ui.query import Boundary, Query

if TYPE_CHECKING:
    from dynotui.ui.app import PagerApp
    from dynotui.ui.widgets.pager_view import PagerView

Side = Literal["main", "compare"]


@dataclass(frozen=True)
class CursorStart:
    """Where a foreign cursor opens once its database has read it: page 1's start key,
    what to say of it, and what reading there cost (None: nothing was read)."""

    start_key: Boundary
    note: str
    origin: str
    cost: Cost | None = None


class Adapter(Protocol):
    @property
    def label(self) -> str:
        """The connection in words for the title bar, with no secret in it."""

    def actions(self) -> Sequence[Action]:
        """Every key in this database's words: bindings, footer, help and palette."""

    def client(self, side: Side) -> object:
        """The client a view reads through: the compare side may have one of its own."""

    def open(self, app: PagerApp) -> None:
        """Open what the command line asked for (a table, a query, or the table picker)."""

    def started(self, app: PagerApp) -> None:
        """The first screen is up: work deferred until then may begin."""

    def choose_table(self, app: PagerApp) -> None:
        """List the tables and open the one chosen on the main view."""

    def edit_query(self, app: PagerApp, view: PagerView) -> None:
        """The query form for ``view``'s query (or a new one)."""

    def choose_order(self, app: PagerApp, view: PagerView) -> None:
        """Pick another order for ``view``'s query."""

    def toggle_mode(self, app: PagerApp, view: PagerView) -> None:
        """The same query cut into pages the other way (a new stack)."""

    def flip_direction(self, app: PagerApp, view: PagerView) -> None:
        """The same query read backwards (a new stack from the start)."""

    def count(self, app: PagerApp, view: PagerView) -> None:
        """Count the matches of ``view``'s query; a count kept goes to ``app.counted``."""

    def reconnect(self, app: PagerApp) -> None:
        """Change the connection, or open it again; every stack is kept."""

    def refused(self, app: PagerApp, view: PagerView, query: Query, error: InputError) -> None:
        """A new query's first page was refused as bad input: its form again, holding what
        was typed, the error beside its field."""

    def compare_partner(self, query: Query) -> Query | None:
        """The query the compare view opens beside ``query`` (None: the user picks one)."""

    def prices(self) -> PriceList | None:
        """What a read unit costs, to show capacity as money (None: not billed per unit)."""

    def report(self, pagers: Sequence[Pager], ledger: SessionLedger, code_page: int) -> Report:
        """A report of ``pagers`` (one, or a compare's two, left first) and the session."""

    def code_target(self) -> object:
        """What generated code connects to (endpoint and credentials, or a URI)."""

    def foreign_reader(self, view: PagerView) -> ForeignReader | None:
        """How this database reads a foreign cursor for ``view``'s query (None: the query
        resumes only from dynotui's signed tokens)."""

    def foreign_start(
        self, view: PagerView, start: ForeignStart, note: str
    ) -> Callable[[], CursorStart] | None:
        """The read (run off the UI thread) that turns a checked foreign cursor for
        ``view``'s query into where page 1 starts: the AWS CLI's position past its key,
        a boundary as the server reads it. None: the query takes no foreign cursor."""

    def history_query(self, query: Query) -> HistoryQuery | None:
        """What history keeps of a query just opened (None: nothing is kept of it)."""

    def reopen(self, app: PagerApp, entry: HistoryEntry) -> None:
        """Open a history entry on the main view at the page it was left on, re-read from
        its stored start key."""

    def run(self, action: str, app: PagerApp, view: PagerView) -> None:
        """An action only this database has (one of its ``actions`` bound as ``db(...)``)."""

    def close(self) -> None:
        """The app is quitting: stop what runs on the server, let connections go. Must not
        wait on a server that does not answer."""
