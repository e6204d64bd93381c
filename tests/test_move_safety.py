"""Moves that never lose a byte: SIGKILL inside the replace phase, and a concurrent appender.

Each killed process is a child forked from a warm interpreter ("zygote") that opens the
workspace, wraps `os.replace`, `rename`, `link`, `unlink`, `chmod` and `fsync` so that the
n-th call sends the process SIGKILL, and runs the move (or its undo; `test_kill_recovery`
runs a delete, a write and a new note in the same harness). n walks every such call of the
operation, from the journal's creation to the index update. The next `Workspace.open` must
leave every linking file either all before or all after the move, the index in step, and no
temp file anywhere. Real files, real subprocesses, real SQLite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reme_core import UndoRefused, Workspace
from reme_tui.text.opening import recovery_line
from tests.helpers import parts

REPO = Path(__file__).resolve().parent.parent
SRC = "digest/wiki/bm25.md"
DST = "digest/ranking/okapi.md"
EARLIER = "digest/earlier.md"

ZYGOTE = r"""
import json, os, signal, sys
from reme_core import UndoRefused, Workspace
from reme_core.text.tokenizer import tokenizer_for
tokenizer_for(True).tokenize("warm up")
for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        fd = os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        ws = Workspace.open(req["root"])
        calls = [0]
        REPLACE = os.replace
        def killing(fn):
            def call(*args, **kwargs):
                calls[0] += 1
                before = req.get("kill_before")
                if calls[0] == req.get("kill_at") or (
                    before and fn is REPLACE and str(args[1]).endswith(before)
                ):
                    os.kill(os.getpid(), signal.SIGKILL)
                return fn(*args, **kwargs)
            return call
        for name in ("replace", "rename", "link", "unlink", "chmod", "fsync"):
            setattr(os, name, killing(getattr(os, name)))
        if req["op"] == "move":
            ws.move(req["src"], req["dst"])
        elif req["op"] == "delete":
            ws.delete(req["src"])
        elif req["op"] == "write":
            ws.write(req["src"], content=req["content"])
        elif req["op"] == "new":
            ws.create(req["dst"], "new", "a new note", body=req["content"])
        else:
            ws.undo()
        print(json.dumps({"calls": calls[0]}), flush=True)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0,
                      "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None}),
          flush=True)
"""


class Zygote:
    """A warm interpreter that forks one child per request and reports how it ended."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", ZYGOTE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def run(self, **req: object) -> dict[str, int | None]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    z = Zygote()
    yield z
    z.close()


FILES: dict[str, bytes] = {
    SRC: b"---\nname: BM25\ndescription: ranking\n---\n# BM25\nsee [[digest/wiki/bm25.md#L5]]\n",
    "daily/2026-06-01/a.md": b"# A\nplain [[digest/wiki/bm25.md]] and ![[digest/wiki/bm25.md]]\n",
    "daily/2026-06-02/b.md": b"# B\n[[digest/wiki/bm25.md|alias]]\n",
    "daily/2026-06-03/c.md": "\ufeff# C\r\n[[digest/wiki/bm25.md#L6]]\r\n".encode(),
    "daily/2026-06-04/d.md": b"# D\nrelated:: [[digest/wiki/bm25.md]]\n",
    "digest/wiki/rrf.md": b"# RRF\nno link here\n",
}


def tree(root: Path, state: str) -> dict[str, bytes]:
    """Every file outside the derived-state folder, dot-files (temps, the trash) included."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] != state
    }


def temp_files(root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in root.rglob("*.reme-tmp")]


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A base workspace (indexed), the tree before and after the move, and a moved copy."""
    base = tmp_path_factory.mktemp("base") / "ws"
    for rel, data in FILES.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_bytes(data)
    (base / EARLIER).write_text("# Earlier\ndeleted before the move\n")
    ws = Workspace.open(base)
    ws.delete(EARLIER)  # the operation an undo would revert, had the move left no record
    state = ws.state_dir.name
    ws.close()
    moved = tmp_path_factory.mktemp("moved") / "ws"
    shutil.copytree(base, moved)
    ws = Workspace.open(moved)
    ws.move(SRC, DST)
    ws.close()
    return {
        "base": base,
        "moved": moved,
        "state": state,
        "before": tree(base, state),
        "after": tree(moved, state),
    }


