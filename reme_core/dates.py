"""Dates of notes, one rule for every stage: `YYYY-MM-DD` strings as day ordinals.

A note's date comes from a `YYYY-MM-DD` in its file name (`2021-03-04 Retro.md`), else in the
nearest folder name that has one (`daily/2026-06-20/x.md`), else from its `date` property,
else `created` (SPEC §14); the search filters compare the same ordinals.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

NO_DATE = -1
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_IN_NAME = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)", re.ASCII)
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
    """The note's date (see the module docstring), or NO_DATE when it has none."""
    for name in reversed(path.split("/")):  # the file name, then its folders, nearest first
        for m in _IN_NAME.finditer(name):
            ordinal = _ordinal(m)
            if ordinal != NO_DATE:
                return ordinal
    for key in ("date", "created"):
        ordinal = date_ordinal(frontmatter.get(key))
        if ordinal != NO_DATE:
            return ordinal
    return NO_DATE


def _ordinal(m: re.Match[str]) -> int:
    try:
        return date(int(m[1]), int(m[2]), int(m[3])).toordinal()
    except ValueError:
        return NO_DATE
