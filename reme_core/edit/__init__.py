"""Changing notes safely: link-keeping moves, the trash, undo, the move journal."""
