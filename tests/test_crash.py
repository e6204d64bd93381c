"""Crash safety: SIGKILL `reme-tui --reindex` and `reme-tui watch` at random moments, then check
that the index loads, catches up, and answers exactly like a fresh rebuild of the same files.

Each killed process runs the real CLI (`reme_tui.cli.program.main`) in a child forked from a warm
"zygote" interpreter, so a kill point costs milliseconds instead of an interpreter start-up.
`benchmarks/crash_stress.py` drives the same harness with many more kill points.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reme_core import Workspace
from reme_tui.text.opening import warning_line
from tests.helpers import read_text, wait_for

pytestmark = pytest.mark.slow  # CI runs it; `pytest -m "not slow"` skips it

ZYGOTE = r"""
import json, os, signal, sys
from reme_tui.cli import program as cli
from reme_core.text.tokenizer import tokenizer_for
tokenizer_for(True).tokenize("预热 warm up")
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # killed children are reaped by the kernel
for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        fd = os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os._exit(cli.main(req["argv"]))
    print(pid, flush=True)
"""

QUERIES = ["alpha", "memory search", "beta gamma delta", "记忆 检索", "edit", "section notes"]
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "memory",
    "search",
    "index",
    "section",
    "notes",
    "chunk",
    "记忆",
    "检索",
    "向量",
]
STAT_KEYS = ("files", "chunks", "live_documents", "links", "dangling_links")


class Zygote:
    """A warm interpreter that forks children running `reme_tui.cli.program.main(argv)`."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", ZYGOTE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def spawn(self, argv: list[str], out: Path) -> int:
        """Start `reme-tui ARGV` with its output in `out`; return its pid."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"argv": argv, "out": str(out)}) + "\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def close(self) -> None:
        """End the zygote (its stdin closes, its loop ends)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def alive(pid: int) -> bool:
    """Whether the child still runs (the zygote ignores SIGCHLD, so dead children vanish)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def kill(pid: int) -> bool:
    """SIGKILL the child; True when it was still running (a real kill point)."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    wait_for(lambda: not alive(pid), 10, "killed child to disappear")
    return True


