"""The block scanner against mistletoe, the reference: every top-level heading, fenced code
block, list (with its items) and table starts and ends on the same lines in both.

Notes: all of the bundled demo, and a seeded sample of 300 from each public vault under
/work/vaults (skipped when absent). mistletoe's block tokens carry a start line only
(`line_number`), so a token's end is the last non-blank line before the next top-level token.

Where mistletoe departs from CommonMark/GFM and the scanner follows the spec, the note is left
out, each for a reason counted below (and kept under 2% of the sample, so an exclusion cannot
hide a regression):
- "fence closed by an info line": mistletoe closes an open fence on a line like "```lua";
  CommonMark: a closing fence has no info string (spec example 147 with the space removed);
- "list without digits": mistletoe reads a lone "." or ")" as an ordered list item;
  CommonMark: an ordered marker has 1-9 digits;
- "table with uneven delimiter row": mistletoe takes a header row over a delimiter row with
  another number of cells as a table; GFM: then it is not a table.
Link reference definitions (`[x]: url`, `[^note]: text`) make no mistletoe token, so a
trailing run of them is not counted into the end of the token before them.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import mistletoe
import pytest
from mistletoe import block_token as bt

from reme_core.files.text_decode import decode_text
from reme_core.parse import markdown_blocks as mb
from reme_core.parse.frontmatter import split_frontmatter

DEMO = Path(__file__).resolve().parents[1] / "reme_tui" / "demo"
VAULTS = Path("/work/vaults")
PUBLIC = (
    "Pokerole-Obsidian-SRD.orig",
    "Learning-Record-Write-By-Obsidian.orig",
    "obsidian-secops.orig",
)
SAMPLE = 300
KINDS = {
    bt.Heading: mb.HEADING,
    bt.SetextHeading: mb.HEADING,
    bt.CodeFence: mb.FENCE,
    bt.List: mb.LIST,
    bt.Table: mb.TABLE,
}
COMPARED = frozenset(KINDS.values())
_LINK_DEF = re.compile(r" {0,3}\[[^\]]+\]:")
_DIGITLESS_ITEM = re.compile(r" {0,3}[.)](?:[ \t]|$)")


def notes(root: Path, sample: int | None) -> list[Path]:
    """The Markdown notes of a folder, all or a seeded sample, in a stable order."""
    found = sorted(
        p for p in root.rglob("*.md") if not {".git", ".reme-tui", ".obsidian"} & set(p.parts)
    )
    if sample is None or len(found) <= sample:
        return found
    return sorted(random.Random(13).sample(found, sample))


def body(path: Path) -> tuple[list[str], int]:
    """A note's lines as the indexer reads them, and the index of its first body line."""
    text, _ = decode_text(path.read_bytes(), str(path))
    return text.split("\n"), split_frontmatter(text).end_line


def scanner_blocks(lines: list[str], first: int) -> set[tuple[int, int, int, tuple[int, ...]]]:
    """(kind, first line, last line, list item lines) of the compared top-level blocks."""
    return {
        (b.kind, b.start, b.end, tuple(b.info) if b.kind == mb.LIST else ())
        for b in mb.scan_blocks(lines, first, len(lines))
        if b.kind in COMPARED
    }


def mistletoe_blocks(
    tokens: list[bt.BlockToken], lines: list[str], first: int
) -> set[tuple[int, int, int, tuple[int, ...]]]:
    """The same from mistletoe's top-level tokens (1-based line numbers of the body)."""
    starts = [t.line_number - 1 + first for t in tokens]
    out = set()
    for n, token in enumerate(tokens):
        kind = KINDS.get(type(token))
        if kind is None:
            continue
        stop = starts[n + 1] if n + 1 < len(tokens) else len(lines)
        end = _end(lines, starts[n], stop)
        items = ()
        if kind == mb.LIST:
            items = tuple(item.line_number - 1 + first for item in token.children or ())
        out.add((kind, starts[n], end, items))
    return out


def _end(lines: list[str], start: int, stop: int) -> int:
    """Last non-blank line in [start, stop), without a trailing run of link definitions."""
    end = max(i for i in range(start, stop) if lines[i].strip())
    while True:
        run = end
        while run > start and lines[run - 1].strip():
            run -= 1
        if run == start or not _LINK_DEF.match(lines[run]):
            return end
        end = max(i for i in range(start, run) if lines[i].strip())


def departure(tokens: list[bt.BlockToken], lines: list[str], first: int) -> str | None:
    """Why mistletoe's reading of this note is not CommonMark/GFM, or None."""
    for block in mb.scan_blocks(lines, first, len(lines)):
        if block.kind == mb.FENCE:
            closer, (ch, n) = block.info
            inside = lines[block.start + 1 : closer if closer >= 0 else block.end + 1]
            for line in inside:
                rest = line.lstrip(" ")
                opens_like = len(line) - len(rest) < 4 and rest.startswith(ch * n)
                # mistletoe closes on one word starting with the fence; here it has an info
                if opens_like and rest.strip(ch) and len(rest.split(maxsplit=1)) == 1:
                    return "fence closed by an info line"
    for token in tokens:
        line = lines[token.line_number - 1 + first]
        if isinstance(token, bt.List) and _DIGITLESS_ITEM.match(line):
            return "list without digits"
        if isinstance(token, bt.Table):
            header, delimiter = line, lines[token.line_number + first]
            if mb._cell_count(header) != mb._cell_count(delimiter):
                return "table with uneven delimiter row"
    return None


