"""The `reme-tui` command end to end, through real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_workspace import MEMORY


def run(
    *args: str, cwd: Path | None = None, env: dict | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


@pytest.fixture
def root(make_tree) -> Path:
    return make_tree(MEMORY)


def test_reindex_prints_a_summary(root: Path) -> None:
    (root / "daily" / "blob.md").write_bytes(b"\x00\x01binary")
    out = run("--reindex", str(root))
    assert out.returncode == 0, out.stderr
    assert "files 5  chunks" in out.stdout
    assert "dangling links 1" in out.stdout
    assert "skipped 1" in out.stdout and "daily/blob.md: binary" in out.stdout
    assert "Traceback" not in out.stderr
    # The CLI leaves without tearing objects down, but closes the database first: the
    # write-ahead log (the whole copied-in index) is folded in and removed, a snapshot written.
    meta = root / "metadata"
    assert not (meta / "index.sqlite-wal").exists() and (meta / "bm25-postings.npz").exists()


def test_search_text_and_json(root: Path) -> None:
    out = run("search", "recall regression chunker", "-w", str(root), "--limit", "1")
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("========== daily/2026-06-20/retrieval-regression.md:")
    assert "[score=" in first
    out = run(
        "search", "recall regression", "--json", "--no-links", env={"REME_WORKSPACE": str(root)}
    )
    data = json.loads(out.stdout)
    assert data["counts"]["returned"] >= 1 and data["link_expansion"] == {}
    assert set(data["results"][0]) >= {
        "path",
        "start_line",
        "end_line",
        "text",
        "score",
        "keyword_score",
        "vector_score",
        "matched_terms",
    }


def test_search_from_current_folder_and_no_hits(root: Path) -> None:
    out = run("search", "xylophone", cwd=root)
    assert out.returncode == 0
    assert "No results" in out.stdout


def test_commands_apply_the_startup_diff(root: Path) -> None:
    assert run("stats", "-w", str(root)).returncode == 0
    (root / "digest" / "fresh.md").write_text("# Fresh\n\nquokka sightings\n")
    out = run("search", "quokka", "-w", str(root))
    assert "digest/fresh.md" in out.stdout


def test_read_traverse_links_chunks_stats_optimize(root: Path) -> None:
    out = run(
        "read", "digest/wiki/bm25.md", "--start-line", "2", "--end-line", "3", "-w", str(root)
    )
    assert out.stdout == "name: BM25\ndescription: Okapi BM25 ranking\n"
    out = run("traverse", "daily/2026-06-20.md", "--depth", "2", "--json", "-w", str(root))
    paths = {n["path"] for n in json.loads(out.stdout)["nodes"]}
    assert "digest/wiki/bm25.md" in paths
    out = run("links", "daily/2026-06-20/retrieval-regression.md", "-w", str(root))
    assert "digest/wiki/missing.md" in out.stdout and "(dangling)" in out.stdout
    out = run("chunks", "digest/wiki/bm25.md", "--json", "-w", str(root))
    assert json.loads(out.stdout)[0]["start_line"] >= 6
    out = run("stats", "--json", "-w", str(root))
    assert json.loads(out.stdout)["files"] == 5
    out = run("optimize", "-w", str(root))
    assert out.returncode == 0 and "tombstones:" in out.stdout


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (("read", "../etc/passwd"), 1, "escapes the workspace"),
        (("read", "/etc/passwd"), 1, "absolute paths are refused"),
        (("read", "digest/wiki/bm25.md", "--start-line", "999"), 1, "past the end"),
        (("read", "digest/wiki/bm25.md", "--start-line", "5", "--end-line", "2"), 1, "after"),
        (("traverse", "digest/none.md"), 1, "not an indexed file"),
        (("search", "x", "--start-date", "yesterday"), 2, "--start-date: expected a date"),
        (("search", "x", "--limit", "zero"), 2, "--limit: expected a whole number"),
        (("search", "x", "--limit", "0"), 2, "at least 1"),
        (("traverse", "digest/wiki/bm25.md", "--direction", "up"), 2, "invalid choice"),
        (("search",), 2, "required"),
    ],
)
def test_errors_have_exit_codes_and_no_traceback(root: Path, args, code, needle) -> None:
    out = run(*args, "-w", str(root))
    assert out.returncode == code, (out.stdout, out.stderr)
    assert needle in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_workspace_folder(tmp_path: Path) -> None:
    out = run("search", "x", "-w", str(tmp_path / "nope"))
    assert out.returncode == 1 and "not a folder" in out.stderr


_BLAS_PROBE = """
import os, sys
from reme_tui.cli.program import main
main(["stats", "-w", sys.argv[1]])
import numpy  # already loaded by the command
print(len(os.listdir("/proc/self/task")), os.environ.get("OPENBLAS_NUM_THREADS"))
"""


@pytest.mark.skipif(
    not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2, reason="Linux, 2+ cores"
)
def test_commands_start_no_blas_threads_unless_asked(root: Path) -> None:
    """A one-shot command leaves OpenBLAS to one thread (its start-up spin cost a cold search
    a sixth of its time); a user's own OPENBLAS_NUM_THREADS is kept."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}

    def probe(extra: dict[str, str]) -> tuple[int, str]:
        out = subprocess.run(
            [sys.executable, "-c", _BLAS_PROBE, str(root)],
            capture_output=True,
            text=True,
            env={**env, **extra},
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        threads, setting = out.stdout.split()[-2:]
        return int(threads), setting

    ours, setting = probe({})
    theirs, kept = probe({"OPENBLAS_NUM_THREADS": "2"})
    assert (setting, kept) == ("1", "2")
    assert ours < theirs
