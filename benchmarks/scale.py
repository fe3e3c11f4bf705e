"""Benchmark: a whole table's questions, from a table export against a parallel Scan.

On DynamoDB Local (in memory, seeded with --items items by parallel BatchWriteItem; or a
database kept on disk with --keep), in the same run:

  count          the same filter counted from an export (DuckDB, 0 read units) and by a
                 segmented Scan count (Select COUNT, 8 segments): seconds, read units
  pages --scan   every item paged headless with 1, 2, 4 and 8 segments: seconds, and the
                 ratio to 1 segment

The export is written by this script itself (a plain boto3 parallel Scan into the
documented layout) under --cache, and kept for the next run of the same size. Machines
here are shared and noisy: the load average is printed before and after, and each figure
is the median of --repeats.

    python benchmarks/scale.py [--items 1000000] [--repeats 3] [--segments 1,2,4,8]
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.count import count
from dynotui.dynamodb.schema import describe_table
from dynotui.dynamodb.segments import segment_clients
from dynotui.dynamodb.spec import from_expressions
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal
from dynotui.local.tables import create_table, table_definition, write_items
from dynotui.table_export.count import count_export
from dynotui.table_export.reading import OpenExport

TABLE = "bench-scale"
STATUSES = ("DELIVERED", "SHIPPED", "PLACED", "RETURNED")
FILTER = "#s = :r"
NAMES = {"#s": "status"}
VALUES = {":r": {"S": "RETURNED"}}
EXPORT_ID = "01700000000000-bench001"


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def seed(endpoint: str, items: int, workers: int = 8) -> None:
    """Create the table and write ``items`` items in chunks, in parallel (once)."""
    options = ConnectionOptions(endpoint_url=endpoint, read_timeout=120)
    client = segment_clients(options, 1)[0]
    if not create_table(client, table_definition(TABLE, ("pk", "S"), ("sk", "N"))):
        found = describe_table(client, TABLE).item_count or 0
        if found >= items:
            print(f"table {TABLE} holds {found:,} items already", flush=True)
            return
    began = time.perf_counter()
    chunk = 20_000
    clients = segment_clients(options, workers)
    done = [0]
    lock = threading.Lock()

    def write(start: int) -> None:
        rng = random.Random(start)
        batch = [
            {
                "pk": f"p{n % 10_000:05d}",
                "sk": n,
                "status": rng.choice(STATUSES),
                "amount": rng.randint(100, 99_999),
                "note": "x" * rng.randint(10, 60),
            }
            for n in range(start, min(start + chunk, items))
        ]
        write_items(clients[(start // chunk) % workers], TABLE, batch, workers=2)
        with lock:
            done[0] += len(batch)
            print(f"  seeded {done[0]:,}/{items:,}", flush=True)

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(write, range(0, items, chunk)))
    print(f"seeded {items:,} items in {time.perf_counter() - began:.0f} s", flush=True)


def wire(value: dict[str, Any]) -> dict[str, Any]:
    ((kind, inner),) = value.items()
    return {"B": base64.b64encode(inner).decode()} if kind == "B" else {kind: inner}


def write_export(client: Any, root: Path, segments: int = 8) -> Path:
    """The table in the documented export layout, from a plain boto3 parallel Scan."""
    folder = root / "AWSDynamoDB" / EXPORT_ID
    if (folder / "manifest-summary.json").is_file():
        return folder
    (folder / "data").mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()

    def segment(index: int) -> tuple[str, int]:
        key = f"AWSDynamoDB/{EXPORT_ID}/data/segment{index:02d}.json.gz"
        written = 0
        params: dict[str, Any] = {"TableName": TABLE, "Segment": index, "TotalSegments": segments}
        with gzip.open(root / key, "wt") as out:
            while True:
                response = client.scan(**params)
                for item in response["Items"]:
                    out.write(json.dumps({"Item": {k: wire(v) for k, v in item.items()}}) + "\n")
                written += len(response["Items"])
                if "LastEvaluatedKey" not in response:
                    return key, written
                params["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    with ThreadPoolExecutor(segments) as pool:
        files = list(pool.map(segment, range(segments)))

    def md5(key: str) -> str:  # as DynamoDB writes it: base64 of the gzip file's MD5
        return base64.b64encode(hashlib.md5((root / key).read_bytes()).digest()).decode()

    (folder / "manifest-files.json").write_text(
        "".join(
            json.dumps({"itemCount": n, "md5Checksum": md5(k), "dataFileS3Key": k}) + "\n"
            for k, n in files
        )
    )
    arn = f"arn:aws:dynamodb:ddblocal:000000000000:table/{TABLE}"
    summary = {
        "version": "2020-06-30",
        "exportArn": f"{arn}/export/{EXPORT_ID}",
        "tableArn": arn,
        "exportTime": "2026-12-01T00:00:00.000Z",
        "itemCount": sum(n for _, n in files),
        "outputFormat": "DYNAMODB_JSON",
    }
    (folder / "manifest-summary.json").write_text(json.dumps(summary))
    print(f"wrote the export in {time.perf_counter() - began:.0f} s", flush=True)
    return folder


def median_of(repeats: int, run: Any) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        began = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - began)
    return statistics.median(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--segments", default="1,2,4,8")
    parser.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache" / "dynotui" / "bench-scale"
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="seed a database on disk under --cache and keep it for the next run (writes to "
        "disk are far slower than in memory, the default)",
    )
    args = parser.parse_args()
    database = None
    if args.keep:
        database = args.cache / f"db-{args.items}"
        database.mkdir(parents=True, exist_ok=True)
    print(f"before: {load()}", flush=True)
    with DynamoDBLocal(home=ensure_home(), db_dir=database) as server:
        endpoint = server.endpoint_url
        seed(endpoint, args.items)
        options = ConnectionOptions(endpoint_url=endpoint, read_timeout=120)
        client = segment_clients(options, 1)[0]
        folder = write_export(client, args.cache / f"export-{args.items}")
        schema = describe_table(client, TABLE)
        spec = from_expressions(TABLE, scan=True, filter=FILTER, names=NAMES, values=VALUES)

        def from_export() -> Any:
            with OpenExport(str(folder)) as opened:
                return count_export(opened, spec, None)

        export_seconds, exported = median_of(args.repeats, from_export)
        clients = segment_clients(options, 8)
        scan_seconds, scanned = median_of(
            args.repeats, lambda: count(clients[0], spec, schema, segments=8, clients=clients)
        )
        assert exported.count == scanned.count, (exported.count, scanned.count)
        units = scanned.capacity.total if scanned.capacity else None
        print(f"\ncount of {FILTER} over {exported.scanned:,} items ({exported.count:,} match):")
        print(
            f"  export (DuckDB):       {export_seconds:8.1f} s   0 RCU   "
            f"{exported.bytes_read / 1e6:.1f} MB read"
        )
        print(f"  Scan, 8 segments:      {scan_seconds:8.1f} s   {units:,.1f} RCU")
        print(f"  export / Scan time:    {export_seconds / scan_seconds:8.2f}x", flush=True)
        times: dict[int, float] = {}
        for segments in (int(s) for s in args.segments.split(",")):
            command = [
                sys.executable,
                "-m",
                "dynotui",
                "pages",
                "--endpoint-url",
                endpoint,
                "--table-name",
                TABLE,
                "--scan",
                "--segments",
                str(segments),
                "--page-size",
                "1000",
                "--no-tokens",
                "--read-timeout",
                "120",
            ]

            def page_all(command: list[str] = command) -> None:
                subprocess.run(command, check=True, stdout=subprocess.DEVNULL)

            times[segments], _ = median_of(args.repeats, page_all)
        base = times[min(times)]
        print(f"\npages --scan of {exported.scanned:,} items (JSON lines to /dev/null):")
        for segments, seconds in times.items():
            print(
                f"  {segments} segment(s):  {seconds:8.1f} s   {base / seconds:5.2f}x the speed "
                f"of {min(times)}"
            )
    print(f"\nafter: {load()} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
