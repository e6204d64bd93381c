"""Folders 1,000 deep (issue 26): the walk is iterative and leaves folders past MAX_DEPTH out
with one warning; writes, creates and moves that need more folders are refused in one line.
Real trees in tmp_path, made by descriptor (os.makedirs itself recurses), and real
subprocesses for the commands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reme_core import PathRefused, Workspace
from reme_core.files.paths import MAX_DEPTH
from reme_tui.text.opening import warning_line
from tests.helpers import hits

DEPTH = 1000


def deep_tree(root: Path, depth: int = DEPTH) -> None:
    """`d/d/.../d` `depth` levels under root, a note at levels MAX_DEPTH, MAX_DEPTH+1, depth."""
    (root / "top.md").write_text("# Top\n\nshallow words\n")
    fd = os.open(root, os.O_RDONLY)
    try:
        for level in range(1, depth + 1):
            os.mkdir("d", dir_fd=fd)
            sub = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = sub
            if level in (MAX_DEPTH, MAX_DEPTH + 1, depth):
                note = os.open(f"at{level}.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
                os.write(note, f"# At{level}\n\ndeep words\n".encode())
                os.close(note)
    finally:
        os.close(fd)


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Path]:
    """A folder for a deep tree, removed level by level afterwards (shutil.rmtree, and so
    pytest's own clean-up of old temp folders, recurses and fails ~1,000 deep)."""
    root = tmp_path / "vault"
    root.mkdir()
    yield root
    while (root / "d" / "d").exists():  # lift the tree's lower part up one level at a time
        os.rename(root / "d" / "d", root / "lifted")
        shutil.rmtree(root / "d")
        os.rename(root / "lifted", root / "d")
    shutil.rmtree(root)


def deep(levels: int, name: str = "n.md") -> str:
    return "/".join(["d"] * levels + [name])


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", "-w", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_reindex_search_and_stats_over_a_1000_deep_tree(vault: Path) -> None:
    root = vault
    deep_tree(root)
    for args in (["--reindex"], ["search", "words", "--json"], ["stats"]):
        done = run(root, *args)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
        assert all(len(line) < 300 for line in done.stderr.splitlines())
        if args[0] == "search":
            found = {r["path"] for r in json.loads(done.stdout)["results"]}
            assert found == {"top.md", deep(MAX_DEPTH, f"at{MAX_DEPTH}.md")}
            assert done.stderr.count(f"more than {MAX_DEPTH} folders deep") == 1


def test_the_library_walk_leaves_the_deep_part_out(vault: Path) -> None:
    root = vault
    deep_tree(root)
    ws = Workspace.open(root)
    try:
        assert hits(ws, "words") == sorted(["top.md", deep(MAX_DEPTH, f"at{MAX_DEPTH}.md")])
        assert sum("folders deep" in w for w in map(warning_line, ws.warnings)) == 1
    finally:
        ws.close()


def test_writes_moves_and_creates_past_the_limit_are_refused(make_tree) -> None:
    root = make_tree({"a.md": "# A\n\nalpha\n"})
    ws = Workspace.open(root)
    try:
        too_deep = deep(2000)
        for attempt in (
            lambda: ws.write(too_deep, "body"),
            lambda: ws.create(too_deep, "Deep", "too deep"),
            lambda: ws.move("a.md", too_deep),
            lambda: ws.write(deep(MAX_DEPTH + 1), "body"),
        ):
            with pytest.raises(PathRefused) as refused:
                attempt()
            message = str(refused.value)
            assert f"more than {MAX_DEPTH} folders deep" in message
            assert "\n" not in message and len(message) < 200
        assert not (root / "d").exists() and (root / "a.md").is_file()
        ws.write(deep(MAX_DEPTH), "# Deepest\n\nallowed here\n")
        assert hits(ws, "allowed") == [deep(MAX_DEPTH)]
    finally:
        ws.close()


def test_an_agent_cannot_write_a_2000_level_path(make_tree) -> None:
    pytest.importorskip("mcp")
    from tests.test_mcp_bounded import RawServer, _line, _request

    root = make_tree({"a.md": "# A\n\nalpha\n"})
    server = RawServer(root)
    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
        init["clientInfo"]["version"] = "1"
        server.send(_request(0, "initialize", params=init))
        server.reply()
        server.send(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        call = {"name": "write", "arguments": {"path": deep(2000), "content": "x"}}
        server.send(_request(1, "tools/call", params=call))
        answer = server.reply()["result"]
        assert answer["isError"] and "folders deep" in answer["content"][0]["text"]
        call = {"name": "search", "arguments": {"query": "alpha"}}
        server.send(_request(2, "tools/call", params=call))
        assert server.reply()["result"]["structuredContent"]["results"][0]["path"] == "a.md"
    finally:
        server.close()
    assert not (root / "d").exists()
