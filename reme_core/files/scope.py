"""What a walk covers (`Scope`) and what it returns (`Listing`, `Found`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from reme_core.files.excludes import Excludes
from reme_core.files.paths import METADATA_DIR, is_ignored


@dataclass(frozen=True, slots=True)
class FileStat:
    """What the start-up diff compares: modification time and size."""

    mtime: float
    size: int


@dataclass(frozen=True, slots=True)
class Scope:
    """The folders and suffixes a scan covers (`""` as a folder means the whole root), less
    the derived-state folder and the owner's excludes."""

    dirs: tuple[str, ...]
    suffixes: tuple[str, ...]
    state_dir: str = METADATA_DIR
    excludes: Excludes | None = field(default=None, compare=False)

    def ignores(self, relpath: str) -> bool:
        """Ignored whatever the folders: state, dot-paths, temp files, the owner's excludes."""
        if is_ignored(relpath, self.state_dir):
            return True
        return self.excludes is not None and self.excludes.excludes(relpath)

    def covers(self, relpath: str) -> bool:
        """Whether a workspace-relative path is inside this scope."""
        if not relpath.endswith(self.suffixes) or self.ignores(relpath):
            return False
        return any(d == "" or relpath == d or relpath.startswith(d + "/") for d in self.dirs)


class Found(dict[str, FileStat]):
    """What `scan` returns: path -> stat, plus the names it left out because they are not
    valid UTF-8 (`shown_name`: escaped), so that a warning can name them."""

    __slots__ = ("too_deep", "undecodable")

    def __init__(self) -> None:
        super().__init__()
        self.undecodable: list[str] = []
        self.too_deep: list[str] = []


@dataclass(slots=True)
class Listing:
    """A walk's files as parallel lists (no object per file: the start-up diff of 50k files
    compares these as they are), and the names it left out as `Found.undecodable`."""

    paths: list[str] = field(default_factory=list)
    mtimes: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    undecodable: list[str] = field(default_factory=list)
    too_deep: list[str] = field(default_factory=list)  # folders past MAX_DEPTH, left out

    def found(self) -> Found:
        """The same files as path -> `FileStat`."""
        found = Found()
        found.update(zip(self.paths, map(FileStat, self.mtimes, self.sizes), strict=True))
        found.undecodable = list(self.undecodable)
        found.too_deep = list(self.too_deep)
        return found
