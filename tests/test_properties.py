"""The Properties panel (issue 30): typed rows, links inside values, and typed input."""

from __future__ import annotations

import pytest

from reme_core import (
    LinkSpan,
    RemeError,
    find_wikilinks,
    properties,
    property_value,
    render_properties,
)

NOTE = """---
title: Trip notes
tags:
  - travel
  - "[[Japan]]"
rating: 4.5
count: 3
done: true
date: 2024-05-01
when: "2024-05-01T10:30"
related: "[[Kyoto|the old capital]]"
empty:
"odd key": x
---
body"""


def test_each_key_is_typed_in_written_order_with_its_lines() -> None:
    rows = properties(NOTE.split("\n"))
    assert [(r.key, r.kind) for r in rows] == [
        ("title", "text"),
        ("tags", "list"),
        ("rating", "number"),
        ("count", "number"),
        ("done", "checkbox"),
        ("date", "date"),
        ("when", "date"),
        ("related", "text"),
        ("empty", "text"),
        ("odd key", "text"),
    ]
    tags = rows[1]
    assert tags.values == ("travel", "[[Japan]]")
    assert (tags.line, tags.last) == (3, 5)
    assert rows[5].values == ("2024-05-01",)
    assert rows[8].values == ("",)
    assert rows[9].line == 13


def test_no_frontmatter_or_broken_yaml_gives_no_panel() -> None:
    assert properties(["just text"]) == []
    assert render_properties(["---", "a: [unclosed", "---", "x"]) == []


def test_panel_rows_show_links_by_label_and_number_them() -> None:
    lines = NOTE.split("\n")
    spans = [LinkSpan(m.line, m.start, m.end, m.alias or m.target) for m in find_wikilinks(NOTE)]
    out = render_properties(lines, spans)
    assert out[0].text == "Properties"
    tags = next(r for r in out if r.text.startswith("tags"))
    assert tags.text.endswith("travel  ·  Japan")
    (start, end, n) = tags.links[0]
    assert tags.text[start:end] == "Japan" and spans[n].label == "Japan"
    assert tags.source == 3
    related = next(r for r in out if r.text.startswith("related"))
    s, e, n = related.links[0]
    assert related.text[s:e] == "the old capital" and n == 1
    done = next(r for r in out if r.text.startswith("done"))
    assert "☑ true" in done.text and "checkbox" in done.text
    # keys padded to one column: every kind starts where the longest key ends, plus two
    kinds = [r.text[len("odd key") + 2 :].split()[0] for r in out[1:-1]]
    assert kinds == [p.kind for p in properties(lines)]


@pytest.mark.parametrize(
    ("kind", "typed", "value"),
    [
        ("list", "a, b ,, c", ["a", "b", "c"]),
        ("number", "7", 7),
        ("number", "2.5", 2.5),
        ("checkbox", "no", False),
        ("checkbox", "true", True),
        ("date", "2024-02-03", "2024-02-03"),
        ("text", "  words  ", "words"),
    ],
)
def test_typed_input_becomes_a_value_of_the_kind(kind: str, typed: str, value: object) -> None:
    assert property_value(kind, typed) == value


@pytest.mark.parametrize(("kind", "typed"), [("number", "seven"), ("checkbox", "maybe")])
def test_input_not_of_the_kind_is_refused(kind: str, typed: str) -> None:
    with pytest.raises(RemeError):
        property_value(kind, typed)
