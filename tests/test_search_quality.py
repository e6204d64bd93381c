"""What people type: a note's name finds that note first, word forms meet (stemming), and a
word still being typed matches as a prefix. Real workspaces, the real index."""

from __future__ import annotations

from pathlib import Path

from reme_core import SearchOptions, SearchOutcome, Workspace
from reme_tui.text.opening import warning_line
from reme_tui.text.reports import search_text
from tests.conftest import write_files
from tests.helpers import REME_TUI, parts

# The named notes say their own subject once; other notes repeat it often (the case where
# chunk BM25 alone ranks the known item low).
VAULT = {
    "Concepts/Digital garden.md": "# Digital garden\n\nA place to grow notes in public.\n",
    "Concepts/Evergreen notes.md": (
        "---\naliases: [permanent notes]\n---\n# Evergreen\n\nNotes that last.\n"
    ),
    "Daily/2026-06-01.md": "# Monday\n\n" + "digital garden digital garden, " * 30 + "\n",
    "Daily/2026-06-02.md": "# Tuesday\n\n" + "evergreen notes and garden. " * 30 + "\n",
    "Projects/Solar.md": "# Solar\n\nCapacity tripled in 2023; regressions in yield.\n",
}


def _paths(ws: Workspace, query: str) -> list[str]:
    return [h.path for h in ws.search(query, limit=5, expand_links=False).results]


def test_typing_a_notes_name_or_alias_ranks_it_first(tmp_path: Path) -> None:
    ws = Workspace.open(write_files(tmp_path / "vault", VAULT))
    assert _paths(ws, "Digital garden")[0] == "Concepts/Digital garden.md"
    assert _paths(ws, "Evergreen notes")[0] == "Concepts/Evergreen notes.md"
    assert _paths(ws, "permanent notes")[0] == "Concepts/Evergreen notes.md"  # an alias
    top = ws.search("Digital garden", limit=1, expand_links=False).results[0]
    assert top.name_score and top.score > top.keyword_score  # the name part is shown apart
    ws.close()


def test_without_the_name_field_chunks_alone_rank_it_lower(tmp_path: Path) -> None:
    root = write_files(tmp_path / "vault", VAULT)
    ws = Workspace.open(root, {"search": {"name_weight": 0}})
    assert _paths(ws, "Digital garden")[0] == "Daily/2026-06-01.md"
    ws.close()


def test_a_query_that_matches_no_name_keeps_bm25_scores(tmp_path: Path) -> None:
    """No name matched: the scores are the chunks' BM25 as before (SPEC §5)."""
    ws = Workspace.open(write_files(tmp_path / "vault", VAULT), {"stemmer": "none"})
    hits = ws.search("yield", expand_links=False).results
    assert [h.path for h in hits] == ["Projects/Solar.md"]
    assert hits[0].name_score is None and hits[0].score == hits[0].keyword_score
    ws.close()


def test_word_forms_meet_through_stemming(tmp_path: Path) -> None:
    ws = Workspace.open(write_files(tmp_path / "vault", VAULT))
    assert _paths(ws, "tripling capacities") == ["Projects/Solar.md"]
    assert _paths(ws, "regression") == ["Projects/Solar.md"]
    hit = ws.search("tripling", expand_links=False).results[0]
    assert hit.matched_terms == ["tripling"]  # shown as written, not as the stem
    ws.close()
    plain = Workspace.open(tmp_path / "vault", {"stemmer": "none"})
    assert any(
        "index settings changed" in w for w in map(warning_line, plain.warnings)
    )  # rebuilt, and said
    assert _paths(plain, "tripling capacities") == []
    plain.close()


def test_a_prefix_matches_terms_that_start_with_it(tmp_path: Path) -> None:
    ws = Workspace.open(write_files(tmp_path / "vault", VAULT))
    assert _paths(ws, "yie") == []
    assert _paths(ws, "yie*") == ["Projects/Solar.md"]
    ws.close()


