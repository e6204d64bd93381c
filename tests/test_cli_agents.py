"""`retrieve`, `write`, `--json` on read/new/watch and JSON errors, through real subprocesses of
`reme-tui` on a copy of the demo workspace (issue 16)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reme_tui", *args],
        capture_output=True,
        text=True,
        input=stdin,
        env={**os.environ, "REME_WORKSPACE": ""},
        timeout=120,
    )


def test_retrieve_text_and_json(indexed_demo: Path) -> None:
    w = str(indexed_demo)
    text = run("retrieve", "seaside trip", "-w", w, "--limit", "3", "--budget-tokens", "300")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("========== ")
    assert "budget used: ~" in text.stdout
    data = json.loads(run("retrieve", "seaside trip", "-w", w, "--json", "--explain").stdout)
    assert data["items"][0]["source"] == "hit"
    assert {"budget_used", "dropped", "unresolved_links"} <= set(data)


def test_write_from_stdin_then_search_finds_it(indexed_demo: Path) -> None:
    w = str(indexed_demo)
    done = run(
        "write",
        "digest/wiki/ottoman-index.md",
        "-w",
        w,
        "--name",
        "Ottoman index",
        "--description",
        "a test note",
        "--meta",
        "tags=[a, b]",
        "--json",
        stdin="# Ottoman index\n\nThe xylograph trick.\n",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["created"] is True
    text = (indexed_demo / "digest/wiki/ottoman-index.md").read_text()
    assert "tags:\n- a\n- b\n" in text and text.endswith("The xylograph trick.\n")
    hits = json.loads(run("search", "xylograph", "-w", w, "--json").stdout)["results"]
    assert [h["path"] for h in hits] == ["digest/wiki/ottoman-index.md"]

    again = run("write", "digest/wiki/ottoman-index.md", "-w", w, "--keep-body", "--unset", "tags")
    assert again.returncode == 0, again.stderr
    assert "removed: tags" in again.stdout
    assert "tags" not in (indexed_demo / "digest/wiki/ottoman-index.md").read_text()


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (("write", "../x.md", "--body", "x", "--json"), 1, "escapes the workspace"),
        (("read", "digest/none.md", "--json"), 1, "none.md"),
        (("search", "solar", "--start-date", "2026-13-01", "--json"), 2, "YYYY-MM-DD"),
        (("retrieve", "solar", "--limit", "0", "--json"), 2, "at least 1"),
        (("write", "digest/x.md", "--body", "x", "--keep-body", "--json"), 2, "exclude"),
        (("new", "metadata/x.md", "--name", "n", "--description", "d", "--json"), 1, "metadata"),
    ],
)
def test_json_errors_are_one_object_on_stderr(
    indexed_demo: Path, args: tuple[str, ...], code: int, needle: str
) -> None:
    done = run(*args, "-w", str(indexed_demo))
    assert done.returncode == code
    assert done.stdout == ""
    error = json.loads(done.stderr.strip().splitlines()[-1])
    assert error["code"] == code and needle in error["error"]
    assert "Traceback" not in done.stderr
    assert not (indexed_demo.parent / "x.md").exists()


def test_errors_without_json_stay_text(indexed_demo: Path) -> None:
    done = run("write", "../x.md", "--body", "x", "-w", str(indexed_demo))
    assert done.returncode == 1
    assert done.stderr.strip().endswith("../x.md: escapes the workspace")
    assert not done.stderr.lstrip().startswith("{")


def test_read_and_new_json(indexed_demo: Path) -> None:
    w = str(indexed_demo)
    data = json.loads(
        run("read", "digest/wiki/bm25.md", "-w", w, "--json", "--end-line", "2").stdout
    )
    assert (data["path"], data["start_line"], data["end_line"]) == ("digest/wiki/bm25.md", 1, 2)
    assert len(data["text"].split("\n")) == 2
    made = run(
        "new", "digest/wiki/fresh.md", "--name", "F", "--description", "d", "-w", w, "--json"
    )
    assert json.loads(made.stdout) == {
        "path": "digest/wiki/fresh.md",
        "created": True,
        "indexed": True,
    }


def test_watch_json_lines(indexed_demo: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "reme_tui", "watch", "-w", str(indexed_demo), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = json.loads(proc.stdout.readline())
        assert first["event"] == "watching" and first["files"] > 0
        time.sleep(1.0)  # the OS watch is in place
        (indexed_demo / "daily/2026-06-15/watched.md").write_text("# watched\n\nfresh words\n")
        deadline = time.monotonic() + 30
        batch = None
        while time.monotonic() < deadline:
            record = json.loads(proc.stdout.readline())
            if any(c["path"] == "daily/2026-06-15/watched.md" for c in record["changes"]):
                batch = record
                break
        assert batch is not None and batch["event"] == "batch"
        assert batch["changes"][0]["kind"] == "added"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert proc.returncode == 0
