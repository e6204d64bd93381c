"""The rendered view (m), the outline (h), wide text and dangling links, driven in the browser.

The rendered view used to be Textual's Markdown widget: 14–38 s and 1.2 GB on a 300 KB note,
links not selectable, callouts as `[!note]`, wikilinks raw, a table's first column dropped.
Now it is the reader's own line view, so every check here runs on the rows it draws.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from reme_tui.app import RemeApp
from reme_tui.screens.create_note import CreateNoteScreen
from reme_tui.widgets.outline import OutlinePane
from reme_tui.widgets.reader import reader as reader_module
from reme_tui.widgets.reader.note_data import render_note
from reme_tui.widgets.reader.note_view import NoteView
from reme_tui.widgets.reader.wrap import wrap_cuts
from tests.conftest import write_files
from tests.helpers import said
from tests.test_tui_app import SIZE, settle, wait_until

HOME = (
    "---\ntags: [home]\n---\n"
    "# Home\n\n"
    "> [!note] Read me first\n> The callout body.\n\n"
    "Links: [[Energy/Solar panels|the sun]], [[Wind]] and [[Solar panels#Efficiency]].\n"
    "%% a private comment %%Visible text.\n\n"
    "| Name | Kind |\n|---|---|\n| [[Wind]] | air |\n| Rain | water |\n\n"
    "![[Solar panels]]\n"
)
VAULT = {
    "Home.md": HOME,
    "Energy/Solar panels.md": (
        "---\ntitle: Solar Power\n---\n# Solar panels\n\nIntro.\n\n"
        + "filler\n" * 40
        + "## Efficiency\n\nAbout 22 percent.\n\n"
        + "more filler\n" * 40
        + "## Costs\n\nFalling.\n"
    ),
    "Wind.md": "# Wind\n\nBlades.\n",
}


INBOX = {"newFileLocation": "folder", "newFileFolderPath": "Inbox"}


def rows(view: NoteView) -> list[str]:
    """The rows the view draws, cropped to what is visible beside its scrollbar."""
    width = view.scrollable_content_region.width
    return [view.render_line(y).crop(0, width).text for y in range(view.size.height)]


async def reading(pilot, path: str) -> None:
    """Once the app has opened: the note in the reader, the focus in it."""
    await settle(pilot)
    pilot.app.main.navigator.open_path(path)
    await settle(pilot)
    pilot.app.main.focus_reader()


async def open_rendered(pilot, path: str) -> NoteView:
    app = pilot.app
    app.main.navigator.open_path(path)
    await settle(pilot)
    app.main.focus_reader()
    await pilot.press("m")
    await settle(pilot)
    view = app.query_one(NoteView)
    assert view.rendered is not None, "m shows the rendered view"
    return view


async def test_rendered_view_draws_obsidian_forms(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await open_rendered(pilot, "Home.md")
        text = "\n".join(rows(view))
        assert "NOTE  Read me first" in text and "[!note]" not in text
        assert "the sun" in text and "Wind" in text and "Solar panels > Efficiency" in text
        assert "[[" not in text and "%%" not in text and "private comment" not in text
        assert "Visible text." in text
        name_row = next(r for r in rows(view) if "Rain" in r)
        assert "Rain" in name_row and "water" in name_row, "a table keeps its first column"
        assert "╭─ Energy/Solar panels.md" in text, "a note embed is framed, titled by its path"
        assert "│ Intro." in text, "and shows the embedded note's text"


@pytest.mark.parametrize(
    ("nth", "target"),
    [(1, "Energy/Solar panels.md"), (2, "Wind.md"), (3, "Energy/Solar panels.md")],
)
async def test_links_are_followed_in_the_rendered_view(tmp_path: Path, nth: int, target: str):
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await open_rendered(pilot, "Home.md")
        for _ in range(nth):
            await pilot.press("tab")
        assert view.selected_link is not None and view.selected_link.target == target
        await pilot.press("enter")
        await settle(pilot)
        assert app.main.reader.path == target
        assert view.rendered is not None, "the followed note opens rendered too"
        if nth == 3:  # `#Efficiency` scrolls to the heading
            top = view.line_at_row(int(view.scroll_y))
            bottom = view.line_at_row(int(view.scroll_y) + view.size.height - 1)
            assert top <= view.lines.index("## Efficiency") + 1 <= bottom


async def test_clicking_a_rendered_link_follows_it(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await open_rendered(pilot, "Home.md")
        y, row = next((y, r) for y, r in enumerate(rows(view)) if "the sun" in r)
        await pilot.click(NoteView, offset=(row.index("the sun") + 2, y))
        await settle(pilot)
        assert app.main.reader.path == "Energy/Solar panels.md"


async def test_a_hit_range_lands_on_its_source_line_in_the_rendered_view(tmp_path: Path):
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await open_rendered(pilot, "Home.md")
        line = VAULT["Energy/Solar panels.md"].split("\n").index("About 22 percent.") + 1
        app.main.navigator.open_path("Energy/Solar panels.md", [(line, line)])
        await settle(pilot)
        view = app.query_one(NoteView)
        assert view.rendered is not None
        marked = [r for r in rows(view) if "▌" in r[: view._gutter]]
        assert marked and all("About 22 percent." in r for r in marked)


async def test_toggling_renders_off_the_ui_thread_then_switches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []

    def spy(note):  # the real renderer, noting the thread it runs in
        threads.append(threading.current_thread())
        return render_note(note)

    monkeypatch.setattr(reader_module, "render_note", spy)
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await reading(pilot, "Home.md")
        view = app.query_one(NoteView)
        assert view.rendered is None
        await pilot.press("m")
        await wait_until(pilot, lambda: view.rendered is not None)
        assert threads and all(t is not threading.main_thread() for t in threads)
        await pilot.press("m")
        await pilot.pause()
        assert view.rendered is None and any("[[Wind]]" in r for r in rows(view))


async def test_outline_jumps_to_a_heading(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await reading(pilot, "Energy/Solar panels.md")
        await pilot.press("h")
        await pilot.pause()
        pane = app.query_one(OutlinePane)
        assert pane.display and app.focused is pane
        titles = [str(pane.get_option_at_index(i).prompt) for i in range(pane.option_count)]
        assert [t.strip() for t in titles] == ["Solar panels", "Efficiency", "Costs"]
        view = app.query_one(NoteView)
        for presses, heading in ((1, "## Efficiency"), (1, "## Costs")):
            pane.focus()
            await pilot.press(*["down"] * presses, "enter")
            await settle(pilot)
            assert app.focused is view, "Enter jumps and gives the note the focus"
            line = view.lines.index(heading) + 1
            top = view.line_at_row(int(view.scroll_y))
            bottom = view.line_at_row(int(view.scroll_y) + view.size.height - 1)
            assert top > 20 and top <= line <= bottom, f"the view scrolled to {heading}"


@pytest.mark.parametrize(
    ("settings", "link", "created"),
    [
        (INBOX, "Brand new", "Inbox/Brand new.md"),
        (None, "Brand new", "Brand new.md"),
        ({"newFileLocation": "current"}, "Brand new", "Notes/Brand new.md"),
        (INBOX, "Plans/Q3", "Plans/Q3.md"),
    ],
)
async def test_a_dangling_link_creates_its_note_where_obsidian_would(
    tmp_path: Path, settings: dict | None, link: str, created: str
) -> None:
    files = {"Notes/Home.md": f"# Home\n\nSee [[{link}]].\n"}
    if settings is not None:
        files[".obsidian/app.json"] = json.dumps(settings)
    root = write_files(tmp_path / "vault", files)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await reading(pilot, "Notes/Home.md")
        await pilot.press("tab", "enter")
        await settle(pilot)
        assert isinstance(app.screen, CreateNoteScreen)
        assert app.screen.path == created
        await pilot.press("y")
        await wait_until(pilot, lambda: app.main.reader.path == created)
        assert (root / created).is_file()


def test_chinese_wraps_between_characters_not_only_at_spaces() -> None:
    line = "第一节 " + "这是一个很长的中文段落用来测试换行" * 4
    cuts = wrap_cuts(line, 30)
    pieces = [line[a:b] for a, b in zip(cuts, [*cuts[1:], len(line)], strict=False)]
    assert "".join(pieces) == line
    assert all(len(p) * 2 >= 28 for p in pieces[:-1]), "every row but the last is full"


async def test_wide_text_keeps_rows_inside_the_pane(tmp_path: Path) -> None:
    emoji = "🗂️x " * 60
    chinese = "中文段落 " + "这是一个很长的中文段落用来测试换行" * 6
    alias = "an alias that is long enough to wrap over rows"
    long_link = "Some quite long words before " * 2 + f"[[Wind|{alias}]] tail"
    root = write_files(
        tmp_path / "vault",
        {"Wide.md": f"{emoji}\n\n{chinese}\n\n{long_link}\n" + "filler\n" * 60, "Wind.md": "x\n"},
    )
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path(
            "Wind.md"
        )  # a short note first: the next one brings a scrollbar
        await reading(pilot, "Wide.md")
        await pilot.press("tab")
        await pilot.pause()
        view = app.query_one(NoteView)
        strips = [view.render_line(y) for y in range(view.size.height)]
        assert all(s.cell_length == view.size.width for s in strips)
        drawn = rows(view)
        body = "".join(r[view._gutter :].rstrip() for r in drawn)
        assert body.count("x") == 60, "no emoji row lost its tail"
        assert "这是一个很长的中文段落用来测试换行" * 6 in body.replace(" ", "")
        words = " ".join(r[view._gutter :].rstrip() for r in drawn)
        assert "an alias that is long enough to wrap over rows]] tail" in words, (
            "a selected link that wraps keeps its tail on the next row"
        )


async def test_a_missing_image_or_pdf_is_said_missing_and_no_note_is_made(tmp_path: Path):
    """A link naming an attachment that is not there offers no `sprite.png.md`; a note whose
    name holds a dot (`Stone v2.0`) is still offered as a note."""
    body = "# Home\n\n![[sprite.png|right]]\n\nSee [[Manual.PDF]] and [[Stone v2.0]].\n"
    root = write_files(tmp_path / "vault", {"Home.md": body})
    (root / "pics").mkdir()
    (root / "pics" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await reading(pilot, "Home.md")
        for name in ("sprite.png", "Manual.PDF"):
            await pilot.press("tab", "enter")
            await settle(pilot)
            assert not isinstance(app.screen, CreateNoteScreen), name
            assert any(n.message.startswith(f"{name} is not in the workspace") for n in said(app))
        await pilot.press("tab", "enter")
        await settle(pilot)
        assert isinstance(app.screen, CreateNoteScreen)
        assert app.screen.path == "Stone v2.0.md"
        await pilot.press("escape")
        await settle(pilot)
        app.main.navigator.open_path("pics/logo.png")  # one that is there: said once, by path
        await settle(pilot)
        assert "pics/logo.png is an attachment, not a note (binary file)." in [
            n.message for n in said(app)
        ]
    assert sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) == [
        "Home.md",
        "pics",
    ]


async def test_a_dangling_link_outside_the_vault_is_refused_with_a_message(tmp_path: Path):
    root = write_files(tmp_path / "vault", {"Home.md": "See [[../../escaped]].\n"})
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await reading(pilot, "Home.md")
        await pilot.press("tab", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, CreateNoteScreen)
        assert app.main.reader.path == "Home.md"
        assert any("escapes the workspace" in n.message for n in said(app))


async def test_the_rendered_styles_follow_the_theme(tmp_path: Path) -> None:
    """The Markdown styles live on a hidden widget beside the panes (`MarkdownStyles`, so
    focus moves do not restyle them): a theme change still reaches the view's rows."""
    root = write_files(tmp_path / "vault", VAULT)
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = await open_rendered(pilot, "Home.md")
        before = view._style("md--h1")
        assert before.color is not None and before.underline, "the heading style, resolved"
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await settle(pilot)
        assert view._style("md--h1") != before