def test_with_stemming_off_scores_equal_the_index_bm25(tmp_path: Path) -> None:
    """`stemmer: none` and no name matched: the hit's score is the BM25 index's own score of
    the unstemmed terms (test_bm25 checks that against §5's formula)."""
    ws = Workspace.open(write_files(tmp_path / "vault", VAULT), {"stemmer": "none"})
    hit = ws.search("capacity yield", expand_links=False).results[0]
    ids = [parts(ws).index.vocab.id_of(t) for t in ("capacity", "yield")]
    assert None not in ids
    _, scores = parts(ws).index.bm25.search(ids, 10)
    assert abs(float(scores[0]) - hit.score) < 1e-6 and hit.name_score is None
    ws.close()


def test_the_cli_and_the_browser_speak_one_query_language(indexed_demo: Path) -> None:
    """`reme-tui search` takes unquoted words and the browser's syntax, with the same hits."""
    import json
    import os
    import subprocess

    from reme_core import parse_query

    line = 'regression -chunker path:daily/ "recall"'
    env = {k: v for k, v in os.environ.items() if k != "REME_WORKSPACE"}
    proc = subprocess.run(
        [*REME_TUI, "search", *line.split(" "), "--limit", "10", "--no-links", "--json"],
        cwd=indexed_demo,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    cli = [(h["path"], h["start_line"]) for h in json.loads(proc.stdout)["results"]]
    assert cli and all(path.startswith("daily/") for path, _ in cli)
    ws = Workspace.open(indexed_demo)
    parsed = parse_query(line + " ")  # the browser, once the line is typed out
    browser = ws.search(parsed.request(SearchOptions(10, expand_links=False)))
    assert [(h.path, h.start_line) for h in browser.results] == cli
    assert all("chunker" not in h.text.lower() for h in browser.results)
    ws.close()


def test_one_block_per_note_when_grouped(indexed_demo: Path) -> None:
    """The browser's default: a note's best chunk leads, counting its other matching chunks."""
    ws = Workspace.open(indexed_demo)
    chunks = ws.search("recall regression", limit=50, expand_links=False).results
    grouped = ws.search("recall regression", limit=50, expand_links=False, group=True).results
    paths = [h.path for h in grouped]
    assert len(paths) == len(set(paths)) < len(chunks)
    for hit in grouped:
        same = [h for h in chunks if h.path == hit.path]
        assert (hit.start_line, hit.score) == (same[0].start_line, same[0].score)
        assert hit.more == len(same) - 1
    assert any(h.more for h in grouped)
    ws.close()


def test_tags_alone_list_nested_tags_match_and_minus_tag_excludes(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "vault",
        {
            "a.md": "---\ntags: [project/solar]\n---\n# A\n\npanels\n",
            "b.md": "---\ntags: project\n---\n# B\n\npanels\n",
            "c.md": "---\ntags: [garden]\n---\n# C\n\npanels\n",
        },
    )
    ws = Workspace.open(root)
    listed = ws.search("tag:project", expand_links=False)
    assert [h.path for h in listed.results] == ["a.md", "b.md"]  # nested project/solar too
    assert listed.outcome is SearchOutcome.LISTED and listed.matched == 2
    assert search_text(ws.search("tag:nowhere")) == "No note matches the filters."
    kept = {h.path for h in ws.search("panels -tag:project").results}
    assert kept == {"c.md"}
    from reme_core import parse_query

    parsed = parse_query("panels -tag:garden")
    assert parsed.exclude_tags == ["garden"] and not parsed.is_empty()
    assert parse_query("tag:project").is_empty() is False
    ws.close()


def test_a_latin_query_never_waits_for_jieba_and_a_chinese_name_still_ranks(tmp_path: Path):
    """Chinese file names are tokenised with jieba only for a query that needs it."""
    import subprocess
    import sys

    root = write_files(
        tmp_path / "vault",
        {
            "学习笔记.md": "# 学习笔记\n\nPython notes.\n",
            "Other.md": "# Other\n\n" + "学习 笔记 " * 20 + "python\n",
        },
    )
    Workspace.open(root).close()  # built (jieba loaded for the chunks) in this process
    script = (
        "import sys\nfrom reme_core import Workspace\n"
        f"ws = Workspace.open({str(root)!r})\n"
        "ws.search('python', expand_links=False)\n"
        "print('jieba' in sys.modules)\n"
        "print(ws.search('学习笔记', expand_links=False).results[0].path)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "学习笔记.md"]
