"""Search options mean what they say (issue 27): `--path`, `--tag` and the dates through the
CLI, the library and MCP; filters without words list their notes (by name or last modified);
in a vault a date filter keeps only dated notes, a memory workspace keeps ReMe's rule."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reme_core import SearchOptions, SearchOutcome, Workspace, date_ordinal, parse_query
from reme_core.dates import NO_DATE, file_date
from tests.conftest import write_files

VAULT = {
    ".obsidian/app.json": "{}",
    "en/Plugins/Canvas.md": "---\ntags: [plugin]\n---\n# Canvas\n\ncanvas in english\n",
    "en/Plugins/Backlinks.md": "# Backlinks\n\nbacklinks pane\n",
    "en/Intro.md": "# Intro\n\nwelcome, see the canvas\n",
    "de/Plugins/Canvas.md": "---\ntags: [plugin]\n---\n# Canvas\n\ncanvas auf deutsch\n",
    "Journal/2021-03-04 Retro.md": "# Retro\n\ncanvas retro\n",
    "Journal/2023/05/2023-05-06/walk.md": "# Walk\n\ncanvas walk\n",
    "Meetings/kickoff.md": "---\ncreated: 2022-07-08T10:00\n---\n# Kickoff\n\ncanvas kickoff\n",
    "Undated.md": "# Undated\n\ncanvas without a date\n",
}


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", *args, "-w", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "REME_WORKSPACE": ""},
    )


def cli_paths(root: Path, *args: str) -> list[str]:
    out = cli(root, "search", *args, "--json", "--limit", "50")
    assert out.returncode == 0, out.stderr
    return [hit["path"] for hit in json.loads(out.stdout)["results"]]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_files(tmp_path / "v", VAULT)
    for i, rel in enumerate(sorted(p for p in VAULT if p.endswith(".md"))):
        os.utime(root / rel, (1_600_000_000 + i * 100, 1_600_000_000 + i * 100))
    # Touched last (and in the past: not "racily clean"), Backlinks is the newest note.
    os.utime(root / "en/Plugins/Backlinks.md", (1_700_000_000, 1_700_000_000))
    return root


@pytest.fixture
def ws(vault: Path) -> Workspace:
    workspace = Workspace.open(vault)
    yield workspace
    workspace.close()


def paths(
    ws: Workspace, query: str, sort: str | None = None, strict_dates: bool | None = None
) -> list[str]:
    parsed = parse_query(query, typing=False)
    found = ws.search(parsed.request(SearchOptions(50, order=sort), strict_dates=strict_dates))
    return [h.path for h in found.results]


def test_cli_path_option_keeps_to_the_folder(vault: Path) -> None:
    assert set(cli_paths(vault, "canvas")) >= {"en/Plugins/Canvas.md", "de/Plugins/Canvas.md"}
    got = cli_paths(vault, "canvas", "--path", "en/")
    assert got and all(p.startswith("en/") for p in got), got
    got = cli_paths(vault, "canvas", "--path", "en/", "--path", "de/")
    assert {p.split("/")[0] for p in got} == {"en", "de"}
    assert cli_paths(vault, "canvas", "--tag", "plugin", "--path", "de/") == [
        "de/Plugins/Canvas.md"
    ]
    got = cli_paths(vault, "canvas", "--start-date", "2022-01-01", "--end-date", "2022-12-31")
    assert got == ["Meetings/kickoff.md"]


def test_path_alone_lists_the_folder_by_name_or_mtime(ws: Workspace, vault: Path) -> None:
    assert paths(ws, "path:en/Plugins/") == ["en/Plugins/Backlinks.md", "en/Plugins/Canvas.md"]
    assert paths(ws, "path:en/") == [
        "en/Intro.md",
        "en/Plugins/Backlinks.md",
        "en/Plugins/Canvas.md",
    ]
    assert paths(ws, "path:en/ sort:mtime")[0] == "en/Plugins/Backlinks.md"
    by_mtime = paths(ws, "path:en/", sort="mtime")
    assert by_mtime == ["en/Plugins/Backlinks.md", "en/Plugins/Canvas.md", "en/Intro.md"]
    assert paths(ws, "path:en/ tag:plugin") == ["en/Plugins/Canvas.md"]
    assert paths(ws, "path:Journal/ after:2022-01-01") == ["Journal/2023/05/2023-05-06/walk.md"]
    found = ws.search("path:nowhere/")
    assert not found.results and found.outcome is SearchOutcome.NONE_LISTED
    assert not parse_query("path:en/").is_empty() and parse_query("-path:en/").is_empty()
    assert cli_paths(vault, "path:en/Plugins/") == [
        "en/Plugins/Backlinks.md",
        "en/Plugins/Canvas.md",
    ]
    assert cli_paths(vault, "--path", "en/", "--sort", "mtime")[0] == "en/Plugins/Backlinks.md"
    bad = cli(vault, "search", "path:en/", "sort:size")
    assert bad.returncode == 1 and "sort: expected one of name, mtime" in bad.stderr


def test_a_notes_date_comes_from_its_name_path_or_properties() -> None:
    day = date_ordinal
    assert file_date("Journal/2021-03-04 Retro.md", {}) == day("2021-03-04")
    assert file_date("daily/2026-06-20/x.md", {"date": "2020-01-01"}) == day("2026-06-20")
    assert file_date("2021-05-01/notes.md", {}) == day("2021-05-01")
    assert file_date("Meetings/kickoff.md", {"created": "2022-07-08T10:00"}) == day("2022-07-08")
    assert file_date("a.md", {"date": "2020-02-02", "created": "2019-01-01"}) == day("2020-02-02")
    assert file_date("v12021-03-041/x.md", {}) == NO_DATE, "digits around it: not a date"
    assert file_date("2021-02-30 odd.md", {}) == NO_DATE


def test_vault_date_filters_keep_only_dated_notes(ws: Workspace, vault: Path) -> None:
    assert paths(ws, "canvas after:2030-01-01") == []
    got = paths(ws, "canvas after:2021-01-01")
    assert set(got) == {
        "Journal/2021-03-04 Retro.md",
        "Journal/2023/05/2023-05-06/walk.md",
        "Meetings/kickoff.md",
    }
    assert paths(ws, "canvas before:2021-12-31") == ["Journal/2021-03-04 Retro.md"]
    # In a vault strictness is not optional.
    assert paths(ws, "canvas after:2030-01-01", strict_dates=False) == []
    assert cli_paths(vault, "canvas", "--start-date", "2030-01-01") == []


MEMORY = {
    "daily/2026-06-20.md": "# June 20\n\nsolar panels\n",
    "daily/2026-06-01/walk.md": "# Walk\n\nsolar walk\n",
    "digest/wiki/solar.md": "# Solar\n\nsolar supply chain\n",
}


def test_memory_mode_keeps_remes_rule_unless_strict(tmp_path: Path) -> None:
    root = write_files(tmp_path / "m", MEMORY)
    ws = Workspace.open(root)
    try:
        assert ws.mode == "memory"
        loose = {h.path for h in ws.search("solar after:2026-06-10", 10).results}
        assert loose == {"daily/2026-06-20.md", "digest/wiki/solar.md"}, "undated notes pass"
        asked = parse_query("solar after:2026-06-10", typing=False)
        strict = ws.search(asked.request(SearchOptions(10), strict_dates=True))
        assert [h.path for h in strict.results] == ["daily/2026-06-20.md"]
    finally:
        ws.close()
    out = cli(root, "search", "solar", "--start-date", "2026-06-10", "--strict-dates", "--json")
    assert [h["path"] for h in json.loads(out.stdout)["results"]] == ["daily/2026-06-20.md"]
    (root / "reme.yaml").write_text("search:\n  strict_date_filter: true\n")
    out = cli(root, "search", "solar", "--start-date", "2026-06-10", "--json")
    assert [h["path"] for h in json.loads(out.stdout)["results"]] == ["daily/2026-06-20.md"]


async def test_mcp_search_dates_follow_the_mode(vault: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from tests.test_mcp import call, session

    async with session(vault) as client:
        found = await call(client, "search", query="canvas", limit=20, start_date="2021-01-01")
        got = {h["path"] for h in found.structured_content["results"]}
        assert "Undated.md" not in got and "Meetings/kickoff.md" in got
    root = write_files(tmp_path / "m", MEMORY)
    async with session(root) as client:
        args = {"query": "solar", "limit": 10, "start_date": "2026-06-10"}
        loose = await call(client, "search", **args)
        assert len(loose.structured_content["results"]) == 2
        strict = await call(client, "search", **args, strict_date_filter=True)
        assert [h["path"] for h in strict.structured_content["results"]] == ["daily/2026-06-20.md"]
