"""``S``: a report to share, of one query (or both sides of the compare) and the session,
as one self-contained HTML file and as Markdown, in the data folder's reports folder."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from dynotui.core.ledger import SessionLedger
from dynotui.core.pager import Pager
from dynotui.report.files import write_report
from dynotui.ui.adapter import Adapter
from dynotui.ui.host import Host


def write_session_report(
    host: Host,
    adapter: Adapter[Any, Any, Any],
    pagers: Sequence[Pager[Any, Any, Any]],
    ledger: SessionLedger,
    folder: Path,
) -> None:
    """``pagers``: those with a page read, left first. The report is built here, from the
    pagers as they are now (pages keep arriving meanwhile); only the rendering and the
    files are the background thread's."""
    if not pagers:
        host.say("No page read yet: a report needs one.", severity="warning")
        return
    try:
        report = adapter.report(pagers, ledger, pagers[0].number)
    except Exception as exc:  # a report that cannot be made is said, never a crash
        host.fail(exc, "Report")
        return
    when = datetime.now()

    def write() -> tuple[Path, Path]:
        return write_report(report, folder, when)

    def written(paths: tuple[Path, Path]) -> None:
        html_path, markdown_path = paths
        host.say(
            f"Report written: {html_path} (open it in a browser: it needs no network) "
            f"and {markdown_path}.",
            title="Report",
            timeout=15,
        )

    host.call(write, written, lambda error: host.fail(error, "Report"))
