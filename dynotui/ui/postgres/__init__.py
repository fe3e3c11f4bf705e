"""PostgreSQL in the pager app: its adapter, its query and its own screens."""
