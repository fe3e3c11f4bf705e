"""The app's keys: one table, in each database's words, for the bindings, the footer, the
help screen and the command palette alike.

``GENERIC`` holds every key the pager has on any database, in words that fit any; an
adapter rewords what its database says differently (``reworded``) and adds keys only it
has (``with_extra``), whose action is ``db('name')``: the app hands those to the adapter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple


class Action(NamedTuple):
    keys: str  # Textual key names, comma-separated
    action: str
    title: str
    help: str
    footer: bool = False  # shown in the footer (every key is in the help and the palette)


# Help comes first and Quit second, so that a narrow footer still shows both.
GENERIC: tuple[Action, ...] = (
    Action("question_mark", "help", "Help", "Every key, and what it does", True),
    Action("q", "quit", "Quit", "Quit dynotui (at once, whatever is in flight)", True),
    Action("n", "next", "Next", "Read the next page from its start", True),
    Action("p", "prev", "Prev", "Previous page: cached, or re-read from its start", True),
    Action(
        "right_square_bracket",
        "segment(1)",
        "Next segment",
        "A parallel Scan: the next segment, on its own stack's page (else the next page)",
    ),
    Action(
        "left_square_bracket",
        "segment(-1)",
        "Prev segment",
        "A parallel Scan: the previous segment, on its own stack's page (else the previous page)",
    ),
    Action("g", "first", "First", "Go to page 1"),
    Action(
        "j",
        "jump",
        "Jump",
        "Go to page N; past the stack, every page to it is read (forecast first: pages, "
        "time, cost); Esc stops",
    ),
    Action("r", "refresh", "Refresh", "Re-read the current page"),
    Action("R", "retry", "Retry", "Retry the move that failed"),
    Action("escape", "cancel", "Cancel", "Stop the read in flight and forget held n presses"),
    Action("e", "edit_query", "Query", "Edit the query", True),
    Action("o", "choose_order", "Order", "Choose another order", True),
    Action("m", "toggle_mode", "Mode", "Cut pages the other way (a new cursor stack)"),
    Action("d", "flip_direction", "Direction", "Flip the direction (a new stack from the start)"),
    Action(
        "s", "show_stack", "Stack", "The cursor stack and what each page cost; Enter jumps", True
    ),
    Action("w", "compare", "Compare", "Two pagers side by side", True),
    Action("number_sign", "count", "Count", "Count the matches: forecast, progress, cost", True),
    Action("t", "choose_table", "Tables", "Choose another table", True),
    Action("h", "history", "History", "Queries opened before: Enter reopens one at its page", True),
    Action("f", "choose_columns", "Columns", "Show, hide and reorder the grid's columns"),
    Action("b", "toggle_sidebar", "Sidebar", "Sidebar, or a two-line cost strip"),
    Action(
        "B",
        "scroll_sidebar",
        "Scroll sidebar",
        "The sidebar a screenful further down; from its end, back to its top",
        True,
    ),
    Action("E", "connection", "Connection", "The connection: change it, or open it again"),
    Action("c", "show_code", "Code", "Code that reproduces this page", True),
    Action(
        "S",
        "report",
        "Report",
        "Write a report to share: this query (or the compare) and the session, HTML and Markdown",
        True,
    ),
    Action("y", "copy_item(False)", "Copy item", "Copy the selected item as plain JSON"),
    Action("Y", "copy_item(True)", "Copy item (typed)", "Copy the item with its types"),
    Action("a", "copy_page", "Copy page", "Copy the page as JSON lines"),
    Action("k", "copy_next_token", "Copy next cursor", "Copy a signed cursor of the next page"),
    Action("K", "copy_current_token", "Copy this cursor", "Copy a signed cursor of this page"),
    Action("x", "copy_start_key", "Copy start key", "Copy this page's start (as JSON)"),
    Action(
        "X",
        "export_items",
        "Export",
        "Export this page, the stack's pages or the whole query to a CSV or JSON lines file",
    ),
    Action("v", "paste_cursor", "Paste cursor", "Open the page a pasted cursor points at"),
    Action("i", "inspect_cursor", "Inspect cursor", "Decode a cursor and check it"),
)


def reworded(actions: Sequence[Action], words: Mapping[str, tuple[str, str]]) -> list[Action]:
    """``actions`` with the (title, help) of some actions in a database's own words."""
    return [
        action._replace(title=words[action.action][0], help=words[action.action][1])
        if action.action in words
        else action
        for action in actions
    ]


def with_extra(actions: Sequence[Action], after: str, extra: Sequence[Action]) -> list[Action]:
    """``actions`` with ``extra`` (a database's own keys) placed after action ``after``."""
    out: list[Action] = []
    for action in actions:
        out.append(action)
        if action.action == after:
            out.extend(extra)
    return out
