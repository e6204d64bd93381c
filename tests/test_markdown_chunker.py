"""Markdown chunking: exact source lines, section skeletons, structure-aware splits."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import mistletoe
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from mistletoe import block_token

from reme_core.files.text_decode import decode_text
from reme_core.models import FileChunk
from reme_core.parse.frontmatter import split_frontmatter
from reme_core.parse.markdown_blocks import HEADING, scan_blocks
from reme_core.parse.markdown_chunker import chunk_markdown

PART_RE = re.compile(r"\[Part (\d+)/(\d+)\]")
WIKILINK_RE = re.compile(r"!?\[\[.*?\]\]")


def blen(s: str) -> int:
    return len(s.encode("utf-8"))


def body_lines(text: str, chunks: list[FileChunk]) -> None:
    """The invariants every chunk list must keep, whatever the input."""
    lines = text.split("\n")
    previous_end = 0
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= len(lines)
        assert c.start_line > previous_end, "ranges overlap or are out of order"
        previous_end = c.end_line
        assert c.body == "\n".join(lines[c.start_line - 1 : c.end_line])
        assert c.body.strip()
        assert lines[c.start_line - 1].strip() and lines[c.end_line - 1].strip(), "not trimmed"
        assert c.text == c.prefix + c.body + c.suffix


def covered(chunks: list[FileChunk]) -> set[int]:
    return {n for c in chunks for n in range(c.start_line, c.end_line + 1)}


# --------------------------------------------------------------------------- examples


def test_small_note_is_one_chunk_without_frontmatter() -> None:
    text = "---\nname: A\n---\n\n# A\n\nBody [[b.md]].\n\n"
    fm = split_frontmatter(text)
    chunks = chunk_markdown("a.md", text, fm.end_line + 1)
    assert [(c.start_line, c.end_line, c.body, c.prefix) for c in chunks] == [
        (5, 7, "# A\n\nBody [[b.md]].", "")
    ]


@pytest.mark.parametrize(
    "text", ["", "\n\n  \n", "---\nname: x\n---\n", "---\nname: x\n---\n\n \n"]
)
def test_empty_and_frontmatter_only_files_have_no_chunk(text: str) -> None:
    assert chunk_markdown("a.md", text, split_frontmatter(text).end_line + 1) == []


def test_crlf_file_line_numbers_count_the_original_file() -> None:
    raw = b"---\r\nname: n\r\n---\r\n# H\r\n\r\nline one\r\nline two\r\n"
    text, _ = decode_text(raw, "x.md")
    chunks = chunk_markdown("x.md", text, split_frontmatter(text).end_line + 1)
    assert [(c.start_line, c.end_line) for c in chunks] == [(4, 7)]
    assert "\r" not in chunks[0].body


def test_sections_fit_whole_and_carry_the_skeleton() -> None:
    para = "word " * 60  # 300 bytes
    text = f"# Top\n\nintro\n\n## A\n\n{para}\n\n## B\n\n{para}\n\n### B1\n\n{para}\n"
    chunks = chunk_markdown("n.md", text, max_bytes=700)
    body_lines(text, chunks)
    assert [(c.start_line, c.end_line, c.prefix) for c in chunks] == [
        (1, 7, ""),  # heading, intro and all of A
        (9, 15, "# Top\n"),  # B with its subsection
    ]


def test_later_parts_of_a_split_section_name_their_own_heading() -> None:
    text = "# Top\n\n## Sec\n\n" + "\n\n".join(f"para {i} " + "x" * 80 for i in range(6))
    chunks = chunk_markdown("n.md", text, max_bytes=250)
    body_lines(text, chunks)
    assert chunks[0].start_line == 1 and chunks[0].prefix == ""  # headings open the first part
    assert all(c.prefix == "# Top\n## Sec\n" for c in chunks[1:])
    assert covered(chunks) >= {n for n, ln in enumerate(text.split("\n"), 1) if ln.strip()}


def test_heading_inside_fence_is_not_a_heading() -> None:
    code = "\n".join(f"print({i})" for i in range(30))
    text = f"# Real\n\n```python\n# not a heading\n{code}\n```\n\n~~~~\n## also not\n```\n~~~~\n"
    chunks = chunk_markdown("n.md", text, max_bytes=120)
    body_lines(text, chunks)
    assert all("not" not in c.prefix.replace("# not a heading\n", "") for c in chunks)
    assert not any("also not" in c.prefix for c in chunks)


def test_comment_in_list_item_fence_is_not_a_heading() -> None:
    text = "# Setup\n\n- install:\n  ```bash\n  # dependencies\n  pip install x\n  ```\n- done\n"
    headings = [b.start for b in scan_blocks(text.split("\n"), 0, 9) if b.kind == HEADING]
    assert headings == [0]
    text += "\n" + "tail " * 40
    chunks = chunk_markdown("n.md", text, max_bytes=150)
    body_lines(text, chunks)
    assert not any("dependencies" in c.prefix for c in chunks)


def test_setext_heading_versus_thematic_break() -> None:
    para = "text " * 30
    text = f"Title\n-----\n\n{para}\n\n---\n\n{para}\n\nOther\n===\n\n{para}\n"
    lines = text.split("\n")
    headings = [
        (b.start, b.end, b.skel) for b in scan_blocks(lines, 0, len(lines)) if b.kind == HEADING
    ]
    assert headings == [(0, 1, "## Title"), (9, 10, "# Other")]
    chunks = chunk_markdown("n.md", text, max_bytes=200)
    body_lines(text, chunks)
    assert [c.prefix for c in chunks] == ["", "## Title\n", ""]
    assert [c.start_line for c in chunks] == [1, 8, 10]


def test_multi_line_setext_heading_is_one_skeleton_line() -> None:
    text = "first line\nsecond line\n===\n\n" + "\n\n".join(["body " * 20] * 3)
    chunks = chunk_markdown("n.md", text, max_bytes=150)
    body_lines(text, chunks)
    assert chunks[-1].prefix == "# first line second line\n"


def test_table_split_repeats_header_and_delimiter() -> None:
    rows = "\n".join(f"| r{i} | {'v' * 30} |" for i in range(20))
    text = f"# T\n\n| key | value |\n|-----|:------|\n{rows}\n"
    chunks = chunk_markdown("n.md", text, max_bytes=300)
    body_lines(text, chunks)
    assert len(chunks) > 2
    assert chunks[0].body.startswith("# T\n\n| key | value |\n|-----|:------|\n| r0")
    for c in chunks[1:]:
        assert c.prefix == "# T\n| key | value |\n|-----|:------|\n"
        assert c.body.startswith("| r")
        assert blen(c.text) <= 300


def test_fence_split_repeats_opener_and_closes_every_part() -> None:
    code = "\n".join(f"value_{i} = compute({i})" for i in range(30))
    text = f"## Code\n\n````python\n{code}\n````\n"
    chunks = chunk_markdown("n.md", text, max_bytes=250)
    body_lines(text, chunks)
    assert len(chunks) > 2
    for k, c in enumerate(chunks):
        if k:
            assert c.prefix == "## Code\n````python\n"
        if k < len(chunks) - 1:
            assert c.suffix == "\n````"
        assert blen(c.text) <= 250
    assert chunks[-1].suffix == "" and chunks[-1].body.endswith("````")


def test_unclosed_fence_gets_a_closing_suffix_everywhere() -> None:
    text = "```\n" + "\n".join(f"line {i}" for i in range(40))
    chunks = chunk_markdown("n.md", text, max_bytes=100)
    body_lines(text, chunks)
    assert all(c.suffix == "\n```" for c in chunks)
    assert all(c.prefix == "```\n" for c in chunks[1:])


def test_lists_pack_whole_items_then_split_a_huge_item_by_line() -> None:
    items = [f"- item {i} " + "y" * 40 + f"\n  more of item {i}" for i in range(6)]
    big = "- huge\n" + "\n".join(f"  continuation {i} " + "z" * 30 for i in range(8))
    text = "# L\n\n" + "\n".join(items) + "\n" + big + "\n"
    chunks = chunk_markdown("n.md", text, max_bytes=220)
    body_lines(text, chunks)
    lines = text.split("\n")
    for c in chunks:
        if "[Part" not in c.prefix:  # whole items: starts on a marker, ends before the next
            assert lines[c.start_line - 1].startswith(("- ", "# L"))
            assert c.end_line == len(lines) - 1 or not lines[c.end_line].startswith("  ")
    parts = [PART_RE.search(c.prefix) for c in chunks if "[Part" in c.prefix]
    assert [(int(m[1]), int(m[2])) for m in parts if m] == [(k, len(parts)) for k in range(1, 3)]
    assert all(c.prefix.startswith("# L\n") for c in chunks if "[Part" in c.prefix)


def test_paragraph_split_by_line_with_part_numbers() -> None:
    text = "# P\n\n" + "\n".join(f"sentence {i} " + "w" * 50 for i in range(24))
    chunks = chunk_markdown("n.md", text, max_bytes=200)
    body_lines(text, chunks)
    numbers = [PART_RE.search(c.prefix) for c in chunks]
    total = len(chunks)
    assert total >= 10  # two digits: the size estimate must allow for "[Part 10/12]"
    assert [(int(m[1]), int(m[2])) for m in numbers if m] == [(k, total) for k in range(1, 13)]
    assert all(c.prefix.endswith(f"[Part {k}/{total}]\n") for k, c in enumerate(chunks, 1))
    assert all(blen(c.text) <= 200 for c in chunks)


def test_a_line_larger_than_the_limit_stays_whole() -> None:
    long_line = "長い行 [[digest/x.md]] " * 40
    text = f"# H\n\nshort\n\n{long_line}\n\nafter\n"
    chunks = chunk_markdown("n.md", text, max_bytes=120)
    body_lines(text, chunks)
    assert any(c.body == long_line for c in chunks)


def test_indented_code_is_not_a_heading() -> None:
    text = "para\n\n    # not heading\n    code\n\n# Real\n"
    lines = text.split("\n")
    assert [b.skel for b in scan_blocks(lines, 0, len(lines)) if b.kind == HEADING] == ["# Real"]


def test_skeleton_is_capped_to_half_the_limit_keeping_the_nearest() -> None:
    heads = [f"{'#' * k} heading number {k} " + "h" * 20 for k in range(1, 7)]
    text = "\n\n".join(heads) + "\n\n" + "\n\n".join(["para " * 12] * 4)
    chunks = chunk_markdown("n.md", text, max_bytes=200)
    body_lines(text, chunks)
    last = chunks[-1].prefix
    assert blen(last) <= 100
    assert last.endswith(heads[-1] + "\n") and heads[0] not in last


# --------------------------------------------------------------------------- properties


@dataclass
class Doc:
    """A generated note and what the generator knows about it."""

    lines: list[str] = field(default_factory=list)
    body_start: int = 1
    headings: list[tuple[int, int, str]] = field(default_factory=list)  # line, level, skeleton
    tables: list[tuple[int, int]] = field(default_factory=list)  # header line, last line
    fences: list[tuple[int, int]] = field(default_factory=list)  # opener line, closer line
    underlines: set[int] = field(default_factory=set)  # second lines of Setext headings

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def add(self, *new: str) -> int:
        self.lines.extend(new)
        return len(self.lines) - len(new) + 1


LATIN = ["index", "memory", "chunk", "Kestrel", "vault", "BM25", "line", "a"]
CJK = "记忆检索分块索引中文測試"
LINKS = ["[[digest/a.md]]", "[[daily/2026-06-20.md#L9-L10|day]]", "![[img.png]]"]


def word(rnd: random.Random) -> str:
    """Half Latin words, a quarter CJK runs, a quarter links. Words come from a seeded random
    that hypothesis draws once per note: drawing each word through a strategy cost two thirds
    of this file's time, and the properties are about the structure, which stays drawn."""
    kind = rnd.randrange(4)
    if kind < 2:
        return rnd.choice(LATIN)
    if kind == 2:
        return "".join(rnd.choice(CJK) for _ in range(rnd.randint(1, 6)))
    return rnd.choice(LINKS)


