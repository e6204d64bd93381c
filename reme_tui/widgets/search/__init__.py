"""The search pane: the query box's syntax, result blocks, the pane itself."""