class Editor:
    """Random edits in the way editors and tools make them."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root = root
        self.rng = rng
        self.n = 0

    def text(self, title: str) -> str:
        self.n += 1
        rng = self.rng
        sections = [
            f"## Section {i}\n\n" + " ".join(rng.choices(WORDS, k=rng.randint(3, 40))) + "\n"
            for i in range(rng.randint(1, 4))
        ]
        link = f"See [[daily/note-{rng.randint(0, 9)}.md]].\n" if rng.random() < 0.5 else ""
        return f"# {title}\n\nedit {self.n}\n{link}\n" + "\n".join(sections)

    def files(self) -> list[Path]:
        return sorted(p for d in ("daily", "digest") for p in (self.root / d).rglob("*.md"))

    def step(self) -> None:
        """Make one random edit."""
        rng = self.rng
        files = self.files()
        op = rng.choice(["create", "modify", "modify", "rename_save", "delete", "recreate", "tree"])
        if op == "create" or not files:
            layer = rng.choice(["daily", "digest"])
            self.write(self.root / layer / f"note-{rng.randint(0, 19)}.md")
        elif op == "modify":
            self.write(rng.choice(files))
        elif op == "rename_save":
            target = rng.choice(files)
            tmp = target.with_name(f".{target.name}.tmp")
            tmp.write_text(self.text(target.stem), encoding="utf-8")
            os.replace(tmp, target)
        elif op == "delete":
            rng.choice(files).unlink(missing_ok=True)
        elif op == "recreate":
            target = rng.choice(files)
            target.unlink(missing_ok=True)
            self.write(target)
        else:
            folder = self.root / "digest" / f"topic-{rng.randint(0, 2)}"
            if folder.exists() and rng.random() < 0.5:
                shutil.rmtree(folder)
            else:
                for i in range(rng.randint(1, 4)):
                    self.write(folder / f"page-{i}.md")

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(path.stem), encoding="utf-8")


def make_workspace(root: Path, rng: random.Random, n: int = 24) -> Path:
    """A memory-mode workspace with daily/, digest/ and a resource/ file only a rebuild takes."""
    editor = Editor(root, rng)
    for i in range(n):
        editor.write(root / ("daily" if i % 2 else "digest") / f"note-{i % 10}-{i}.md")
    res = root / "resource" / "chat.jsonl"
    res.parent.mkdir(parents=True, exist_ok=True)
    res.write_text(
        "\n".join(json.dumps({"text": f"memory search 记忆 line {i}"}) for i in range(30)) + "\n",
        encoding="utf-8",
    )
    (root / "reme.yaml").write_text("workers: 1\n", encoding="utf-8")
    return root


def _normalise(results: list[dict[str, Any]]) -> list[tuple]:
    return sorted(
        (
            -round(r["score"], 9),
            r["path"],
            r["start_line"],
            r["end_line"],
            r["text"],
            tuple(sorted(r.get("matched_terms") or ())),
        )
        for r in results
    )


def snapshot(ws: Workspace) -> dict[str, Any]:
    """What must be equal between a recovered index and a fresh rebuild."""
    stats = ws.stats()
    return {
        "files": ws.files(),
        "stats": {k: getattr(stats, k) for k in STAT_KEYS},
        "results": {
            q: _normalise(ws.search(q, limit=50, expand_links=False).to_dict()["results"])
            for q in QUERIES
        },
    }


def check_texts(ws: Workspace) -> None:
    """No chunk and no hit carries text that differs from the file."""
    texts = {}
    for path in ws.files():
        for chunk in ws.chunks(path):
            assert ws.read(path, chunk.start_line, chunk.end_line).text == chunk.body, path
            texts[(path, chunk.start_line, chunk.end_line)] = chunk.text
    for q in QUERIES:
        for hit in ws.search(q, limit=50, expand_links=False).results:
            assert texts[(hit.path, hit.start_line, hit.end_line)] == hit.text


def verify(root: Path, scratch: Path) -> None:
    """Reopen the killed workspace and compare it with a fresh rebuild of a copy."""
    ws = Workspace.open(root)
    try:
        assert not [w for w in map(warning_line, ws.warnings) if "rebuilt" in w], ws.warnings
        got = snapshot(ws)
        check_texts(ws)
    finally:
        ws.close()
    fresh_root = scratch / "fresh"
    shutil.rmtree(fresh_root, ignore_errors=True)
    shutil.copytree(root, fresh_root, ignore=shutil.ignore_patterns("metadata"))
    fresh = Workspace.open(fresh_root)
    try:
        want = snapshot(fresh)
    finally:
        fresh.close()
    assert got == want


def kill_during_reindex(zygote: Zygote, root: Path, rng: random.Random, scratch: Path) -> int:
    """Edit, run `--reindex`, SIGKILL it after a random short delay; verify. Returns kills."""
    editor = Editor(root, rng)
    for _ in range(rng.randint(0, 6)):
        editor.step()
    for attempt in range(6):
        pid = zygote.spawn(["--reindex", str(root)], scratch / "reindex.out")
        time.sleep(rng.uniform(0, 0.25 / (attempt + 1)))
        if kill(pid):
            verify(root, scratch)
            return 1
    verify(root, scratch)
    return 0


def kill_during_watch(zygote: Zygote, root: Path, rng: random.Random, scratch: Path) -> int:
    """Run `watch`, stream edits, SIGKILL it at a random moment, edit on; verify."""
    out = scratch / "watch.out"
    pid = zygote.spawn(["watch", "-w", str(root), "--quiet-ms", "20"], out)
    try:
        wait_for(lambda: "watching" in read_text(out), 30, "watch to start")
        editor = Editor(root, rng)
        kill_after = rng.randint(1, 12)
        n_edits = kill_after + rng.randint(0, 3)
        killed = False
        for i in range(n_edits + 1):
            if i == kill_after:
                killed = kill(pid)
            if i < n_edits:
                editor.step()
                time.sleep(rng.uniform(0, 0.06))
    finally:
        if alive(pid):
            kill(pid)
    verify(root, scratch)
    return int(killed)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    z = Zygote()
    yield z
    z.close()


KILLS: list[int] = []


@pytest.mark.parametrize("seed", range(30))
def test_kill_during_reindex(zygote: Zygote, tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    root = make_workspace(tmp_path / "ws", rng)
    Workspace.open(root).close()
    KILLS.append(kill_during_reindex(zygote, root, rng, tmp_path))


@pytest.mark.parametrize("seed", range(26))
def test_kill_during_watch(zygote: Zygote, tmp_path: Path, seed: int) -> None:
    rng = random.Random(1000 + seed)
    root = make_workspace(tmp_path / "ws", rng)
    Workspace.open(root).close()
    KILLS.append(kill_during_watch(zygote, root, rng, tmp_path))


def test_enough_kill_points() -> None:
    """The kill points above really killed a running process (not one already finished)."""
    if len(KILLS) < 56:
        pytest.skip("run with the kill tests above")
    assert sum(KILLS) >= 50, KILLS
