"""find_wikilinks / find_markdown_links: the link grammar, spans and code awareness."""

from __future__ import annotations

import re
import time

import mistletoe
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reme_core.parse.frontmatter import frontmatter_lines, split_frontmatter
from reme_core.parse.markdown_blocks import code_lines
from reme_core.parse.markdown_chunker import chunk_markdown_scanned
from reme_core.parse.wikilinks import (
    _block_code_mask,
    find_markdown_links,
    find_wikilinks,
    remember_code_lines,
)
from tests.test_block_scanner_vs_mistletoe import PUBLIC, VAULTS, notes

# (text, [(line, start, end, target, anchor, alias, embed), ...])
GRAMMAR = [
    ("see [[daily/06-20/s.md]] now", [(1, 4, 24, "daily/06-20/s.md", "", "", False)]),
    ("[[notes/example.md#L9]]", [(1, 0, 23, "notes/example.md", "L9", "", False)]),
    ("[[notes/example.md#L9-L10]]", [(1, 0, 27, "notes/example.md", "L9-L10", "", False)]),
    ("[[n.md#L9-L10,L15-L20]]", [(1, 0, 23, "n.md", "L9-L10,L15-L20", "", False)]),
    ("[[n.md#L0]]", [(1, 0, 11, "n.md", "L0", "", False)]),
    ("[[n.md#L10-L9]]", [(1, 0, 15, "n.md", "L10-L9", "", False)]),
    ("[[n.md#L9,]]", [(1, 0, 12, "n.md", "L9,", "", False)]),
    ("[[Note#Some Heading]]", [(1, 0, 21, "Note", "Some Heading", "", False)]),
    ("[[Note#^block-id]]", [(1, 0, 18, "Note", "^block-id", "", False)]),
    ("[[a.md|the alias text]]", [(1, 0, 23, "a.md", "", "the alias text", False)]),
    ("[[a.md#L3|jump]]", [(1, 0, 16, "a.md", "L3", "jump", False)]),
    ("[[ a.md # H | al ]]", [(1, 0, 19, "a.md", "H", "al", False)]),
    ("x ![[resource/r.pdf]] y", [(1, 2, 21, "resource/r.pdf", "", "", True)]),
    ("![[img.png|200]]", [(1, 0, 16, "img.png", "", "200", True)]),
    ("中文 [[digest/知识/太阳能.md]] 结束", [(1, 3, 23, "digest/知识/太阳能.md", "", "", False)]),
    ("| a | [[t.md\\|Alias]] |", [(1, 6, 21, "t.md", "", "Alias", False)]),
    ("| [[t.md#L2\\|x y]] | b |", [(1, 2, 18, "t.md", "L2", "x y", False)]),
    ("related:: [[x.md]]", [(1, 10, 18, "x.md", "", "", False)]),
    ("- related:: [[x.md]]", [(1, 12, 20, "x.md", "", "", False)]),
    ("[related:: [[x.md]]]", [(1, 11, 19, "x.md", "", "", False)]),
    ("```\n[[in-fence]]\n```\n[[after]]", [(4, 0, 9, "after", "", "", False)]),
    ("~~~md\n[[in-tilde]]\n```\n[[still]]\n~~~\n[[out]]", [(6, 0, 7, "out", "", "", False)]),
    ("````\n```\n[[inner]]\n````\n[[out]]", [(5, 0, 7, "out", "", "", False)]),
    ("```\n[[unclosed fence]]", []),
    ("text\n\n    [[indented code]]\n\n[[out]]", [(5, 0, 7, "out", "", "", False)]),
    ("    [[code at start]]", []),
    ("\t[[tab code]]", []),
    ("para\n    [[lazy continuation]]", [(2, 4, 25, "lazy continuation", "", "", False)]),
    ("- item\n\n    [[list continuation]]", [(3, 4, 25, "list continuation", "", "", False)]),
    ("`[[inline]]` [[real]]", [(1, 13, 21, "real", "", "", False)]),
    ("``a ` [[in double]] `` [[b]]", [(1, 23, 28, "b", "", "", False)]),
    ("`unmatched [[yes]]", [(1, 11, 18, "yes", "", "", False)]),
    ("[[a]] and [[b#L1|c]]", [(1, 0, 5, "a", "", "", False), (1, 10, 20, "b", "L1", "c", False)]),
    ("[[unclosed and [[closed]]", [(1, 15, 25, "closed", "", "", False)]),
    ("[[x]", []),
    ("[[a [b] c]]", []),
    ("[[[x]]]", [(1, 1, 6, "x", "", "", False)]),
    ("[[]] [[ ]] [[|alias]]", []),
    ("[[#Heading]]", [(1, 0, 12, "", "Heading", "", False)]),
    ("[[line\nbreak]]", []),
    ("\\[[escaped]]", []),
    (
        "---\nname: n\nsource_conversation: [[session/dialog/abc.jsonl]]\n---\n[[b]]",
        [(3, 21, 49, "session/dialog/abc.jsonl", "", "", False), (5, 0, 5, "b", "", "", False)],
    ),
    ("---\n    src: [[fm-indented]]\n---\n", [(2, 9, 24, "fm-indented", "", "", False)]),
    ("# H\n    [[code after heading]]", []),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), GRAMMAR)
