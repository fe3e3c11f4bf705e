"""The screens every database shares: the main screen (and compare), stack, item, code,
help, pickers, columns, cursors."""
