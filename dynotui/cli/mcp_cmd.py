"""``dynotui mcp``: dynotui's read-only commands as a Model Context Protocol server on
stdio, for coding agents (the tools: ``cli/mcp_tools.py``).

Calls run one at a time on a worker thread, so the protocol keeps answering while a read
is in flight and two calls never share a cap. Any failure of a call is that call's tool
error in one line, never the server's end.
"""

from __future__ import annotations

import argparse
import math
import threading
from pathlib import Path
from typing import Any

from dynotui.cli.mcp_tools import (
    DEFAULT_MAX_READ_UNITS,
    TOOLS,
    argument_words,
    description,
    input_schema,
    run_tool,
)
from dynotui.cli.number_flags import seconds
from dynotui.cli.options import HelpFormatter, add_connection_options
from dynotui.core.errors import DynotuiError, InputError, error_words
from dynotui.core.extras import missing
from dynotui.core.text import visible


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "mcp",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Serve dynotui's read-only commands to coding agents over the Model Context "
            "Protocol, on stdin and stdout: tools "
            + ", ".join(t.name for t in TOOLS)
            + ", each taking its command's flags in snake_case (values in DynamoDB JSON) "
            "and answering with its command's JSON, costs included. Nothing is written to "
            "any table; PartiQL runs SELECT only; each call reads at most --max-read-units. "
            "Needs the mcp extra (the mcp package) in dynotui's install."
        ),
    )
    parser.add_argument(
        "--max-read-units",
        type=seconds,
        default=DEFAULT_MAX_READ_UNITS,
        metavar="N",
        help="the most a tool call may read, and its default (a page is never cut)",
    )
    parser.add_argument(
        "--root",
        metavar="DIR",
        default=".",
        help="the folder whose patterns files and receipts the check tool may read",
    )
    add_connection_options(parser)
    parser.set_defaults(run=run)


def one_line(error: BaseException) -> str:
    words = " ".join(error_words(error).split())
    if not isinstance(error, DynotuiError):
        words = f"unexpected {words}"
    return visible(words)


def build_server(connection: argparse.Namespace, cap: float, root: Path) -> Any:
    """The MCP server: its tool list, and each call run by its command."""
    import anyio.to_thread
    import mcp_types as types
    from mcp.server import Server

    from dynotui.version import package_version

    tools = {t.name: t for t in TOOLS}
    listed = [
        types.Tool(
            name=t.name,
            description=description(t, cap),
            input_schema=input_schema(t, cap),
            annotations=types.ToolAnnotations(
                read_only_hint=True, destructive_hint=False, open_world_hint=False
            ),
        )
        for t in TOOLS
    ]
    one_at_a_time = threading.Lock()

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        tool = tools.get(name)
        if tool is None:
            raise InputError(f"no tool {name!r} (tools: {', '.join(tools)})")
        with one_at_a_time:
            return run_tool(tool, arguments, connection, cap, root)

    async def call_tool(ctx: Any, params: Any) -> Any:
        import json

        try:
            found = await anyio.to_thread.run_sync(call, params.name, params.arguments or {})
        except BaseException as exc:  # a call's failure is its error, never the server's
            if not isinstance(exc, Exception):
                raise
            words, tool = one_line(exc), tools.get(params.name)
            if tool is not None:
                words = argument_words(tool, words)
            return types.CallToolResult(content=[types.TextContent(text=words)], is_error=True)
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(found, ensure_ascii=False))],
            structured_content=found,
        )

    return Server(
        "dynotui",
        version=package_version(),
        instructions=(
            "dynotui reads DynamoDB read-only: list tables, describe one, page a Query, Scan "
            "or PartiQL SELECT with its cost per page, count, estimate an index that does not "
            "exist, check access patterns against budgets, plan every path that answers a "
            "query (or every pattern of a file), tell a single-table design's entities apart. "
            f"Each call reads at most {cap:g} "
            "read units unless it asks for fewer."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def run(args: argparse.Namespace) -> int:
    cap = args.max_read_units
    if not (math.isfinite(cap) and cap > 0):
        raise InputError("--max-read-units must be a finite number above 0")
    root = Path(args.root)
    if not root.is_dir():
        raise InputError(f"--root {args.root} is not a folder")
    try:
        import anyio
        from mcp.server.stdio import stdio_server
    except ImportError:
        raise InputError(missing("mcp", "dynotui mcp (the mcp package)")) from None
    server = build_server(args, cap, root)

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)
    return 0
