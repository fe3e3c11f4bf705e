"""Write the README's picture of a report: ``dynotui report`` on the demo, in Chromium.

    python scripts/report_screenshot.py [--out screenshots/report.png] [--keep DIR]

Starts DynamoDB Local on a copy of the seeded demo database, runs ``dynotui report`` on
acme's RETURNED orders in fill mode, the base table with a filter beside GSI
``by_status``, opens the HTML in headless Chromium (Debian's ``chromium``) and saves the
page from the top to the end of its charts. Latencies are measured, so they vary a
little from run to run.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from browser import Browser

from dynotui.cli.main import main as dynotui
from dynotui.local import demo_cache
from dynotui.local.demo import BIG_CUSTOMER, RARE_STATUS, TABLE
from dynotui.local.locate import ensure_home
from dynotui.local.runner import DynamoDBLocal

WIDTH = 1400


def report_args(endpoint: str, output: Path) -> list[str]:
    return [
        "report",
        "--endpoint-url",
        endpoint,
        "--table-name",
        TABLE,
        "--key-condition-expression",
        "customer = :c",
        "--filter-expression",
        "status = :r",
        "--expression-attribute-values",
        json.dumps({":c": {"S": BIG_CUSTOMER}, ":r": {"S": RARE_STATUS}}),
        "--mode",
        "fill",
        "--page-size",
        "10",
        "--compare-index-name",
        "by_status",
        "--compare-key-condition-expression",
        "status = :r",
        "--compare-filter-expression",
        "customer = :c",
        "--title",
        "acme's RETURNED orders: base table with a filter, or GSI by_status",
        "--output",
        str(output),
    ]


def main() -> int:
    from PIL import Image

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent.parent / "screenshots" / "report.png"
    )
    parser.add_argument("--keep", type=Path, help="also keep the report's files in this folder")
    args = parser.parse_args()
    os.environ.setdefault("DYNOTUI_CURSOR_SECRET", "screenshot-secret-0123456789")
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        home = ensure_home()
        db, _ = demo_cache.ensure(home)
        with DynamoDBLocal(home=home, db_file=db) as server:
            status = dynotui(report_args(server.endpoint_url, folder / "report"))
        if status:
            return status
        with Browser() as browser:
            browser.open(folder / "report.html", width=WIDTH)
            shot = browser.screenshot(width=WIDTH)
            charts_end = browser.evaluate(
                "Math.max(...[...document.querySelectorAll('svg.chart')]"
                ".map(e => e.getBoundingClientRect().bottom + scrollY))"
            )
    image = Image.open(io.BytesIO(shot))
    image = image.crop((0, 0, WIDTH, min(image.height, int(charts_end) + 24)))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    image.save(args.out, optimize=True)
    print(f"wrote {args.out} ({image.width}x{image.height})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
