"""Why DynamoDB Local's JVM ended, in words: from its exit code and what it printed.

DynamoDB Local prints a start-up banner (its port, storage, version) before anything
else, so the last lines of its output are that banner when it was killed, and Java stack
frames when it failed: neither says why. This reads the exit code (a signal, or the
JVM's 128+N for one) and the lines that name a cause, and says the cause.
"""

from __future__ import annotations

import re
import signal

# Lines of DynamoDB Local's banner: never the reason it stopped.
BANNER = re.compile(
    r"^(Initializing DynamoDB Local with the following configuration:|[A-Za-z]+:\t.*)$"
)
CAUSES = (
    (("BindException", "Failed to bind", "Address already in use"), "port"),
    (("OutOfMemoryError",), "the JVM ran out of memory (java.lang.OutOfMemoryError)"),
    (
        ("UnsupportedClassVersionError",),
        "this Java is too old for DynamoDB Local (it needs Java 17 or later)",
    ),
    (
        ("Unable to access jarfile", "Could not find or load main class"),
        "DynamoDB Local's files are missing or incomplete: remove its folder from the cache "
        "and run dynotui local again to fetch them",
    ),
    (
        ("UnsatisfiedLinkError", "sqlite4java"),
        "its SQLite library (sqlite4java) did not load on this platform",
    ),
    (("No space left on device",), "the disk is full"),
)
SIGNAL_WORDS = {
    signal.SIGKILL: "killed (SIGKILL: by another process, or by the system when memory ran out)",
    signal.SIGTERM: "stopped by a SIGTERM from another process",
    signal.SIGINT: "interrupted (SIGINT)",
    signal.SIGHUP: "its terminal went away (SIGHUP)",
}


def _signal(code: int) -> str | None:
    """A signal's words for an exit code: negative from Python, or 128+N from the JVM
    (which exits so when a signal stops it)."""
    number = -code if code < 0 else code - 128 if 128 < code < 160 else None
    if number is None:
        return None
    try:
        sig = signal.Signals(number)
    except ValueError:
        return f"ended by signal {number}"
    return SIGNAL_WORDS.get(sig, f"ended by {sig.name}")


def _error_line(lines: list[str]) -> str | None:
    """The line that names the error: the last ``Caused by:``, else the exception line,
    else the last line that is neither banner nor stack frame."""
    caused = [line for line in lines if line.startswith("Caused by:")]
    if caused:
        return caused[-1].removeprefix("Caused by:").strip()
    for line in lines:
        if line.startswith("Exception in thread") or re.match(r"^[\w.$]+(Exception|Error)\b", line):
            return line.strip()
    rest = [
        line.strip()
        for line in lines
        if line.strip() and not BANNER.match(line) and not line.lstrip().startswith(("at ", "..."))
    ]
    return rest[-1] if rest else None


def exit_reason(code: int | None, output: str, port: int | None = None) -> str:
    """Why the JVM ended, in one sentence after "DynamoDB Local stopped: "."""
    lines = output.splitlines()
    for needles, words in CAUSES:
        if any(needle in output for needle in needles):
            if words == "port":
                where = f"port {port}" if port is not None else "its port"
                return f"{where} is already in use by another program (choose another with --port)"
            return words
    said = f"exit code {code}" if code is not None else "no exit code"
    by_signal = _signal(code) if code is not None else None
    if by_signal is not None:
        return f"{by_signal}; {said}"
    line = _error_line(lines)
    if line is not None:
        return f"{said}: {line}"
    return f"{said}, and it printed no error (only its start-up banner)"
