"""A DynamoDB table export (the layout DynamoDB writes to S3) read with DuckDB: counts, pages
in key order, partition sizes and Athena SQL, with no read units."""
