"""``dynotui check``: read each access pattern of a patterns file as ``dynotui pages`` reads
it and hold it to its budget; exit 0 when every pattern is within, 1 when any is over.

Everything the run needs is checked before the first read: the file, every pattern's
query (``pages``'s own checks), the earlier receipt and the folders of the files to
write. The files are written whole or not at all.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from dynotui.cli.number_flags import seconds
from dynotui.cli.options import HelpFormatter, add_connection_options
from dynotui.cli.output import write_line
from dynotui.core.errors import DynotuiError, InputError
from dynotui.patterns.budget import Figures, Verdict
from dynotui.patterns.load import DEFAULT_FILE, MAX_PAGES, MAX_TRIES
from dynotui.patterns.model import BUDGET_KEYS, QUERY_KEYS, Pattern, PatternFile
from dynotui.patterns.receipt import DEFAULT_TOLERANCE

KEYS_HELP = (
    "The file holds [[pattern]] tables. Keys: name (required, unique), description, "
    f"the query as 'dynotui pages' flags in snake_case ({', '.join(QUERY_KEYS)}; "
    "values in DynamoDB JSON, as TOML tables or JSON text), pages (read per value tried, "
    f"1 to {MAX_PAGES}, default 1), calls_per_day (for what-if --patterns), try_values "
    f"(up to {MAX_TRIES} tables of values by placeholder, each read in turn) or "
    "try_parameters (a statement's), and [pattern.budget] with "
    f"{', '.join(BUDGET_KEYS)}: read units per page is the largest page read, waste the "
    "share of items read that the filter dropped (0 to 1), and a Scan is over budget "
    "unless scan = true."
)


def register(sub: Any, help_text: str) -> None:
    parser = sub.add_parser(
        "check",
        help=help_text,
        formatter_class=HelpFormatter,
        description=(
            "Read each access pattern of a patterns file as 'dynotui pages' reads it "
            "(read-only, the same reader and measures) and hold it to its budget: one line "
            "per pattern, within or over, by which figure, with the numbers. Exit 0 when "
            "every pattern is within, 1 when any is over, 2 for bad input (one line naming "
            "the file, the pattern and the key). " + KEYS_HELP
        ),
    )
    parser.add_argument(
        "file",
        nargs="?",
        default=DEFAULT_FILE,
        metavar="FILE",
        help="the patterns file (TOML)",
    )
    group = parser.add_argument_group("output")
    group.add_argument("--json", action="store_true", help="one JSON object instead of lines")
    group.add_argument(
        "--junit",
        metavar="PATH",
        help="also write JUnit XML: one testcase per pattern, a failure per figure over",
    )
    group.add_argument(
        "--receipt", metavar="PATH", help="also write the figures measured, as JSON to diff"
    )
    group.add_argument(
        "--against",
        metavar="PATH",
        help="an earlier receipt: a pattern whose read units per page grew past --tolerance fails",
    )
    group.add_argument(
        "--tolerance",
        default=f"{DEFAULT_TOLERANCE * 100:g}%",
        metavar="PERCENT",
        help="growth in read units per page allowed against --against",
    )
    group.add_argument(
        "--max-read-units",
        type=seconds,
        metavar="N",
        help="stop reading once the reads have cost this many read units in all (a page is "
        "never cut); a pattern not read whole fails (default: no cap)",
    )
    add_connection_options(parser)
    parser.set_defaults(run=run)


def writable(flag: str, text: str | None) -> Path | None:
    """An output path whose folder exists and which is not a folder, checked before any
    read so a run never spends read units and then fails to say what it found."""
    if text is None:
        return None
    path = Path(text)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{flag} {text}: the folder {folder} does not exist")
    if path.is_dir():
        raise InputError(f"{flag} {text} is a folder: name a file")
    return path


def check_distinct(file: str, junit: Path | None, receipt: Path | None) -> None:
    """No output written over the patterns file, nor the two outputs over each other."""
    source = Path(file).resolve()
    written = [(flag, p.resolve()) for flag, p in (("--junit", junit), ("--receipt", receipt)) if p]
    for flag, path in written:
        if path == source:
            raise InputError(f"{flag} names the patterns file itself: name another file")
    if len(written) == 2 and written[0][1] == written[1][1]:
        raise InputError("--junit and --receipt name the same file: name two")


def write_file(flag: str, path: Path, text: str) -> None:
    from dynotui.report.files import write_atomically

    try:
        write_atomically(path, text)
    except OSError as exc:
        raise InputError(f"{flag} {path} cannot be written: {exc.strerror}") from None


def prepare(
    patterns: PatternFile, args: argparse.Namespace
) -> list[tuple[Pattern, list[tuple[Any, argparse.Namespace]]]]:
    """Every read's ``pages`` arguments, each checked by ``pages``'s own checks: a bad
    expression anywhere is refused before the first read."""
    from dynotui.cli.pattern_reads import case_args, check_case, pattern_error

    prepared = []
    for pattern in patterns.patterns:
        reads = []
        for case in pattern.cases():
            try:
                case_arguments = case_args(pattern, case, args)
                check_case(case_arguments)
            except DynotuiError as exc:
                raise pattern_error(exc, patterns.path, pattern, case) from None
            reads.append((case, case_arguments))
        prepared.append((pattern, reads))
    return prepared


def not_read(label: str | None) -> Figures:
    """A read the run's read units cap left out: not read whole, so not within."""
    return Figures(label, 0, 0, None, None, None, False, 0, complete=False)


