"""A search answers alike from the loaded columns and from what this process indexed itself
(issue 32: the search job's shortcuts by slot, the labels it remembers, the edge strings it
takes per column must not change a hit).

Two copies of one generated vault (names, aliases and properties that the name fields match;
4-20 links per note, anchors, dangling targets): one reopened from its snapshot, every file a
loaded column; the other with every file indexed again by this process (each in the overlay).
Every hit, score part, matched term and link neighbour must be the same.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

from reme_core import Changes, SearchOptions, SearchRequest, Workspace
from tests.conftest import write_files
from tests.helpers import parts

WORDS = "amber basalt cobalt dune ember fjord garnet harbor indigo jasper kelp lagoon".split()  # noqa: SIM905
# Words only names and properties hold: their notes are ranked by the name fields alone.
NAMES = "quasar zephyr nimbus".split()  # noqa: SIM905


def _vault(root: Path, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    paths = [f"{'ab'[i % 2]}/note{i:03d}.md" for i in range(n)]
    files: dict[str, str] = {}
    for i, path in enumerate(paths):
        links = []
        for _ in range(rng.randint(4, 20)):
            target = rng.choice(paths) if rng.random() > 0.08 else f"gone/x{rng.randint(0, 9)}.md"
            anchor = f"#{rng.choice(WORDS)}" if rng.random() < 0.25 else ""
            links.append(f"[[{target}{anchor}]]")
        head = ""
        if i % 2 == 0:
            name, alias, kind = rng.choice(NAMES), rng.choice(WORDS), rng.choice(NAMES)
            head = f"---\nname: {name} {i}\naliases: [{alias}]\nkind: {kind}\n---\n"
        body = [
            " ".join(rng.choices(WORDS, k=rng.randint(3, 12))) for _ in range(rng.randint(2, 6))
        ]
        sections = "\n\n".join(f"## {WORDS[k % len(WORDS)]}\n\n{b}" for k, b in enumerate(body))
        files[path] = f"{head}# Note {i}\n\n{sections}\n\n{' '.join(links)}\n"
    write_files(root, {**files, ".obsidian/app.json": "{}"})  # a vault, whatever it holds
    old = time.time() - 3600  # not racily clean: the reopen keeps them as loaded columns
    for rel in files:
        os.utime(root / rel, (old, old))
    return paths


def _answers(ws: Workspace) -> list[tuple]:
    out: list[tuple] = []
    queries = [
        *WORDS,
        *NAMES,
        "quasar amber",
        "zephyr nimbus",
        "amber dune",
        "cobalt ember fjord",
        "kelp*",
        "note",
        "garnet lagoon",
    ]
    for query in queries:
        for cap in (3, 10):
            result = ws.search(
                SearchRequest(query, options=SearchOptions(8, max_links_per_direction=cap))
            )
            hits = [
                (
                    h.path,
                    h.start_line,
                    h.end_line,
                    round(h.score, 9),
                    h.name_score and round(h.name_score, 9),
                    h.property_score and round(h.property_score, 9),
                    h.matched_terms,
                )
                for h in result.results
            ]
            links = {
                path: {
                    d: [
                        (n.path, n.name, n.description, n.anchors, n.dangling, n.indexed)
                        for n in ns
                    ]
                    for d, ns in e.items()
                }
                for path, e in result.link_expansion.items()
            }
            out.append((query, cap, hits, links, result.counts))
    return out


def test_loaded_columns_and_own_index_give_the_same_hits(tmp_path: Path) -> None:
    loaded_root = tmp_path / "loaded"
    paths = _vault(loaded_root, 160, seed=11)
    Workspace.open(loaded_root).close()
    loaded = Workspace.open(loaded_root)
    own_root = tmp_path / "own"
    write_files(own_root, {".obsidian/app.json": "{}"})
    own = Workspace.open(own_root)  # empty: every file comes in as a batch of this process
    try:
        assert not parts(loaded).index.nodes._built  # every file a loaded column
        for path in paths:
            (own_root / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(loaded_root / path, own_root / path)
        own.apply(Changes(added=paths))
        assert len(parts(own).index.nodes._built) == len(paths)
        first = _answers(loaded)
        assert any(hits for _, _, hits, _, _ in first)
        assert any(h[4] for _, _, hits, _, _ in first for h in hits)  # names matched
        assert first == _answers(own)
        assert first == _answers(loaded)  # and again, from what the first searches kept
    finally:
        loaded.close()
        own.close()
