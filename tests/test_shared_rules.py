"""The rules several stages share, each in one place: note dates, line anchors, where
frontmatter ends. The callers (parse, index, query, CLI, TUI) are checked through them."""

from __future__ import annotations

from reme_core import NO_DATE, date_ordinal, line_ranges
from reme_core.dates import file_date, is_iso_date
from reme_core.parse.frontmatter import frontmatter_lines, split_frontmatter
from reme_core.parse.markdown_render import body_start
from reme_core.parse.wikilinks import find_wikilinks


def test_dates_are_real_days_from_paths_then_frontmatter() -> None:
    assert date_ordinal("2026-06-05") == date_ordinal("2026-06-05.md") > 0
    assert date_ordinal("2026-02-30") == NO_DATE and date_ordinal(None) == NO_DATE
    assert is_iso_date("2024-02-29") and not is_iso_date("2023-02-29")
    assert not is_iso_date("2024-02-29x") and not is_iso_date("20240229")
    assert file_date("daily/2026-06-05/run.md", {"date": "2020-01-01"}) == date_ordinal(
        "2026-06-05"
    )
    # SPEC §14: a date in the path (the file name too, at the root as anywhere) comes first.
    assert file_date("2026-06-05.md", {"date": "2020-01-01"}) == date_ordinal("2026-06-05")
    assert file_date("notes/x.md", {"date": "2020-01-01"}) == date_ordinal("2020-01-01")


def test_frontmatter_dates_are_kept_when_real_and_refused_when_not() -> None:
    assert split_frontmatter("---\na: 2024-02-29\n---\nbody\n").data == {"a": "2024-02-29"}
    broken = split_frontmatter("---\nb: 2023-02-29\n---\nbody\n")
    assert broken.data == {} and broken.warning and "YAML" in broken.warning


def test_line_anchors_read_one_way() -> None:
    assert line_ranges("L9") == [(9, 9)]
    assert line_ranges("l9-L10") == [(9, 10)]
    assert line_ranges("L12-9") == [(9, 12)]
    assert line_ranges("L9-L10,L15-L20") == [(9, 10), (15, 20)]
    assert line_ranges("L0") == [] and line_ranges("Heading") == [] and line_ranges("") == []
    assert line_ranges("L9,Heading") == []


def test_one_frontmatter_boundary_for_every_reader() -> None:
    cases = [
        ("---\nname: x\n---\nbody [[a.md]]\n", 3),
        ("---\nname: x\n...\nbody [[a.md]]\n", 3),
        ("---  \r\nname: x\r\n---\t\r\nbody [[a.md]]\r\n", 3),
        ("--- \nname: [[a.md]]\n", 0),  # never closed: no frontmatter
        ("text\n---\nname: x\n---\n[[a.md]]\n", 0),
    ]
    for text, expected in cases:
        lines = text.split("\n")
        assert frontmatter_lines(lines) == expected, text
        assert body_start(lines) == expected
        normalized = text.replace("\r\n", "\n")
        assert split_frontmatter(normalized).end_line == expected, text
        links = find_wikilinks(text)
        assert [m.target for m in links] == ["a.md"], text  # never a link in frontmatter
