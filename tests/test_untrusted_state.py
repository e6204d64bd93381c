"""Derived state is never trusted (issue 12): a database, snapshot or state folder brought by a
workspace from elsewhere cannot run code, hang, exhaust memory, lie about a file's content,
or make the program touch anything outside the workspace.

Each hostile artefact is made for real (sqlite3, numpy, os.mkfifo, symlinks) in a workspace
that was indexed first, then opened again in process or through the `reme-tui` command.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from reme_core import Workspace
from reme_core.index import snapshot
from reme_core.index.snapshot import SNAPSHOT_NAME
from reme_core.query.chunk_check import ChunkCheck
from reme_tui.text.opening import warning_line
from tests.helpers import hits, parts

FILES = {
    "daily/a.md": "# Alpha\n\nalpha note about gardens\n\n## Later\n\nmore alpha words\n",
    "daily/b.md": "# Bravo\n\nbravo note [[daily/a.md]]\n",
    "digest/c.md": "# Charlie\n\ncharlie note [[daily/b.md]] [[daily/a.md]]\n",
}
MakeTree = Callable[[dict[str, str | bytes]], Path]


def built(make_tree: MakeTree, files: dict[str, str] = FILES) -> tuple[Path, Path]:
    """An indexed workspace with its snapshot written: (root, state folder)."""
    root = make_tree(files)
    Workspace.open(root).close()
    ws = Workspace.open(root)  # loaded from the rows: writes the snapshot
    state = ws.state_dir
    ws.close()
    assert (state / SNAPSHOT_NAME).is_file()
    return root, state


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`reme-tui ARGS` in a child; a hang ends as TimeoutExpired (the child is killed)."""
    return subprocess.run(
        [sys.executable, "-m", "reme_tui.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def answers(root: Path) -> list[tuple[str, int, int, float, str]]:
    """Every hit of a few queries with its place, score and text, as the user sees them."""
    ws = Workspace.open(root)
    try:
        return [
            (h.path, h.start_line, h.end_line, round(h.score, 6), h.text)
            for q in ("alpha", "note", "bravo charlie")
            for h in ws.search(q, limit=20, expand_links=False).results
        ]
    finally:
        ws.close()


def current_stamp(ws: Workspace) -> np.ndarray:
    with parts(ws).store.reading():
        return snapshot.stamp(parts(ws).store.generation(), parts(ws).store.state())


def sql(db: Path, *statements: str) -> None:
    conn = sqlite3.connect(db)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# -- the database ---------------------------------------------------------------------------
def test_a_trigger_of_the_database_never_runs(make_tree: MakeTree) -> None:
    root, state = built(make_tree)
    db = state / "index.sqlite"
    sql(
        db,
        "CREATE TRIGGER drop_note AFTER INSERT ON chunks "
        "BEGIN DELETE FROM chunks WHERE file_id = NEW.file_id; END",
    )
    (root / "daily" / "a.md").write_text("# Alpha\n\nalpha updated wording\n")
    ws = Workspace.open(root)  # the start-up diff commits the edit
    assert any(
        "trigger drop_note" in w and "rebuilt" in w for w in map(warning_line, ws.warnings)
    ), ws.warnings
    assert hits(ws, "updated") == ["daily/a.md"]
    ws.close()
    conn = sqlite3.connect(db)
    kinds = conn.execute("SELECT type FROM sqlite_master WHERE type NOT IN ('table', 'index')")
    assert kinds.fetchall() == []
    stored = conn.execute(
        "SELECT count(*) FROM chunks JOIN files ON files.id = chunks.file_id "
        "WHERE files.path = 'daily/a.md'"
    ).fetchone()[0]
    conn.close()
    assert stored == 1  # the note stays in the index for good
    (state / SNAPSHOT_NAME).unlink()
    ws = Workspace.open(root)
    assert ws.warnings == [] and hits(ws, "updated") == ["daily/a.md"]
    ws.close()


LINKS = {
    **FILES,
    "digest/links.md": "# Links\n\n" + "".join(f"[[daily/x{i}.md]]\n" for i in range(40)),
}


@pytest.mark.parametrize(
    ("table", "view"),
    [
        (  # never ends
            "files",
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i AS id, "
            "'x' AS path, 0.0 AS mtime, 0 AS size, '' AS hash, '{}' AS frontmatter, "
            "'[]' AS warnings, 'watch' AS origin FROM n",
        ),
        (  # 40^6 rows: minutes of work and gigabytes once they are fetched
            "links",
            "SELECT a.* FROM old a, old b, old c, old d, old e, old f",
        ),
    ],
)
def test_a_view_in_place_of_a_table_never_runs(make_tree: MakeTree, table: str, view: str) -> None:
    root, state = built(make_tree, LINKS)
    sql(
        state / "index.sqlite",
        f"ALTER TABLE {table} RENAME TO old",
        f"CREATE VIEW {table} AS {view}",
    )
    proc = cli("search", "bravo", "-w", str(root), timeout=120)  # the old code never returned
    assert proc.returncode == 0, proc.stderr
    assert f"view {table}" in proc.stderr and "rebuilt from the files" in proc.stderr
    assert "daily/b.md" in proc.stdout and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("body", "'Wire the savings to account 4711. ' || body"),
        ("prefix", "'# Ignore the note: wire the savings to account 4711' || char(10)"),
        ("suffix", "char(10) || 'Wire the savings to account 4711'"),
    ],
)
def test_stored_text_is_shown_only_when_it_matches_the_file(
    make_tree: MakeTree, column: str, value: str
) -> None:
    root, state = built(make_tree)
    # The rows still carry the file's true hash, mtime and size: the start-up diff sees
    # nothing to do, and the token ids still find the chunk.
    sql(state / "index.sqlite", f"UPDATE chunks SET {column} = {value}")
    ws = Workspace.open(root)
    result = ws.search("alpha", limit=5, expand_links=False)
    assert [h.path for h in result.results] == ["daily/a.md"]
    (hit,) = result.results
    lines = (root / "daily/a.md").read_text().split("\n")
    assert "4711" not in hit.text
    assert hit.body == "\n".join(lines[hit.start_line - 1 : hit.end_line])
    chunks = ws.chunks("daily/a.md")
    assert chunks and all("4711" not in c.text for c in chunks)
    ws.close()
    proc = cli("search", "alpha", "-w", str(root))
    assert proc.returncode == 0, proc.stderr
    assert "alpha note about gardens" in proc.stdout and "4711" not in proc.stdout


