"""A full disk and a read-only mount (issue 26), made for real: a small tmpfs mounted in a
private mount namespace (`unshare -m`, so nothing outside the test sees it), filled up or
remounted read-only, and the real `reme-tui` command run on the workspace inside it.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

NOTES = 120


def _mount_namespaces() -> bool:
    """Whether this process may mount a tmpfs in a mount namespace of its own."""
    if shutil.which("unshare") is None:
        return False
    with tempfile.TemporaryDirectory() as folder:
        probe = subprocess.run(
            ["unshare", "-m", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder],
            capture_output=True,
            check=False,
        )
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(
    not _mount_namespaces(), reason="needs unshare -m and tmpfs mounts (root in a container)"
)


def workspace(root: Path) -> Path:
    """A memory-mode workspace of plain notes, about 3 KB each."""
    for i in range(NOTES):
        note = root / "daily" / f"n{i:03}.md"
        note.parent.mkdir(parents=True, exist_ok=True)
        words = " ".join(f"w{(i * 37 + k) % 2000}" for k in range(400))
        note.write_text(f"# Note {i}\n\nalpha {words}\n")
    return root


def in_mount(tmp_path: Path, size: str, script: str) -> subprocess.CompletedProcess[str]:
    """Run `script` (sh) with $M a fresh tmpfs of `size` holding a copy of the workspace as
    $M/ws, and $REME the command line of `reme-tui`."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    src = workspace(tmp_path / "src")
    reme = shlex.join([sys.executable, "-m", "reme_tui"])
    setup = (
        f"M={shlex.quote(str(mnt))}; REME={shlex.quote(reme)}; "
        f"mount -t tmpfs -o size={size} tmpfs $M && cp -r {shlex.quote(str(src))} $M/ws && "
    )
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", setup + script],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def said(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The lines on stderr, but the mode line every `--reindex` starts with."""
    return [line for line in proc.stderr.strip().splitlines() if " mode (" not in line]


def test_a_never_indexed_read_only_workspace_is_searched_in_memory(tmp_path: Path) -> None:
    proc = in_mount(
        tmp_path,
        "4m",
        "mount -o remount,ro $M && $REME search alpha -w $M/ws --limit 3 && echo STATS && "
        "$REME stats -w $M/ws && ls -A $M/ws",
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "unexpected" not in proc.stderr
    assert "daily/n" in proc.stdout.split("STATS")[0]
    assert f"files            {NOTES}" in proc.stdout or f"{NOTES}" in proc.stdout
    notices = [line for line in proc.stderr.splitlines() if "in memory" in line]
    assert len(notices) == 2 and "Read-only file system" in notices[0], proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "daily"  # nothing was written


@pytest.mark.parametrize("command", ["--reindex $M/ws", "optimize -w $M/ws"])
def test_a_full_disk_is_said_in_one_line(tmp_path: Path, command: str) -> None:
    """Indexed with room to spare, then the disk filled to the last block."""
    proc = in_mount(
        tmp_path,
        "6m",
        "$REME --reindex $M/ws >/dev/null && "
        "(dd if=/dev/zero of=$M/filler bs=4k 2>/dev/null; true) && "
        f'$REME {command}; echo "rc=$?"; cat $M/ws/daily/n007.md | head -1',
    )
    lines = said(proc)
    assert "Traceback" not in proc.stderr and "unexpected" not in proc.stderr, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("reme-tui: the disk is full"), proc.stderr
    assert "# Note 7" in proc.stdout  # the notes are untouched


def test_a_never_indexed_workspace_on_a_full_disk_says_so(tmp_path: Path) -> None:
    """Room for the notes, none for their index."""
    proc = in_mount(tmp_path, "600k", '$REME --reindex $M/ws; echo "rc=$?"')
    assert "rc=1" in proc.stdout, (proc.stdout, proc.stderr)
    lines = said(proc)
    assert len(lines) == 1 and lines[0].startswith("reme-tui: the disk is full"), proc.stderr
