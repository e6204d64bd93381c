"""The parse pool from any host, at sizes that start it, and what killing its host leaves.

Every workspace here is above the pool's threshold (`real_vault.N_NOTES`), and `workers: 2`
makes the pool start whatever the machine's core count.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reme_core import Workspace
from reme_core.parse.parse_pool import _pool_host
from reme_core.parse.pool_worker import NICENESS
from tests.helpers import REME_TUI
from tests.real_vault import N_NOTES, kill_all, tagged_pids, wait_until, write_vault

POOL = "workers: 2\n"

NO_GUARD = """\
import sys
from reme_core import Workspace

ws = Workspace.open(sys.argv[1] if len(sys.argv) > 1 else {root!r})
print("files", len(ws.files()))
print("warnings", ws.warnings)
print("hit", [h.path for h in ws.search("uniq599", expand_links=False).results])
"""


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_vault(tmp_path / "vault")
    (root / "reme.yaml").write_text(POOL)
    return root


def _env(tag: str = "") -> dict[str, str]:
    env = dict(os.environ)
    env.pop("REME_WORKSPACE", None)
    if tag:
        env["REME_TEST_TAG"] = tag
    return env


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_script_without_a_main_guard_indexes_with_the_pool(vault: Path, tmp_path: Path, how):
    """multiprocessing re-runs a main module in every worker: without a guard that indexed the
    workspace again in each (BrokenProcessPool), and a script from stdin could not run at all."""
    script = NO_GUARD.format(root=str(vault))
    if how == "file":
        path = tmp_path / "index_it.py"
        path.write_text(script)
        proc = subprocess.run(
            [sys.executable, str(path)], capture_output=True, text=True, timeout=300, env=_env()
        )
    else:
        proc = subprocess.run(
            [sys.executable, "-"], input=script, capture_output=True, text=True, timeout=300
        )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"files {N_NOTES}" in proc.stdout
    assert "warnings []" in proc.stdout  # the pool ran: no fallback warning
    assert "Area 9/Note 599.md" in proc.stdout


def test_pool_from_a_worker_thread(vault: Path) -> None:
    """A program that opens its workspace off its main thread (as the browser does)."""
    out: list[Workspace | BaseException] = []

    def open_it() -> None:
        try:
            out.append(Workspace.open(vault))
        except BaseException as exc:
            out.append(exc)

    thread = threading.Thread(target=open_it)
    thread.start()
    thread.join(300)
    ws = out[0]
    assert isinstance(ws, Workspace), ws
    assert len(ws.files()) == N_NOTES and ws.warnings == []
    ws.close()


# What a running Textual app puts in place of sys.stderr: a stream without a descriptor.
CAPTURED_STDERR = """\
class Captured:
    def write(self, text):
        return len(text)

    def flush(self):
        pass

    def fileno(self):
        return -1
"""

NO_DESCRIPTOR = (
    "import sys\nfrom reme_core import Workspace\n"
    + CAPTURED_STDERR
    + """