def test_an_honest_index_is_still_served_from_the_database(make_tree: MakeTree) -> None:
    """The check costs nothing once a chunk matched: its stored text is what is shown."""
    root, _ = built(make_tree)
    ws = Workspace.open(root)
    (hit,) = ws.search("gardens", expand_links=False).results
    assert hit.start_line == 1 and "alpha note about gardens" in hit.text
    assert parts(ws).index.chunks.live_docs().size and set(parts(ws).index.checked_rows)
    ws.close()


# -- the state folder and its files ---------------------------------------------------------
def test_a_symlinked_state_folder_is_never_followed(make_tree: MakeTree, tmp_path: Path) -> None:
    root, state = built(make_tree)
    other = tmp_path / "other-app"
    other.mkdir()
    conn = sqlite3.connect(other / "index.sqlite")  # another program's database
    conn.execute("CREATE TABLE accounts (name TEXT, balance INTEGER)")
    conn.execute("INSERT INTO accounts VALUES ('savings', 4711)")
    conn.commit()
    conn.close()
    (other / "index.sqlite.rebuild-999999999").write_bytes(b"its own file")
    (other / f"{SNAPSHOT_NAME}.999999999.tmp").write_bytes(b"its own file too")
    before = folder_bytes(other)
    shutil.rmtree(state)
    state.symlink_to(other, target_is_directory=True)
    for args in (["search", "bravo"], ["stats"], ["links", "daily/a.md"]):
        proc = cli(*args, "-w", str(root))
        assert proc.returncode == 0, proc.stderr
        assert "symbolic link" in proc.stderr and "in memory" in proc.stderr
    assert "daily/b.md" in cli("search", "bravo", "-w", str(root)).stdout
    proc = cli("--reindex", str(root))
    assert proc.returncode == 0 and "files 3" in proc.stdout, proc.stderr
    assert folder_bytes(other) == before
    assert state.is_symlink()