def check(
    args: argparse.Namespace,
    on_verdict: Callable[[Verdict], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[PatternFile, list[Verdict], list[float]]:
    """Load, check and read every pattern; each verdict is told to ``on_verdict`` as it
    is reached. The earlier receipt, when given, is compared with each."""
    from dynotui.cli.pattern_reads import pattern_error, read_case
    from dynotui.patterns.load import load
    from dynotui.patterns.receipt import compare, load_receipt, parse_tolerance

    cap = args.max_read_units
    if cap is not None and not (math.isfinite(cap) and cap > 0):
        raise InputError("--max-read-units must be a finite number above 0")
    tolerance = parse_tolerance(args.tolerance)
    earlier = load_receipt(Path(args.against)) if args.against is not None else None
    patterns = load(args.file)
    prepared = prepare(patterns, args)
    verdicts: list[Verdict] = []
    seconds: list[float] = []
    spent = 0.0
    for pattern, reads in prepared:
        verdict = Verdict(pattern)
        began = clock()
        for case, case_arguments in reads:
            if cap is not None:
                if spent >= cap:
                    verdict.add(not_read(case.label))
                    continue
                case_arguments.max_read_units = cap - spent
            try:
                figures = read_case(case_arguments, case)
            except DynotuiError as exc:
                raise pattern_error(exc, patterns.path, pattern, case) from None
            spent += figures.read_units or 0.0
            verdict.add(figures)
        seconds.append(clock() - began)
        if earlier is not None:
            compare([verdict], earlier, tolerance)
        verdicts.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)
    return patterns, verdicts, seconds


def check_json(
    patterns: PatternFile, verdicts: list[Verdict], args: argparse.Namespace
) -> dict[str, Any]:
    return {
        "file": patterns.path,
        "within": all(v.within for v in verdicts),
        "patterns": [v.as_json() for v in verdicts],
        "over": sum(1 for v in verdicts if not v.within),
        "against": args.against,
        "tolerance": args.tolerance if args.against is not None else None,
    }


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # at the call: in-process callers redirect it
    junit = writable("--junit", args.junit)
    receipt = writable("--receipt", args.receipt)
    check_distinct(args.file, junit, receipt)

    def say(verdict: Verdict) -> None:
        if not args.json:
            out.write(verdict.line() + "\n")
            out.flush()

    patterns, verdicts, seconds = check(args, say)
    if args.json:
        write_line(out, check_json(patterns, verdicts, args))
    if junit is not None:
        from dynotui.patterns.junit import junit_xml

        write_file("--junit", junit, junit_xml(patterns.path, verdicts, seconds))
    if receipt is not None:
        from dynotui.patterns.receipt import receipt_text

        write_file("--receipt", receipt, receipt_text(patterns.path, verdicts))
    return 0 if all(v.within for v in verdicts) else 1
