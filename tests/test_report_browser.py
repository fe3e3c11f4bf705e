"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``) opens it,
takes a screenshot, and the test reads the pixels where the charts are and the numbers
the page shows; hostile data must run nothing, with and without the page's CSP."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from browser import Browser, find_chromium
from test_cli_pages import RARE_ARGS
from test_report import (  # noqa: F401 - hostile_table is the fixture "hostile"
    HOSTILE_NAME,
    HOSTILE_NOTE,
    HOSTILE_PK,
    demo_pages,
    hostile_args,
    hostile_table,
    report,
)

from dynotui.local import demo
from dynotui.report.charts import COLOURS
from dynotui.report.html import POLICY


@pytest.fixture(scope="module")
def chromium() -> str:
    found = find_chromium()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser test: .ci/run installs Debian's chromium")
        pytest.skip("needs a Chromium on PATH (apt-get install chromium) to open the report")
    return found


def rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def pixels_of(image: Any, box: dict[str, float], colour: str, slack: int = 12) -> int:
    """How many pixels inside ``box`` have (about) this colour."""
    from PIL import Image

    assert isinstance(image, Image.Image)
    left, top = round(box["x"]), round(box["y"])
    crop = image.crop((left, top, left + round(box["width"]), top + round(box["height"])))
    want = rgb(colour)
    return sum(
        count
        for count, pixel in crop.getcolors(maxcolors=1 << 20)  # type: ignore[union-attr]
        if all(abs(a - b) <= slack for a, b in zip(pixel[:3], want, strict=True))
    )


def number(text: str) -> float:
    return float(text.replace(",", ""))


CHART_BOXES = """JSON.stringify(Object.fromEntries([...document.querySelectorAll('svg.chart')]
  .map(e => { const r = e.getBoundingClientRect();
              return [e.id, {x: r.x + scrollX, y: r.y + scrollY, width: r.width,
                             height: r.height}]; })))"""
FIGURES = """JSON.stringify(Object.fromEntries([...document.querySelectorAll(
  '[data-side="0"][data-figure]')].map(e => [e.dataset.figure, e.textContent])))"""
INJECTED = """JSON.stringify({
  pwned: typeof window.__pwned,
  active: document.querySelectorAll('script, iframe, object, embed, a[href], form, base').length,
  handlers: [...document.querySelectorAll('*')]
    .filter(e => [...e.attributes].some(a => a.name.toLowerCase().startsWith('on'))).length,
  images: [...document.querySelectorAll('img')].map(i => i.getAttribute('src').slice(0, 26)),
  text: document.body.textContent})"""


def test_the_charts_draw_and_the_numbers_are_the_sums_of_pages(
    chromium, ddb, demo_table, tmp_path: Path
) -> None:
    from PIL import Image

    args = [*RARE_ARGS, "--mode", "fill", "--page-size", "10"]
    out = report(ddb, tmp_path / "demo", "--table-name", demo.TABLE, *args, "--pages", "8")
    pages = demo_pages(ddb, *args, "--max-pages", "8", "--no-tokens")
    with Browser(chromium) as browser:
        browser.open(Path(out["html"]))
        shot = browser.screenshot()
        (tmp_path / "report.png").write_bytes(shot)
        boxes = json.loads(browser.evaluate(CHART_BOXES))
        figures = json.loads(browser.evaluate(FIGURES))
        text = browser.evaluate("document.body.innerText")
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    assert set(boxes) == {"chart-capacity-0", "chart-waste-0"}
    for box in boxes.values():
        assert box["width"] > 300 and box["height"] > 100
        assert box["y"] + box["height"] <= image.height
    # The bars, in their own colours, where the charts are: not a blank box.
    capacity = pixels_of(image, boxes["chart-capacity-0"], COLOURS["capacity"])
    assert capacity > 8 * 200  # eight bars, each wider than 40 px and taller than 5
    assert pixels_of(image, boxes["chart-waste-0"], COLOURS["waste"]) > 8 * 200
    assert pixels_of(image, boxes["chart-waste-0"], COLOURS["kept"]) > 8 * 10
    # ... and nowhere else: the page itself has no bar colour outside the charts.
    top = image.crop((0, 0, image.width, round(min(b["y"] for b in boxes.values())) - 1))
    blue = rgb(COLOURS["capacity"])
    assert not [c for c, p in top.getcolors(1 << 20) or [] if p == blue]  # type: ignore[misc]
    # The numbers the page shows are the sums of what `dynotui pages` printed.
    assert number(figures["pages"]) == len(pages)
    assert number(figures["capacity"]) == sum(p["consumed_capacity"]["total"] for p in pages)
    assert number(figures["count"]) == sum(p["count"] for p in pages)
    assert number(figures["scanned"]) == sum(p["scanned_count"] for p in pages)
    assert number(figures["calls"]) == sum(p["calls"] for p in pages)
    assert number(figures["shown"]) == sum(len(p["items"]) for p in pages)
    capacities = sorted(p["consumed_capacity"]["total"] for p in pages)
    assert f"p50 {capacities[3]:,.10g} · p99 {capacities[7]:,.10g}" in text  # nearest rank of 8


def test_hostile_data_runs_nothing_in_the_browser(chromium, ddb, hostile, tmp_path: Path) -> None:
    from markdown_it import MarkdownIt

    out = report(ddb, tmp_path / "hostile", *hostile_args(hostile))
    page = Path(out["html"])
    html_text = page.read_text()
    assert POLICY in html_text.replace("&#x27;", "'")
    # Without the page's own CSP too: escaping alone must keep the data inert.
    bare = tmp_path / "no-policy.html"
    bare.write_text(html_text.replace('<meta http-equiv="Content-Security-Policy"', "<meta x"))
    markdown = MarkdownIt("commonmark", {"html": True}).enable("table")
    rendered = tmp_path / "markdown.html"
    body = markdown.render(Path(out["markdown"]).read_text())
    rendered.write_text(f"<!DOCTYPE html><meta charset=utf-8><body>{body}</body>")
    with Browser(chromium) as browser:
        for path in (page, bare, rendered):
            browser.open(path)
            seen = json.loads(browser.evaluate(INJECTED))
            assert seen["pwned"] == "undefined", path.name
            assert (seen["active"], seen["handlers"]) == (0, 0), path.name
            assert all(src == "data:image/svg+xml;base64" for src in seen["images"]), path.name
            for text in (HOSTILE_NAME, HOSTILE_PK, HOSTILE_NOTE):
                assert text in seen["text"], (path.name, text)
