"""Embeds drawn inline (issue 30): each kind, the depth limit, loops, missing targets, and
every embedded line tied to its own file and line."""

from __future__ import annotations

from reme_core import (
    MAX_EMBED_DEPTH,
    EmbedNote,
    EmbedRef,
    LinkSpan,
    embed_section,
    expand_embeds,
    find_wikilinks,
)


def _note(path: str, text: str, targets: dict[str, str | None] | None = None) -> EmbedNote:
    """A note whose `![[...]]` embeds resolve through `targets` (written -> path; absent:
    `<written>.md`), labelled as the reader labels them."""
    lines = text.split("\n")
    matches = find_wikilinks(text)
    spans = [LinkSpan(m.line, m.start, m.end, f"<{m.target}>") for m in matches]
    embeds = {}
    for n, m in enumerate(matches):
        if m.embed:
            target = (targets or {}).get(m.target, f"{m.target}.md")
            embeds[n] = EmbedRef(target, m.anchor, m.target)
    return EmbedNote(path, lines, spans, embeds)


def _vault(notes: dict[str, str]):
    built = {path: _note(path, text) for path, text in notes.items()}
    loads: list[str] = []

    def load(path: str) -> EmbedNote | None:
        loads.append(path)
        return built.get(path)

    return built, load, loads


def _texts(expanded) -> list[str]:
    return [line.text for line in expanded.lines]


def test_whole_note_embed_is_framed_titled_and_tied_to_its_lines() -> None:
    built, load, _ = _vault(
        {
            "a.md": "# A\n\nbefore\n\n![[b]]\n\nafter",
            "b.md": "---\ntitle: B\n---\nfirst line of b\n\nsecond with [[c]]",
        }
    )
    out = expand_embeds(built["a.md"], load)
    texts = _texts(out)
    title = next(i for i, t in enumerate(texts) if t.startswith("╭─ b.md"))
    assert texts[title + 1] == "│ first line of b"
    assert texts[-1] == "after"
    assert "╰─" in texts
    first = out.lines[title + 1]
    assert (first.path, first.source) == ("b.md", 4)  # its own file and line
    with_link = next(line for line in out.lines if "<c>" in line.text)
    assert (with_link.path, with_link.source) == ("b.md", 6)
    (start, end, n) = with_link.links[0]
    assert with_link.text[start:end] == "<c>"
    assert out.links[n] == ("b.md", 0)  # b's own link number 0
    # the open note's own lines keep path "" and its links their numbers
    assert out.lines[0].path == ""
    assert out.links[0] == ("a.md", 0)
    # frontmatter of the embedded note is not shown
    assert not any("title: B" in t for t in texts)


def test_heading_section_runs_to_the_next_heading_of_same_or_higher_level() -> None:
    b = "# B\n\nintro\n\n## Wanted\n\nin section\n\n### Deeper\n\nstill in\n\n## Next\n\nout"
    built, load, _ = _vault({"a.md": "![[b#Wanted]]", "b.md": b})
    texts = _texts(expand_embeds(built["a.md"], load))
    joined = "\n".join(texts)
    assert texts[0] == "╭─ b.md > Wanted"
    assert "in section" in joined and "still in" in joined and "Deeper" in joined
    assert "intro" not in joined and "out" not in joined and "Next" not in joined
    assert embed_section(b.split("\n"), "wanted") == (5, 12)  # case as Obsidian: ignored


def test_block_embed_is_its_paragraph_or_list_item() -> None:
    b = (
        "para one\npara two ^p1\n\nother para\n\n"
        "- item a\n- item b ^li\n  continued b\n- item c\n\n| x |\n|---|\n| 1 |\n\n^tbl"
    )
    built, load, _ = _vault({"a.md": "![[b#^p1]]\n\n![[b#^li]]\n\n![[b#^tbl]]", "b.md": b})
    joined = "\n".join(_texts(expand_embeds(built["a.md"], load)))
    assert "para one" in joined and "para two" in joined and "other para" not in joined
    assert "item b" in joined and "continued b" in joined
    assert "item a" not in joined and "item c" not in joined
    assert "^li" not in joined and "^p1" not in joined  # block ids stay hidden
    assert "│ x\n│ ─\n│ 1\n╰─" in joined  # a lone `^id` after a table names the table


def test_missing_target_heading_and_block_say_so_inline() -> None:
    a = _note("a.md", "![[gone]]\n\n![[b#Nope]]\n\n![[b#^nope]]", {"gone": None})
    _built, load, _ = _vault({"b.md": "# B\n\ntext"})
    texts = _texts(expand_embeds(a, load))
    assert "│ ⚠ gone does not exist" in texts
    assert "│ ⚠ b.md has no heading Nope" in texts
    assert "│ ⚠ b.md has no block ^nope" in texts
    assert "│ text" not in texts


def test_a_loop_stops_and_says_so_and_each_note_is_read_once() -> None:
    built, load, loads = _vault({"a.md": "A\n\n![[b]]", "b.md": "B\n\n![[a]]\n\n![[b]]"})
    texts = _texts(expand_embeds(built["a.md"], load))
    assert "│ │ ↻ a.md is already shown above (an embed loop)" in texts
    assert "│ │ ↻ b.md is already shown above (an embed loop)" in texts
    assert loads.count("b.md") == 1


def test_depth_is_limited() -> None:
    chain = {f"n{i}.md": f"level {i}\n\n![[n{i + 1}]]" for i in range(8)}
    built, load, _ = _vault(chain)
    texts = _texts(expand_embeds(built["n0.md"], load))
    joined = "\n".join(texts)
    assert f"level {MAX_EMBED_DEPTH}" in joined
    assert f"level {MAX_EMBED_DEPTH + 1}" not in joined
    assert any(f"embeds stop at {MAX_EMBED_DEPTH} levels" in t for t in texts)
    # nested frames are drawn inside one another
    assert any(t.startswith("│ │ ╭─ n3.md") for t in texts)


def test_attachment_is_one_line_with_name_and_size() -> None:
    text = "![[pic.png]]"
    m = find_wikilinks(text)[0]
    a = EmbedNote(
        "a.md",
        [text],
        [LinkSpan(1, m.start, m.end, "↳ image: pic.png")],
        {0: EmbedRef("img/pic.png", "", "pic.png", True, 14_336)},
    )
    out = expand_embeds(a, lambda path: None)
    assert _texts(out) == ["  ▣ img/pic.png (14 KB)"]
    assert out.lines[0].links == [(2, len(out.lines[0].text), 0)]  # still followable


def test_embed_inside_a_line_keeps_the_line() -> None:
    built, load, _ = _vault({"a.md": "see ![[b]] here", "b.md": "bee"})
    texts = _texts(expand_embeds(built["a.md"], load))
    assert texts[0] == "see <b> here"
    assert texts[1:] == ["╭─ b.md", "│ bee", "╰─"]