def phrase(rnd: random.Random, max_words: int = 12, min_words: int = 1) -> str:
    return " ".join(word(rnd) for _ in range(rnd.randint(min_words, max_words)))


@st.composite
def docs(draw: st.DrawFn) -> Doc:
    doc = Doc()
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    if draw(st.booleans()):
        doc.add("---", f"name: {phrase(rnd, 3)}", "tags: [a, b]", "---")
        doc.body_start = 5
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(
            st.sampled_from(
                ["atx", "setext", "para", "para", "table", "fence", "list", "break", "quote"]
            )
        )
        doc.add(*[""] * draw(st.integers(1, 2)))
        if kind == "atx":
            level = draw(st.integers(1, 6))
            skel = f"{'#' * level} {phrase(rnd, 5)}"
            doc.headings.append((doc.add(skel), level, skel))
        elif kind == "setext":
            title = phrase(rnd, 5)
            level = draw(st.integers(1, 2))
            line = doc.add(title, "=" * draw(st.integers(1, 6)) if level == 1 else "---")
            doc.headings.append((line, level, f"{'#' * level} {title}"))
            doc.underlines.add(line + 1)
        elif kind == "para":
            n = draw(st.integers(1, 5))
            lines = [phrase(rnd) for _ in range(n)]
            if draw(st.integers(0, 4)) == 0:
                lines.append(phrase(rnd, 120, 40))
            doc.add(*lines)
        elif kind == "table":
            cols = draw(st.integers(1, 3))
            header = "| " + " | ".join(rnd.choice(LATIN) for _ in range(cols)) + " |"
            rows = [
                "| " + " | ".join(phrase(rnd, 4) for _ in range(cols)) + " |"
                for _ in range(draw(st.integers(1, 25)))
            ]
            start = doc.add(header, "|" + "---|" * cols, *rows)
            doc.tables.append((start, start + len(rows) + 1))
        elif kind == "fence":
            marker = draw(st.sampled_from(["```", "````", "~~~"]))
            kinds = draw(st.lists(st.sampled_from(["phrase", "# fenced heading", ""]), max_size=25))
            content = [phrase(rnd, 8) if k == "phrase" else k for k in kinds]
            start = doc.add(f"{marker}{draw(st.sampled_from(['', 'python']))}", *content, marker)
            doc.fences.append((start, start + len(content) + 1))
        elif kind == "list":
            for i in range(draw(st.integers(1, 8))):
                doc.add(f"{draw(st.sampled_from(['-', '*', f'{i + 1}.']))} {phrase(rnd)}")
                if draw(st.booleans()):
                    doc.add(*[f"   {phrase(rnd)}" for _ in range(draw(st.integers(1, 6)))])
                if draw(st.integers(0, 5)) == 0:
                    doc.add("   ```", "   # fenced heading in item", "   ```")
        elif kind == "break":
            doc.add(draw(st.sampled_from(["---", "***", "- - -"])))
        else:
            doc.add(*[f"> {phrase(rnd)}" for _ in range(draw(st.integers(1, 6)))])
    if draw(st.booleans()):
        doc.add("")
    return doc


