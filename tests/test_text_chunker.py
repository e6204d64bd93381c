"""Text and JSONL chunking: whole lines packed, oversized lines windowed, links kept whole."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from reme_core.parse.text_chunker import chunk_text

PART_RE = re.compile(r"\[Part (\d+)/(\d+)\]\n")
LINK_RE = re.compile(r"!?\[\[.*?\]\]")


def blen(s: str) -> int:
    return len(s.encode("utf-8"))


def test_small_file_is_one_chunk_trimmed() -> None:
    chunks = chunk_text("s.txt", "\n\nfirst\n\nsecond\n\n")
    assert [(c.start_line, c.end_line, c.body, c.prefix) for c in chunks] == [
        (3, 5, "first\n\nsecond", "")
    ]


def test_empty_file_has_no_chunk() -> None:
    assert chunk_text("s.txt", "") == []
    assert chunk_text("s.txt", "\n \n") == []


def test_jsonl_records_are_never_torn() -> None:
    records = [
        json.dumps({"role": "user", "content": f"message {i} " + "字" * 20}) for i in range(40)
    ]
    text = "\n".join(records) + "\n"
    chunks = chunk_text("session/dialog/a.jsonl", text, max_bytes=500)
    assert len(chunks) > 5
    lines = text.split("\n")
    previous = 0
    for c in chunks:
        assert c.start_line > previous
        previous = c.end_line
        assert c.body == "\n".join(lines[c.start_line - 1 : c.end_line])
        assert blen(c.text) <= 500
        assert all(json.loads(line) for line in c.body.split("\n"))
    assert sorted(n for c in chunks for n in range(c.start_line, c.end_line + 1)) == list(
        range(1, 41)
    )


def test_oversized_line_becomes_overlapping_windows() -> None:
    words = " ".join(f"w{i}" for i in range(400))
    text = f"before\n{words}\nafter"
    chunks = chunk_text("x.txt", text, max_bytes=300, overlap_bytes=40)
    assert (chunks[0].body, chunks[-1].body) == ("before", "after")
    windows = chunks[1:-1]
    total = len(windows)
    assert total > 3
    for k, c in enumerate(windows, 1):
        assert (c.start_line, c.end_line) == (2, 2)
        assert c.prefix == f"[Part {k}/{total}]\n"
        assert blen(c.text) <= 300
        assert c.body in words
        if k > 1:  # cut at word boundaries, with an overlap
            assert c.body.split(" ")[0] in windows[k - 2].body.split(" ")
    assert windows[0].body.startswith("w0 ") and windows[-1].body.endswith("w399")
    assert len({c.id for c in windows}) == total


def test_windows_never_cut_a_wikilink_or_a_character() -> None:
    line = "".join(f"検索{i}[[digest/note-{i}.md#L{i}|別名{i}]]" for i in range(60))
    chunks = chunk_text("x.txt", line, max_bytes=200, overlap_bytes=30)
    assert len(chunks) > 3
    for c in chunks:
        stripped = LINK_RE.sub("", c.body)
        assert "[[" not in stripped and "]]" not in stripped, c.body
        assert c.body in line


def test_link_longer_than_a_window_stays_whole() -> None:
    link = "[[" + "x" * 500 + "]]"
    chunks = chunk_text("x.txt", f"{'a ' * 100}{link}{' b' * 100}", max_bytes=200)
    assert any(link in c.body for c in chunks)


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.text(alphabet="ab 中文\t", max_size=40),
            st.lists(
                st.sampled_from(["word", "日本語", "[[a/b.md]]", "![[c.png|x]]", " ", "é"]),
                max_size=300,
            ).map("".join),
        ),
        min_size=1,
        max_size=30,
    ),
    max_bytes=st.integers(64, 400),
    overlap=st.integers(0, 80),
)
def test_properties(lines: list[str], max_bytes: int, overlap: int) -> None:
    text = "\n".join(lines)
    chunks = chunk_text("p.txt", text, max_bytes=max_bytes, overlap_bytes=overlap)
    covered: list[int] = []
    for c in chunks:
        source = lines[c.start_line - 1]
        match = PART_RE.fullmatch(c.prefix)
        if match:  # a window of one oversized line
            assert c.start_line == c.end_line
            assert blen(source) > max_bytes
            assert c.body in source
            assert blen(c.text) <= max_bytes or "[[" in c.body
            if covered and covered[-1] == c.start_line:
                continue
        else:
            assert c.prefix == ""
            assert c.body == "\n".join(lines[c.start_line - 1 : c.end_line])
            assert blen(c.text) <= max_bytes
        assert not covered or c.start_line > covered[-1]
        covered.extend(range(c.start_line, c.end_line + 1))
    nonblank = {n for n, line in enumerate(lines, 1) if line.strip()}
    assert nonblank <= set(covered)
    # windows of each oversized line: numbered 1..N, together they cover the whole line
    for n in {c.start_line for c in chunks if c.prefix}:
        parts = [c for c in chunks if c.start_line == n and c.prefix]
        assert [PART_RE.fullmatch(c.prefix)[1] for c in parts] == [  # type: ignore[index]
            str(k) for k in range(1, len(parts) + 1)
        ]
        source = lines[n - 1].strip()
        assert source.startswith(parts[0].body.lstrip())
        assert source.endswith(parts[-1].body.rstrip())
        for c in parts:
            assert c.body.strip()
            cut = LINK_RE.sub("", c.body)
            assert "[[" not in cut and "]]" not in cut
