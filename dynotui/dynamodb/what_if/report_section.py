"""The what-if as a report section: the same rows the terminal shows, and the code that
would create the index (shown, never run)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dynotui.dynamodb.codegen import CodeTarget
from dynotui.dynamodb.what_if import words
from dynotui.dynamodb.what_if.code import generate, update_table_params
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex
from dynotui.report.model import CodeBlock, Estimated

FENCES = {"cli": "sh", "boto3": "python"}


def _index(data: Mapping[str, Any]) -> tuple[ImaginedIndex, str, str | None] | None:
    index = data["index"]
    partition = index.get("partition_key")
    sort = index.get("sort_key")
    if not isinstance(partition, Mapping):
        return None
    try:
        imagined = ImaginedIndex(
            partition_key=str(partition["name"]),
            sort_key=str(sort["name"]) if isinstance(sort, Mapping) else None,
            projection=str(index.get("projection", "ALL")),
            include=tuple(str(a) for a in index.get("include") or ()),
            name=str(index["name"]),
        )
        return (
            imagined,
            str(partition["type"]),
            str(sort["type"]) if isinstance(sort, Mapping) else None,
        )
    except (KeyError, TypeError):
        return None


def section(
    data: Mapping[str, Any],
    target: CodeTarget | None = None,
    provisioned: tuple[int, int] | None = None,
) -> Estimated:
    """``data`` is an estimate's JSON (checked with ``words.checked`` if it came from a
    file); ``target`` adds the code that would create the index for that endpoint, with
    ``provisioned`` (read, write) units for a provisioned table."""
    code: list[CodeBlock] = []
    found = _index(data)
    if target is not None and found is not None:
        params = update_table_params(str(data["table"]), *found, provisioned)
        code = [
            CodeBlock(
                f"Create the index · {language}",
                FENCES[language],
                generate(language, params, target),
            )
            for language in ("cli", "boto3")
        ]
    return Estimated(
        title=f"What if: {words.index_words(data)}",
        rows=tuple(words.comparison_rows(data)),
        cost=tuple(words.cost_rows(data)),
        sample=words.sample_words(data),
        notes=tuple(words.notes(data)),
        footnote=words.FOOTNOTE,
        code=tuple(code),
    )
