"""``dynotui plan``: every path that answers one query, costed side by side before it is read.

- ``paths``: the paths (the base table, each LSI and GSI with the query rewritten onto its
  keys, a Scan, an export, the advisor's imagined index), and why a path cannot serve;
- ``reads``: the plan's own bounded reads of a path (every entry it evaluates, no filter);
- ``simulated``: a path paged by dynotui's own pager over entries that are known;
- ``figures``: the figures of a path and of the plan, as data and JSON;
- ``planner``: what is read, cheapest first, and what each path's figures rest on;
- ``words``: the plan as a text table.

Textual-free: the CLI and the app's screen both drive ``Planner``.
"""
