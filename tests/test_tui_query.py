"""The search box's query syntax maps onto a SearchRequest."""

from __future__ import annotations

from reme_core.query.query_language import parse_query


def test_words_phrases_exclusions_and_filters() -> None:
    q = parse_query(
        'bm25 "line ranges" -jieba path:daily/ tag:kestrel after:2026-06-01 before:2026-06-20'
    )
    assert q.words == ["bm25"]
    assert q.phrases == ["line ranges"]
    assert q.exclude_terms == ["jieba"]
    assert q.paths == ["daily/"]
    assert q.tags == ["kestrel"]
    assert (q.start_date, q.end_date) == ("2026-06-01", "2026-06-20")
    request = q.request()
    assert request.filters.paths == ("daily/",) and request.phrases == ("line ranges",)


def test_half_typed_filters_and_unknown_prefixes_are_harmless() -> None:
    q = parse_query('path: "open phrase related::x -')
    assert q.paths == []
    assert q.phrases == ["open phrase related::x -"]
    assert parse_query("related::x").words == ["related::x"]
    assert parse_query("-path:session/").exclude_paths == ["session/"]


def test_filters_alone_list_their_notes_but_exclusions_alone_do_not() -> None:
    assert not parse_query("path:daily/ after:2026-06-01").is_empty()
    assert parse_query("-path:daily/ -tag:x").is_empty()
    assert not parse_query("tag:x path:daily/").is_empty()
    assert not parse_query('"phrase only"').is_empty()
