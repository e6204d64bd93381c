"""`reme-tui move / delete / new` as a user runs them: real subprocesses on real folders."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.helpers import tree_bytes

REPO = Path(__file__).resolve().parent.parent

FILES: dict[str, str | bytes] = {
    "digest/wiki/bm25.md": "---\nname: BM25\ndescription: ranking\n---\n# BM25\nsaturation\n",
    "daily/2026-06-05/run.md": (
        "# Run\nsee [[digest/wiki/bm25.md#L5|bm25]]\n`[[digest/wiki/bm25.md]]` stays\n"
        "related:: [[digest/wiki/bm25.md]]\n"
    ),
}


def reme(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m reme_tui -w ROOT ARGS` with no terminal on stdin."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", "-w", str(root), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture
def root(make_tree: Callable[[dict[str, str | bytes]], Path]) -> Path:
    return make_tree(FILES)


def test_move_prints_every_rewritten_link(root: Path) -> None:
    done = reme(root, "move", "digest/wiki/bm25.md", "digest/rank/bm25.md")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "move digest/wiki/bm25.md -> digest/rank/bm25.md",
        "rewrite 2 links in 1 file",
        "  daily/2026-06-05/run.md:2  [[digest/wiki/bm25.md#L5|bm25]] -> "
        "[[digest/rank/bm25.md#L5|bm25]]",
        "  daily/2026-06-05/run.md:4  [[digest/wiki/bm25.md]] -> [[digest/rank/bm25.md]]",
    ]
    assert (root / "daily/2026-06-05/run.md").read_text() == (
        "# Run\nsee [[digest/rank/bm25.md#L5|bm25]]\n`[[digest/wiki/bm25.md]]` stays\n"
        "related:: [[digest/rank/bm25.md]]\n"
    )
    links = reme(root, "links", "digest/rank/bm25.md", "--json")
    assert [n["path"] for n in json.loads(links.stdout)["inlinks"]] == ["daily/2026-06-05/run.md"]


def test_move_dry_run_and_json_change_nothing(root: Path) -> None:
    before = tree_bytes(root)
    done = reme(root, "move", "digest/wiki/bm25.md", "digest/rank/bm25.md", "--dry-run", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["dry_run"] is True
    assert report["files"] == ["daily/2026-06-05/run.md"]
    assert [e["line"] for e in report["edits"]] == [2, 4]
    assert tree_bytes(root) == before


def test_move_no_rewrite_lists_links_left_behind(root: Path) -> None:
    done = reme(root, "move", "digest/wiki/bm25.md", "digest/rank/bm25.md", "--no-rewrite")
    assert done.returncode == 0, done.stderr
    assert "rewrite 0 links in 0 files" in done.stdout
    assert "2 links not rewritten:" in done.stdout
    assert "[[digest/wiki/bm25.md]]" in (root / "daily/2026-06-05/run.md").read_text()


@pytest.mark.parametrize(
    ("dst", "message"),
    [
        ("daily/2026-06-05/run.md", "already exists"),
        ("../x.md", "escapes the workspace"),
        ("digest/a|b.md", "cannot appear in a wikilink"),
    ],
)
def test_move_refusals_exit_1_and_change_nothing(root: Path, dst: str, message: str) -> None:
    before = tree_bytes(root)
    done = reme(root, "move", "digest/wiki/bm25.md", dst)
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr
    assert tree_bytes(root) == before


def test_delete_without_a_terminal_refuses_and_hints(root: Path) -> None:
    done = reme(root, "delete", "digest/wiki/bm25.md")
    assert done.returncode == 2
    assert "--yes" in done.stderr
    assert (root / "digest/wiki/bm25.md").exists()


def test_delete_yes_prints_the_links_left_dangling(root: Path) -> None:
    done = reme(root, "delete", "digest/wiki/bm25.md", "--yes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "deleted digest/wiki/bm25.md (moved to .trash/digest/wiki/bm25.md)",
        "2 inbound links now dangling:",
        "  daily/2026-06-05/run.md:2  [[digest/wiki/bm25.md#L5|bm25]]",
        "  daily/2026-06-05/run.md:4  [[digest/wiki/bm25.md]]",
    ]
    assert not (root / "digest/wiki/bm25.md").exists()
    assert (root / ".trash/digest/wiki/bm25.md").read_text() == FILES["digest/wiki/bm25.md"]
    assert "reme-tui undo" in done.stderr


def test_undo_restores_what_delete_moved_to_the_trash(root: Path) -> None:
    before = tree_bytes(root)
    assert reme(root, "delete", "digest/wiki/bm25.md", "--yes").returncode == 0
    done = reme(root, "undo")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "restored digest/wiki/bm25.md from .trash/digest/wiki/bm25.md"
    ]
    assert tree_bytes(root) == before
    links = reme(root, "links", "digest/wiki/bm25.md", "--json")
    assert [n["path"] for n in json.loads(links.stdout)["inlinks"]] == ["daily/2026-06-05/run.md"]

    again = reme(root, "undo")
    assert again.returncode == 1 and "nothing to undo" in again.stderr
    assert "Traceback" not in again.stderr


def test_undo_reverts_a_move_and_its_links_as_json(root: Path) -> None:
    before = tree_bytes(root)
    assert reme(root, "move", "digest/wiki/bm25.md", "digest/rank/bm25.md").returncode == 0
    done = reme(root, "undo", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "op": "move",
        "path": "digest/wiki/bm25.md",
        "source": "digest/rank/bm25.md",
        "files": ["daily/2026-06-05/run.md"],
    }
    assert tree_bytes(root) == before


def test_undo_reverts_what_another_process_did(root: Path) -> None:
    """The record is the workspace's: the CLI undoes the library's move, and the library the
    CLI's delete."""
    from reme_core import Workspace

    before = tree_bytes(root)
    ws = Workspace.open(root)
    ws.move("digest/wiki/bm25.md", "digest/rank/bm25.md")
    ws.close()
    done = reme(root, "undo")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("moved digest/rank/bm25.md back to digest/wiki/bm25.md")
    assert tree_bytes(root) == before

    assert reme(root, "delete", "daily/2026-06-05/run.md", "--yes").returncode == 0
    ws = Workspace.open(root)
    try:
        assert ws.undo().path == "daily/2026-06-05/run.md"
        assert ws.node("daily/2026-06-05/run.md") is not None
    finally:
        ws.close()
    assert tree_bytes(root) == before


