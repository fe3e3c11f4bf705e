"""``dynotui demo --export DIR``: the demo table as an export in DynamoDB's layout, from a
parallel Scan of DynamoDB Local: every item once, and it reads back as the table does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from export_layout import scan_all, wire

from dynotui.local import demo

ENV = {**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"}


def test_the_demo_writes_an_export_that_reads_back(ddb, client, demo_table, tmp_path) -> None:
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "dynotui",
            "demo",
            "--endpoint-url",
            ddb.endpoint_url,
            "--export",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=ENV,
    )
    assert made.returncode == 0, made.stderr
    (folder,) = (tmp_path / "AWSDynamoDB").iterdir()
    assert f"--from-export {folder}" in made.stdout
    summary = json.loads((folder / "manifest-summary.json").read_text())
    truth = scan_all(client, demo_table)
    assert summary["itemCount"] == len(truth) and summary["outputFormat"] == "DYNAMODB_JSON"
    assert summary["exportArn"].endswith(folder.name)
    lines = [json.loads(line) for line in (folder / "manifest-files.json").read_text().splitlines()]
    assert len(lines) == 4 and sum(line["itemCount"] for line in lines) == len(truth)
    import gzip

    written = []
    for line in lines:
        data = folder / "data" / Path(line["dataFileS3Key"]).name
        with gzip.open(data, "rt") as rows:
            written += [json.loads(row)["Item"] for row in rows]
    key = lambda item: (item["customer"]["S"], item["order_no"]["S"])  # noqa: E731
    assert sorted(map(key, written)) == sorted(key(i) for i in truth), "every item once"
    assert sorted(written, key=key) == sorted(
        ({k: wire(v) for k, v in i.items()} for i in truth), key=key
    )
    counted = subprocess.run(
        [
            sys.executable,
            "-m",
            "dynotui",
            "count",
            "--from-export",
            str(folder),
            "--filter-expression",
            "#s = :r",
            "--expression-attribute-names",
            '{"#s": "status"}',
            "--expression-attribute-values",
            json.dumps({":r": {"S": demo.RARE_STATUS}}),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
    )
    assert counted.returncode == 0, counted.stderr
    rare = [i for i in truth if i.get("status", {}).get("S") == demo.RARE_STATUS]
    assert json.loads(counted.stdout)["count"] == len(rare)