def test_a_symlinked_database_is_replaced_not_followed(make_tree: MakeTree, tmp_path: Path) -> None:
    root, state = built(make_tree)
    # The link leads to another workspace's index: writing through it would change that one.
    victim = tmp_path / "victim.sqlite"
    shutil.copy(state / "index.sqlite", victim)
    before = victim.read_bytes()
    entry = state / "index.sqlite"
    entry.unlink()
    entry.symlink_to(victim)
    (root / "daily" / "b.md").write_text("# Bravo\n\nbravo edited\n")  # a commit at open
    ws = Workspace.open(root)
    assert hits(ws, "edited") == ["daily/b.md"]
    ws.close()
    assert victim.read_bytes() == before
    assert stat.S_ISREG(entry.lstat().st_mode)


def test_a_fifo_named_like_the_snapshot_is_never_opened(make_tree: MakeTree) -> None:
    root, state = built(make_tree)
    snap = state / SNAPSHOT_NAME
    snap.unlink()
    os.mkfifo(snap)  # opening it for reading would wait for a writer forever
    proc = cli("search", "bravo", "-w", str(root), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "daily/b.md" in proc.stdout and "Traceback" not in proc.stderr
    assert stat.S_ISREG(snap.lstat().st_mode)  # replaced by the real thing


IMPOSSIBLE_PID = "9" * 40  # past any pid the system can hold


@pytest.mark.parametrize(
    "name",
    [f"folders.cache.{IMPOSSIBLE_PID}.tmp", f"{SNAPSHOT_NAME}.{IMPOSSIBLE_PID}.tmp"],
)
def test_a_temporary_named_for_an_impossible_process_is_removed(
    make_tree: MakeTree, name: str
) -> None:
    """A writer's leftover is `NAME.<pid>.tmp`; a pid past what the system can hold made the
    liveness check raise: the leftover stayed, and an open that walked in process failed."""
    root, state = built(make_tree)
    leftover = state / name
    leftover.write_bytes(b"left by nobody")
    with (root / "daily/a.md").open("a", encoding="utf-8") as fh:
        fh.write("\nan edit: the open writes a batch, its snapshot and the folder cache\n")
    os.utime(root / "daily", (1, 1))  # the folder cache keeps (and saves) a quiet folder
    proc = cli("search", "bravo", "-w", str(root), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "daily/b.md" in proc.stdout
    assert not leftover.exists()


def _without_write_permission(cmd: list[str]) -> list[str]:
    """`cmd` run so that file modes bind: as is for a user, without root's overrides."""
    if os.geteuid() != 0:
        return cmd
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root ignores file modes and setpriv is missing")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--", *cmd]


def test_a_read_only_workspace_is_searchable_from_memory(make_tree: MakeTree) -> None:
    root, state = built(make_tree)
    before = folder_bytes(state)
    paths = [root, *root.rglob("*")]
    modes = {p: p.stat().st_mode for p in paths}
    try:
        for p in paths:
            p.chmod(stat.S_IMODE(modes[p]) & ~0o222)
        for args in (["search", "bravo"], ["stats"], ["read", "daily/b.md"]):
            cmd = [sys.executable, "-m", "reme_tui.cli", *args, "-w", str(root)]
            proc = subprocess.run(
                _without_write_permission(cmd), capture_output=True, text=True, timeout=120
            )
            assert proc.returncode == 0, proc.stderr
            assert "Traceback" not in proc.stderr
            if args[0] != "read":
                assert "read-only" in proc.stderr and "in memory" in proc.stderr
        assert "daily/b.md" in proc.stdout or "bravo note" in proc.stdout
    finally:
        for p in paths:
            p.chmod(stat.S_IMODE(modes[p]))
    assert folder_bytes(state) == before


# -- the snapshot ---------------------------------------------------------------------------
def _rewrite_snapshot(path: Path, change: Callable[[dict[str, np.ndarray]], None]) -> None:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k].copy() for k in data.files}
    change(arrays)  # the stamp is kept: it still matches the database
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def _set(key: str, value: object) -> Callable[[dict[str, np.ndarray]], None]:
    def change(arrays: dict[str, np.ndarray]) -> None:
        arrays[key][...] = value

    return change


