"""Benchmark: `dynotui demo` from the command to page 1 on screen, first run and later runs.

    python benchmarks/demo_start.py [--runs 3] [--session-prefix bench-demo]

The first run is made with an empty demo-database cache (its own XDG_CACHE_HOME;
DynamoDB Local's files are reused through DYNOTUI_DYNAMODB_LOCAL, so no download is
timed); history and config go to temporary folders too. For each run it prints the time
to the first page, the longest time the screen stayed unchanged before it (no step of
the start may be silent for long), and the machine's 1-minute load average before and
after: on a busy machine a start takes several times as long, so a figure without the
load it was measured under says little.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from tmux_screen import TmuxApp

from dynotui.local.locate import ensure_home


def first_page(text: str) -> bool:
    return "Page 1 ·" in text


def load() -> float:
    return os.getloadavg()[0]


def run_once(env: dict[str, str], prefix: str, what: str) -> tuple[float, float]:
    before = load()
    with TmuxApp(f"{sys.executable} -m dynotui demo", env=env, prefix=prefix) as app:
        seconds, changes = app.wait_for(first_page, timeout=600)
        gaps = [b - a for a, b in zip([0.0, *changes], changes, strict=False)]
        app.keys("q")
    print(
        f"{what}: {seconds:5.1f} s to page 1, longest silent stretch {max(gaps):.2f} s "
        f"(load average {before:.1f} before, {load():.1f} after)",
        flush=True,
    )
    return seconds, max(gaps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="later runs to time")
    parser.add_argument("--session-prefix", default="bench-demo", help="tmux session names")
    args = parser.parse_args()
    home = ensure_home()
    print(f"{os.cpu_count()} cores; load average {load():.1f} at the start", flush=True)
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as own:
        env = {
            "XDG_CACHE_HOME": cache,
            "XDG_DATA_HOME": str(Path(own) / "data"),
            "XDG_CONFIG_HOME": str(Path(own) / "config"),
            "DYNOTUI_DYNAMODB_LOCAL": str(home),
            "DYNOTUI_CURSOR_SECRET": "benchmark-secret-0123456789",
        }
        first, _ = run_once(env, args.session_prefix, "first run (builds the demo database)")
        later = [run_once(env, args.session_prefix, f"later run {n + 1}") for n in range(args.runs)]
    seconds = sorted(s for s, _ in later)
    median = statistics.median(seconds)
    print(
        f"later runs: {seconds[0]:.1f} to {seconds[-1]:.1f} s, median {median:.1f} s; "
        f"ratio later/first {median / first:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