def test_grammar(text: str, expected: list[tuple]) -> None:
    found = find_wikilinks(text)
    got = [(m.line, m.start, m.end, m.target, m.anchor, m.alias, m.embed) for m in found]
    assert got == expected
    lines = text.split("\n")
    for m in found:
        assert lines[m.line - 1][m.start : m.end] == m.raw


def test_grammar_table_is_large() -> None:
    assert len(GRAMMAR) >= 30


def test_no_brackets_fast_path() -> None:
    assert find_wikilinks("plain text\nwith [single] brackets") == []
    assert find_markdown_links("no links here [x] (y)") == []


def test_fence_rules() -> None:
    # Backtick info strings cannot hold backticks, so this line is not a fence.
    assert [m.target for m in find_wikilinks("``` a`b\n[[x]]")] == ["x"]
    # A shorter closing run does not close; closing fence may have trailing spaces.
    text = "`````\n```\n[[no]]\n`````   \n[[yes]]"
    assert [m.target for m in find_wikilinks(text)] == ["yes"]
    # A fence indented in a list item is still a fence.
    text = "- item\n\n    ```\n    [[no]]\n    ```\n- [[yes]]"
    assert [m.target for m in find_wikilinks(text)] == ["yes"]


# What is block code is the block scanner's rule (CommonMark, as mistletoe reads it); each of
# these was read otherwise by the link finder's own fence scan before it used the scanner.
CODE_RULE = [
    ("- ```\n  [[in item fence]]\n  ```\n\n[[out]]", ["out"]),
    ("  ```\n[[in]]\n     ```\n[[still in]]", []),  # a closer is indented 0-3 spaces
    ("- item\n\n  ```\n  [[in]]\n\n[[after item]]", ["after item"]),  # ends with its item
    ("***\n    [[code after break]]", []),
]


@pytest.mark.parametrize(("text", "expected"), CODE_RULE)
def test_code_is_what_the_block_scanner_says(text: str, expected: list[str]) -> None:
    assert [m.target for m in find_wikilinks(text)] == expected
    html = mistletoe.markdown(text)
    in_code = "".join(re.findall(r"<code>(.*?)</code>", html, re.S))
    for name in re.findall(r"\[\[([^\]]+)\]\]", text):
        assert (f"[[{name}]]" in in_code) == (name not in expected), html


FENCE_WORLD = st.sampled_from(
    ["```", "````", "~~~", "~~~~", "```py", "``` a`b", "   ```", "```  ", "[[x]]", "", "- i",
     "# h", "`[[y]]`", "---", "a: [[z]]", "  ~~~ x", "    [[c]]", "\t[[t]]", "  - ```", "***"]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(FENCE_WORLD, max_size=25))
def test_code_mask_is_the_block_scanners(lines: list[str]) -> None:
    """The mask marks exactly the block scanner's code lines (after the frontmatter), and its
    early exit (no fence run, no indented line) is taken only when there are none."""
    text = "\n".join(lines)
    lines = text.split("\n")
    code = {
        i
        for a, b in code_lines(lines, frontmatter_lines(lines), len(lines))
        for i in range(a, b + 1)
    }
    mask = _block_code_mask(text)
    if mask is None:
        assert not code
    else:
        assert {i for i, in_code in enumerate(mask) if in_code} == code


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="[]()!#|\\`~ \n\tax.:-", max_size=80))
def test_random_text_spans_are_exact(text: str) -> None:
    lines = text.split("\n")
    for m in find_wikilinks(text):
        assert lines[m.line - 1][m.start : m.end] == m.raw
        assert m.raw.startswith("![[" if m.embed else "[[") and m.raw.endswith("]]")
        assert m.target or m.anchor
    for m in find_markdown_links(text):
        assert lines[m.line - 1][m.start : m.end] == m.raw
        assert m.raw.startswith("![" if m.embed else "[") and m.raw.endswith(")")


