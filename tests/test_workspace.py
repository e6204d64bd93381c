"""The Workspace facade on real files: indexing, search, filters, read, traverse, retrieve."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reme_core import (
    FileRefused,
    NotIndexed,
    PathRefused,
    RangeError,
    RemeError,
    SearchOptions,
    SearchOutcome,
    SearchRequest,
    Workspace,
)
from reme_tui.text.reports import search_text
from tests.helpers import parts

MEMORY = {
    "daily/2026-06-20.md": (
        "---\nname: June 20\ndescription: Day index\n---\n\n# June 20\n\n"
        "Worked on [[daily/2026-06-20/retrieval-regression.md]].\n"
    ),
    "daily/2026-06-20/retrieval-regression.md": (
        "---\nname: Retrieval regression\n"
        "description: BM25 recall dropped after the chunker change\n"
        "tags: [search, bug]\n---\n\n# Retrieval regression\n\n"
        "Recall dropped after the chunker change. See [[digest/wiki/bm25.md#L6-L7]] and\n"
        "[[digest/wiki/missing.md]] for context.\n\n## Fix\n\nRestored heading skeletons.\n"
    ),
    "daily/2026-06-02/coffee.md": (
        "---\nname: Coffee\ndescription: Pour-over notes\ntags: [personal]\n---\n\n"
        "# Coffee\n\nA light roast pour-over with 15 g of coffee. 咖啡 很 好喝。\n"
    ),
    "digest/wiki/bm25.md": (
        "---\nname: BM25\ndescription: Okapi BM25 ranking\ndate: 2026-05-01\n---\n\n# BM25\n\n"
        "BM25 scores documents by term frequency and inverse document frequency.\n"
        "k1 = 1.5 and b = 0.75 are the classic parameters.\n"
    ),
    "resource/2026-06-20/chat.jsonl": (
        '{"role": "user", "content": "the recall regression again"}\n'
    ),
}


@pytest.fixture
def ws(make_tree) -> Workspace:
    root = make_tree(MEMORY)
    workspace = Workspace.open(root)
    yield workspace
    workspace.close()


def test_first_open_builds_the_whole_rebuild_scope(ws: Workspace) -> None:
    assert ws.mode == "memory"
    assert set(ws.files()) == set(MEMORY)
    assert (ws.root / "metadata" / "index.sqlite").is_file()


def test_search_answer_format(ws: Workspace) -> None:
    result = ws.search("recall regression chunker", limit=2)
    assert result.results, result.outcome
    top = result.results[0]
    assert top.path == "daily/2026-06-20/retrieval-regression.md"
    answer = search_text(result)
    header = (
        f"========== {top.path}:{top.start_line}-{top.end_line} [score={top.score:.4f}] =========="
    )
    assert answer.splitlines()[0] == header
    assert "  outlinks (2):" in answer
    assert '    -> digest/wiki/bm25.md  name="BM25"  description="Okapi BM25 ranking"' in answer
    assert "    -> digest/wiki/missing.md  (dangling)" in answer
    assert '    <- daily/2026-06-20.md  name="June 20"  description="Day index"' in answer
    assert set(top.matched_terms) >= {"recall", "regression", "chunker"}
    assert result.counts == {
        "vector": 0,
        "keyword": result.counts["keyword"],
        "returned": 2,
        "hybrid": False,
    }


def test_chunk_text_is_the_file_range(ws: Workspace) -> None:
    for path in ws.files():
        for chunk in ws.chunks(path):
            assert ws.read(path, chunk.start_line, chunk.end_line).text == chunk.body


def test_empty_and_punctuation_queries_explain_themselves(ws: Workspace) -> None:
    for query in ("", "   ", "?!...", "—"):
        result = ws.search(query)
        assert result.results == []
        assert result.outcome is SearchOutcome.NO_WORDS
        assert "no words" in search_text(result)


def test_date_filters_use_path_then_frontmatter(ws: Workspace) -> None:
    paths = {h.path for h in ws.search("recall coffee bm25 after:2026-06-10", limit=10).results}
    assert "daily/2026-06-02/coffee.md" not in paths
    assert "daily/2026-06-20/retrieval-regression.md" in paths
    assert "digest/wiki/bm25.md" not in paths  # frontmatter date 2026-05-01
    paths = {h.path for h in ws.search("coffee before:2026-06-02").results}
    assert paths == {"daily/2026-06-02/coffee.md"}
    with pytest.raises(RemeError, match="YYYY-MM-DD"):
        ws.search("coffee after:June")


def test_path_and_tag_filters(ws: Workspace) -> None:
    hits = ws.search("bm25 recall path:digest/", limit=10).results
    assert hits and all(h.path.startswith("digest/") for h in hits)
    hits = ws.search("recall coffee tag:personal", limit=10).results
    assert [h.path for h in hits] == ["daily/2026-06-02/coffee.md"]


def test_chinese_query(ws: Workspace) -> None:
    hits = ws.search("咖啡").results
    assert hits and hits[0].path == "daily/2026-06-02/coffee.md"


def test_link_expansion_cap(make_tree) -> None:
    files = {
        f"digest/n{i}.md": f"# N{i}\n\nnote about apples [[digest/hub.md]]\n" for i in range(8)
    }
    files["digest/hub.md"] = "# Hub\n\nzeppelin " + " ".join(
        f"[[digest/n{i}.md]]" for i in range(8)
    )
    ws = Workspace.open(make_tree(files))
    result = ws.search(
        SearchRequest("zeppelin", options=SearchOptions(1, max_links_per_direction=3))
    )
    assert result.results[0].path == "digest/hub.md"
    exp = result.link_expansion["digest/hub.md"]
    assert len(exp["outlinks"]) == 3 and len(exp["inlinks"]) == 3
    assert ws.search("zeppelin", limit=1, expand_links=False).link_expansion == {}


def test_read_clamps_and_refuses(ws: Workspace, tmp_path: Path) -> None:
    path = "digest/wiki/bm25.md"
    total = ws.read(path).total_lines
    assert ws.read(path, 0, 10**6).end_line == total
    assert ws.read(path, 2, 3).text == "name: BM25\ndescription: Okapi BM25 ranking"
    with pytest.raises(RangeError):
        ws.read(path, total + 1)
    with pytest.raises(RangeError):
        ws.read(path, 5, 4)
    with pytest.raises(PathRefused):
        ws.read("/etc/passwd")
    with pytest.raises(PathRefused):
        ws.read("../outside.md")
    with pytest.raises(PathRefused):
        ws.read("digest/../../outside.md")
    outside = tmp_path / "secret.md"
    outside.write_text("secret\n")
    os.symlink(outside, ws.root / "digest" / "link.md")
    with pytest.raises(PathRefused):
        ws.read("digest/link.md")
    with pytest.raises(FileRefused):
        ws.read("digest/nope.md")


def test_read_truncates_with_notice(make_tree) -> None:
    root = make_tree(
        {
            "notes/long.md": "\n".join(f"line {i}" for i in range(1, 51)) + "\n",
            "reme.yaml": "read_max_lines: 20\n",
        }
    )
    ws = Workspace.open(root)
    result = ws.read("notes/long.md", 5)
    assert (result.start_line, result.end_line, result.truncated) == (5, 24, True)
    assert result.next_start_line == 25
    assert "start_line=25" in result.notice


def test_traverse(ws: Workspace) -> None:
    result = ws.traverse("daily/2026-06-20.md", depth=2, direction="forward")
    depths = {n.path: n.depth for n in result.nodes}
    assert depths["daily/2026-06-20.md"] == 0
    assert depths["daily/2026-06-20/retrieval-regression.md"] == 1
    assert depths["digest/wiki/bm25.md"] == 2
    assert depths["digest/wiki/missing.md"] == 2
    back = ws.traverse("digest/wiki/bm25.md", depth=1, direction="backward")
    assert {n.path for n in back.nodes} == {
        "digest/wiki/bm25.md",
        "daily/2026-06-20/retrieval-regression.md",
    }
    with pytest.raises(RemeError):
        ws.traverse("digest/wiki/bm25.md", direction="sideways")
    with pytest.raises(NotIndexed):
        ws.traverse("digest/wiki/missing.md")


def test_retrieve_budget_and_links(ws: Workspace) -> None:
    full = ws.retrieve("recall regression chunker", limit=1, budget_tokens=None, explain=True)
    kinds = [(i.source, i.path) for i in full.items]
    assert kinds[0] == ("hit", "daily/2026-06-20/retrieval-regression.md")
    assert ("link", "digest/wiki/bm25.md") in kinds
    link = next(i for i in full.items if i.source == "link")
    assert link.via == "daily/2026-06-20/retrieval-regression.md"
    assert (link.start_line, link.end_line) == (6, 7)
    assert full.unresolved_links == ["[[digest/wiki/missing.md]]"]
    tiny = ws.retrieve("recall regression chunker", limit=1, budget_tokens=1, explain=True)
    assert len(tiny.items) == 1 and tiny.items[0].source == "hit"
    assert tiny.dropped and tiny.budget_used == tiny.items[0].tokens_est
    paths = [(i.path, i.start_line) for i in full.items]
    assert len(paths) == len(set(paths))


def test_stats_and_optimize_after_updates(ws: Workspace) -> None:
    target = ws.root / "digest/wiki/bm25.md"
    before = ws.search("classic parameters").results[0].score
    target.write_text(target.read_text() + "\nA new paragraph about zebras.\n")
    report = ws.sync()
    assert [(c.path, c.kind) for c in report.changes] == [("digest/wiki/bm25.md", "modified")]
    assert ws.stats().tombstones >= 1
    assert ws.search("zebras").results[0].path == "digest/wiki/bm25.md"
    answers = [(h.path, round(h.score, 9)) for h in ws.search("classic zebras", limit=5).results]
    opt = ws.optimize()
    assert opt.tombstones_after == 0 and opt.tombstones_before >= 1
    assert opt.vocabulary_after <= opt.vocabulary_before
    again = [(h.path, round(h.score, 9)) for h in ws.search("classic zebras", limit=5).results]
    assert answers == again
    assert before > 0


def test_counts_agree_with_stats_and_follow_a_batch_and_another_process(ws: Workspace) -> None:
    def from_stats() -> tuple[int, int, int]:
        stats = ws.stats()
        return stats.files, stats.live_documents, stats.tombstones

    counts = ws.counts()
    assert (counts.files, counts.chunks, counts.tombstones) == from_stats()
    target = ws.root / "digest/wiki/bm25.md"
    target.write_text(target.read_text() + "\nA paragraph about zebras.\n")
    (ws.root / "digest/wiki/zebra.md").write_text("# Zebra\n\nStripes.\n")
    ws.sync()
    after = ws.counts()
    assert after.files == counts.files + 1 and after.tombstones >= 1
    assert (after.files, after.chunks, after.tombstones) == from_stats()
    other = Workspace.open(ws.root)  # another opener (as another process) commits a delete
    try:
        (ws.root / "digest/wiki/zebra.md").unlink()
        other.sync()
    finally:
        other.close()
    assert ws.counts().files == counts.files


def test_reopen_answers_like_the_live_index(ws: Workspace) -> None:
    (ws.root / "digest/wiki/new.md").write_text("# New\n\nzebras and recall\n")
    ws.sync()
    live = ws.search("zebras recall", limit=5).to_dict()["results"]
    ws.close()
    reopened = Workspace.open(ws.root)
    assert reopened.search("zebras recall", limit=5).to_dict()["results"] == live


def test_obsidian_vault_resolves_names_and_attachments_never_aliases(make_tree) -> None:
    root = make_tree(
        {
            "en/Solar.md": "---\naliases: [PV]\n---\n# Solar\n\n![[diagram.png]] [[Missing note]]",
            "zh/Solar.md": "# 太阳能\n\n见 [[Solar]]\n",
            "en/Index.md": "# Index\n\n[[Solar]] and [[PV|photovoltaics]], [x](../zh/Solar.md)",
            "assets/diagram.png": b"\x89PNG\r\n\x1a\n\x00",
            ".obsidian/app.json": "{}",
        }
    )
    ws = Workspace.open(root)
    assert ws.mode == "vault" and ws.link_resolution == "obsidian"
    assert ws.files() == ["en/Index.md", "en/Solar.md", "zh/Solar.md"]
    targets = [n.path for n in ws.links("en/Index.md").outlinks]
    assert targets == ["en/Solar.md", "PV", "zh/Solar.md"]  # an alias is no link target
    assert [n.path for n in ws.links("zh/Solar.md").outlinks] == ["zh/Solar.md"]
    out = {n.path: n for n in ws.links("en/Solar.md").outlinks}
    assert not out["assets/diagram.png"].dangling and not out["assets/diagram.png"].indexed
    assert out["Missing note"].dangling
    assert sorted(link.target_path for link in parts(ws).index.graph.dangling()) == [
        "Missing note",
        "PV",
    ]
