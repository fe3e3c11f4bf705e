"""The terminal UI (Textual). Imported only when a terminal UI is wanted."""
