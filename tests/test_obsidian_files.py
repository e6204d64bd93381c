"""Obsidian's own files shared, not shadowed (SPEC §14, issue 29): the bookmarks file keeps
every entry and field it does not know, byte for byte; Moment date formats both ways; daily
notes where `daily-notes.json` says; templates filled as the core plugin fills them; new notes
in a vault get no frontmatter of ours."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

import pytest

from reme_core import (
    BookmarksError,
    TemplateSettings,
    Workspace,
    add_bookmark,
    adjacent_daily_note,
    bookmark_entry,
    daily_note_date,
    daily_note_path,
    daily_note_settings,
    fill_template,
    format_moment,
    list_templates,
    load_bookmarks,
    open_daily_note,
    parse_moment,
    remove_bookmark,
    template_settings,
)

# What Obsidian writes (JSON.stringify(data, null, 2), no final newline), with a type and
# fields this program does not know.
OBSIDIAN = """{
  "items": [
    {
      "type": "file",
      "ctime": 1683472959555,
      "path": "Personal/To-do list.md"
    },
    {
      "type": "group",
      "ctime": 1697019635519,
      "items": [
        {
          "type": "file",
          "ctime": 1689928623798,
          "path": "Dev/HTTP & HTTPS.md",
          "subpath": "#Status codes",
          "title": "Codes"
        },
        {
          "type": "graph",
          "ctime": 1,
          "options": {
            "search": "tag:#x",
            "colorGroups": []
          }
        }
      ],
      "title": "Cheatsheet",
      "color": "red"
    },
    {
      "type": "search",
      "ctime": 1764891189524,
      "query": "neovim",
      "title": "neovim search"
    },
    {
      "type": "url",
      "ctime": 1767874757801,
      "url": "https://example.com/",
      "title": "Example 例"
    }
  ],
  "future": {
    "kept": true
  }
}"""


def test_bookmarks_list_groups_and_every_kind(tmp_path: Path) -> None:
    file = tmp_path / "bookmarks.json"
    file.write_text(OBSIDIAN, encoding="utf-8")
    marks = load_bookmarks(file).bookmarks()
    assert [(m.kind, m.title, m.group) for m in marks] == [
        ("file", "Personal/To-do list.md", ""),
        ("group", "Cheatsheet", ""),
        ("file", "Codes", "Cheatsheet"),
        ("graph", "graph", "Cheatsheet"),
        ("search", "neovim search", ""),
        ("url", "Example 例", ""),
    ]
    assert marks[2].subpath == "#Status codes" and marks[2].where == (1, 0)


def test_adding_keeps_every_unknown_entry_and_field_byte_for_byte(tmp_path: Path) -> None:
    file = tmp_path / "bookmarks.json"
    file.write_text(OBSIDIAN, encoding="utf-8")
    entry = bookmark_entry("file", path="Notes/Today.md", subpath="#Plan")
    mark, added = add_bookmark(file, entry)
    assert added and mark.path == "Notes/Today.md" and mark.where == (4,)
    text = file.read_text(encoding="utf-8")
    tail = '\n    }\n  ],\n  "future"'
    head, _, _ = OBSIDIAN.partition(tail)
    added_text = (
        ",\n    {\n"
        '      "type": "file",\n'
        f'      "ctime": {entry["ctime"]},\n'
        '      "path": "Notes/Today.md",\n'
        '      "subpath": "#Plan"\n'
        "    }"
    )
    rest = '\n  ],\n  "future": {\n    "kept": true\n  }\n}'
    assert text == head + "\n    }" + added_text + rest
    # The same place again is not a second entry.
    again = bookmark_entry("file", path="Notes/Today.md", subpath="#Plan")
    assert add_bookmark(file, again)[1] is False
    remove_bookmark(file, mark)
    assert file.read_text(encoding="utf-8") == OBSIDIAN  # back to Obsidian's exact bytes


def test_a_broken_bookmarks_file_is_never_overwritten(tmp_path: Path) -> None:
    file = tmp_path / "bookmarks.json"
    file.write_text('{"items": [', encoding="utf-8")
    with pytest.raises(BookmarksError, match="not readable JSON"):
        add_bookmark(file, bookmark_entry("search", query="x"))
    assert file.read_text(encoding="utf-8") == '{"items": ['
    assert not [p for p in tmp_path.iterdir() if p.name != "bookmarks.json"]  # no temp left


def test_a_symlinked_bookmarks_file_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.json"
    target.write_text('{"items": []}', encoding="utf-8")
    link = tmp_path / "bookmarks.json"
    link.symlink_to(target)
    with pytest.raises(BookmarksError):
        add_bookmark(link, bookmark_entry("search", query="x"))
    assert target.read_text(encoding="utf-8") == '{"items": []}'


def test_a_new_bookmarks_file_is_made_in_obsidians_format(tmp_path: Path) -> None:
    file = tmp_path / ".obsidian" / "bookmarks.json"
    entry = bookmark_entry("search", query="tag:#x", title="Open")
    add_bookmark(file, entry)
    assert json.loads(file.read_text(encoding="utf-8")) == {"items": [entry]}
    assert file.read_text(encoding="utf-8").startswith('{\n  "items": [\n    {\n      "type"')


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("YYYY-MM-DD", "2026-03-04"),
        ("YY.M.D", "26.3.4"),
        ("dddd, MMMM Do YYYY", "Wednesday, March 4th 2026"),
        ("ddd DD MMM YYYY", "Wed 04 Mar 2026"),
        ("YYYY/MM/YYYY-MM-DD", "2026/03/2026-03-04"),
        ("[Journal] YYYY-MM-DD [at] Do", "Journal 2026-03-04 at 4th"),
        ("YYYY-[W]WW-E", "2026-W10-E"),
    ],
)
def test_moment_formats_both_ways(fmt: str, text: str) -> None:
    assert format_moment(fmt, date(2026, 3, 4)) == text
    if "WW" not in fmt:
        assert parse_moment(fmt, text) == date(2026, 3, 4)


def test_moment_parsing_refuses_what_only_looks_like_a_date() -> None:
    assert parse_moment("YYYY-MM-DD", "2026-13-01") is None
    assert parse_moment("YYYY-MM-DD", "2026-02-30") is None
    assert parse_moment("dddd YYYY-MM-DD", "Monday 2026-03-04") is None  # it was a Wednesday
    assert parse_moment("YYYY-MM-DD", "notes") is None
    assert format_moment("Do", date(2026, 3, 11)) == "11th"
    assert format_moment("Do", date(2026, 3, 22)) == "22nd"
    assert format_moment("hh:mm A", datetime(2026, 3, 4, 15, 7)) == "03:07 PM"


def test_templates_are_filled_as_obsidians_core_plugin_fills_them() -> None:
    when = datetime(2026, 3, 4, 9, 5)
    settings = TemplateSettings("Templates", "DD/MM/YYYY", "HH:mm")
    text = "# {{title}}\n{{date}} {{time}} {{ DATE:YYYY [week] WW }} {{time:h A}} {{other}}\n"
    assert fill_template(text, "Plan", when, settings) == (
        "# Plan\n04/03/2026 09:05 2026 week 10 9 AM {{other}}\n"
    )


def test_template_settings_and_the_templates_of_the_folder(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(
        {
            ".obsidian/templates.json": '{"folder": "/Meta/Templates/", "dateFormat": "YYYY"}',
            "Meta/Templates/Meeting.md": "# {{title}}\n",
            "Meta/Templates/sub/Daily.md": "{{date}}\n",
            "Meta/Templates/.hidden.md": "x",
            "Meta/Templates/image.png": b"\x89PNG",
        }
    )
    settings = template_settings(root)
    assert settings == TemplateSettings("Meta/Templates", "YYYY", "HH:mm")
    assert list_templates(root, settings) == [
        "Meta/Templates/Meeting.md",
        "Meta/Templates/sub/Daily.md",
    ]
    (root / ".obsidian/templates.json").write_text("not json", encoding="utf-8")
    assert template_settings(root) == TemplateSettings()  # Obsidian's defaults
    assert list_templates(root, TemplateSettings()) == []


def test_daily_note_paths_follow_the_vault_settings(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(
        {
            ".obsidian/daily-notes.json": json.dumps(
                {"folder": "Journal/", "format": "YYYY/MMMM/YYYY-MM-DD ddd", "template": "T/Day"}
            ),
        }
    )
    settings = daily_note_settings(root, "vault")
    day = date(2026, 3, 4)
    path = daily_note_path(settings, day)
    assert path == "Journal/2026/March/2026-03-04 Wed.md"
    assert daily_note_date(settings, path) == day
    assert daily_note_date(settings, "Elsewhere/2026-03-04.md") is None
    assert daily_note_settings(root, "memory").folder == "daily"
    (root / ".obsidian/daily-notes.json").unlink()
    assert daily_note_path(daily_note_settings(root, "vault"), day) == "2026-03-04.md"


def test_today_in_a_vault_is_created_from_the_template_without_frontmatter(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree(
        {
            ".obsidian/daily-notes.json": json.dumps(
                {"folder": "Daily", "format": "YYYY-MM-DD", "template": "Templates/Day"}
            ),
            "Templates/Day.md": "# {{title}}\nmade {{date:dddd}}\n",
            "Daily/2020-01-01.md": "old\n",
            "Daily/2020-01-03.md": "old\n",
        }
    )
    ws = Workspace.open(root)
    try:
        rel, created = open_daily_note(ws, date(2026, 3, 4))
        assert (rel, created) == ("Daily/2026-03-04.md", True)
        assert (root / rel).read_text(encoding="utf-8") == "# 2026-03-04\nmade Wednesday\n"
        assert ws.node(rel) is not None  # indexed at once
        assert open_daily_note(ws, date(2026, 3, 4)) == (rel, False)  # opened, not rewritten
        settings = daily_note_settings(root, "vault")
        files = ws.files()
        assert adjacent_daily_note(files, settings, rel, -1) == "Daily/2020-01-03.md"
        assert adjacent_daily_note(files, settings, "Daily/2020-01-03.md", -1) == (
            "Daily/2020-01-01.md"
        )
        assert adjacent_daily_note(files, settings, "Daily/2020-01-01.md", -1) is None
        assert adjacent_daily_note(files, settings, "Daily/2020-01-01.md", +1) == (
            "Daily/2020-01-03.md"
        )
    finally:
        ws.close()


def test_today_in_memory_mode_is_remes_day_page(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    root = make_tree({"daily/2026-03-03/a.md": "---\nname: a\ndescription: d\n---\nx\n"})
    ws = Workspace.open(root)
    try:
        assert ws.mode == "memory"
        rel, created = open_daily_note(ws, date(2026, 3, 4))
        assert (rel, created) == ("daily/2026-03-04.md", True)
        text = (root / rel).read_text(encoding="utf-8")
        assert text.startswith("---\nname: '2026-03-04'\n") and "notes:auto" in text
    finally:
        ws.close()


def test_new_notes_get_frontmatter_by_mode(
    make_tree: Callable[[dict[str, str | bytes]], Path], tmp_path: Path
) -> None:
    vault = make_tree({".obsidian/app.json": "{}", "a.md": "x\n"})
    ws = Workspace.open(vault)
    try:
        ws.create("Plain.md", None, "", body="# Plain\n")
        assert (vault / "Plain.md").read_text(encoding="utf-8") == "# Plain\n"
        ws.create("Tagged.md", metadata={"tags": ["x"]}, body="hi")
        assert (vault / "Tagged.md").read_text(encoding="utf-8") == "---\ntags:\n- x\n---\nhi\n"
    finally:
        ws.close()
    memory = tmp_path / "memory"
    os.makedirs(memory / "digest")
    (memory / "digest/a.md").write_text("x\n", encoding="utf-8")
    ws = Workspace.open(memory)
    try:
        assert ws.mode == "memory"
        ws.create("digest/b.md", body="# B\n")
        assert (memory / "digest/b.md").read_text(encoding="utf-8") == (
            "---\nname: b\ndescription: ''\n---\n# B\n"
        )
    finally:
        ws.close()
