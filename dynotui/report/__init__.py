"""Reports to share: a data model built by database code, drawn as HTML or Markdown."""
