"""``dynotui serve``: the pager in a browser, one app per tab (textual-serve), on this
machine only unless ``--host`` says otherwise, behind a URL with a one-time token."""

from __future__ import annotations

import argparse
import ipaddress
import secrets
import shlex
import socket
import sys
from typing import Any

from dynotui.cli import tui_cmd
from dynotui.cli.number_flags import whole
from dynotui.cli.options import HelpFormatter, add_connection_options
from dynotui.core.errors import InputError
from dynotui.core.extras import missing

LOOPBACK = "127.0.0.1"
SERVE_OPTIONS = {"host", "port", "public_url"}  # the rest are the app's, passed on


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "serve",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Serve the pager to a web browser: the first line printed is the URL to open, "
            "holding a random token made for this server; a request without it is refused "
            "(HTTP 403). Each browser tab runs its own dynotui, with the options given here "
            "(the same as dynotui's own), ended when the tab closes. Ctrl-C stops the "
            "server. It listens on 127.0.0.1 only unless --host names another address: "
            "whoever opens the URL reads your tables with this machine's AWS credentials."
        ),
    )
    group = parser.add_argument_group("serving")
    group.add_argument(
        "--host",
        default=LOOPBACK,
        help="the address to listen on; another than 127.0.0.1 is served with a warning",
    )
    group.add_argument(
        "--port", type=whole, default=0, help="the port to listen on (default: any free port)"
    )
    group.add_argument(
        "--public-url",
        metavar="URL",
        help="the server's address as a browser reaches it, e.g. behind a tunnel "
        "(default: http://HOST:PORT)",
    )
    tui_cmd.add_open_options(parser)
    add_connection_options(parser)
    parser.set_defaults(run=run, app_parser=parser)


def app_argv(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The command line of one app: every option of dynotui's own given to serve, as given
    (a value equal to its default is left to the default)."""
    argv: list[str] = []
    for action in parser._actions:  # argparse has no public list of its options
        if not action.option_strings or action.dest in SERVE_OPTIONS | {"help", "run"}:
            continue
        value = getattr(args, action.dest, action.default)
        if value is None or value == action.default:
            continue
        flag = max(action.option_strings, key=len)
        if action.nargs == 0 or (action.nargs == "?" and value == action.const):
            argv.append(flag)  # a switch, or a flag given without its optional value
        else:
            argv.append(f"{flag}={value}")  # one word, even for a value that begins with -
    return argv


def is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, bound before the URL is printed, so the URL's port is the one."""
    if not 0 <= port <= 65535:
        raise InputError(f"--port must be 0 to 65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise InputError(f"--host {host!r} is not an address of this machine: {exc}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host} port {port}: {exc.strerror}") from None
    return sock


def run(args: argparse.Namespace) -> int:
    try:
        from dynotui.ui.serve import TokenServer
    except ImportError:
        raise InputError(missing("serve", "dynotui serve (textual-serve)")) from None
    from dynotui.cli.app_launch import read_ahead_pages
    from dynotui.cli.price_options import prices_from_args

    # What every tab's app would refuse is said once here, before anything listens.
    read_ahead_pages(args)
    prices_from_args(args)
    sock = bind(args.host, args.port)  # a --host that is no address: one line, no warning
    if not is_loopback_host(args.host):
        print(
            f"dynotui serve: warning: listening on {args.host}, not 127.0.0.1 only: anyone "
            "who can reach it and has the URL reads your tables with this machine's AWS "
            "credentials",
            file=sys.stderr,
        )
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    app = [sys.executable, "-m", "dynotui", *app_argv(args.app_parser, args)]
    command = "exec " + shlex.join(app)  # the server holds the app's process, not a shell
    server = TokenServer(
        command,
        token=secrets.token_urlsafe(24),
        host=args.host,
        port=port,
        public_url=(args.public_url or f"http://{host}:{port}").rstrip("/"),
    )
    print(server.url, flush=True)  # the first line: what to open
    print(
        "Each browser tab runs its own dynotui, ended when the tab closes; the URL is this "
        "server's only way in. Ctrl-C stops it.",
        flush=True,
    )
    try:
        server.serve_on(sock)
    finally:
        sock.close()
    return 0
