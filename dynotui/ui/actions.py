"""The app's keys: one table per database, for the bindings, the footer, the help
screen and the command palette alike."""

from __future__ import annotations

from textual.binding import Binding, BindingType

Action = tuple[str, str, str, str, bool]

# key, action, title, help, shown in the footer; the help screen and the command
# palette list them all. Help comes first so that a narrow footer still shows it.
ACTIONS: list[Action] = [
    ("question_mark", "help", "Help", "Every key, and what it does", True),
    (
        "n,right_square_bracket",
        "next",
        "Next",
        "Read the next page from its stored start key",
        True,
    ),
    (
        "p,left_square_bracket",
        "prev",
        "Prev",
        "Previous page: cached, or re-read from its start key",
        True,
    ),
    ("g", "first", "First", "Go to page 1", False),
    ("j", "jump", "Jump", "Go to page N: read every page up to it, drawing the last", False),
    ("r", "refresh", "Refresh", "Re-read the current page", False),
    ("R", "retry", "Retry", "Retry the move that failed", False),
    ("escape", "cancel", "Cancel", "Stop the read in flight and forget held n presses", False),
    ("e", "edit_query", "Query", "Edit the query: keys, filter, projection, page size", True),
    ("o", "choose_order", "Order", "Choose a sort order: base table, LSI or GSI", True),
    ("colon", "partiql", "PartiQL", "Page a PartiQL SELECT (ExecuteStatement)", False),
    ("m", "toggle_mode", "Raw/Fill", "Toggle raw and fill mode (a new cursor stack)", False),
    ("d", "flip_direction", "Direction", "Flip the direction (a new stack from the start)", False),
    ("s", "show_stack", "Stack", "The cursor stack and what each page cost; Enter jumps", True),
    ("w", "compare", "Compare", "Compare two sort orders side by side", True),
    ("number_sign", "count", "Count", "Count the matches: forecast, progress, cost", True),
    ("t", "choose_table", "Tables", "Choose another table", False),
    ("f", "choose_columns", "Columns", "Show, hide and reorder the grid's columns", False),
    ("b", "toggle_sidebar", "Sidebar", "Sidebar, or a one-line cost strip", False),
    ("E", "connection", "Connection", "Change profile, region, endpoint or timeouts", False),
    ("c", "show_code", "Code", "Code that reproduces this page: boto3, AWS CLI, JS", True),
    ("y", "copy_item(False)", "Copy item", "Copy the selected item as plain JSON", False),
    ("Y", "copy_item(True)", "Copy item (DynamoDB JSON)", "Copy the item, lossless", False),
    ("a", "copy_page", "Copy page", "Copy the page as JSON lines (DynamoDB JSON)", False),
    ("k", "copy_next_token", "Copy next cursor", "Copy a signed cursor of the next page", False),
    ("K", "copy_current_token", "Copy this cursor", "Copy a signed cursor of this page", False),
    ("x", "copy_start_key", "Copy start key", "Copy this page's start key (DynamoDB JSON)", False),
    ("v", "paste_cursor", "Paste cursor", "Open the page a pasted cursor token points at", False),
    ("i", "inspect_cursor", "Inspect cursor", "Decode a cursor token and check it", False),
    ("q", "quit", "Quit", "Quit dynotui (at once, whatever is in flight)", True),
]

# PostgreSQL: the same keys, in its own words; PartiQL is DynamoDB's alone.
PG_WORDS = {
    "edit_query": ("Query", "Edit the query: order, filter and its parameters, columns, size"),
    "choose_order": ("Order", "Choose an order: the primary key, an index, or any columns"),
    "partiql": ("PartiQL", "DynamoDB only"),
    "toggle_mode": ("Keyset/Offset", "Toggle keyset and OFFSET paging (a new cursor stack)"),
    "flip_direction": ("Reverse", "Read the order backwards (a new stack from the start)"),
    "compare": ("Compare", "Keyset beside OFFSET, or two orders, side by side"),
    "count": ("Count", "The free estimate, then count(*) with its buffers and time"),
    "connection": ("Reconnect", "Open the connection again (after the server went away)"),
    "show_code": ("Code", "Code that reproduces this page: SQL, Python (psycopg)"),
    "copy_item(True)": ("Copy row (typed)", "Copy the row with its column types"),
    "copy_item(False)": ("Copy row", "Copy the selected row as JSON (values as text)"),
    "copy_page": ("Copy page", "Copy the page as JSON lines"),
    "copy_start_key": ("Copy boundary", "Copy this page's boundary (its sort values) as JSON"),
}
PG_ACTIONS: list[Action] = [
    (key, action, *PG_WORDS.get(action, (title, help_text)), shown)
    for key, action, title, help_text, shown in ACTIONS
    if action != "partiql"
]


def bindings(actions: list[Action]) -> list[BindingType]:
    return [
        Binding(key, action, title, show=shown, tooltip=help_text)
        for key, action, title, help_text, shown in actions
    ]