def check_recovered(root: Path, states: dict[str, object], journal_was_there: bool, op: str) -> str:
    """Open after the kill: before or after the move, exactly; the index in step; no temp
    file, no journal left. Returns whether the operation was finished or rolled back."""
    state = str(states["state"])
    ws = Workspace.open(root)
    try:
        got = tree(root, state)
        assert not temp_files(root)
        journal = ws.state_dir / "journal"
        assert not journal.exists() or not list(journal.iterdir()), list(journal.iterdir())
        messages = [recovery_line(n) for n in ws.recovery]
        if journal_was_there:
            assert len(messages) == 1, messages
        if got == states["before"]:
            live = SRC
        else:
            assert got == states["after"], "neither before nor after the move"
            live = DST
        outcome = "finished" if (live == DST) == (op == "move") else "rolled back"
        if messages:
            assert outcome in messages[0].replace("finished it now", "finished"), messages
        assert ws.node(live) is not None and ws.node(SRC if live == DST else DST) is None
        sources = {x.source_path for x in parts(ws).index.graph.inlinks(live)}
        assert sources == {live, *(p for p in FILES if p.startswith("daily/"))}
        assert not [x for x in parts(ws).index.graph.dangling() if x.target_path in (SRC, DST)]
        if op == "move":
            check_undo_after(ws, outcome)
    finally:
        ws.close()
    return outcome


def check_undo_after(ws: Workspace, outcome: str) -> None:
    """`undo` reverts the move when it finished (or refuses, the move being finished by
    recovery), else the delete before it; never the delete when the move is done."""
    if outcome == "rolled back":
        assert ws.undo().path == EARLIER
        return
    try:
        report = ws.undo()
    except UndoRefused as exc:
        assert "finished after a crash" in str(exc)
    else:
        assert (report.op, report.path, report.source) == ("move", SRC, DST)
    assert not (ws.root / EARLIER).exists()


def kill_walk(
    zygote: Zygote, tmp_path: Path, start: Path, states: dict[str, object], op: str
) -> dict[str, int]:
    """Kill the operation at every counted call in turn; returns the outcomes' counts."""
    outcomes = {"rolled back": 0, "finished": 0}
    for n in range(1, 200):
        root = tmp_path / f"k{n}"
        shutil.copytree(start, root)
        ended = zygote.run(
            root=str(root), op=op, src=SRC, dst=DST, kill_at=n, out=str(root) + ".out"
        )
        if ended["signal"] == 0:
            assert ended["code"] == 0, Path(str(root) + ".out").read_text()
            assert n > 8, "the walk must have covered the operation"
            return outcomes
        assert ended["signal"] == 9
        journal = root / str(states["state"]) / "journal"
        was_there = journal.exists() and any(p.suffix == ".json" for p in journal.iterdir())
        outcomes[check_recovered(root, states, was_there, op)] += 1
        shutil.rmtree(root)
    raise AssertionError("the operation never ran to its end")


KILLS: dict[str, dict[str, int]] = {}


@pytest.mark.slow
def test_kill_at_every_step_of_a_move_leaves_it_whole(
    zygote: Zygote, tmp_path: Path, states: dict[str, object]
) -> None:
    outcomes = kill_walk(zygote, tmp_path, states["base"], states, "move")  # type: ignore[arg-type]
    KILLS["move"] = outcomes
    assert outcomes["rolled back"] >= 1 and outcomes["finished"] >= 5, outcomes


@pytest.mark.slow
def test_kill_at_every_step_of_an_undo_leaves_it_whole(
    zygote: Zygote, tmp_path: Path, states: dict[str, object]
) -> None:
    outcomes = kill_walk(zygote, tmp_path, states["moved"], states, "undo")  # type: ignore[arg-type]
    KILLS["undo"] = outcomes
    assert outcomes["rolled back"] >= 1 and outcomes["finished"] >= 5, outcomes


