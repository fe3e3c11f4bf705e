"""The code that would create the imagined index: shown, never run by dynotui.

``UpdateTable`` with ``GlobalSecondaryIndexUpdates`` ``Create`` adds a GSI to a table
that exists (a local secondary index can only be made with the table). Its
``AttributeDefinitions`` must name the new index's key attributes with their types. A
table in provisioned mode needs the index's own ``ProvisionedThroughput``; an on-demand
table must not be given one.
"""

from __future__ import annotations

import pprint
import shlex
from typing import Any

from dynotui.dynamodb.code_target import CodeTarget, cli_json
from dynotui.dynamodb.what_if.rewrite import ImaginedIndex

LANGUAGES = ("cli", "boto3")
BACKFILL_NOTE = (
    "Creating a GSI backfills it from every item of the table: it takes time on a large "
    "table and its writes are billed. dynotui does not run this."
)


def provisioned_throughput(client: Any, table: str) -> tuple[int, int] | None:
    """(read, write) units of a provisioned table, which a new GSI must be given too;
    None for an on-demand table (one DescribeTable call)."""
    described = client.describe_table(TableName=table)["Table"]
    if described.get("BillingModeSummary", {}).get("BillingMode") == "PAY_PER_REQUEST":
        return None
    throughput = described.get("ProvisionedThroughput", {})
    if not throughput.get("ReadCapacityUnits"):
        return None
    return int(throughput["ReadCapacityUnits"]), int(throughput["WriteCapacityUnits"])


def update_table_params(
    table: str,
    index: ImaginedIndex,
    partition_type: str,
    sort_type: str | None,
    provisioned: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """UpdateTable's parameters; ``provisioned`` is (read, write) units for a provisioned
    table (None: on demand)."""
    keys = [{"AttributeName": index.partition_key, "KeyType": "HASH"}]
    definitions = [{"AttributeName": index.partition_key, "AttributeType": partition_type}]
    if index.sort_key is not None:
        keys.append({"AttributeName": index.sort_key, "KeyType": "RANGE"})
        definitions.append({"AttributeName": index.sort_key, "AttributeType": sort_type or "S"})
    projection: dict[str, Any] = {"ProjectionType": index.projection}
    if index.projection == "INCLUDE":
        projection["NonKeyAttributes"] = list(index.include)
    create: dict[str, Any] = {
        "IndexName": index.index_name,
        "KeySchema": keys,
        "Projection": projection,
    }
    if provisioned is not None:
        create["ProvisionedThroughput"] = {
            "ReadCapacityUnits": provisioned[0],
            "WriteCapacityUnits": provisioned[1],
        }
    return {
        "TableName": table,
        "AttributeDefinitions": definitions,
        "GlobalSecondaryIndexUpdates": [{"Create": create}],
    }


def cli_code(params: dict[str, Any], target: CodeTarget) -> str:
    command = [
        f"{target.cli_prefix()}aws dynamodb update-table",
        f"  --table-name {shlex.quote(params['TableName'])}",
        f"  --attribute-definitions {cli_json(params['AttributeDefinitions'])}",
        f"  --global-secondary-index-updates {cli_json(params['GlobalSecondaryIndexUpdates'])}",
        *(f"  {flag}" for flag in target.cli_flags()),
    ]
    return f"# {BACKFILL_NOTE}{target.cli_comment()}\n" + " \\\n".join(command) + "\n"


def boto3_code(params: dict[str, Any], target: CodeTarget) -> str:
    body = pprint.pformat(params, sort_dicts=False, width=88)
    # Index names are letters, digits, _ . and - only: safe in a docstring.
    index_name = params["GlobalSecondaryIndexUpdates"][0]["Create"]["IndexName"]
    return (
        f'"""Create the GSI {index_name}.\n\n'
        f'{BACKFILL_NOTE}\n"""\n\n'
        "import boto3\n\n"
        f'{target.python_comment()}client = boto3.client("dynamodb"{target.boto3_arguments()})\n\n'
        f"PARAMS = {body}\n\n"
        "response = client.update_table(**PARAMS)\n"
        'print(response["TableDescription"]["GlobalSecondaryIndexes"])\n'
    )


def generate(language: str, params: dict[str, Any], target: CodeTarget) -> str:
    if language == "cli":
        return cli_code(params, target)
    if language == "boto3":
        return boto3_code(params, target)
    raise ValueError(f"unknown language {language!r}")
