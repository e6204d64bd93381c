"""Dates of notes, one rule for every stage: `YYYY-MM-DD` strings as day ordinals.

A note's date comes from a `YYYY-MM-DD` folder or file name below its layer, else from its
frontmatter `date`; the search filters compare the same ordinals.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

NO_DATE = -1
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_SEGMENT = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:\.[A-Za-z0-9]+)?$", re.ASCII)


def is_iso_date(text: str) -> bool:
    """Whether `text` is exactly a real `YYYY-MM-DD` date (2024-02-30 is not)."""
    m = _ISO.fullmatch(text)
    return m is not None and _ordinal(m) != NO_DATE


def date_ordinal(value: object) -> int:
    """Ordinal of a `YYYY-MM-DD` value (a datetime's first ten characters, or a file name
    such as `2026-06-05.md`), or NO_DATE when it is not a real date."""
    text = str(value).strip()[:10] if value is not None else ""
    m = _SEGMENT.match(text)
    return _ordinal(m) if m else NO_DATE


def file_date(path: str, frontmatter: Mapping[str, Any]) -> int:
    """The note's date: a `YYYY-MM-DD` path segment after the layer, else frontmatter `date`."""
    for segment in path.split("/")[1:]:
        ordinal = date_ordinal(segment)
        if ordinal != NO_DATE:
            return ordinal
    return date_ordinal(frontmatter.get("date"))


def _ordinal(m: re.Match[str]) -> int:
    try:
        return date(int(m[1]), int(m[2]), int(m[3])).toordinal()
    except ValueError:
        return NO_DATE
