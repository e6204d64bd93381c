"""The SQLite store of record for derived state."""
