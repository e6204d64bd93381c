"""render_markdown: Obsidian's forms rendered as lines, each tied to the source line it shows."""

from __future__ import annotations

from reme_core import LinkSpan, find_markdown_links, find_wikilinks, outline, render_markdown

NOTE = """---
title: Sample
---
# Title with **bold**

Some *em*, `code [[not a link]]` and [[Target|the alias]] and [[Other#Part]].
%% a comment %% shown %% and one
across lines %% after
- item [[Target]]
- [x] done

> [!warning] Mind the gap
> body line
> > nested

| first | second | third |
|:--|:-:|--:|
| a | [[Target\\|b]] | c |

```python
print("x")
```
Para with a block id ^abc123
"""


def _render(text: str = NOTE):
    lines = text.split("\n")
    links = [
        LinkSpan(
            m.line,
            m.start,
            m.end,
            m.alias or (f"{m.target} > {m.anchor}" if m.anchor else m.target),
        )
        for m in find_wikilinks(text)
    ]
    return lines, render_markdown(lines, links)


def _by_source(rendered):
    return {r.source: r for r in rendered}


def test_every_rendered_line_maps_back_to_its_source_line() -> None:
    lines, rendered = _render()
    sources = [r.source for r in rendered]
    assert sources == sorted(sources), "source lines never go backwards"
    shown = _by_source(rendered)
    assert shown[4].text == "Title with bold" and ("h1" in {s[2] for s in shown[4].styles})
    assert 1 not in shown and 2 not in shown, "frontmatter is not drawn (the header shows it)"
    assert lines[17].startswith("| a |") and shown[18].text.split("│")[0].strip() == "a"
    assert lines[19] == "```python" and shown[20].text == "╭─ python"


def test_links_show_by_label_and_keep_their_place() -> None:
    _, rendered = _render()
    line = _by_source(rendered)[6]
    assert "[[" not in line.text.replace("`", "").replace("[[not a link]]", "")
    labels = [line.text[s:e] for s, e, _ in line.links]
    assert labels == ["the alias", "Other > Part"]
    assert "[[not a link]]" in line.text, "a link in code stays code"


def test_comments_and_block_ids_are_hidden_even_across_lines() -> None:
    _, rendered = _render()
    text = "\n".join(r.text for r in rendered)
    assert "%%" not in text and "comment" not in text and "across lines" not in text
    assert "shown" in text and "after" in text
    assert "^abc123" not in text and "Para with a block id" in text


def test_callouts_show_their_type_and_title() -> None:
    _, rendered = _render()
    shown = _by_source(rendered)
    assert "WARNING" in shown[12].text and "Mind the gap" in shown[12].text
    assert "[!warning]" not in shown[12].text
    names = {s[2] for s in shown[12].styles}
    assert "callout-warning" in names and "callout-title" in names
    assert shown[13].text.startswith("▌ ") and "body line" in shown[13].text
    assert shown[14].text.count("▌") == 2


def test_tables_keep_every_column_aligned() -> None:
    _, rendered = _render()
    shown = _by_source(rendered)
    header, rule, row = shown[16].text, shown[17].text, shown[18].text
    assert [c.strip() for c in header.split("│")] == ["first", "second", "third"]
    assert [c.strip() for c in row.split("│")] == ["a", "b", "c"]
    assert len(header) == len(row) == len(rule), "columns padded to one width"
    assert row.split("│")[2].endswith("c"), "a right-aligned column"
    (link,) = shown[18].links
    assert row[link[0] : link[1]] == "b"


def test_fenced_code_lists_and_tasks() -> None:
    _, rendered = _render()
    shown = _by_source(rendered)
    assert shown[9].text.startswith("• item ") and shown[10].text.startswith("☑ done")
    assert shown[20].text == "╭─ python" and shown[21].text == '│ print("x")'
    assert shown[22].text == "╰─"


def test_wide_tables_measure_cells_with_the_given_width() -> None:
    text = "| 名字 | b |\n|---|---|\n| x | 中文字 |\n"
    lines = text.split("\n")
    rendered = render_markdown(
        lines, [], width=lambda s: sum(2 if ord(c) > 0x2E80 else 1 for c in s)
    )
    head, _, row = (r.text for r in rendered)
    assert head.index("│") == 3 and row.index("│") == 5, "名字 is four cells: x gets 3 spaces"


def test_outline_lists_headings_with_plain_titles() -> None:
    text = (
        "---\na: 1\n---\n# One **bold**\n\n```\n# not a heading\n```\n"
        "## Two [[Note|alias]]\nSetext\n---\n"
    )
    headings = outline(text.split("\n"))
    assert [(h.line, h.level, h.title) for h in headings] == [
        (4, 1, "One bold"),
        (9, 2, "Two alias"),
        (10, 2, "Setext"),
    ]


EMPHASISED_LINKS = [
    ("**[[Target]]**", ["Target"], {"strong"}),
    ("*[[Target]]*", ["Target"], {"em"}),
    ("__[[Target]]__", ["Target"], {"strong"}),
    ("_[[Target]]_", ["Target"], {"em"}),
    ("***[[Target]]***", ["Target"], {"strong", "em"}),
    ("**[label](x.md)**", ["label"], {"strong"}),
    ("- **[[Target]]**: the note", ["Target"], {"strong"}),
    ("**[[Target|Alias]]** and **[[Missing]]**", ["Alias", "Missing"], {"strong"}),
    ("*[[a]]*, *[[b]]* or __[[c]]__", ["a", "b", "c"], None),
    ("**see [[X]]** and **[y](y.md)**", ["X", "y"], {"strong"}),
]


def test_emphasis_around_a_link_styles_the_label_without_its_markers() -> None:
    """`**[[link]]**` showed `**` around the label when a line had two of them (a link is
    one character while rendered, and a one-character emphasis ran to the last `**`)."""
    for source, labels, styles in EMPHASISED_LINKS:
        spans = [
            LinkSpan(m.line, m.start, m.end, m.alias or m.target) for m in find_wikilinks(source)
        ]
        spans += [LinkSpan(m.line, m.start, m.end, m.text) for m in find_markdown_links(source)]
        spans.sort(key=lambda s: s.start)
        (line,) = render_markdown([source], spans)
        assert "*" not in line.text and "_" not in line.text, (source, line.text)
        assert [line.text[s:e] for s, e, _ in line.links] == labels, source  # selectable
        for start, end, _ in line.links:
            around = {name for s, e, name in line.styles if s <= start and end <= e}
            assert styles is None or styles <= around, (source, line.styles)
            assert around & {"strong", "em"}, (source, line.styles)


def test_one_letter_emphasis_closes_at_its_own_markers() -> None:
    for source, text, styled in [
        ("**a** and **b**", "a and b", ["a", "b"]),
        ("*a* then *b*", "a then b", ["a", "b"]),
        ("~~a~~ b ~~c~~", "a b c", ["a", "c"]),
    ]:
        (line,) = render_markdown([source])
        assert line.text == text
        assert [line.text[s:e] for s, e, _ in line.styles] == styled
