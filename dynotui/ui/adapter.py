"""What the one pager app needs from a database: the ``Adapter`` each database implements.

``PagerApp`` owns what every database shares (navigation, the cursor stack, jump, columns,
compare, sidebar, help, palette, clipboard, cursors); an adapter owns what only its
database knows: how to open, list and describe tables, its query form and orders, its
modes and direction, counting, the connection, the compare partner and the target of
generated code. The CLI builds ``PagerApp(DynamoDBAdapter(...))`` or
``PagerApp(PostgresAdapter(...))``; this module, like the rest of the generic UI, imports
no database package.

The app asks, the adapter answers: each method gets the data it needs (``Shown``: the
query and stack on the view a key was pressed on) and a ``Host`` (``ui/host.py``: show a
screen, run work off the UI thread, open a table, say something), and answers with data:
a ``NewStack`` to open (through ``answer``, since it may come after a form or a call), a
screen, a reader, words. An adapter never sees the app or a view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, Protocol

from dynotui.core.errors import InputError
from dynotui.core.history import HistoryEntry, HistoryQuery
from dynotui.core.ledger import SessionLedger
from dynotui.core.money import PriceList
from dynotui.core.page import C, I, K, Page
from dynotui.core.pager import Pager
from dynotui.core.segments import SegmentedRead
from dynotui.ui.actions import Action
from dynotui.ui.host import Counted, Host
from dynotui.ui.query import Query

if TYPE_CHECKING:
    # Foreign cursors are read only when one is pasted (issue 46: not before the first frame).
    from dynotui.core.foreign import ForeignReader, ForeignStart
    from dynotui.report.model import Report  # made by the report, when one is asked for

Side = Literal["main", "compare"]


@dataclass(frozen=True)
class Shown(Generic[K, I, C]):
    """A view's query and stack as an adapter reads them (None: no query yet), and the
    main view's query (a compare side with no query of its own starts from it)."""

    query: Query[K, I, C] | None = None
    pager: Pager[K, I, C] | None = None
    origin: str = ""
    main_query: Query[K, I, C] | None = None

    @property
    def queries(self) -> list[Query[K, I, C]]:
        """This view's query, then the main view's: the one to start a form from."""
        return [q for q in (self.query, self.main_query) if q is not None]


@dataclass(frozen=True)
class FirstPage(Generic[K, I, C]):
    """Page 1 of a new stack read before the app was ready (``dynotui -t T -p V``)."""

    pager: Pager[K, I, C]
    page: Page[C, K, I]


@dataclass(frozen=True)
class Segments(Generic[K, I, C]):
    """A read split into segments that a view pages one at a time (a parallel Scan):
    the core's ``SegmentedRead`` (a pager per segment, each its own cursor stack) and each
    segment's own query (its words, code and scope name the segment)."""

    read: SegmentedRead
    queries: tuple[Query[K, I, C], ...]

    def __post_init__(self) -> None:
        if len(self.queries) != len(self.read.segments):
            raise ValueError("a query per segment")


@dataclass(frozen=True)
class NewStack(Generic[K, I, C]):
    """An adapter's answer: open this query as a new stack on the view asked about.

    It replaces what the view shows only once its first page has been read. The first
    page starts at ``start_key`` (or ``key_json``, a stored boundary checked as the
    source checks any, e.g. a history entry's) and is numbered ``first_number``, so a
    stack reopened at page 3 goes on with pages 3, 4, ... ``note`` is said once, when the
    first page arrives; ``origin`` says on the query line where page 1 came from. With
    ``segments``, ``query`` is the whole read's and the view opens on segment 0."""

    query: Query[K, I, C]
    start_key: K | None = None
    note: str = ""
    origin: str = ""
    first_number: int = 1
    key_json: object = None
    first_page: FirstPage[K, I, C] | None = None
    segments: Segments[K, I, C] | None = None  # paged a segment at a time, from segment 0


Answer = Callable[[NewStack[K, I, C]], None]


@dataclass(frozen=True)
class CursorStart(Generic[K, C]):
    """Where a foreign cursor opens once its database has read it: page 1's start key,
    what to say of it, and what reading there cost (None: nothing was read)."""

    start_key: K | None
    note: str
    origin: str
    cost: C | None = None


