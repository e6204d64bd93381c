"""Link expansion from the graph's columns gives what the per-link objects gave.

The reference below is the expansion as it was computed before (every `FileLink` of
`outlinks` / `inlinks`, grouped by neighbour): the batch path must agree with it on loaded
edges, on files changed or removed since the load, on anchors, duplicates, dangling targets,
attachments and the cap, in a real workspace reopened from its snapshot.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

from reme_core import SearchOptions, SearchRequest, Workspace
from tests.conftest import write_files
from tests.helpers import parts


def _reference(ws: Workspace, path: str, cap: int) -> dict[str, list[tuple]]:
    graph = parts(ws).index.graph
    out: dict[str, list[tuple]] = {}
    for direction, links, key in (
        ("outlinks", graph.outlinks(path), lambda link: link.target_path),
        ("inlinks", graph.inlinks(path), lambda link: link.source_path),
    ):
        grouped: dict[str, list[str]] = {}
        for link in links:
            anchors = grouped.setdefault(key(link), [])
            if link.target_anchor and link.target_anchor not in anchors:
                anchors.append(link.target_anchor)
        rows = []
        for p, anchors in list(grouped.items())[:cap]:
            node = parts(ws).index.nodes.get(p)
            if node is not None:
                rows.append((p, node.name, node.description, anchors, False, True))
            else:
                rows.append((p, "", "", anchors, graph.is_dangling(p), False))
        out[direction] = rows
    return out


def _as_rows(expansion: dict) -> dict[str, list[tuple]]:
    return {
        d: [(n.path, n.name, n.description, n.anchors, n.dangling, n.indexed) for n in ns]
        for d, ns in expansion.items()
    }


def _vault(root: Path, n: int, seed: int) -> list[str]:
    """`n` notes, each linking to a few others (some twice, some with anchors, some to
    missing notes or an attachment), names and descriptions on some."""
    rng = random.Random(seed)
    paths = [f"notes/{'ab'[i % 2]}/n{i:03d}.md" for i in range(n)]
    files: dict[str, str | bytes] = {"assets/pic.png": b"\x89PNG"}
    for i, path in enumerate(paths):
        links = []
        for _ in range(rng.randint(0, 7)):
            target = rng.choice(paths[: max(3, n // 4)] if rng.random() < 0.5 else paths)
            if rng.random() < 0.1:
                target = f"notes/missing{rng.randint(0, 5)}.md"
            anchor = f"#Part {rng.randint(1, 3)}" if rng.random() < 0.3 else ""
            links.append(f"[[{target}{anchor}]]")
        if rng.random() < 0.1:
            links.append("![[assets/pic.png]]")
        head = f"---\nname: Note {i}\ndescription: about {i}\n---\n" if i % 3 == 0 else ""
        body = "\n".join(f"line {k} quokka{i % 7} {link}" for k, link in enumerate(links))
        files[path] = f"{head}# N{i}\n\nquokka{i % 7} words\n{body}\n"
    write_files(root, files)
    old = time.time() - 3600  # not racily clean: a reopen trusts them without reading
    for rel in files:
        os.utime(root / rel, (old, old))
    return paths


def _check_all(ws: Workspace, paths: list[str], cap: int) -> None:
    for path in paths:
        if path in parts(ws).index.nodes:
            found = ws.links(path)
            both = {"outlinks": found.outlinks, "inlinks": found.inlinks}
            assert _as_rows(both) == _reference(ws, path, 1_000_000), path
    for word in (f"quokka{i}" for i in range(7)):
        options = SearchOptions(10, max_links_per_direction=cap)
        result = ws.search(SearchRequest(word, options=options))
        assert result.results
        assert set(result.link_expansion) == {h.path for h in result.results}
        for path, expansion in result.link_expansion.items():
            assert _as_rows(expansion) == _reference(ws, path, cap), (word, path)


def test_expansion_matches_the_links_after_reopen_and_edits(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    paths = _vault(root, 120, seed=3)
    Workspace.open(root).close()
    ws = Workspace.open(root)  # from the snapshot: every edge is a loaded column
    try:
        _check_all(ws, paths, cap=3)
        # Files changed and removed since the load move to the overlay (or leave the graph).
        rng = random.Random(5)
        for path in rng.sample(paths, 15):
            (root / path).write_text(
                f"# Changed\n\nquokka1 [[{rng.choice(paths)}#Part 9]] [[{paths[0]}]]\n",
                encoding="utf-8",
            )
        gone = rng.sample(paths, 5)
        for path in gone:
            (root / path).unlink(missing_ok=True)
        write_files(root, {"notes/new.md": f"# New\n\nquokka2 [[{paths[1]}]] [[{paths[1]}#X]]\n"})
        ws.sync()
        _check_all(ws, [*paths, "notes/new.md"], cap=2)
    finally:
        ws.close()


def test_search_builds_no_node_to_expand_links(tmp_path: Path) -> None:
    """Labels come from the loaded columns: expanding links builds no `FileNode` (nor the
    `FileLink`s a node holds), which the snapshot written at close would otherwise carry."""
    root = tmp_path / "vault"
    _vault(root, 60, seed=4)
    Workspace.open(root).close()
    ws = Workspace.open(root)
    try:
        result = ws.search("quokka3", limit=10)
        assert any(e["outlinks"] or e["inlinks"] for e in result.link_expansion.values())
        assert any(n.name for e in result.link_expansion.values() for n in e["inlinks"])
        assert parts(ws).index.nodes._built == {}  # private, but what the test is about
    finally:
        ws.close()


async def test_a_watcher_batch_renames_a_neighbour_in_the_next_expansion(tmp_path: Path) -> None:
    """Neighbours' labels are remembered between searches; a note the watcher re-indexes
    (its `name` changed on disk) is labelled anew, and a deleted one is no longer indexed."""
    from tests.test_watcher import Watching

    root = tmp_path / "vault"
    write_files(
        root,
        {
            "a.md": "# A\n\nquokka [[b.md]] [[c.md]]\n",
            "b.md": "---\nname: Old name\n---\n# B\n\nbody\n",
            "c.md": "---\nname: Cee\n---\n# C\n\nbody\n",
        },
    )
    old = time.time() - 3600  # not racily clean: the reopen keeps them as loaded columns
    for rel in ("a.md", "b.md", "c.md"):
        os.utime(root / rel, (old, old))
    Workspace.open(root).close()
    # From the snapshot (b and c are loaded columns), and no compaction after the batch:
    # it would load a fresh index and hide a stale label.
    ws = Workspace.open(root, {"optimize_tombstone_ratio": 1.0})

    def labels() -> dict[str, tuple[str, bool]]:
        outs = ws.search("quokka", limit=5).link_expansion["a.md"]["outlinks"]
        return {n.path: (n.name, n.indexed) for n in outs}

    try:
        assert labels() == {"b.md": ("Old name", True), "c.md": ("Cee", True)}
        assert parts(ws).index.nodes._built == {}  # labelled from the columns, remembered
        async with Watching(ws) as w:
            (root / "b.md").write_text("---\nname: New name\n---\n# B\n\nbody\n", encoding="utf-8")
            (root / "c.md").unlink()
            want = {"b.md": ("New name", True), "c.md": ("", False)}
            await w.until(lambda: labels() == want, "b renamed and c gone in the expansion")
    finally:
        ws.close()
