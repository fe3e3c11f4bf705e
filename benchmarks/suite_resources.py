"""Benchmark: what a command (the test suite) takes: wall time, peak memory, machine load.

    python benchmarks/suite_resources.py -- python -m pytest -q -p no:cacheprovider

Every process the command starts carries a marker variable in its environment, daemons
included (an embedded PostgreSQL re-parents itself away from the command's tree, and
keeps its environment), so the memory is summed over exactly those processes: the
proportional set size (PSS: shared pages split between their users, so forked workers
are not counted twice) and the resident size, sampled every half second. The 1-minute
load average is printed at the start and the end, with its highest sample: a suite on a
busy 2-core machine takes several times as long as on an idle one.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

MARKER = "DYNOTUI_MEASURED_RUN"


def _fields(pid: str, name: str) -> int:
    """A kB figure of /proc/PID/smaps_rollup (``Pss``, ``Rss``), 0 if the process went."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith(f"{name}:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def marked(tag: bytes) -> list[str]:
    """The processes whose environment holds the marker."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if tag in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                found.append(entry)
        except OSError:
            continue
    return found


class Sampler(threading.Thread):
    def __init__(self, tag: bytes, every: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.tag, self.every = tag, every
        self.stop = threading.Event()
        self.peak_pss = self.peak_rss = self.peak_processes = 0
        self.peak_load = 0.0

    def run(self) -> None:
        while not self.stop.is_set():
            pids = marked(self.tag)
            self.peak_pss = max(self.peak_pss, sum(_fields(p, "Pss") for p in pids))
            self.peak_rss = max(self.peak_rss, sum(_fields(p, "Rss") for p in pids))
            self.peak_processes = max(self.peak_processes, len(pids))
            self.peak_load = max(self.peak_load, os.getloadavg()[0])
            self.stop.wait(self.every)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to measure after --")
    run = uuid.uuid4().hex
    tag = f"{MARKER}={run}".encode()
    sampler = Sampler(tag)
    began_load = os.getloadavg()[0]
    began = time.monotonic()
    sampler.start()
    code = subprocess.run(command, env={**os.environ, MARKER: run}).returncode
    seconds = time.monotonic() - began
    sampler.stop.set()
    sampler.join()
    print(
        f"exit {code}; {seconds / 60:.1f} min on {os.cpu_count()} cores; peak memory "
        f"{sampler.peak_pss / 1024**2:.2f} GiB PSS ({sampler.peak_rss / 1024**2:.2f} GiB RSS) "
        f"over at most {sampler.peak_processes} processes; load average {began_load:.1f} at "
        f"the start, {os.getloadavg()[0]:.1f} at the end, {sampler.peak_load:.1f} at most",
        file=sys.stderr,
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