class Adapter(Protocol[K, I, C]):
    """One database in the app, generic over its boundary ``K``, item ``I`` and cost
    ``C`` (those of its queries and sources).

    An adapter subclasses this protocol. The members above the line are what every
    database must answer (its connection's name, its keys, opening, tables, the query form
    and orders, closing); mypy refuses an adapter that leaves one out. The rest have
    defaults that say the database has no such thing (no other mode, no count, no
    history, no foreign cursor, ...): an adapter overrides those it has."""

    # -- what every adapter answers ---------------------------------------------------------

    @property
    def label(self) -> str:
        """The connection in words for the title bar, with no secret in it."""
        ...

    def actions(self) -> Sequence[Action]:
        """Every key in this database's words: bindings, footer, help and palette."""
        ...

    def client(self, side: Side) -> object:
        """The client a view reads through: the compare side may have one of its own."""
        ...

    def open(self, host: Host, answer: Answer[K, I, C]) -> None:
        """Open what the command line asked for on the main view (a table, a query, a
        history entry, or the table picker)."""
        ...

    def choose_table(self, host: Host, answer: Answer[K, I, C]) -> None:
        """List the tables; the one chosen is opened on the main view."""
        ...

    def edit_query(self, host: Host, shown: Shown[K, I, C], answer: Answer[K, I, C]) -> None:
        """The query form for ``shown``'s query (or a new one)."""
        ...

    def choose_order(self, host: Host, shown: Shown[K, I, C], answer: Answer[K, I, C]) -> None:
        """Pick another order for ``shown``'s query."""
        ...

    def close(self) -> None:
        """The app is quitting: stop what runs on the server, let connections go. Must not
        wait on a server that does not answer."""
        ...

    # -- what an adapter may answer (defaults: the database has no such thing) ------------

    def started(self) -> None:
        """The first screen is up: work deferred until then may begin."""
        return None  # a body, so mypy does not take the default for a required member

    def toggle_mode(self, host: Host, shown: Shown[K, I, C]) -> NewStack[K, I, C] | None:
        """The same query cut into pages the other way (a new stack)."""
        host.say("This database pages one way only.", severity="warning")
        return None

    def flip_direction(self, host: Host, shown: Shown[K, I, C]) -> NewStack[K, I, C] | None:
        """The same query read backwards (a new stack from the start)."""
        host.say("This database reads its orders one way only.", severity="warning")
        return None

    def count(
        self, host: Host, shown: Shown[K, I, C], counted: Callable[[Counted | None], None]
    ) -> None:
        """Count the matches of ``shown``'s query (its screen); a count kept goes to
        ``counted``, which keeps it for that query."""
        host.say("This database has no count.", severity="warning")

    def reconnect(self, host: Host, shown: Shown[K, I, C]) -> None:
        """Change the connection, or open it again; every stack is kept (the adapter
        calls ``host.connection_changed`` once connected)."""
        host.say("This connection cannot be changed here.", severity="warning")

    def refused(
        self, host: Host, query: Query[K, I, C], error: InputError, answer: Answer[K, I, C]
    ) -> None:
        """A new query's first page was refused as bad input: its form again, holding what
        was typed, the error beside its field (by default: the error, said)."""
        host.fail(error, "Query")

    def compare_partner(self, query: Query[K, I, C]) -> Query[K, I, C] | None:
        """The query the compare view opens beside ``query`` (None: the user picks one)."""
        return None

    def prices(self) -> PriceList | None:
        """What a read unit costs, to show capacity as money (None: not billed per unit)."""
        return None

    def report(
        self, pagers: Sequence[Pager[K, I, C]], ledger: SessionLedger, code_page: int
    ) -> Report:
        """A report of ``pagers`` (one, or a compare's two, left first) and the session."""
        raise InputError("This database has no report.")

    def code_target(self) -> object:
        """What generated code connects to (endpoint and credentials, or a URI)."""
        return None

    def foreign_reader(self, shown: Shown[K, I, C]) -> ForeignReader | None:
        """How this database reads a foreign cursor for ``shown``'s query (None: the query
        resumes only from dynotui's signed tokens)."""
        return None

    def foreign_start(
        self, shown: Shown[K, I, C], start: ForeignStart, note: str
    ) -> Callable[[], CursorStart[K, C]] | None:
        """The read (run off the UI thread) that turns a checked foreign cursor for
        ``shown``'s query into where page 1 starts: the AWS CLI's position past its key,
        a boundary as the server reads it. None: the query takes no foreign cursor."""
        return None

    def history_query(self, query: Query[K, I, C]) -> HistoryQuery | None:
        """What history keeps of a query just opened (None: nothing is kept of it)."""
        return None

    def reopen(self, host: Host, entry: HistoryEntry, answer: Answer[K, I, C]) -> None:
        """A history entry as a new stack on the main view, numbered from the page it was
        left on and re-read from that page's stored start key."""
        host.say("This database keeps no history to reopen.", severity="warning")

    def palette(self, shown: Shown[K, I, C]) -> Sequence[Action]:
        """Keys of ``actions`` worded after what ``shown`` holds, for the command palette
        (an advisor's finding names the index a what-if would estimate); the rest keep
        their words."""
        return ()

    def run(self, action: str, host: Host, shown: Shown[K, I, C], answer: Answer[K, I, C]) -> None:
        """An action only this database has (one of its ``actions`` bound as ``db(...)``)."""
        return None
