"""A cold `reme-tui search` imports only what a search needs (issue 32): the process's own
import log (`-X importtime`) names every module it loaded."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import reme_core

# Modules a search of an unchanged workspace has no use for: the embedders and vector stores
# (vector search is off), the parsers and the rebuild, the edit journal's uuid, a mistyped
# command's difflib, a rebuild's spill file.
NOT_FOR_A_SEARCH = (
    "reme_core.vectors.local_embedder",
    "reme_core.vectors.openai_embedder",
    "reme_core.vectors.exact_store",
    "reme_core.vectors.faiss_store",
    "reme_core.parse.parsing",
    "reme_core.indexing.rebuild",
    "uuid",
    "difflib",
    "tempfile",
)


def test_a_cold_cli_search_imports_only_what_it_needs(make_tree) -> None:
    root = make_tree({"daily/a.md": "# Alpha\n\nalpha note [[daily/b.md]]\n", "daily/b.md": "b\n"})
    old = time.time() - 3600  # not racily clean: the search's diff trusts mtime and size
    for name in ("a.md", "b.md"):
        os.utime(root / "daily" / name, (old, old))
    reme_core.Workspace.open(root).close()
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "reme_tui", "search", "alpha", "-w", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "daily/a.md" in out.stdout
    names = [line.rsplit("|", 1)[-1] for line in out.stderr.splitlines() if "|" in line]
    # What `site` loads (a .pth file's imports: certifi, an editable install's finder) comes
    # with the interpreter, not with the search: the log lists a module after its imports,
    # so the program's own imports are those after `site`'s line.
    start = names.index(" site") + 1 if " site" in names else 0
    loaded = {name.strip() for name in names[start:]}
    assert "reme_core.query.search" in loaded  # the log is the search's own
    assert sorted(loaded.intersection(NOT_FOR_A_SEARCH)) == []
