"""Benchmark: an export read once. The first query of an export against the queries after
it, as `dynotui pages|count --from-export` processes, beside the code before.

    python benchmarks/export_cache.py [--items 300000] [--rounds 5] [--baseline CHECKOUT]

The export is written by this script (the shape of benchmarks/scale.py's items: pk of
10,000 partitions, number sk, status, amount, note; 8 gzip data files with their MD5s)
under --cache and kept for the next run of the same size; no DynamoDB is needed. Each
round starts from an empty copy folder and runs, for each checkout in turn: the first
query (a Query of one partition, two pages: it makes the copy), then the queries after it:
another partition, a count of a filter over the whole export, and page 1 of a Scan in key
order (every item's key computed: the most a later query does). Each figure is the median
over the rounds of wall seconds and CPU seconds (user + system of the process and its
threads); the ratio is a query after against the first of the same checkout. Machines here
are shared: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
EXPORT_ID = "01700000000000-cache001"
STATUSES = ("DELIVERED", "SHIPPED", "PLACED", "RETURNED")


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def write_export(root: Path, items: int, files: int = 8) -> Path:
    folder = root / "AWSDynamoDB" / EXPORT_ID
    if (folder / "manifest-summary.json").is_file():
        return folder
    (folder / "data").mkdir(parents=True, exist_ok=True)
    lines = []
    for segment in range(files):
        key = f"AWSDynamoDB/{EXPORT_ID}/data/segment{segment:02d}.json.gz"
        rng = random.Random(segment)
        rows = []
        for n in range(segment, items, files):
            item = {
                "pk": {"S": f"p{n % 10_000:05d}"},
                "sk": {"N": str(n)},
                "status": {"S": rng.choice(STATUSES)},
                "amount": {"N": str(rng.randint(100, 99_999))},
                "note": {"S": "x" * rng.randint(10, 60)},
            }
            rows.append(json.dumps({"Item": item}) + "\n")
        data = gzip.compress("".join(rows).encode(), mtime=0)
        (root / key).write_bytes(data)
        digest = base64.b64encode(hashlib.md5(data).digest()).decode()
        lines.append(
            json.dumps({"itemCount": len(rows), "md5Checksum": digest, "dataFileS3Key": key})
        )
    (folder / "manifest-files.json").write_text("\n".join(lines) + "\n")
    arn = "arn:aws:dynamodb:ddblocal:000000000000:table/bench-copy"
    summary = {
        "exportArn": f"{arn}/export/{EXPORT_ID}",
        "tableArn": arn,
        "exportTime": "2026-12-01T00:00:00.000Z",
        "itemCount": items,
        "outputFormat": "DYNAMODB_JSON",
    }
    (folder / "manifest-summary.json").write_text(json.dumps(summary))
    return folder


def queries(folder: Path) -> dict[str, list[str]]:
    base = ["--from-export", str(folder), "--key-schema", "pk:S,sk:N"]

    def partition(value: str) -> list[str]:
        return [
            "pages",
            *base,
            "--key-condition-expression",
            "pk = :p",
            "--expression-attribute-values",
            json.dumps({":p": {"S": value}}),
            "--page-size",
            "10",
            "--max-pages",
            "2",
        ]

    return {
        "first: Query of a partition": partition("p00042"),
        "then another partition": partition("p07777"),
        "then count of a filter": [
            "count",
            *base,
            "--filter-expression",
            "#s = :s",
            "--expression-attribute-names",
            json.dumps({"#s": "status"}),
            "--expression-attribute-values",
            json.dumps({":s": {"S": "RETURNED"}}),
        ],
        "then Scan page 1, key order": [
            "pages",
            *base,
            "--page-size",
            "10",
            "--max-pages",
            "1",
        ],
    }


def timed(source: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -m dynotui ARGS`` run in ``source``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "dynotui", *args],
        cwd=source,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", metavar="CHECKOUT", help="the code before, same run")
    parser.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache" / "dynotui" / "bench-export-copy"
    )
    args = parser.parse_args()
    sources = {"this": HERE}
    if args.baseline:
        sources["before"] = Path(args.baseline).resolve()
    folder = write_export(args.cache / f"export-{args.items}", args.items)
    asked = queries(folder)
    print(f"load average at start: {load()}; {os.cpu_count()} cores", flush=True)
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="dynotui-bench-copy-") as scratch:
        env_of = {}
        for name in sources:
            env_of[name] = {
                **os.environ,
                "DYNOTUI_EXPORT_CACHE": str(Path(scratch, name, "copies")),
                "PYTHONDONTWRITEBYTECODE": "",
                "PYTHONPYCACHEPREFIX": str(Path(scratch, "bytecode")),
                "DYNOTUI_CURSOR_SECRET": "bench-secret-0123456789",
            }
        for round_number in range(args.rounds + 1):
            order = list(sources.items())
            if round_number % 2:
                order.reverse()
            for name, source in order:
                shutil.rmtree(Path(scratch, name, "copies"), ignore_errors=True)
                for label, command in asked.items():
                    figures = timed(source, command, env_of[name])
                    if round_number:  # the first round compiles bytecode, warms the disk
                        results.setdefault((name, label), []).append(figures)
            print(f"  round {round_number}/{args.rounds}: load {load()}", flush=True)
    print(f"\n{args.items:,} items, median of {args.rounds} rounds (wall s / CPU s):")
    print(f"{'':32} " + "".join(f"{name:>30}" for name in sources))
    firsts = {
        name: statistics.median(c for _, c in results[(name, next(iter(asked)))])
        for name in sources
    }
    first_walls = {
        name: statistics.median(w for w, _ in results[(name, next(iter(asked)))])
        for name in sources
    }
    for label in asked:
        cells = []
        for name in sources:
            found = results[(name, label)]
            wall = statistics.median(w for w, _ in found)
            cpu = statistics.median(c for _, c in found)
            ratio = f"{wall / first_walls[name]:.2f}x/{cpu / firsts[name]:.2f}x"
            cells.append(f"{wall:6.2f} / {cpu:5.2f}  {ratio:>13}")
        print(f"{label:32} " + "".join(f"{cell:>30}" for cell in cells))
    print("(ratios: against the same checkout's first query, wall / CPU)")
    print(f"load average at end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
