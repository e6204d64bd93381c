"""The JSON text of a file's frontmatter, warnings or tags, as the store and the snapshot
keep it (one form for both: Unicode as is, anything JSON has no type for as its `str`)."""

from __future__ import annotations

import json
from typing import Any

# One encoder for every call: `json.dumps` with options builds a new one each time, and a
# rebuild encodes three values per file, twice (the rows, then the snapshot).
_ENCODE = json.JSONEncoder(ensure_ascii=False, default=str).encode


def json_text(value: Any) -> str:
    """`value` as JSON; the empty list and mapping (most files' warnings and tags) by a
    constant."""
    if type(value) is list and not value:
        return "[]"
    if type(value) is dict and not value:
        return "{}"
    return _ENCODE(value)
