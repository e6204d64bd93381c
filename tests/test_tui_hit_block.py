"""Result blocks: which lines a hit shows, their true numbers, and a header that fits."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from reme_core import SearchHit
from reme_tui.widgets.search.hit_block import HitBlock, best_lines, body_lines, shorten_left


def render(block: HitBlock, width: int) -> list[Text]:
    console = Console(width=width)
    return list(block.__rich_console__(console, console.options.update_width(width)))


def test_body_lines_drop_the_heading_skeleton() -> None:
    hit = SearchHit("a.md", 10, 11, "# Top\n## Sub\nfirst body\nsecond body", 1.0)
    assert body_lines(hit) == ["first body", "second body"]


def test_best_lines_show_the_matching_part_with_true_numbers() -> None:
    body = ["intro", "", "filler one", "filler two", "filler three", "bm25 saturates", "idf too"]
    lines = best_lines(20, body, ["bm25", "idf"])
    assert lines == [(24, "filler three"), (25, "bm25 saturates"), (26, "idf too")]


def test_no_match_shows_the_first_lines() -> None:
    assert best_lines(1, ["a", "", "b", "c", "d"], ["zzz"]) == [(1, "a"), (3, "b"), (4, "c")]


def test_shorten_left_cuts_at_folders_then_characters() -> None:
    path = "daily/2026-06-15/retrieval-regression.md"
    assert shorten_left(path, 60) == path
    assert shorten_left(path, 30) == "…/retrieval-regression.md"
    assert shorten_left(path, 12) == "…gression.md"
    assert shorten_left("日记/检索回归.md", 14) == "…/检索回归.md"
    assert shorten_left("日记/检索回归.md", 10) == "…索回归.md"  # wide characters count twice


def test_header_stays_on_one_line_and_terms_are_marked_case_and_cjk_aware() -> None:
    hit = SearchHit(
        "daily/2026-06-15/retrieval-regression.md",
        10,
        12,
        "BM25 排序\nx\n向量召回 and Bm25",
        3.86131,
    )
    block = HitBlock.of(hit, ["bm25", "召回"])
    assert block.header == "daily/2026-06-15/retrieval-regression.md:10-12 [3.8613]"
    rows = render(block, 34)
    assert (
        rows[0].plain == "…/retrieval-regression.md:10-12 [3.8613]"[:34] or len(rows[0].plain) <= 34
    )
    assert rows[0].plain.endswith(":10-12 [3.8613]")
    marked = [row.plain[span.start : span.end] for row in rows[1:] for span in row.spans]
    assert {"BM25", "Bm25", "召回"} <= set(marked)


def test_a_long_line_is_cut_so_the_match_shows() -> None:
    line = "x" * 80 + " needle here"
    block = HitBlock("a.md", 1, 1, "1.0000", [(1, line)], ["needle"])
    row = render(block, 30)[1]
    assert "needle" in row.plain and row.plain.startswith("1 …")
