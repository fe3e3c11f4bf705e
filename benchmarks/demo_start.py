"""Benchmark: `dynotui demo` from the command to page 1 on screen, first run and later runs.

    python benchmarks/demo_start.py [--runs 3]

The first run is made with an empty demo-database cache (its own XDG_CACHE_HOME;
DynamoDB Local's files are reused through DYNOTUI_DYNAMODB_LOCAL, so no download is
timed). For each run it prints the time to the first page and the longest time the
screen stayed unchanged before it: no step of the start may be silent for long.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from tmux_screen import TmuxApp

from dynotui.local.locate import ensure_home


def first_page(text: str) -> bool:
    return "Page 1 ·" in text


def run_once(env: dict[str, str]) -> tuple[float, float]:
    with TmuxApp(f"{sys.executable} -m dynotui demo", env=env) as app:
        seconds, changes = app.wait_for(first_page, timeout=300)
        gaps = [b - a for a, b in zip([0.0, *changes], changes, strict=False)]
        app.keys("q")
    return seconds, max(gaps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="later runs to time")
    args = parser.parse_args()
    home = ensure_home()
    with tempfile.TemporaryDirectory() as cache:
        env = {
            "XDG_CACHE_HOME": cache,
            "DYNOTUI_DYNAMODB_LOCAL": str(home),
            "DYNOTUI_CURSOR_SECRET": "benchmark-secret-0123456789",
        }
        first, silence = run_once(env)
        print(
            f"first run (builds the demo database): {first:5.1f} s to page 1, "
            f"longest silent stretch {silence:.2f} s"
        )
        later = [run_once(env) for _ in range(args.runs)]
    seconds = statistics.median(s for s, _ in later)
    worst = max(g for _, g in later)
    print(
        f"later runs (median of {args.runs}):          {seconds:5.1f} s to page 1, "
        f"longest silent stretch {worst:.2f} s"
    )
    print(f"ratio later/first: {seconds / first:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
