"""dynotui: a terminal pager for Amazon DynamoDB query results."""

__version__ = "0.1.0"