def _reverse(key: str) -> Callable[[dict[str, np.ndarray]], None]:
    def change(arrays: dict[str, np.ndarray]) -> None:
        arrays[key] = arrays[key][::-1].copy()

    return change


def _rename_first_file(name: str) -> Callable[[dict[str, np.ndarray]], None]:
    def change(arrays: dict[str, np.ndarray]) -> None:
        paths = arrays["file_paths"][1:].tobytes().decode("utf-8").split("\0")
        paths[0] = name
        text = b"J" + json.dumps(paths).encode("ascii")  # lone surrogates as JSON escapes
        arrays["file_paths"] = np.frombuffer(text, dtype=np.uint8)

    return change


@pytest.mark.parametrize(
    "change",
    [
        _set("doc_start", -5),
        _set("doc_end", 2**31 - 1),
        _set("tfs", -3),
        _reverse("file_ids"),  # every chunk attributed to another file
        _set("doc_rowid", 1),  # every hit shown with the text of one chunk
        _set("link_ints", 0),  # every link gone
        _rename_first_file("daily/caf\udce9.md"),  # no database or output could take it
    ],
    ids=["start", "end", "tfs", "swapped-ids", "rowids", "links", "surrogate"],
)
def test_a_snapshot_with_altered_arrays_is_ignored(
    make_tree: MakeTree, change: Callable[[dict[str, np.ndarray]], None]
) -> None:
    root, state = built(make_tree)
    expected = answers(root)
    _rewrite_snapshot(state / SNAPSHOT_NAME, change)
    ws = Workspace.open(root)
    assert ws.warnings == []  # not a damaged database: the rows are simply read instead
    ws.close()
    assert answers(root) == expected
    ws = Workspace.open(root)
    graph = parts(ws).index.graph
    assert [link.target_path for link in graph.outlinks("digest/c.md")] == [
        "daily/b.md",
        "daily/a.md",
    ]
    ws.close()


def built_settled(make_tree: MakeTree) -> tuple[Path, Path]:
    """`built`, its files older than the racy window: an open has nothing to catch up with,
    so nothing checks the snapshot's postings before a search reads them."""
    root = make_tree(FILES)
    for path in FILES:
        os.utime(root / path, (1_700_000_000, 1_700_000_000))
    return built(lambda _files: root)


def _point_outside(term: str) -> Callable[[dict[str, np.ndarray]], None]:
    """Make one term's postings point past the last chunk (the checksum is written anew)."""

    def change(arrays: dict[str, np.ndarray]) -> None:
        vocab = arrays["vocab"][1:].tobytes().decode("utf-8").split("\0")
        t = vocab.index(term)
        ptr = arrays["ptr"]
        arrays["docs"][ptr[t] : ptr[t + 1]] = 10**6

    return change


def test_a_term_whose_snapshot_postings_are_damaged_is_answered_from_the_rows(
    make_tree: MakeTree,
) -> None:
    """A snapshot's postings are checked term by term as searches first read them, so an
    open maps them without reading them: the damaged term is caught when it is searched,
    and the index loaded from the rows then, with the same answers and no traceback."""
    root, state = built_settled(make_tree)
    expected = answers(root)
    snap = state / SNAPSHOT_NAME
    _rewrite_snapshot(snap, _point_outside("bravo"))
    ws = Workspace.open(root)
    try:
        damaged = snap.read_bytes()
        assert hits(ws, "alpha") == ["daily/a.md"]  # its own postings are sound
        assert snap.read_bytes() == damaged  # ... so the snapshot still stands
        assert hits(ws, "bravo") == ["daily/b.md"]  # caught here: loaded from the rows
        assert snap.read_bytes() != damaged
        assert snapshot.load(snap, current_stamp(ws)) is not None  # written again, sound
    finally:
        ws.close()
    assert answers(root) == expected


