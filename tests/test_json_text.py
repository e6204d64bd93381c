"""`json_text` is exactly `json.dumps(value, ensure_ascii=False, default=str)`: the store's
rows and the snapshot are compared and decoded as that text."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from reme_core.text.json_text import json_text


@pytest.mark.parametrize(
    "value",
    [
        [],
        {},
        ["warning: invalid UTF-8 replaced"],
        {"name": "光伏", "date": dt.date(2026, 6, 1), "tags": ["a", "b"], "n": 3, "x": None},
        {"nested": {"when": dt.datetime(2026, 6, 1, 9, 30)}, "empty": {}, "list": []},
        [[]],
        "",
        0,
        None,
    ],
)
def test_json_text_is_the_stored_form(value: Any) -> None:
    assert json_text(value) == json.dumps(value, ensure_ascii=False, default=str)
    assert json.loads(json_text(value)) == json.loads(
        json.dumps(value, ensure_ascii=False, default=str)
    )
