"""The widgets every database shares: the grid, the pager view, the sidebar, the lines."""
