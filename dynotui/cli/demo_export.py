"""``dynotui demo --export DIR``: the demo table written as a table export, in DynamoDB's
layout, from a parallel Scan of DynamoDB Local, to try ``--from-export`` with no AWS
account."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from dynotui.core.text import visible
from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.segments import segment_clients, segmented_scan
from dynotui.dynamodb.spec import from_expressions

SEGMENTS = 4
LOCAL_READ_TIMEOUT = 120.0


def add_export_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--export",
        metavar="DIR",
        help="write the demo table as a table export under DIR (DIR/AWSDynamoDB/ID, the "
        "layout DynamoDB writes to S3), from a parallel Scan, and exit; then try "
        "dynotui count --from-export DIR/AWSDynamoDB/ID",
    )


def write_demo_export(client: Any, options: ConnectionOptions, table: str, root: str) -> int:
    from dynotui.table_export.writer import write_export

    schema = describe_table(client, table)
    arn = client.describe_table(TableName=table)["Table"]["TableArn"]
    spec = from_expressions(table, scan=True, page_size=1000)
    # Four 1 MB Scans at once on a local JVM: give each call the time a busy laptop needs.
    patient = replace(options, read_timeout=max(options.read_timeout, LOCAL_READ_TIMEOUT))
    read = segmented_scan(segment_clients(patient, SEGMENTS), spec, schema, cache_pages=1)
    written = write_export(read, arn, Path(root).expanduser())
    folder = visible(str(written.folder))
    print(
        f"Wrote {written.items:,} items of {table} in {written.files} data files to {folder}",
        file=sys.stderr,
    )
    print(
        f"dynotui count --from-export {folder} --key-schema customer:S,order_no:S --partitions 10"
    )
    return 0
