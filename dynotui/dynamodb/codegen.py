"""Code that reproduces a page exactly from its start key: boto3, AWS CLI, JS SDK v3.

Raw mode is one call with ``Limit`` = page size. Fill mode is dynotui's own loop
(``reader.read_page``), written out: at most ``max_rounds`` calls, each Limit sized as the
reader sizes it, until page size + 1 matches (the extra one only proves a next page) or
the end; page size are shown, and the next page starts after the last item shown. A loop
that runs out of rounds shows what it found, so the code must stop where the app did.

The AWS CLI cannot loop with changing Limits; its paginator returns the first N matches.
That is the page whenever the loop did not run out of rounds; when it did, the page is
the first k matches (k = what it showed), so the command asks for k, read from the page.
"""

from __future__ import annotations

import pprint
import shlex
from dataclasses import dataclass
from typing import Any

from dynotui.core.page import EndedBy, PageSummary
from dynotui.dynamodb.code_target import CodeTarget as CodeTarget
from dynotui.dynamodb.code_target import cli_json, has_binary_json
from dynotui.dynamodb.code_target import code_target as code_target
from dynotui.dynamodb.dynamo_json import Item, to_wire
from dynotui.dynamodb.reader import fill_limit
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import PAGE_SIZE_MAX, QuerySpec

LANGUAGES = ("boto3", "aws-cli", "javascript")


@dataclass(frozen=True)
class PagePlan:
    """What the code of one page replicates: the query's page size and mode, and for fill
    mode the reader's loop, with what reading the page told (when it was read)."""

    page_size: int
    fill: bool
    max_rounds: int
    first_limit: int  # the Limit of the first call (sized by earlier pages' selectivity)
    filtered: bool
    key_names: tuple[str, ...]  # a start key on this order: index keys, then table keys
    capped_at: int | None = None  # items shown when the loop ran out of rounds
    scanned: int = 0  # items the page's calls evaluated

    @property
    def need(self) -> int:
        return self.page_size + 1


def page_plan(spec: QuerySpec, schema: TableSchema, read: PageSummary[Any] | None) -> PagePlan:
    """The plan for the page ``read`` (None: a page not read yet, such as the first)."""
    fill = spec.mode == "fill"
    calls = read.cost.calls if read is not None else ()
    first = calls[0].limit if fill and calls else None
    if first is None:
        first = fill_limit(spec.page_size + 1, bool(spec.filter), 0, 0, None, None) if fill else 0
    capped = read is not None and fill and read.ended_by is EndedBy.ROUNDS
    return PagePlan(
        page_size=spec.page_size,
        fill=fill,
        max_rounds=spec.max_rounds,
        first_limit=first or spec.page_size,
        filtered=bool(spec.filter),
        key_names=schema.cursor_key_names(spec.index),
        capped_at=read.shown if capped and read is not None else None,
        scanned=(read.scanned_count or 0) if read is not None else 0,
    )


def _params(spec: QuerySpec, schema: TableSchema) -> dict[str, Any]:
    params = spec.request(schema, None, spec.page_size)
    params.pop("Limit")
    return params


def _calls(count: int) -> str:
    return f"{count} call" if count == 1 else f"{count} calls"


def title(spec: QuerySpec, page: int) -> str:
    how = (
        "one call, Limit = page size"
        if spec.mode == "raw"
        else f"dynotui's fill loop: at most {_calls(spec.max_rounds)} for page size + 1 matches"
    )
    return f"Page {page} of a {spec.operation.capitalize()} on {spec.table} ({how})."


def _fill_python(plan: PagePlan) -> str:
    return f'''PAGE_SIZE = {plan.page_size}
MAX_ROUNDS = {plan.max_rounds}
FIRST_LIMIT = {plan.first_limit}  # sized by the share of matches on the pages before
FILTERED = {plan.filtered}
# What a start key holds on this order: the index keys, then the table keys.
KEY_NAMES = {plan.key_names!r}


def next_limit(need, scanned, matched, last_limit):
    """The next call's Limit, as dynotui sizes it: by the share of items the filter kept
    so far (Limit counts items evaluated; the filter applies after it)."""
    if not FILTERED:
        return need
    if matched:
        estimate = need * scanned / matched
    elif scanned:
        estimate = last_limit * 4
    else:
        estimate = need
    return max(need, min({PAGE_SIZE_MAX}, math.ceil(estimate)))


def fill_page(start_key):
    """At most MAX_ROUNDS calls, until PAGE_SIZE + 1 matches (the extra one only proves a
    next page) or the end: the items shown and the next page's start key."""
    items, scanned, matched, limit = [], 0, 0, FIRST_LIMIT
    for _ in range(MAX_ROUNDS):
        response = one_page(start_key, limit)
        items.extend(response["Items"])
        scanned += response["ScannedCount"]
        matched += response["Count"]
        start_key = response.get("LastEvaluatedKey")
        if len(items) > PAGE_SIZE or start_key is None:
            break
        limit = next_limit(PAGE_SIZE + 1 - len(items), scanned, matched, limit)
    if len(items) > PAGE_SIZE:
        shown = items[:PAGE_SIZE]
        # After the last item shown; never LastEvaluatedKey, which lies past matches not shown.
        return shown, {{name: shown[-1][name] for name in KEY_NAMES}}
    return items, start_key  # the end, or the rounds ran out: what they found


'''