sys.stderr = Captured()
ws = Workspace.open(sys.argv[1])
print("files", len(ws.files()), "warnings", ws.warnings)
"""
)


def test_pool_from_a_host_whose_stderr_has_no_descriptor(vault: Path, tmp_path: Path) -> None:
    """Inside a Textual app `sys.stderr.fileno()` is -1: the pool's start used to fail with
    `bad value(s) in fds_to_keep`, so no vault of 256+ notes could open in the browser. (In a
    process of its own: the pool's helper processes start once per process.)"""
    script = tmp_path / "no_descriptor.py"
    script.write_text(NO_DESCRIPTOR)
    proc = subprocess.run(
        [sys.executable, str(script), str(vault)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0
    assert proc.stdout.split() == ["files", str(N_NOTES), "warnings", "[]"], proc.stdout


A_BATCH_WITHOUT_DESCRIPTOR = (
    "import sys\nfrom reme_core import Changes, Workspace\n"
    + CAPTURED_STDERR
    + """

root = sys.argv[1]
ws = Workspace.open(root)  # a few notes: parsed here, no pool started yet
sys.stderr = Captured()
paths = [f"n{i}.md" for i in range(40)]
for rel in paths:
    with open(f"{root}/{rel}", "a", encoding="utf-8") as fh:
        fh.write("more words\\n")
ws.apply(Changes(modified=paths), pool_from=16)
print("warnings", ws.warnings)
"""
)


def test_a_pooled_batch_in_a_host_whose_stderr_has_no_descriptor(tmp_path: Path) -> None:
    """The watcher's batch is the first pool of a browser opened on a small vault: the pool's
    queues started the resource tracker outside the host's fixes, and every such batch fell
    back to parsing in the app (`bad value(s) in fds_to_keep`)."""
    root = tmp_path / "vault"
    root.mkdir()
    for i in range(40):
        (root / f"n{i}.md").write_text(f"# N{i}\n\nwords {i}\n")
    (root / "reme.yaml").write_text(POOL)
    script = tmp_path / "batch.py"
    script.write_text(A_BATCH_WITHOUT_DESCRIPTOR)
    proc = subprocess.run(
        [sys.executable, str(script), str(root)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["warnings", "[]"], proc.stdout


class Captured:
    """What a running Textual app puts in place of sys.stderr: a stream without a descriptor."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        return -1


def test_the_pool_host_leaves_a_stderr_with_a_descriptor_alone(tmp_path: Path) -> None:
    """The browser starts its open, and so its pool, before Textual replaces sys.stderr: a
    swap there would race Textual's own (its capture undone, or the stand-in restored by
    Textual at its exit)."""
    with open(tmp_path / "err.txt", "w") as real, contextlib.redirect_stderr(real):
        with _pool_host():
            assert sys.stderr is real
        assert sys.stderr is real


def test_the_pool_host_stands_in_only_for_a_stderr_without_one_and_keeps_a_later_swap() -> None:
    captured, later = Captured(), Captured()
    with contextlib.redirect_stderr(captured):  # as inside Textual
        with _pool_host():
            assert sys.stderr.fileno() >= 0  # what the resource tracker will inherit
        assert sys.stderr is captured
        with _pool_host():
            sys.stderr = later  # Textual's exit (or its suspend) inside the window
        assert sys.stderr is later  # not put back over


KILL_WORKERS = """\
import os, sys, threading, time
from reme_core import Workspace

def workers():
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
                with open(f"/proc/{ppid}/stat") as fh:
                    grand = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                continue
            if grand == me and ppid != me:  # forked by our forkserver
                found.append(int(entry))
    return found

def killer():
    while True:
        pids = workers()
        if pids:
            for pid in pids:
                os.kill(pid, 9)
            print("killed", len(pids), flush=True)
            return
        time.sleep(0.005)

threading.Thread(target=killer, daemon=True).start()
ws = Workspace.open(sys.argv[1])
print("files", len(ws.files()))
from reme_tui.text.opening import warning_line
print("warnings", [warning_line(w) for w in ws.warnings])
"""


def test_a_pool_that_dies_falls_back_to_parsing_in_process(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "vault", n=3000)
    (root / "reme.yaml").write_text(POOL)
    script = tmp_path / "kill_workers.py"
    script.write_text(KILL_WORKERS)
    proc = subprocess.run(
        [sys.executable, str(script), str(root)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "killed" in proc.stdout
    assert "files 3000" in proc.stdout  # every file, none lost with the pool
    assert "parallel parsing stopped" in proc.stdout  # said once, as a warning
    assert proc.stdout.count("parallel parsing stopped") == 1
    assert "Traceback" not in proc.stderr


def _state(root: Path) -> Path:
    return root / ".reme-tui"


@pytest.fixture
def slow_vault(tmp_path: Path) -> Path:
    """A vault whose rebuild parses for seconds, not half of one: a kill sent when the pool
    has started lands mid-rebuild even on a loaded machine."""
    root = write_vault(tmp_path / "vault", padding=6000)
    (root / "reme.yaml").write_text(POOL)
    return root


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
def test_killing_a_rebuild_leaves_no_process_and_no_copy(slow_vault: Path, sig) -> None:
    """The workers never learnt their host was gone (~365 MB of orphans holding a pipeline's
    stdout open); a killed rebuild's copy must not outlive the next open."""
    vault = slow_vault
    tag = f"kill-{sig.name}-{os.getpid()}-{time.monotonic_ns()}"
    proc = subprocess.Popen(
        [*REME_TUI, "--reindex", str(vault)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(tag),
    )
    try:
        # host, forkserver and at least one worker: the pool is parsing
        wait_until(lambda: len(tagged_pids(tag)) >= 3, 120, "the pool to start")
        proc.send_signal(sig)
        proc.wait(30)
        wait_until(lambda: not tagged_pids(tag), 15, f"no process left after {sig.name}")
        assert proc.stdout is not None
        assert proc.stdout.read() == b""  # the pipe closed: nobody holds it open any more
    finally:
        kill_all(tagged_pids(tag))
        if proc.poll() is None:
            proc.kill()
    ws = Workspace.open(vault)
    assert len(ws.files()) == N_NOTES
    ws.close()
    assert not list(_state(vault).glob("index.sqlite.rebuild-*"))


def test_pool_workers_parse_at_a_lower_priority_than_their_host(slow_vault: Path) -> None:
    """A rebuild's parsing is background work: its workers yield the cores to a browser's keys
    or an agent's search (the host, committing what they parse, keeps its own priority)."""
    tag = f"nice-{os.getpid()}-{time.monotonic_ns()}"
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    proc = subprocess.Popen(
        [*REME_TUI, "--reindex", str(slow_vault)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_env(tag),
    )
    niced: set[int] = set()

    def look() -> bool:
        for pid in tagged_pids(tag):
            with contextlib.suppress(OSError):
                if os.getpriority(os.PRIO_PROCESS, pid) == mine + NICENESS:
                    niced.add(pid)
        return bool(niced) or proc.poll() is not None

    try:
        wait_until(look, 120, "a parse worker or the end of the rebuild")
        assert niced, "no worker of the rebuild ran at a lower priority"
        assert proc.pid not in niced  # the host keeps its priority
        assert proc.wait(120) == 0
    finally:
        kill_all(tagged_pids(tag))
        if proc.poll() is None:
            proc.kill()


OPEN_ONE = """\
import sys
from reme_core import Workspace
ws = Workspace.open(sys.argv[1])
print("built" if ws.last_reindex is not None else "loaded", len(ws.files()), flush=True)
"""


def test_processes_opening_a_new_workspace_at_once_build_it_once(vault: Path, tmp_path):
    script = tmp_path / "open_one.py"
    script.write_text(OPEN_ONE)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(vault)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    words = sorted(out.split()[0] for out, _ in outs)
    assert words == ["built", "loaded", "loaded"], outs
    assert all(out.split()[1] == str(N_NOTES) for out, _ in outs)


def _indexed_text(root: Path) -> str:
    """Every stored chunk of the index, read without opening a workspace (no start-up diff)."""
    conn = sqlite3.connect(f"{(_state(root) / 'index.sqlite').as_uri()}?mode=ro", uri=True)
    try:
        return "\n".join(text for (text,) in conn.execute("SELECT body FROM chunks"))
    except sqlite3.Error:
        return ""
    finally:
        conn.close()


def test_a_live_watcher_keeps_edits_made_while_another_process_rebuilds(tmp_path: Path):
    """The rebuild's copy replaced what the watcher committed while it ran (99 of 100 edits
    lost until a restart); a live process now re-checks the files after such a rebuild."""
    vault = write_vault(tmp_path / "vault", n=4000, padding=600)
    (vault / "reme.yaml").write_text("workers: 1\n")  # one core: a rebuild of a few seconds
    Workspace.open(vault).close()  # built once, so the watcher starts on an index
    tag = f"watch-{os.getpid()}-{time.monotonic_ns()}"
    watch = subprocess.Popen(
        [*REME_TUI, "watch", "-w", str(vault), "--quiet-ms", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tag),
    )
    rebuild_tag = tag + "-rebuild"
    try:
        assert watch.stdout is not None
        assert watch.stdout.readline().startswith("watching")
        time.sleep(1.5)  # the watcher's catch-up diff has run
        rebuild = subprocess.Popen(
            [*REME_TUI, "--reindex", str(vault)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_env(rebuild_tag),
        )
        # Once its copy exists the rebuild reads the files in order: edit the first ones just
        # after, so its copy (made seconds later) holds their old text.
        building = lambda: any(_state(vault).glob("index.sqlite.rebuild-*"))  # noqa: E731
        wait_until(building, 120, "the rebuild to start")
        time.sleep(0.3)
        notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("Note *.md"))[:100]
        for k, rel in enumerate(notes):
            with (vault / rel).open("a") as fh:
                fh.write(f"\nedited{k}x while another process rebuilt the index\n")

        def edits_indexed() -> bool:
            text = _indexed_text(vault)
            return all(f"edited{k}x" in text for k in range(len(notes)))

        running_then: list[bool] = []

        def committed() -> bool:  # by the watcher, noting whether the rebuild still ran
            running = rebuild.poll() is None
            if edits_indexed():
                running_then.append(running)
                return True
            return False

        wait_until(committed, 30, "the watcher to commit the edits", step=0.05)
        assert running_then == [True], "the rebuild ended first: the case did not happen"
        assert rebuild.wait(300) == 0
        wait_until(edits_indexed, 30, "every edit to be in the rebuilt index", step=0.25)
        assert watch.poll() is None  # the watcher is still on
    finally:
        watch.send_signal(signal.SIGTERM)
        watch.wait(30)
        kill_all(tagged_pids(tag) + tagged_pids(rebuild_tag))
