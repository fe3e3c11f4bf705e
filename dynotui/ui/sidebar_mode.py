"""Where each view's costs go: a sidebar beside the grid when there is room, else a
two-line cost strip below it; ``b`` chooses one for the session, else the width does."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.screen import Screen
from textual.widgets import Footer

from dynotui.ui.widgets.pager_view import PagerView
from dynotui.ui.widgets.sidebar import CostSidebar

STRIP_BELOW = 120  # below this many columns the sidebar becomes a two-line cost strip
# In the compare view, two sidebars would leave each grid about 26 columns at 120: each
# side's costs are its two-line strip below this many columns.
COMPARE_STRIP_BELOW = 190


def strip_wanted(chosen: str | None, width: int, comparing: bool) -> bool:
    """``chosen``: None (by width), "sidebar" or "strip" (the user's ``b``)."""
    below = COMPARE_STRIP_BELOW if comparing else STRIP_BELOW
    return chosen == "strip" or (chosen is None and width < below)


def scroll_sidebar(view: PagerView) -> str | None:
    """``B``: the view's sidebar a screenful further down, from its end back to its top;
    what to say instead when there is nothing to scroll."""
    if view.has_class("-strip"):
        return "The costs are in the strip under the grid: b shows the sidebar."
    sidebar = view.query_one(CostSidebar)
    if not sidebar.max_scroll_y:
        return "The whole sidebar is on screen."
    if sidebar.scroll_y >= sidebar.max_scroll_y:
        sidebar.scroll_home(animate=False)
    else:
        sidebar.scroll_page_down(animate=False)
    return None


def lay_out(screen: Screen[Any], views: Iterable[PagerView], strip: bool, width: int) -> None:
    """Every view's costs as a strip or a sidebar; a narrow footer shows the keys, not the
    palette hint (ctrl+p still opens it)."""
    for view in views:
        view.set_class(strip, "-strip")
    narrow = width < STRIP_BELOW
    for footer in screen.query(Footer):  # none before the screen is composed
        footer.compact = narrow
        footer.show_command_palette = not narrow
