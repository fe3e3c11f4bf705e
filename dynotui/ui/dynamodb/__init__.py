"""DynamoDB in the pager app: its adapter, its queries and its own screens."""
