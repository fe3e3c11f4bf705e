"""``dynotui plan --postgres``: a filter's matches read in each of the table's orders,
costed from the server's planner (EXPLAIN without ANALYZE: nothing of the query runs).

- ``conjuncts``: the checked filter's top-level AND terms, each as its checked sub-tree;
- ``buffers``: buffers a page touches, estimated from a plan and the catalog's sizes;
- ``planner``: the paths (each order the table lists), explained and costed, the cheapest;
- ``words``: the plan as a text table.

Textual-free: the CLI and the app's screen both call ``make_plan``.
"""
