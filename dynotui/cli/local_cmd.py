"""``dynotui local``: run DynamoDB Local in memory until Ctrl-C."""

from __future__ import annotations

import argparse
import threading
from typing import Any

from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "local",
        help="run DynamoDB Local in memory (fetched once into the cache) until Ctrl-C",
        description="Find or fetch DynamoDB Local, start it in memory, print its endpoint.",
    )
    parser.add_argument("--port", type=int, help="port to listen on (default: a free one)")
    parser.add_argument(
        "--fetch-only", action="store_true", help="only find or fetch the files; print the folder"
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.fetch_only:
        print(ensure_home())
        return 0
    with DynamoDBLocal(port=args.port) as server:
        print(f"DynamoDB Local is running at {server.endpoint_url} (in memory).", flush=True)
        print(f"export AWS_ENDPOINT_URL_DYNAMODB={server.endpoint_url}", flush=True)
        print("Press Ctrl-C to stop it.", flush=True)
        wait_forever()
    return 0


def wait_forever() -> None:
    # Event.wait wakes for Ctrl-C, unlike a bare join on some platforms.
    stop = threading.Event()
    while not stop.wait(3600):
        pass
