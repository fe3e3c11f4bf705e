"""The terminal UI (Textual). Imported only when a terminal UI is wanted."""

import os

# Textual paints what changed at most MAX_FPS times a second, on a fixed beat: at its
# default 60, a page waits 0-17 ms (8 on average) for the next beat before it is drawn.
# At 120 the wait halves; a frame here takes 8-15 ms, so the beat is rarely the limit.
# Set before Textual is imported (it reads the variable once); a user's own value wins.
os.environ.setdefault("TEXTUAL_FPS", "120")