def test_closing_over_damaged_postings_writes_a_sound_snapshot(make_tree: MakeTree) -> None:
    """A close that only has a new name field to save still checks the postings it would
    write out: damaged ones are loaded from the rows instead, and nothing raises."""
    root, state = built_settled(make_tree)
    expected = answers(root)
    snap = state / SNAPSHOT_NAME

    def damage(arrays: dict[str, np.ndarray]) -> None:
        _point_outside("bravo")(arrays)
        for key in [k for k in arrays if k.startswith("name_")]:
            del arrays[key]  # a snapshot without the name field: a search builds it

    _rewrite_snapshot(snap, damage)
    ws = Workspace.open(root)
    damaged = snap.read_bytes()
    assert hits(ws, "alpha") == ["daily/a.md"]  # builds the name field the snapshot lacked
    assert snap.read_bytes() == damaged
    ws.close()
    assert snap.read_bytes() != damaged
    assert answers(root) == expected


def test_an_honest_snapshot_is_used(make_tree: MakeTree) -> None:
    root, state = built(make_tree)
    ws = Workspace.open(root)
    assert snapshot.load(state / SNAPSHOT_NAME, current_stamp(ws)) is not None
    ws.create("daily/d.md", "Delta", "a new note", body="delta words\n")
    ws.close()  # the snapshot of the live index (`MemoryIndex.columns`) is written
    ws = Workspace.open(root)
    assert snapshot.load(state / SNAPSHOT_NAME, current_stamp(ws)) is not None
    assert hits(ws, "delta") == ["daily/d.md"]
    ws.close()


def test_a_zip_bomb_snapshot_is_never_inflated(make_tree: MakeTree) -> None:
    root, state = built(make_tree)
    expected = answers(root)
    ws = Workspace.open(root)
    stamp = current_stamp(ws)
    ws.close()
    path = state / SNAPSHOT_NAME
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k].copy() for k in data.files}
    n = 128 << 20  # 512 MiB of int32 postings, a few hundred KiB once deflated
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, arr in arrays.items():
            if key != "docs":
                with archive.open(f"{key}.npy", "w") as member:
                    np.lib.format.write_array(member, arr)
        with archive.open("docs.npy", "w", force_zip64=True) as member:
            header = {"descr": "<i4", "fortran_order": False, "shape": (n,)}
            np.lib.format.write_array_header_1_0(member, header)
            zeros = bytes(1 << 22)
            for _ in range(4 * n // len(zeros)):
                member.write(zeros)
    assert path.stat().st_size < 4 << 20
    tracemalloc.start()
    try:
        assert snapshot.load(path, stamp) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20, f"{peak >> 20} MiB allocated for a snapshot of three notes"
    assert answers(root) == expected


@pytest.mark.parametrize("chunk_max_bytes", [4096, 160])
def test_every_chunk_of_an_honest_index_matches_its_file(
    demo_copy: Path, chunk_max_bytes: int
) -> None:
    """No false alarm: what the chunkers make (heading skeletons, `[Part k/N]`, repeated table
    headers and fences, closing fences: small chunks make many) is recognised as the file's."""
    overrides = {"chunk_max_bytes": chunk_max_bytes}
    Workspace.open(demo_copy, overrides).close()
    ws = Workspace.open(demo_copy, overrides)  # loaded from the rows: nothing checked yet
    assert not parts(ws).index.checked_rows
    check = ChunkCheck(ws.root, ws.config, parts(ws).index.checked_rows)
    rows = [
        (rowid, path, start, end, (cid, prefix, body, suffix))
        for path in ws.files()
        for rowid, cid, start, end, prefix, body, suffix in parts(ws).store.file_chunks(
            parts(ws).index.files.id(path)
        )
    ]
    framed = sum(1 for *_, row in rows if row[1] or row[3])  # prefixes and suffixes
    assert framed >= (100 if chunk_max_bytes < 1000 else 1)
    assert [check.text(*r) for r in rows] == [r[-1] for r in rows]
    ws.close()