def test_markdown_links() -> None:
    text = (
        "See [the wiki](../wiki/my%20note.md#Setup) and ![chart](img/c.png).\n"
        "[web](https://example.com) [mail](mailto:a@b.c) [frag](#local)\n"
        '[spaced](<folder/a b.md> "Title") [titled](x.md "t")\n'
        "`[code](no.md)`\n"
        "```\n[fenced](no.md)\n```\n"
        "[![badge](b.svg)](target.md)"
    )
    got = [(m.line, m.target, m.anchor, m.text, m.embed) for m in find_markdown_links(text)]
    assert got == [
        (1, "../wiki/my note.md", "Setup", "the wiki", False),
        (1, "img/c.png", "", "chart", True),
        (3, "folder/a b.md", "", "spaced", False),
        (3, "x.md", "", "titled", False),
        (8, "target.md", "", "![badge](b.svg)", False),
        (8, "b.svg", "", "badge", True),
    ]
    lines = text.split("\n")
    for m in find_markdown_links(text):
        assert lines[m.line - 1][m.start : m.end] == m.raw


def test_markdown_link_columns_and_parentheses() -> None:
    (m,) = find_markdown_links("ab [t](dir/f(1).md) cd")
    assert (m.start, m.end, m.target, m.raw) == (3, 19, "dir/f(1).md", "[t](dir/f(1).md)")


def test_embed_marker_must_be_adjacent() -> None:
    (m,) = find_wikilinks("! [[x]]")
    assert not m.embed and m.start == 2


def test_many_links_realistic_note() -> None:
    note = _realistic_note()
    found = find_wikilinks(note)
    assert len(found) == 1 + 12 * 2 + 4
    assert all("code" not in m.target for m in found)


def test_throughput_is_reasonable() -> None:
    note = _realistic_note()
    assert 3500 < len(note.encode()) < 5000
    rounds = 200
    t0 = time.perf_counter()
    for _ in range(rounds):
        find_wikilinks(note)
    elapsed = time.perf_counter() - t0
    mb_per_s = rounds * len(note.encode()) / elapsed / 1e6
    assert mb_per_s > 2  # far above in practice; loose for a shared CI machine


def _realistic_note() -> str:
    """A ~4 KB daily note: frontmatter, headings, prose, a list, a table and code."""
    parts = [
        "---",
        "name: Retrieval regression",
        "description: Why recall dropped after the tokenizer change",
        "source_conversation: [[session/dialog/abc.jsonl]]",
        "tags: [search, regression]",
        "---",
        "# Retrieval regression",
        "",
    ]
    for i in range(12):
        parts += [
            f"## Finding {i}",
            "",
            f"The BM25 scores moved after the change described in [[digest/wiki/tokenizer-{i}.md]];"
            " we compared the ranking against the baseline and the difference stayed small.",
            f"- related:: [[daily/2026-06-{10 + i}/notes.md#L9-L10]]",
            f"- see `[[code/inline-{i}]]` for the literal syntax",
            "",
        ]
        if i % 4 == 0:
            parts += ["```python", f"links = '[[code/fenced-{i}]]'", "```", ""]
        if i % 3 == 0:
            parts += [
                "| item | link |",
                "|------|------|",
                f"| {i} | [[digest/t{i}.md\\|table alias]] |",
                "",
            ]
    return "\n".join(parts)


def _chunker_code(text: str, max_bytes: int) -> tuple[set[int], set[int]] | None:
    """(code lines the chunker's scan met, code lines `code_lines` finds), or None when the
    chunker did not scan."""
    _, code = chunk_markdown_scanned("n.md", text, split_frontmatter(text).end_line + 1, max_bytes)
    if code is None:
        return None
    lines = text.split("\n")
    scanned = code_lines(lines, frontmatter_lines(lines), len(lines))
    return {i for a, b in code for i in range(a, b + 1)}, {
        i for a, b in scanned for i in range(a, b + 1)
    }


@settings(max_examples=150, deadline=None)
@given(st.lists(FENCE_WORLD, max_size=25), st.sampled_from([20, 60, 4096]))
def test_the_chunkers_code_is_the_block_scanners(lines: list[str], max_bytes: int) -> None:
    """A note the chunker scanned hands its block code to the link finders (which then do
    not scan it again): the same lines as `code_lines`, and so the same links found."""
    text = "\n".join(["", *lines, ""])  # blank edges: the chunker's scan leaves them out
    got = _chunker_code(text, max_bytes)
    if got is None:
        return
    assert got[0] == got[1]
    fresh = find_wikilinks((" " + text)[1:])  # another str object: a mask scanned afresh
    remember_code_lines(text, [(a, a) for a in sorted(got[0])])
    assert find_wikilinks(text) == fresh


@pytest.mark.parametrize("vault", PUBLIC)
def test_the_chunkers_code_is_the_block_scanners_on_public_vaults(vault: str) -> None:
    root = VAULTS / vault
    if not root.is_dir():
        pytest.skip(f"{root} is not on this machine")
    compared = 0
    for path in notes(root, 1500):
        # Chunks small enough that nearly every note is scanned (what it finds is the same).
        got = _chunker_code(path.read_text(encoding="utf-8", errors="replace"), 200)
        if got is not None:
            assert got[0] == got[1], path
            compared += 1
    assert compared > 20
