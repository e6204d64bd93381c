"""The reader: a note's numbered lines, links, ranges and history."""
