"""Per-workspace browser state across sessions: the last query and the recently opened notes,
one small JSON file per workspace under `platformdirs.user_state_path("reme-tui")`, and beside
it the bookmarks of a memory-mode workspace (a vault keeps them in Obsidian's own file).

State is a convenience: a missing, unreadable or hostile file is an empty state, and a failed
write is dropped (never an error in the browser).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

RECENT_KEPT = 50  # the History view lists them
MAX_STATE_BYTES = 64 * 1024


def state_file(root: Path) -> Path:
    """The state file of the workspace at `root` (named by a hash of its resolved path)."""
    from platformdirs import user_state_path

    digest = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return user_state_path("reme-tui") / "workspaces" / f"{digest[:24]}.json"


def bookmarks_file(root: Path, mode: str) -> Path:
    """Where the workspace's bookmarks live: Obsidian's `.obsidian/bookmarks.json` in a vault
    that has `.obsidian/` (shared with Obsidian), else a file in Obsidian's format beside the
    workspace's state (a folder of notes never gains an `.obsidian/` from us)."""
    from reme_core import BOOKMARKS_FILE

    shared = root / BOOKMARKS_FILE
    if mode == "vault" and shared.parent.is_dir():
        return shared
    state = state_file(root)
    return state.with_name(f"{state.stem}.bookmarks.json")


@dataclass(slots=True)
class WorkspaceState:
    """What the browser restores when it opens the same workspace again."""

    path: Path
    root: str = ""
    last_query: str = ""
    recent: list[str] = field(default_factory=list)

    def opened(self, note: str) -> None:
        """Put `note` first among the recent notes."""
        self.recent = [note, *(p for p in self.recent if p != note)][:RECENT_KEPT]

    def save(self) -> None:
        """Write the state (best effort: a read-only state folder loses it, nothing else)."""
        data = {"root": self.root, "last_query": self.last_query, "recent": self.recent}
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=".state.", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(data, handle, ensure_ascii=False)
                os.replace(temp, self.path)
            finally:
                Path(temp).unlink(missing_ok=True)


def load_state(root: Path) -> WorkspaceState:
    """The saved state of a workspace; anything unexpected in the file is ignored."""
    path = state_file(root)
    state = WorkspaceState(path, root=str(root.resolve()))
    try:
        if path.stat().st_size > MAX_STATE_BYTES:
            return state
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return state
    if not isinstance(data, dict) or data.get("root") != state.root:
        return state
    if isinstance(data.get("last_query"), str):
        state.last_query = data["last_query"]
    recent = data.get("recent")
    if isinstance(recent, list):
        state.recent = [p for p in recent if isinstance(p, str)][:RECENT_KEPT]
    return state
