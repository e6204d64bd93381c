"""One note written whole (`write`, `new`): a hidden temp file beside it, then moved into place.

A reader (the browser, a watcher, another agent) sees the old note or the new one, never half
of it. The temp file is named in a journal before it exists (`journal_files.temp_journal`), so
a process killed at any point leaves nothing behind that the next open does not remove.
"""

from __future__ import annotations

import contextlib
import os
import stat
from typing import TYPE_CHECKING

from reme_core.edit.folders import make_parents, remove_dirs
from reme_core.edit.journal_files import temp_journal
from reme_core.errors import PathRefused, RemeError

if TYPE_CHECKING:
    from pathlib import Path

    from reme_core.ports import EditIndex

_NEW_TEMP = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def put_file(ws: EditIndex, rel: str, data: bytes, old: bytes | None, kind: str = "write") -> None:
    """Write `data` to a journaled temp file beside `rel`, then move it into place: over the
    old note when its bytes are still `old` (a concurrent edit is refused, not lost), or as a
    new file that must still not exist (`old` None). `kind` names the journal ("write",
    "new"). Raises `RemeError` / `PathRefused`, having written nothing."""
    target = ws.root / rel
    made: list[Path] = []
    with temp_journal(ws.state_dir, kind, f"{kind} {rel}", rel) as temp:
        # A dot-name: every scan and watcher ignores it, so no one indexes the half-written file.
        tmp = ws.root / temp
        try:
            made = make_parents(ws.root, rel)
            fd = os.open(tmp, _NEW_TEMP, 0o666)  # umask applies
        except OSError as exc:
            remove_dirs(made)
            raise RemeError(f"{rel}: cannot write ({exc.strerror})") from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            if old is None:
                _link_new(tmp, target, rel)
            else:
                os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
                if target.read_bytes() != old:
                    raise RemeError(f"{rel}: changed while being written; read it again and retry")
                os.replace(tmp, target)
        except OSError as exc:
            remove_dirs(made)
            raise RemeError(f"{rel}: cannot write ({exc.strerror})") from None
        except BaseException:
            remove_dirs(made)
            raise
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()


def _link_new(tmp: Path, target: Path, rel: str) -> None:
    """Put a new note in place without overwriting a file made meanwhile (a hard link fails if
    the name exists); file systems without hard links get a checked replace."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise PathRefused(f"{rel}: already exists (created while being written)") from None
    except OSError:
        if os.path.lexists(target):
            raise PathRefused(f"{rel}: already exists (created while being written)") from None
        os.replace(tmp, target)
