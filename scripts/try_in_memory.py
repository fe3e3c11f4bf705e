"""The app on the demo table in memory: no Java, no DynamoDB Local, no AWS account.

    python scripts/try_in_memory.py [--read-ahead N]

For trying a screen or a key while working on the UI. The demo's orders live in this
process (``dynotui/dynamodb/memory.py``) and are read by dynotui's own reader, as DynamoDB
would answer (``tests/test_memory_conformance.py`` holds them to DynamoDB Local); capacity
figures come from the items' sizes. Nothing is written anywhere but the app's own history.
"""

from __future__ import annotations

import argparse

from dynotui.dynamodb.connection import ConnectionOptions
from dynotui.dynamodb.memory import MemoryDynamoDB
from dynotui.dynamodb.query_form import QueryForm
from dynotui.local import demo
from dynotui.ui.app import PagerApp
from dynotui.ui.dynamodb.adapter import DynamoDBAdapter


def demo_in_memory() -> MemoryDynamoDB:
    memory = MemoryDynamoDB()
    memory.create_table(**demo.TABLE_DEFINITION)
    memory.put(demo.TABLE, demo.demo_items())
    return memory


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--read-ahead", type=int, choices=range(0, 11), default=0)
    args = parser.parse_args()
    adapter = DynamoDBAdapter(
        demo_in_memory(),
        ConnectionOptions(),
        label="the demo table in memory (no server)",
        table=demo.TABLE,
        form=QueryForm(partition_value=demo.BIG_CUSTOMER),
    )
    PagerApp(adapter, read_ahead=args.read_ahead).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