def compare(paths: list[Path]) -> tuple[list[str], Counter[str], int]:
    """(disagreements, excluded notes by reason, compared block count)."""
    problems: list[str] = []
    excluded: Counter[str] = Counter()
    compared = 0
    for path in paths:
        lines, first = body(path)
        tokens = list(mistletoe.Document("\n".join(lines[first:])).children or [])
        reason = departure(tokens, lines, first)
        if reason:
            excluded[reason] += 1
            continue
        ours, theirs = scanner_blocks(lines, first), mistletoe_blocks(tokens, lines, first)
        compared += len(ours)
        if ours != theirs:
            problems.append(f"{path}: scanner only {sorted(ours - theirs)}, ")
            problems[-1] += f"mistletoe only {sorted(theirs - ours)} (0-based lines)"
    return problems, excluded, compared


def test_demo_agrees_with_mistletoe() -> None:
    problems, excluded, compared = compare(notes(DEMO, None))
    assert problems == []
    assert not excluded
    assert compared > 100


@pytest.mark.parametrize("vault", PUBLIC)
def test_public_vault_agrees_with_mistletoe(vault: str) -> None:
    root = VAULTS / vault
    if not root.is_dir():
        pytest.skip(f"{root} is not on this machine")
    paths = notes(root, SAMPLE)
    problems, excluded, compared = compare(paths)
    assert problems == []
    assert sum(excluded.values()) <= len(paths) // 50, excluded
    assert compared > 300


def mistletoe_code(tokens: list[bt.BlockToken], lines: list[str], first: int) -> set[int]:
    """First lines of mistletoe's code blocks as `code_lines` has them: fenced and indented
    code at any depth of lists, items and quotes (callouts). Two mistletoe readings that are
    not code here are left out: a line of spaces alone (CommonMark: a blank line, mistletoe:
    an empty code block), and an indented line after a `[^note]:` / `[x]:` definition
    (Obsidian: the footnote goes on)."""
    out: set[int] = set()

    def walk(children: list[bt.BlockToken]) -> None:
        for token in children:
            line = token.line_number - 1 + first
            if isinstance(token, bt.CodeFence):
                out.add(line)
            elif isinstance(token, bt.BlockCode):
                after = next(
                    (lines[i] for i in range(line - 1, first - 1, -1) if lines[i].strip()), ""
                )
                if token.children[0].content.strip() and not _LINK_DEF.match(after):
                    out.add(line)
            elif isinstance(token, (bt.List, bt.ListItem, bt.Quote)):
                walk(list(token.children or []))

    walk(tokens)
    return out


def compare_code(paths: list[Path]) -> tuple[list[str], int]:
    """(disagreements on where code starts, code blocks compared)."""
    problems: list[str] = []
    compared = 0
    for path in paths:
        lines, first = body(path)
        tokens = list(mistletoe.Document("\n".join(lines[first:])).children or [])
        if departure(tokens, lines, first):
            continue
        ours = {start for start, _ in mb.code_lines(lines, first, len(lines))}
        theirs = mistletoe_code(tokens, lines, first)
        compared += len(ours)
        if ours != theirs:
            problems.append(f"{path}: scanner only {sorted(ours - theirs)}, ")
            problems[-1] += f"mistletoe only {sorted(theirs - ours)} (0-based lines)"
    return problems, compared


def test_code_lines_agree_with_mistletoe_on_the_demo() -> None:
    """The code the link and tag finders skip starts where mistletoe's code blocks start."""
    problems, compared = compare_code(notes(DEMO, None))
    assert problems == []
    assert compared > 10


@pytest.mark.parametrize("vault", PUBLIC)
def test_code_lines_agree_with_mistletoe_on_public_vaults(vault: str) -> None:
    root = VAULTS / vault
    if not root.is_dir():
        pytest.skip(f"{root} is not on this machine")
    problems, _ = compare_code(notes(root, SAMPLE))
    assert problems == []


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("1. one\n2. two\n- bullet\n- again", [(mb.LIST, 0, 1), (mb.LIST, 2, 3)]),
        ("- a\n\n3. c\n4. d", [(mb.LIST, 0, 0), (mb.LIST, 2, 3)]),
        ("- a\n+ b\n* c", [(mb.LIST, 0, 0), (mb.LIST, 1, 1), (mb.LIST, 2, 2)]),
        ("1. a\n2) b", [(mb.LIST, 0, 0), (mb.LIST, 1, 1)]),
        ("- a\n  1. nested\n- b", [(mb.LIST, 0, 2)]),
    ],
)
def test_a_list_ends_where_its_marker_changes(text: str, kinds: list[tuple[int, int, int]]) -> None:
    """CommonMark: an item with another bullet, or another ordered delimiter, starts a new
    list (the scanner used to run them into one; found by this differential test)."""
    lines = text.split("\n")
    got = [(b.kind, b.start, b.end) for b in mb.scan_blocks(lines, 0, len(lines))]
    assert got == kinds
    tokens = mistletoe.Document(text).children or []
    assert [(KINDS[type(t)], t.line_number - 1) for t in tokens] == [(k, s) for k, s, _ in kinds]


def test_a_fence_line_with_info_does_not_close_a_fence() -> None:
    """Where mistletoe departs from CommonMark, the scanner keeps the spec (one fence here)."""
    lines = ["```", "aaa", "```lua", "bbb", "```"]
    assert [(b.kind, b.start, b.end) for b in mb.scan_blocks(lines, 0, 5)] == [(mb.FENCE, 0, 4)]
