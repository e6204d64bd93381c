"""Right-to-left text in the rendered view (issue 30): passed through in logical order, never
reversed by the program (the terminal does the bidi), never cut inside a grapheme; and
`**[[link]]**` shows no `**` in the reader's rows."""

from __future__ import annotations

from pathlib import Path

from rich.cells import split_graphemes

from reme_core import LinkSpan, find_wikilinks, render_markdown
from reme_tui.app import RemeApp
from reme_tui.widgets.reader.wrap import wrap_cuts
from tests.conftest import write_files
from tests.test_tui_app import SIZE, settle
from tests.test_tui_rendered_view import open_rendered, rows

HEBREW = "שָׁלוֹם עוֹלָם, זֶה טֶקְסְט אָרֹךְ מְאוֹד עִם נִקּוּד"
ARABIC = "مَرْحَبًا بِالْعَالَمِ، هٰذَا نَصٌّ طَوِيلٌ جِدًّا"
PERSIAN = "می‌خواهم کتاب‌ها را بخوانم"  # zero-width non-joiners inside words


def _render(text: str) -> str:
    spans = [LinkSpan(m.line, m.start, m.end, m.alias or m.target) for m in find_wikilinks(text)]
    return render_markdown([text], spans)[0].text


def test_rtl_lines_pass_through_in_logical_order() -> None:
    for text in (HEBREW, ARABIC, PERSIAN):
        assert _render(text) == text
    assert _render(f"{HEBREW} **[[Note|הערה]]** {ARABIC}") == f"{HEBREW} הערה {ARABIC}"


def test_wrapping_never_cuts_inside_a_grapheme() -> None:
    for text in (HEBREW, ARABIC, PERSIAN, "👩‍👩‍👧 " * 12):
        graphemes, _ = split_graphemes(text)
        starts = {0} | {span[0] for span in graphemes}
        for width in (8, 11, 17, 23):
            cuts = wrap_cuts(text, width)
            assert set(cuts) <= starts, (text, width, cuts)
            assert "".join(text[a:b] for a, b in zip(cuts, [*cuts[1:], len(text)])) == text


async def test_reader_rows_keep_rtl_text_and_show_no_stars(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "vault",
        {
            "Home.md": f"# Home\n\n{HEBREW}\n\n{ARABIC}\n\n**[[Other]]** and **[[Other|o]]**\n",
            "Other.md": "# Other\n",
        },
    )
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await open_rendered(pilot, "Home.md")
        text = "\n".join(rows(view))
        assert HEBREW in text and ARABIC in text
        assert "Other and o" in text and "**" not in text
