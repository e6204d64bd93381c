"""Every kill recoverable (issue 26): `delete`, its undo, `write` and `new` killed at every
counted call (`os.replace`, `rename`, `link`, `unlink`, `chmod`, `fsync`; the harness of
`test_move_safety`), then the workspace opened again, as the next command would.

Held at each kill point: no temp file left anywhere in the workspace, no journal left, the
note whole (old bytes or new, never half), and a deleted note always brought back by `undo`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reme_core import UndoRefused, Workspace
from reme_tui.text.opening import recovery_line
from tests.test_move_safety import Zygote

pytestmark = pytest.mark.slow  # CI runs it; `pytest -m "not slow"` skips it

NOTE = "digest/wiki/bm25.md"
NEW = "digest/fresh/new-note.md"
FILES = {
    NOTE: b"---\nname: BM25\ndescription: ranking\n---\n# BM25\nsaturation\n",
    "daily/2026-06-01/a.md": b"# A\nplain [[digest/wiki/bm25.md]]\n",
    "digest/earlier.md": b"# Earlier\nmoved before\n",
}
Check = Callable[[Workspace, Path], None]


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    z = Zygote()
    yield z
    z.close()


def leftovers(root: Path, state: str) -> list[str]:
    """Temp files anywhere in the workspace (ours or a write's old `.x.<hex>.tmp` names) and
    journal entries."""
    temps = [
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.name.endswith((".tmp", ".reme-tmp")) and p.relative_to(root).parts[0] != state
    ]
    journal = root / state / "journal"
    return temps + ([p.name for p in journal.iterdir()] if journal.is_dir() else [])


def base(tmp_path: Path) -> Path:
    root = tmp_path / "base"
    for rel, data in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    ws = Workspace.open(root)
    ws.move("digest/earlier.md", "digest/moved.md")  # an older operation an undo could revert
    ws.close()
    return root


def kill_walk(zygote: Zygote, tmp_path: Path, start: Path, check: Check, **req: str) -> int:
    """Kill the operation at every counted call in turn, open, check; returns the kills."""
    for n in range(1, 200):
        root = tmp_path / f"k{n}"
        shutil.copytree(start, root)
        ended = zygote.run(root=str(root), kill_at=n, out=str(root) + ".out", **req)
        if ended["signal"] == 0:
            assert ended["code"] == 0, Path(str(root) + ".out").read_text()
            return n - 1
        assert ended["signal"] == 9
        ws = Workspace.open(root)
        try:
            assert not leftovers(root, ws.state_dir.name), (n, leftovers(root, ws.state_dir.name))
            check(ws, root)
        finally:
            ws.close()
        shutil.rmtree(root)
    raise AssertionError("the operation never ran to its end")


def deleted_note_comes_back(ws: Workspace, root: Path) -> None:
    """The note is in place, or in the trash and `undo` puts it back, byte for byte."""
    said = list(map(recovery_line, ws.recovery))
    done = f"delete {NOTE} was interrupted; finished it now (`undo` brings it back)"
    undone = f"delete {NOTE} was interrupted; rolled back, every file is as it was"
    assert not said or said == [undone if (root / NOTE).exists() else done], said
    if not (root / NOTE).exists():
        report = ws.undo()
        assert (report.op, report.path) == ("delete", NOTE)
    assert (root / NOTE).read_bytes() == FILES[NOTE]
    assert ws.node(NOTE) is not None


def test_a_delete_killed_anywhere_is_undoable(zygote: Zygote, tmp_path: Path) -> None:
    kills = kill_walk(
        zygote, tmp_path, base(tmp_path), deleted_note_comes_back, op="delete", src=NOTE
    )
    assert kills >= 5


def test_an_undo_of_a_delete_killed_anywhere_loses_nothing(zygote: Zygote, tmp_path: Path) -> None:
    start = base(tmp_path)
    ws = Workspace.open(start)
    ws.delete(NOTE)
    ws.close()

    def check(ws: Workspace, root: Path) -> None:
        """The delete is undone (now, or it was before the kill), then the older move: the
        history walks back one step at a time, never a step twice."""
        first = ws.undo()
        second = ws.undo() if first.op == "delete" else first
        assert (root / NOTE).read_bytes() == FILES[NOTE]
        assert (second.op, second.path, second.source) == (
            "move",
            "digest/earlier.md",
            "digest/moved.md",
        )
        with pytest.raises(UndoRefused, match="nothing to undo"):
            ws.undo()

    assert kill_walk(zygote, tmp_path, start, check, op="undo") >= 3


NEW_BODY = "# BM25\nrewritten whole\n"


def test_a_write_killed_anywhere_leaves_no_temp_file(zygote: Zygote, tmp_path: Path) -> None:
    def check(ws: Workspace, root: Path) -> None:
        data = (root / NOTE).read_bytes()
        assert data == FILES[NOTE] or data.endswith(NEW_BODY.encode()), data
        said = list(map(recovery_line, ws.recovery))
        assert not said or said == [
            f"write {NOTE} was interrupted; removed its temp file (the note is whole)"
        ]

    kills = kill_walk(
        zygote, tmp_path, base(tmp_path), check, op="write", src=NOTE, content=NEW_BODY
    )
    assert kills >= 3


def test_a_new_note_killed_anywhere_is_whole_or_absent(zygote: Zygote, tmp_path: Path) -> None:
    def check(ws: Workspace, root: Path) -> None:
        if (root / NEW).exists():
            assert (root / NEW).read_text().endswith(NEW_BODY)

    kills = kill_walk(zygote, tmp_path, base(tmp_path), check, op="new", dst=NEW, content=NEW_BODY)
    assert kills >= 3
