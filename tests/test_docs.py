"""The README is a front page that links into docs/, and every link it gives opens a page.
(`mkdocs build --strict` in CI checks the pages' own links and anchors.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def test_the_readme_is_a_front_page_of_at_most_400_lines() -> None:
    assert len(README.read_text().splitlines()) <= 400


def test_every_file_the_readme_links_to_exists() -> None:
    targets = [m.group(1) for m in LINK.finditer(README.read_text())]
    local = [t for t in targets if "://" not in t]
    assert any(t.startswith("docs/") for t in local)
    missing = [t for t in local if not (ROOT / t).exists()]
    assert missing == []
