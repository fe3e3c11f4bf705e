"""The opening's child process, forked as the command starts, before its options are parsed.

The opening (``dynamodb/opening.py``) reads the table and page 1 in a forked child while
the app loads Textual. The child's part is the longer: botocore loads, then the client
is made, then DescribeTable and Query. Forked only once the command line is parsed, the
child started a tenth of a second late (the parser and its option modules load first).
So when the command line plainly opens the app on DynamoDB, the child is forked at once:
it loads botocore and the opening while the parent parses, then waits for the options,
the table, the query form and where table shapes are kept (``ask`` sends them)
and reads as before.

Any doubt (a command, help, --postgres, an export, --resume, or an abbreviation of
them) forks nothing: the opening forks its child itself, as it always could. A child the
run turns out not to need is stopped (``release``); one whose parent ends reads an end
of file and leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dynotui.process.forked import Forked, Send, can_fork

# Options after which the run opens no DynamoDB table (or only prints): no early child.
NOT_OPENING = ("--help", "--version", "--postgres", "--from-export", "--resume")
# The subcommands (cli/main.py's COMMANDS): a word among the arguments may be one.
COMMAND_WORDS = (
    "demo",
    "local",
    "tables",
    "pages",
    "report",
    "count",
    "what-if",
    "plan",
    "cursor",
    "entities",
    "check",
    "exports",
    "mcp",
    "serve",
)

_child: Forked | None = None


def opens_dynamodb(argv: Sequence[str]) -> bool:
    """True when ``argv`` surely opens the app on DynamoDB (no command, no help, no
    PostgreSQL, export or resume, nor a prefix argparse would read as one of them)."""
    for arg in argv:
        if arg in COMMAND_WORDS or arg == "-h":
            return False
        if arg.startswith("--"):
            name = arg.split("=", 1)[0]
            if len(name) > 2 and any(option.startswith(name) for option in NOT_OPENING):
                return False
    return True


def start(argv: Sequence[str]) -> None:
    """Fork the opening's child now if ``argv`` surely opens the app on DynamoDB."""
    global _child
    if _child is None and can_fork() and opens_dynamodb(argv):
        _child = Forked(_load_then_open)


def take() -> Forked | None:
    """The child forked at start, for the opening to send its request to (once)."""
    global _child
    child, _child = _child, None
    return child


def ask(options: Any, table: str | None, form: Any, shapes: Any) -> Forked | None:
    """Send the child forked at start what to open: the connection's options, the table,
    the query form and where table shapes are kept (None: nowhere). Sent as soon as the
    command line is read, before the app's first frame, so the child reads while the app
    loads. The child, for ``Opening.start``; None if there is none, or it has ended."""
    child = take()
    if child is None:
        return None
    try:
        child.send((options, table, form, shapes))
    except EOFError:
        return None
    return child


def release() -> None:
    """This run opens no DynamoDB table: stop the child forked for it, if any."""
    child = take()
    if child is not None:
        child.close()


def _load_then_open(send: Send, receive: Callable[[], Any]) -> None:
    """In the child: load what reading the table takes, then read it as asked."""
    # make_client's own imports, loaded now, while the parent parses.
    import botocore.config
    import botocore.exceptions
    import botocore.session  # noqa: F401

    from dynotui.dynamodb.opening import Opening

    request = receive()
    if request is None:  # the parent has gone, or needs nothing
        return
    options, table, form, shapes = request
    Opening(options, table, form, fork=False, shapes=shapes).in_child(send, receive)