def test_delete_permanent_skips_the_trash_and_undo_says_so(root: Path) -> None:
    done = reme(root, "delete", "digest/wiki/bm25.md", "--yes", "--permanent", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["trash"] is None
    assert not (root / "digest/wiki/bm25.md").exists() and not (root / ".trash").exists()
    again = reme(root, "undo")
    assert again.returncode == 1
    assert "the last delete (digest/wiki/bm25.md) was permanent" in again.stderr


def test_undo_refuses_with_exit_1_when_the_path_exists_again(root: Path) -> None:
    assert reme(root, "delete", "digest/wiki/bm25.md", "--yes").returncode == 0
    (root / "digest/wiki/bm25.md").write_text("someone wrote a new one\n")
    before = tree_bytes(root)
    done = reme(root, "undo")
    assert done.returncode == 1
    assert "digest/wiki/bm25.md exists again" in done.stderr and "Traceback" not in done.stderr
    assert tree_bytes(root) == before


def _delete_on_a_terminal(root: Path, answer: bytes) -> tuple[int, str]:
    """Run `delete` with a pseudo-terminal on stdin and type `answer` at the prompt."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "reme_tui", "-w", str(root), "delete", "digest/wiki/bm25.md"],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(follower)
    os.write(leader, answer)  # the terminal holds the line until `input()` reads it
    _, err = proc.communicate(timeout=120)
    os.close(leader)
    return proc.returncode, err.decode()


def test_delete_on_a_terminal_asks_first(root: Path) -> None:
    code, err = _delete_on_a_terminal(root, b"n\n")
    assert code == 1 and "nothing deleted" in err
    assert "2 inbound links will be left dangling" in err
    assert (root / "digest/wiki/bm25.md").exists()

    code, err = _delete_on_a_terminal(root, b"y\n")
    assert code == 0, err
    assert not (root / "digest/wiki/bm25.md").exists()


def test_new_writes_frontmatter_and_is_searchable(root: Path) -> None:
    done = reme(
        root,
        "new",
        "digest/wiki/hnsw.md",
        "--name",
        "HNSW",
        "--description",
        "graph index",
        "--tag",
        "ann",
        "--tag",
        "index",
        "--body",
        "# HNSW\nnavigable zanzibar graphs",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "created digest/wiki/hnsw.md"
    text = (root / "digest/wiki/hnsw.md").read_text()
    header = text.split("---\n")[1]
    assert yaml.safe_load(header) == {
        "name": "HNSW",
        "description": "graph index",
        "tags": ["ann", "index"],
    }
    found = reme(root, "search", "zanzibar", "--json")
    assert [r["path"] for r in json.loads(found.stdout)["results"]] == ["digest/wiki/hnsw.md"]

    again = reme(root, "new", "digest/wiki/hnsw.md", "--name", "x", "--description", "y")
    assert again.returncode == 1 and "already exists" in again.stderr
