"""A cold `reme-tui search` answers from the files as they are when it runs, though it walks
unchanged folders from the folder cache and searches once before its start-up diff is in:
real subprocesses of the installed entry point, on a workspace above the parse pool's
threshold whose folders have been quiet for an hour (so the cache holds them)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from reme_core.files.folder_cache import CACHE_NAME
from tests.helpers import HOUR_AGO, REME_TUI, quiet_folders


def _search(root: Path, query: str) -> list[str]:
    out = subprocess.run(
        [*REME_TUI, "search", query, "-w", str(root), "--no-links", "--limit", "50"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    heads = [line for line in out.stdout.splitlines() if line.startswith("========== ")]
    return sorted({line.split()[1].rsplit(":", 1)[0] for line in heads})


def test_a_cold_search_sees_every_change_since_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for i in range(320):
        note = root / ("daily" if i % 2 else "digest") / f"topic-{i % 40}" / f"note-{i}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(f"# Note {i}\n\ncommon words about memory {i}\n", encoding="utf-8")
        os.utime(note, (HOUR_AGO, HOUR_AGO))
    quiet_folders(root)
    assert len(_search(root, "memory")) == 50  # built, and its walk wrote the cache
    assert (root / "metadata" / CACHE_NAME).is_file()
    assert len(_search(root, "memory")) == 50  # walked from the cache
    # A note added to a cached folder, one edited in place (no folder changes), one removed.
    added = root / "daily/topic-1/added.md"
    added.write_text("# Added\n\nzephyrine arrives\n", encoding="utf-8")
    edited = root / "digest/topic-2/note-2.md"
    edited.write_text("# Note 2\n\nnow about quixotica instead\n", encoding="utf-8")
    gone = root / "daily/topic-3/note-3.md"
    gone.unlink()
    assert _search(root, "zephyrine") == ["daily/topic-1/added.md"]
    assert _search(root, "quixotica") == ["digest/topic-2/note-2.md"]
    assert "daily/topic-3/note-3.md" not in _search(root, "memory 3")
    # Quiet again, then each change once more: the cache now holds the changed folders.
    quiet_folders(root)
    _search(root, "memory")
    added.write_text("# Added\n\nzephyrine leaves, vellichor stays\n", encoding="utf-8")
    assert _search(root, "vellichor") == ["daily/topic-1/added.md"]
    added.unlink()
    assert _search(root, "zephyrine") == []
