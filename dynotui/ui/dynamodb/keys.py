"""The DynamoDB adapter's keys: the generic ones in DynamoDB's words, PartiQL beside the
order picker, what-if and plan beside count, the entity keys beside the column picker."""

from __future__ import annotations

from dynotui.ui.actions import GENERIC, Action, reworded, with_extra
from dynotui.ui.dynamodb.plans import PLAN
from dynotui.ui.dynamodb.what_ifs import WHAT_IF

WORDS = {
    "edit_query": ("Query", "Edit the query: keys, filter, projection, page size"),
    "choose_order": ("Order", "Choose a sort order: base table, LSI or GSI"),
    "toggle_mode": ("Raw/Fill", "Toggle raw and fill mode (a new cursor stack)"),
    "compare": ("Compare", "Compare two sort orders side by side"),
    "connection": ("Connection", "Change profile, region, endpoint or timeouts"),
    "show_code": ("Code", "Code that reproduces this page: boto3, AWS CLI, JS"),
    "copy_item(True)": ("Copy item (DynamoDB JSON)", "Copy the item, lossless"),
    "copy_page": ("Copy page", "Copy the page as JSON lines (DynamoDB JSON)"),
    "copy_start_key": ("Copy start key", "Copy this page's start key (DynamoDB JSON)"),
    "paste_cursor": ("Paste cursor", "Open the page a pasted cursor token points at"),
    "inspect_cursor": ("Inspect cursor", "Decode a cursor token and check it"),
}
PARTIQL = Action("colon", "db('partiql')", "PartiQL", "Page a PartiQL SELECT (ExecuteStatement)")
# A single-table design's entities: the rows of one kept in view (the app's own action,
# on the entity names the query gives), and the table of entities (this adapter's).
ENTITY_KEYS = [
    Action(
        "l",
        "entity_filter",
        "Entity filter",
        "Keep one entity's rows in view, the next each time, then all: on the pages read, "
        "client-side (no filter is sent, nothing is read)",
    ),
    Action(
        "L",
        "db('entities')",
        "Entities",
        "The table's entities (a single-table design): counts, sizes, attributes and read "
        "units, from a bounded sample or an export",
    ),
]
ACTIONS = with_extra(
    with_extra(
        with_extra(reworded(GENERIC, WORDS), "choose_order", [PARTIQL]), "count", [WHAT_IF, PLAN]
    ),
    "choose_columns",
    ENTITY_KEYS,
)
