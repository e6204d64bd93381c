"""Frontmatter is searchable (issue 27, item 3; SPEC §14): every property's values are a field
of their own, quoted aliases and phrases match, and Obsidian's `[prop]`, `[prop:value]`,
`file:` and `line:` operators work in the library, the CLI and the browser."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reme_core import SearchOptions, Workspace, parse_query
from reme_tui.app import RemeApp
from tests.test_tui_app import SIZE, search

VAULT = {
    ".obsidian/app.json": "{}",
    "Fm.md": (
        "---\n"
        'aliases: ["Fm alias note"]\n'
        "description: A zeppelin hangar on the moor\n"
        "status: draft\n"
        "rating: 4\n"
        "reviewers: [Quill, Marten]\n"
        "empty:\n"
        "---\n"
        "# Fm\n\nOnly body words here, nothing else.\n"
    ),
    "Body.md": "# Body\n\nThe zeppelin, the zeppelin and the zeppelin: a zeppelin note.\n",
    "Done.md": "---\nstatus: done\n---\n# Done\n\nmix the dough\nthen add flour\n",
    "Bread.md": "# Bread\n\nmix flour and water\n",
    "notes/Weekly plan.md": "# Weekly plan\n\nplanning words\n",
}


@pytest.fixture
def vault(make_tree) -> Path:
    return make_tree(VAULT)


def run(ws: Workspace, line: str) -> list[str]:
    """The notes a query line finds, as the browser asks (one hit per note)."""
    parsed = parse_query(line, typing=False)
    result = ws.search(parsed.request(SearchOptions(20, group=True)))
    return [h.path for h in result.results]


def test_a_word_only_in_a_property_finds_its_note(vault: Path) -> None:
    ws = Workspace.open(vault)
    try:
        assert run(ws, "hangar") == ["Fm.md"]  # description
        assert run(ws, "draft") == ["Fm.md"]  # a custom property
        assert run(ws, "marten") == ["Fm.md"]  # a list's value
        hit = ws.search("hangar").results[0]
        assert hit.property_score and hit.score == pytest.approx(hit.property_score)
    finally:
        ws.close()


def test_a_property_match_never_drowns_the_body(vault: Path) -> None:
    ws = Workspace.open(vault)
    try:
        assert run(ws, "zeppelin") == ["Body.md", "Fm.md"]
    finally:
        ws.close()


def test_a_quoted_alias_or_property_phrase_matches(vault: Path) -> None:
    ws = Workspace.open(vault)
    try:
        assert run(ws, '"Fm alias note"') == ["Fm.md"]
        assert run(ws, '"zeppelin hangar"') == ["Fm.md"]
        assert run(ws, '"hangar zeppelin"') == []
    finally:
        ws.close()


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("[status:draft]", ["Fm.md"]),
        ("[status]", ["Done.md", "Fm.md"]),
        ("[Status:DONE]", ["Done.md"]),
        ("-[status:draft] [status]", ["Done.md"]),
        ("[reviewers:quill]", ["Fm.md"]),
        ("[rating:4]", ["Fm.md"]),
        ("[empty:null]", ["Fm.md"]),
        ("[status:null]", []),
        ("[nothing]", []),
        ('[description:"zeppelin hangar"]', ["Fm.md"]),
        ("file:plan", ["notes/Weekly plan.md"]),
        ("file:.md -file:plan [status]", ["Done.md", "Fm.md"]),
        ("words file:weekly", ["notes/Weekly plan.md"]),
        ("line:(mix flour)", ["Bread.md"]),
        ("mix flour", ["Bread.md", "Done.md"]),
        ("mix -line:(mix flour)", ["Done.md"]),
        ("line:zeppelin [status:draft]", ["Fm.md"]),
    ],
)
def test_obsidian_operators(vault: Path, line: str, found: list[str]) -> None:
    ws = Workspace.open(vault)
    try:
        assert sorted(run(ws, line)) == found
    finally:
        ws.close()


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", "-w", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_cli_searches_properties_and_says_what_is_not_supported(vault: Path) -> None:
    done = cli(vault, "search", "[status:draft]", "--json")
    assert done.returncode == 0, done.stderr
    assert [h["path"] for h in json.loads(done.stdout)["results"]] == ["Fm.md"]
    done = cli(vault, "search", '"Fm alias note"', "--json")
    assert [h["path"] for h in json.loads(done.stdout)["results"]] == ["Fm.md"]
    done = cli(vault, "search", "line:(mix", "flour)", "--json")
    assert [h["path"] for h in json.loads(done.stdout)["results"]] == ["Bread.md"]
    helped = " ".join(cli(vault, "search", "--help").stdout.split())
    assert "[prop:value]" in helped and "line:(a b)" in helped
    assert "not supported: OR" in helped and "section:" in helped


async def test_the_browser_lists_a_property_search(vault: Path) -> None:
    app = RemeApp(vault, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "[status:draft]")
        assert [h.path for h in app.main.search_pane.hits] == ["Fm.md"]
        await pilot.press("ctrl+u", *"hangar")
        await search(pilot, "")
        assert [h.path for h in app.main.search_pane.hits] == ["Fm.md"]
