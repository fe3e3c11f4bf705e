"""What the app's process loads before its first frame (issue 46): every module imported on
the way from ``dynotui --table-name T --partition-value P`` to the first screen is paid for
before anything is drawn. What is wanted only later (a PartiQL statement typed, a history
entry written or reopened, a mode or direction changed, entity marks on a page, a cursor
pasted) and the heavy libraries (the child process loads botocore; DuckDB, PostgreSQL,
MCP, Jinja only with their commands) load when used, not here. In a fresh interpreter, no timing."""

from __future__ import annotations

import subprocess
import sys

# What the parent imports as the command opens the app on DynamoDB (cli/entry.py,
# cli/tui_cmd.py's run, cli/app_launch.py's preload_ui and open_app), in that order.
START_PATH = (
    "import dynotui.cli.entry, dynotui.cli.main, dynotui.cli.tui_cmd\n"
    "import dynotui.cli.app_launch as launch\n"
    "import dynotui.cli.options, dynotui.cli.price_options\n"
    "import dynotui.dynamodb.opening, dynotui.dynamodb.query_form\n"
    "import dynotui.dynamodb.table_shapes, dynotui.core.history\n"
    "launch.preload_ui()\n"
    "import dynotui.dynamodb.connection, dynotui.ui.app, dynotui.ui.dynamodb.adapter\n"
)

LATER = (
    # the libraries of other commands and of the child process
    "botocore",
    "boto3",
    "duckdb",
    "psycopg",
    "pglast",
    "mcp",
    "jinja2",
    # dynotui's own, wanted only once the first screen is up
    "dynotui.dynamodb.partiql",
    "dynotui.dynamodb.partiql_grammar",
    "dynotui.dynamodb.history_entry",
    "dynotui.dynamodb.entities.marker",
    "dynotui.ui.dynamodb.restart",
    "dynotui.ui.dynamodb.reopen",
    "dynotui.core.foreign",
    "dynotui.core.pasted",
)


def loaded_on(path: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``path``."""
    script = path + "import sys\nprint('\\n'.join(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def among(loaded: set[str], packages: tuple[str, ...]) -> list[str]:
    """The modules of ``loaded`` that are ``packages`` or inside them."""
    return sorted(
        module
        for module in loaded
        if any(module == name or module.startswith(name + ".") for name in packages)
    )


def test_the_start_path_loads_nothing_wanted_only_later() -> None:
    loaded = loaded_on(START_PATH)
    assert "dynotui.ui.app" in loaded and "textual.app" in loaded  # the path ran
    early = among(loaded, LATER)
    assert early == []


# What the parent imports before a start's first frame (cli/tui_cmd.py's run with a child
# forked at start, cli/app_launch.py's open_app_first up to PagerApp.run).
FIRST_FRAME_PATH = (
    "import dynotui.cli.entry, dynotui.cli.early_open, dynotui.cli.main, dynotui.cli.tui_cmd\n"
    "import dynotui.cli.app_launch, dynotui.cli.options, dynotui.cli.price_options\n"
    "import dynotui.dynamodb.query_form, dynotui.dynamodb.table_shapes, dynotui.core.history\n"
    "import dynotui.dynamodb.connection, dynotui.ui.app, dynotui.ui.starting\n"
)

# The app's parts, made once the first frame is drawn (ui/starting.py): the opening, the
# adapter, the main screen and its widgets, the session's ledger and the pager.
AFTER_THE_FIRST_FRAME = (
    "dynotui.dynamodb.opening",
    "dynotui.dynamodb.source",
    "dynotui.dynamodb.advice",
    "dynotui.ui.dynamodb",
    "dynotui.ui.adapter",
    "dynotui.ui.screens",
    "dynotui.ui.widgets.pager_view",
    "dynotui.ui.widgets.grid",
    "dynotui.ui.widgets.sidebar",
    "dynotui.ui.session",
    "dynotui.ui.share",
    "dynotui.ui.history",
    "dynotui.core.pager",
    "dynotui.core.ledger",
    "dynotui.core.figures_text",
    "dynotui.core.cursor",
    "botocore",
)


def test_the_first_frame_comes_before_the_apps_parts() -> None:
    loaded = loaded_on(FIRST_FRAME_PATH)
    assert "dynotui.ui.starting" in loaded and "textual.app" in loaded  # the path ran
    assert among(loaded, AFTER_THE_FIRST_FRAME) == []
