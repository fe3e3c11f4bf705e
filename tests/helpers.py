"""Ground truth for paging tests: a plain boto3 loop over LastEvaluatedKey."""

from __future__ import annotations

from typing import Any


def responses(
    call: Any,
    *,
    more: str = "LastEvaluatedKey",
    start: str = "ExclusiveStartKey",
    pages: int | None = None,
    **params: Any,
) -> list[dict]:
    """Each response of a plain loop: ``call`` again from ``more`` (LastEvaluatedKey, or
    NextToken for PartiQL) until it is absent, or for ``pages`` responses at most."""
    found: list[dict] = []
    while pages is None or len(found) < pages:
        response = call(**params)
        found.append(response)
        if not response.get(more):
            break
        params = {**params, start: response[more]}
    return found


def query_pages(client: Any, **params: Any) -> list[dict]:
    """Every response of a Query (or Scan, without KeyConditionExpression), in order."""
    operation = client.query if "KeyConditionExpression" in params else client.scan
    return responses(operation, **params)


def drain(client: Any, **params: Any) -> list[dict]:
    """Every item a Query (or Scan, without KeyConditionExpression) returns, in order."""
    return [item for response in query_pages(client, **params) for item in response["Items"]]


def walk(pager: Any, limit: int = 100_000) -> list[Any]:
    """Every page from here to the end, following the pager's own next."""
    pages = []
    while pager.can_advance and len(pages) < limit:
        pages.append(pager.next())
    return pages


def items_of(pages: list[Any]) -> list[dict]:
    return [item for page in pages for item in page.items]


def rare_spec(schema: Any, **options: Any) -> Any:
    """The demo's big customer filtered on the rare status: most of what is read is discarded."""
    from dynotui.dynamodb.spec import from_key
    from dynotui.local import demo

    return from_key(
        schema,
        partition_value=demo.BIG_CUSTOMER,
        filter="status = :r",
        filter_values={":r": {"S": demo.RARE_STATUS}},
        **options,
    )


def page_lines(stdout: str) -> list[dict]:
    """The page objects ``dynotui pages`` printed, without its last line, the summary
    (checked to be there, last, and the only object without a ``page`` key)."""
    import json

    parsed = [json.loads(line) for line in stdout.splitlines()]
    assert parsed and set(parsed[-1]) == {"summary"}, "the last line is the summary"
    assert all("page" in line for line in parsed[:-1])
    return parsed[:-1]


def summary_line(stdout: str) -> dict:
    """The ``summary`` object of ``dynotui pages`` output."""
    import json

    return json.loads(stdout.splitlines()[-1])["summary"]
