"""The small rules of the words every answer uses: a count with its noun."""

from __future__ import annotations


def plural(n: int, noun: str, many: str = "", *, commas: bool = False) -> str:
    """`1 link`, `2 links` (`many` when the plural is not noun + "s"; `commas`: `1,234`)."""
    count = f"{n:,}" if commas else str(n)
    return f"{count} {noun if n == 1 else many or noun + 's'}"


def dangling(n: int, *, ahead: bool = False) -> str:
    """The one sentence for the inbound links a delete leaves dangling: done, or `ahead`
    of it (a preview)."""
    return f"{plural(n, 'inbound link')} {'will be left' if ahead else 'now'} dangling"
