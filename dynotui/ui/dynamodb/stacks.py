"""The DynamoDB adapter's queries, stacks and answers, in the generic app's types.

Items and costs are DynamoDB's; a boundary is a Query's ExclusiveStartKey (an item's keys)
or a PartiQL NextToken (text), so the adapter's is either.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dynotui.core.pager import Pager
from dynotui.dynamodb.cost import DynamoCost
from dynotui.dynamodb.dynamo_json import Item
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import TableSchema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.ui.adapter import Answer, NewStack, Shown
from dynotui.ui.dynamodb.partiql import PartiQLQuery
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.query import Query

DynamoDBQuery = DynamoQuery | PartiQLQuery
DynamoShown = Shown[Any, Item, DynamoCost]
DynamoStack = NewStack[Any, Item, DynamoCost]
DynamoAnswer = Answer[Any, Item, DynamoCost]
DynamoPager = Pager[Any, Item, DynamoCost]
DynamoQueryShown = Query[Any, Item, DynamoCost]
# How an adapter makes a Query or Scan of its own (an export's reads the export).
MakeQuery = Callable[[TableSchema, QueryForm, QuerySpec], DynamoQuery]