def boto3_code(
    spec: QuerySpec,
    schema: TableSchema,
    start_key: Item | None,
    page: int,
    target: CodeTarget,
    plan: PagePlan,
) -> str:
    params = pprint.pformat(_params(spec, schema), sort_dicts=False, width=88)
    start = pprint.pformat(start_key, sort_dicts=False, width=88) if start_key else "None"
    call = "client.scan" if spec.scan else "client.query"
    if plan.fill:
        loop = _fill_python(plan)
        run = "items, next_key = fill_page(START_KEY)"
    else:
        loop = ""
        run = (
            "response = one_page(START_KEY)\n"
            'items, next_key = response["Items"], response.get("LastEvaluatedKey")'
        )
    return f'''"""{title(spec, page)}

Generated by dynotui. Only an absent LastEvaluatedKey means the end: a page with
no items and a key is normal when a filter is set (Limit counts items evaluated,
and the filter applies after it).
"""

import base64
import json
import math
import sys

import boto3

{target.python_comment()}client = boto3.client("dynamodb"{target.boto3_arguments()})

PARAMS = {params}

# ExclusiveStartKey of page {page} (None: the start of the result).
START_KEY = {start}


def one_page(start_key, limit={spec.page_size}):
    """One call: up to `limit` items evaluated, then the filter."""
    request = dict(PARAMS, Limit=limit)
    if start_key:
        request["ExclusiveStartKey"] = start_key
    return {call}(**request)


{loop}def as_base64(value):
    return base64.b64encode(value).decode()


{run}
for item in items:
    print(json.dumps(item, default=as_base64))
print("next page's ExclusiveStartKey:", json.dumps(next_key, default=as_base64), file=sys.stderr)
'''


def cli_command(
    spec: QuerySpec,
    schema: TableSchema,
    start_key: Item | None,
    page: int,
    target: CodeTarget,
    plan: PagePlan,
) -> str:
    params = _params(spec, schema)
    parts = [f"aws dynamodb {spec.operation}", f"--table-name {shlex.quote(spec.table)}"]
    flags = {
        "IndexName": "--index-name",
        "KeyConditionExpression": "--key-condition-expression",
        "FilterExpression": "--filter-expression",
        "ProjectionExpression": "--projection-expression",
    }
    for key, flag in flags.items():
        if key in params:
            parts.append(f"{flag} {shlex.quote(params[key])}")
    if "ExpressionAttributeNames" in params:
        parts.append(f"--expression-attribute-names {cli_json(params['ExpressionAttributeNames'])}")
    if "ExpressionAttributeValues" in params:
        values = to_wire(params["ExpressionAttributeValues"])
        parts.append(f"--expression-attribute-values {cli_json(values)}")
    if params.get("ScanIndexForward") is False:
        parts.append("--no-scan-index-forward")
    if params.get("ConsistentRead"):
        parts.append("--consistent-read")
    parts.append("--return-consumed-capacity INDEXES")
    note = ""
    if not plan.fill or plan.capped_at == 0:
        if plan.fill:  # the rounds found nothing: one call over the items they evaluated
            note = f"\n# dynotui's {_calls(plan.max_rounds)} evaluated {plan.scanned} items and "
            note += "found no match: so does one call with that Limit."
        if start_key:
            parts.append(f"--exclusive-start-key {cli_json(to_wire(start_key))}")
        limit = plan.scanned if plan.fill else spec.page_size
        parts.append(f"--limit {max(1, limit)} --no-paginate")
    else:
        if start_key:
            # The CLI's own pagination token: it wraps the same ExclusiveStartKey.
            from botocore.paginate import TokenEncoder

            token = TokenEncoder().encode({"ExclusiveStartKey": start_key})
            parts.append(f"--starting-token {token}")
        items = plan.page_size
        if plan.capped_at is not None:
            items = plan.capped_at
            note = f"\n# dynotui's loop ran out of its {_calls(plan.max_rounds)} with {items} "
            note += "matches: they are the first matches, so the CLI asks for as many."
        # The CLI's pages do not adapt: one Limit sized by the selectivity dynotui measured.
        parts.append(f"--max-items {items} --page-size {plan.first_limit}")
    parts.extend(target.cli_flags())
    parts[0] = target.cli_prefix() + parts[0]
    comment = f"# {title(spec, page)} Generated by dynotui.{note}{target.cli_comment()}"
    if has_binary_json(parts):
        comment += (
            "\n# For AWS CLI v2, which reads B values as base64 (v1 would send the base64"
            "\n# text itself as the bytes)."
        )
    return comment + "\n" + " \\\n  ".join(parts) + "\n"


def generate(
    language: str,
    spec: QuerySpec,
    schema: TableSchema,
    start_key: Item | None,
    page: int,
    target: CodeTarget | None = None,
    read: PageSummary[Any] | None = None,
) -> str:
    """The code of page ``page`` from ``start_key``; ``read``: that page as it was read
    (its first call's Limit, and where its fill loop stopped), None before it is."""
    from dynotui.dynamodb.codegen_js import javascript_code

    makers = {"boto3": boto3_code, "aws-cli": cli_command, "javascript": javascript_code}
    plan = page_plan(spec, schema, read)
    return makers[language](spec, schema, start_key, page, target or CodeTarget(), plan)
