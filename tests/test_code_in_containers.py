"""Code is code everywhere (issue 27, item 6): fenced and indented code inside block quotes,
callouts and list items is neither tags nor links, in the index, the links pane, the reader
and rename. The rule is `code_lines` (checked against mistletoe here and in
test_block_scanner_vs_mistletoe.py)."""

from __future__ import annotations

import mistletoe
import pytest

from reme_core import Workspace, find_wikilinks, render_markdown
from reme_core.parse import markdown_blocks as mb
from reme_core.parse.tags import inline_tags
from reme_core.query.tag_list import list_tags
from tests.test_block_scanner_vs_mistletoe import mistletoe_code

NOTE = """# Colours

> [!note] The palette
> ```css
> a { color: #ff0000 }
> ```
> See [[Real]] #palette

> ```md
> [[X]]
> ```

>     [[Indented quote]] #indented

- an item
  > ```md
  > [[In a list quote]] #listquote
  > ```

- another item

      [[Indented in item]] #initem
- > > ~~~
  > > [[Deep]] #deep
  > > ~~~
"""

CASES = {
    "callout fence": "> [!note]\n> ```css\n> #ff0000\n> ```\n",
    "quote fence": "> ```md\n> [[X]]\n> ```\n",
    "quote indented": "> para\n>\n>     code\n",
    "nested quotes": "> > ```\n> > code\n> > ```\n",
    "quote in item": "- item\n  > ```\n  > code\n  > ```\n",
    "indented in item": "- item\n\n      code\n- next\n",
    "ordered item": "1. item\n\n       code\n",
    "fence in item in quote": "> - item\n>   ```\n>   code\n>   ```\n",
    "nested list is no code": "- a\n\n    - b\n\n        - c\n",
    "quote without code": "> a\n> b #tag\n",
    "unclosed quote fence": "> ```\n> [[X]]\n\nafter\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_code_lines_start_where_mistletoe_code_starts(name: str) -> None:
    text = CASES[name]
    lines = text.split("\n")
    tokens = list(mistletoe.Document(text).children or [])
    ours = {start for start, _ in mb.code_lines(lines, 0, len(lines))}
    assert ours == mistletoe_code(tokens, lines, 0)


def test_no_link_or_tag_in_contained_code() -> None:
    assert [m.target for m in find_wikilinks(NOTE)] == ["Real"]
    assert inline_tags(NOTE) == ["palette"]


@pytest.mark.parametrize(
    "text", ["> para\n>\n>     [[X]] #t\n", ">     [[X]] #t\n", "- item\n\n      [[X]] #t\n"]
)
def test_indented_code_alone_in_a_container_is_found(text: str) -> None:
    """No fence in the note: the finders' quick test must still see the indented code."""
    assert find_wikilinks(text) == [] and inline_tags(text) == []


def test_a_deeply_nested_quote_is_bounded() -> None:
    text = ">" * 5000 + " ```\n" + ">" * 5000 + " [[X]]\n"
    assert [m.target for m in find_wikilinks(text)] == ["X"]  # too deep to look into: text


VAULT = {
    ".obsidian/app.json": "{}",
    "Colours.md": NOTE,
    "Real.md": "# Real\n",
    "X.md": "# X\n",
}


def test_the_index_links_pane_and_rename_skip_contained_code(make_tree) -> None:
    root = make_tree(VAULT)
    ws = Workspace.open(root)
    try:
        assert [(n.path, n.dangling) for n in ws.links("Colours.md").outlinks] == [
            ("Real.md", False)
        ]
        assert ws.links("X.md").inlinks == []
        assert [t.tag for t in list_tags(ws)] == ["palette"]
        assert ws.search("tag:ff0000").results == []
        report = ws.move("X.md", "Y.md")
        assert report.edits == []
    finally:
        ws.close()
    assert (root / "Colours.md").read_text() == NOTE


def test_the_rendered_view_draws_code_in_a_callout_as_code() -> None:
    lines = ["> [!note] Palette", "> ```css", "> a { color: #ff0000 }", "> ```", "> see #real"]
    rendered = {line.source: line for line in render_markdown(lines)}
    code = rendered[3]
    assert code.text.endswith("a { color: #ff0000 }")
    assert not any(style == "tag" for *_, style in code.styles)
    assert any(style == "tag" for *_, style in rendered[5].styles)  # text after the fence
