"""Ground truth for paging tests: a plain boto3 loop over LastEvaluatedKey."""

from __future__ import annotations

from typing import Any


def drain(client: Any, **params: Any) -> list[dict]:
    """Every item a Query (or Scan, without KeyConditionExpression) returns, in order."""
    operation = client.query if "KeyConditionExpression" in params else client.scan
    items: list[dict] = []
    while True:
        response = operation(**params)
        items.extend(response["Items"])
        if "LastEvaluatedKey" not in response:
            return items
        params = {**params, "ExclusiveStartKey": response["LastEvaluatedKey"]}


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