def expected_skeleton(doc: Doc, start_line: int, max_bytes: int) -> str:
    stack: list[tuple[int, str]] = []
    for line, level, skel in doc.headings:
        if line > start_line:
            break
        while stack and stack[-1][0] >= level:
            stack.pop()
        # a chunk starting on a heading (or a part of one) has only the headings above it
        if line < start_line and not (line + 1 == start_line and start_line in doc.underlines):
            stack.append((level, skel))
    kept: list[str] = []
    budget = max_bytes // 2
    for _, skel in reversed(stack):
        budget -= blen(skel) + 1
        if budget < 0:
            break
        kept.append(skel)
    return "".join(f"{s}\n" for s in reversed(kept))


def containing(spans: list[tuple[int, int]], line: int) -> tuple[int, int] | None:
    return next(((a, b) for a, b in spans if a <= line <= b), None)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=docs(), max_bytes=st.integers(200, 600))
def test_properties(doc: Doc, max_bytes: int) -> None:
    text = doc.text
    lines = doc.lines
    chunks = chunk_markdown("p.md", text, doc.body_start, max_bytes)
    body_lines(text, chunks)

    # every non-blank body line in exactly one chunk, frontmatter in none
    nonblank = {n for n in range(doc.body_start, len(lines) + 1) if lines[n - 1].strip()}
    assert covered(chunks) & nonblank == nonblank
    assert min((c.start_line for c in chunks), default=doc.body_start) >= doc.body_start

    for c in chunks:
        # within the limit unless the body is one line that cannot be split
        body_nonblank = [ln for ln in c.body.split("\n") if ln.strip()]
        assert blen(c.text) <= max_bytes or len(body_nonblank) == 1

        # no wikilink cut: every link of the covered source lines is whole in the body
        for n in range(c.start_line, c.end_line + 1):
            for m in WIKILINK_RE.finditer(lines[n - 1]):
                assert m.group() in c.body

        # the prefix: skeleton of ancestors, then a repeated header / fence, or a part number
        skeleton = expected_skeleton(doc, c.start_line, max_bytes)
        assert c.prefix.startswith(skeleton)
        rest = c.prefix[len(skeleton) :]
        table = containing(doc.tables, c.start_line)
        fence = containing(doc.fences, c.start_line)
        if table and c.start_line > table[0]:
            header = f"{lines[table[0] - 1]}\n{lines[table[0]]}\n"
            assert rest == header, "a later table part repeats the header"
        elif fence and c.start_line > fence[0]:
            assert rest == lines[fence[0] - 1] + "\n", "a later code part repeats the fence"
        else:
            assert rest == "" or PART_RE.fullmatch(rest.rstrip("\n")), rest
        assert "fenced heading" not in c.prefix.replace(rest, "")

        # a code part that does not hold the closing fence is closed by the suffix
        fence_end = containing(doc.fences, c.end_line)
        if fence_end and fence_end[0] <= c.end_line < fence_end[1]:
            assert c.suffix == "\n" + lines[fence_end[1] - 1].strip()
        else:
            assert c.suffix == ""

    # [Part X/N]: runs numbered 1..N with the same N
    numbers = [(int(m[1]), int(m[2])) for c in chunks if (m := PART_RE.search(c.prefix))]
    k = 0
    while k < len(numbers):
        total = numbers[k][1]
        assert total >= 2
        assert numbers[k : k + total] == [(x, total) for x in range(1, total + 1)]
        k += total


@settings(max_examples=60, deadline=None)
@given(doc=docs())
def test_headings_agree_with_mistletoe(doc: Doc) -> None:
    """The cheap line scan finds the same top-level headings as the mistletoe AST.

    Except where mistletoe departs from GFM: it reads `a | b` over `---` as a table although
    the cell counts differ; GFM (and this chunker) read a Setext heading there.
    """
    lines = doc.lines
    assume(
        not any("|" in lines[n - 1] and not lines[n - 1].startswith("#") for n, *_ in doc.headings)
    )
    body = "\n".join(lines[doc.body_start - 1 :])
    tokens = mistletoe.Document(body).children or []
    expected = [
        t.line_number + doc.body_start - 1
        for t in tokens
        if isinstance(t, (block_token.Heading, block_token.SetextHeading))
    ]
    found = [
        b.start + 1 for b in scan_blocks(lines, doc.body_start - 1, len(lines)) if b.kind == HEADING
    ]
    assert found == expected == [line for line, _, _ in doc.headings]
