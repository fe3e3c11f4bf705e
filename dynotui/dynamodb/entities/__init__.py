"""Entities: a single-table design told apart from its own data.

One table often holds customers, orders and addresses, told apart by an attribute a
library writes (ElectroDB ``__edb_e__``, dynamodb-toolbox ``_et``, OneTable ``_type``, a
plain ``type`` or ``entity``) or by the prefixes of the key values (``CUSTOMER#42`` /
``ORDER#2026-10-01#7``). Nothing here imports Textual: the CLI, the report and the app
share it.

- ``prefixes``: a key value's prefix before a separator, and the separator a key
  attribute's values use (found from the data);
- ``marks``: the entity attribute, among the known names (or the one the user names);
- ``scheme``: the rule each item answers to, decided once from the first items read;
- ``tally``: per entity, items, sizes, attributes, and the clusters an estimate needs;
- ``interval``: an entity's count from a sample, with its range;
- ``census``: the whole read folded into the entity table (``EntityTable``);
- ``sample``: a bounded parallel Scan of a live table or index;
- ``export``: the same from a table export, exact, with no read units.
"""
