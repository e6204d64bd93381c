"""Modal screens pushed by the app (self-contained: each dismisses with a result)."""
