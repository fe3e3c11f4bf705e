"""Zero-width and other format characters are shown, never passed on raw."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from typing import Any

import pytest
from helpers import page_lines

from dynotui.core.text import safe_json, safe_json_text, visible, visible_lines
from dynotui.local.tables import create_table, table_definition, write_items

FORMAT_CHARACTERS = "".join(
    chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cf"
)


def test_every_format_character_of_this_python_is_escaped() -> None:
    assert "\u200b" in FORMAT_CHARACTERS and "\ufeff" in FORMAT_CHARACTERS
    for shown in (visible(FORMAT_CHARACTERS), visible_lines(FORMAT_CHARACTERS)):
        assert not any(unicodedata.category(c) == "Cf" for c in shown)
    written = safe_json({"v": FORMAT_CHARACTERS})
    assert not any(unicodedata.category(c) == "Cf" for c in written)
    assert json.loads(written) == {"v": FORMAT_CHARACTERS}


@pytest.mark.parametrize(
    "raw, shown, as_json",
    [
        ("a\u200bb", "a\\u200bb", '"a\\u200bb"'),
        ("\ufeffid", "\\ufeffid", '"\\ufeffid"'),
        ("x\u2060y\u00adz", "x\\u2060y\\u00adz", '"x\\u2060y\\u00adz"'),
        ("tag\U000e0041", "tag\\U000e0041", '"tag\\udb40\\udc41"'),
        ("bidi\u202e", "bidi\\u202e", '"bidi\\u202e"'),
    ],
)
def test_zero_width_is_visible_and_json_stays_the_same_value(raw, shown, as_json) -> None:
    assert visible(raw) == shown
    assert safe_json(raw) == as_json and json.loads(as_json) == raw
    assert safe_json_text(json.dumps(raw, ensure_ascii=False)) == as_json


def test_ordinary_text_is_left_alone() -> None:
    for text in ("plain", "é ü ß", "日本語", "emoji 😀", "a b\u00a0c"):
        assert visible(text) == text and json.loads(safe_json(text)) == text
        assert safe_json(text) == json.dumps(text, ensure_ascii=False)


def test_pages_escapes_format_characters_in_items_and_names(ddb: Any, client: Any) -> None:
    name = "zero-width-values"
    create_table(client, table_definition(name, ("pk", "S"), ("sk", "S")))
    item = {"pk": "p", "sk": "1", "value": "pay\u200bpal", "n\ufeffame": "\u2066x\u2069"}
    write_items(client, name, [item])
    scan = ["--table-name", name, "--scan", "--no-tokens", "--plain"]
    result = subprocess.run(
        [sys.executable, "-m", "dynotui", "pages", "--endpoint-url", ddb.endpoint_url, *scan],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DYNOTUI_CURSOR_SECRET": "test-secret-0123456789"},
    )
    assert result.returncode == 0, result.stderr
    assert not any(unicodedata.category(c) == "Cf" for c in result.stdout)
    assert "pay\\u200bpal" in result.stdout and "n\\ufeffame" in result.stdout
    (page,) = page_lines(result.stdout)
    assert page["items"] == [item]
