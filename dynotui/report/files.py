"""Reports on disk: written whole or not at all, under a name that says what and when."""

from __future__ import annotations

import os
import re
import tempfile
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from dynotui.core.errors import InputError
from dynotui.core.history import history_dir

if TYPE_CHECKING:
    from dynotui.report.model import Report


def write_atomically(path: Path, text: str) -> None:
    """Whole or not at all: a report half written is worse than none."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except FileNotFoundError:
        raise InputError(f"cannot write {path}: the folder {folder} does not exist") from None
    except PermissionError:
        raise InputError(f"cannot write {path}: no permission in {folder}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def report_stem(report: Report, when: datetime) -> str:
    """``dynotui-report-<first side>-<YYYYmmdd-HHMMSS>``: letters, digits, dots, dashes."""
    name = re.sub(r"[^A-Za-z0-9.-]+", "-", report.sides[0].name).strip("-")[:60] or "query"
    return f"dynotui-report-{name}-{when.strftime('%Y%m%d-%H%M%S')}"


def reports_folder() -> Path:
    """Where the app writes reports: the ``reports`` folder of dynotui's data folder (as
    history's), never the current folder (a git checkout, when following the README)."""
    return history_dir() / "reports"


def write_report(report: Report, folder: Path, when: datetime) -> tuple[Path, Path]:
    """The report as one self-contained HTML file and as Markdown, side by side; the
    folder is made (for its owner only) if it is not there yet."""
    # The renderers load when a report is written, not with the app that may write one.
    from dynotui.report.html import render_html
    from dynotui.report.markdown import render_markdown

    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    stem = report_stem(report, when)
    html_path, markdown_path = folder / f"{stem}.html", folder / f"{stem}.md"
    write_atomically(html_path, render_html(report))
    write_atomically(markdown_path, render_markdown(report))
    return html_path, markdown_path
