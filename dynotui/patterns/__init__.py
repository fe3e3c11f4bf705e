"""A team's access patterns as a file: named queries (``dynotui pages``'s flags in
snake_case) with a budget each, read and validated here without any database call.

The package knows the file's format, the budget's figures, receipts and JUnit; it imports
no database driver and no command. The commands (``dynotui check``, ``what-if
--patterns``, ``mcp``) build each pattern's query through ``pages``'s own flags and read
it as ``pages`` does.
"""