@pytest.mark.slow
def test_a_file_appended_to_after_the_kill_is_planned_again(
    zygote: Zygote, tmp_path: Path, states: dict[str, object]
) -> None:
    """Killed with two linking files rewritten and two not; then someone appends a line (with
    a link to the old path) to one not yet rewritten. The next open finishes the move on the
    file as it is now: the appended line is kept and its link rewritten too."""
    root = tmp_path / "ws"
    shutil.copytree(states["base"], root)  # type: ignore[arg-type]
    out = str(root) + ".out"
    ended = zygote.run(root=str(root), op="move", src=SRC, dst=DST, kill_before="c.md", out=out)
    assert ended["signal"] == 9
    after: dict[str, bytes] = states["after"]  # type: ignore[assignment]
    assert (root / "daily/2026-06-01/a.md").read_bytes() == after["daily/2026-06-01/a.md"]
    assert (root / "daily/2026-06-03/c.md").read_bytes() == FILES["daily/2026-06-03/c.md"]
    late = b"late line [[digest/wiki/bm25.md#L2]]\n"
    with open(root / "daily/2026-06-04/d.md", "ab") as fh:
        fh.write(late)

    ws = Workspace.open(root)
    try:
        assert [w for w in map(recovery_line, ws.recovery) if "finished it now" in w], ws.recovery
        got = tree(root, ws.state_dir.name)
        want = dict(after)
        want["daily/2026-06-04/d.md"] += late.replace(SRC.encode(), DST.encode())
        assert got == want
        assert not temp_files(root)
        d_links = [x for x in parts(ws).index.graph.outlinks("daily/2026-06-04/d.md")]
        assert [(x.target_path, x.line) for x in d_links] == [(DST, 2), (DST, 3)]
    finally:
        ws.close()


APPENDER = r"""
import json, os, sys, time
targets, stop, log = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
times = []
i = 0
while not os.path.exists(stop):
    with open(targets[i % len(targets)], "a", encoding="utf-8") as fh:
        fh.write(f"appended {i}\n")
    times.append(time.time())
    i += 1
    time.sleep(0.0005)  # ~1,000 lines/s: each file changes every ~40 ms, not in every instant
with open(log, "w") as fh:
    json.dump(times, fh)
"""

N_LINKING = 1500
N_TARGETS = 40


def test_a_concurrent_appender_loses_no_line(tmp_path: Path) -> None:
    """Another process appends lines to 40 of 1,500 linking files, ~1,000 lines a second, while
    `reme-tui move` rewrites them all: every appended line is there once, in order, and every
    link is rewritten."""
    root = tmp_path / "ws"
    (root / "digest/wiki").mkdir(parents=True)
    (root / SRC).write_text("# BM25\nsaturation\n")
    linking = [f"daily/2026-06-01/n{i:04}.md" for i in range(N_LINKING)]
    (root / "daily/2026-06-01").mkdir(parents=True)
    for rel in linking:
        (root / rel).write_text(f"# {rel}\nsee [[{SRC}]] and [[{SRC}#L2|the line]]\n")
    Workspace.open(root).close()
    targets = [str(root / rel) for rel in linking[:: N_LINKING // N_TARGETS]][:N_TARGETS]

    stop, log = tmp_path / "stop", tmp_path / "times.json"
    appender = subprocess.Popen(
        [sys.executable, "-c", APPENDER, json.dumps(targets), str(stop), str(log)]
    )
    try:
        deadline = time.monotonic() + 30
        while Path(targets[-1]).stat().st_size < 200 and time.monotonic() < deadline:
            time.sleep(0.01)
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        t0 = time.time()
        done = subprocess.run(
            [sys.executable, "-m", "reme_tui", "-w", str(root), "move", SRC, DST],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        t1 = time.time()
        time.sleep(0.2)
    finally:
        stop.touch()
        appender.wait(timeout=60)
    assert done.returncode == 0, done.stderr
    times = json.loads(log.read_text())
    during = sum(1 for t in times if t0 <= t <= t1)
    assert during > 100, "the appender must have run during the move"

    lost = 0
    for k, target in enumerate(targets):
        lines = Path(target).read_text().splitlines()
        got = [int(line.split()[1]) for line in lines if line.startswith("appended ")]
        want = list(range(k, len(times), N_TARGETS))
        lost += len(set(want) - set(got))
        assert got == want, f"{target}: {len(set(want) - set(got))} appended lines lost"
    assert lost == 0
    for rel in linking:
        text = (root / rel).read_text()
        assert f"[[{SRC}" not in text and text.count(f"[[{DST}") == 2, rel
    assert not temp_files(root)
