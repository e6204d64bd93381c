"""The files tree as data: folders with note counts, sorting, a name filter, visible rows.

No Textual here: the view draws `rows()` and the controller feeds changes. It is built for
50k notes: a change walks only the changed note's folders (no rebuild), each folder's sorted
children are cached until that folder changes, `rows()` visits only open folders, and the
filter searches one string of every path (`Catalog`) instead of testing each name in Python.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import Literal, NamedTuple

Sort = Literal["name", "modified"]
SORTS: tuple[Sort, ...] = ("name", "modified")

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> list[str | int]:
    """Names as a person sorts them: case-blind, numbers by value (`Note 2` before `Note 10`).

    The split alternates text and digits from a text part on, so any two keys hold the same
    type at each position and compare without a per-part tuple."""
    parts: list[str | int] = list(_DIGITS.split(name.casefold()))
    parts[1::2] = map(int, parts[1::2])
    return parts


def _split(path: str) -> tuple[str, str]:
    folder, _, name = path.rpartition("/")
    return folder, name


class Row(NamedTuple):
    """One line of the tree: a folder (with its note count) or a note (a tuple: 50k of
    them are made in a few milliseconds)."""

    depth: int
    path: str
    name: str
    folder: bool
    notes: int = 0  # a folder's notes (those matching the filter, when one is set)
    expanded: bool = False


class Folder:
    """A folder: its sub-folders, its notes (file name -> modified time), counts below it."""

    __slots__ = ("_newest", "_order", "count", "folders", "name", "notes", "parent", "path")

    def __init__(self, path: str, parent: Folder | None) -> None:
        self.path = path
        self.name = _split(path)[1]
        self.parent = parent
        self.folders: dict[str, Folder] = {}
        self.notes: dict[str, float] = {}
        self.count = 0  # notes in this folder and every folder below
        self._newest: float | None = None  # cached: the newest note below
        self._order: tuple[Sort, list[Folder], list[str]] | None = None

    def newest(self) -> float:
        """The modified time of the newest note below (what a folder sorts by in time order)."""
        if self._newest is None:
            times = [f.newest() for f in self.folders.values()]
            times.extend(self.notes.values())
            self._newest = max(times, default=0.0)
        return self._newest

    def ordered(self, sort: Sort) -> tuple[list[Folder], list[str]]:
        """Sub-folders and note names in `sort` order (folders first, as Obsidian lists them;
        in time order newest first, equal times by name)."""
        if self._order is None or self._order[0] != sort:
            folders = sorted(self.folders.values(), key=lambda f: natural_key(f.name))
            notes = sorted(self.notes, key=natural_key)
            if sort == "modified":
                folders.sort(key=Folder.newest, reverse=True)
                notes.sort(key=self.notes.__getitem__, reverse=True)
            self._order = (sort, folders, notes)
        return self._order[1], self._order[2]

    def changed(self) -> None:
        """Its contents changed: its order, and the newest time of it and its parents, again."""
        self._order = None
        folder: Folder | None = self
        while folder is not None:
            folder._newest = None
            if folder.parent is not None:
                folder.parent._order = None  # it may sort elsewhere in time order now
            folder = folder.parent


class Catalog:
    """Every note path, case-folded, in one newline-joined string: a filter word is found by
    one C-level scan, and each hit mapped to its note by bisection."""

    def __init__(self, folders: Iterable[Folder]) -> None:
        self.notes: list[tuple[Folder, str]] = []
        self.starts: list[int] = []  # where each note's line starts
        self.names: list[int] = []  # where its file name starts
        lines: list[str] = []
        at = 0
        for folder in folders:
            prefix = f"{folder.path}/" if folder.path else ""
            for name in folder.notes:
                line = (prefix + name).casefold()
                self.notes.append((folder, name))
                self.starts.append(at)
                self.names.append(at + len(line) - len(name.casefold()))
                lines.append(line)
                at += len(line) + 1
        self.text = "\n".join(lines)

    def find(self, word: str, in_name: bool) -> set[int]:
        """The notes holding `word` (in the file name, or anywhere in the path)."""
        found: set[int] = set()
        for match in re.finditer(re.escape(word), self.text):
            i = bisect_right(self.starts, match.start()) - 1
            if not in_name or match.start() >= self.names[i]:
                found.add(i)
        return found


class FilesModel:
    """The indexed notes as a tree; `rows()` is what the view shows, cached between changes."""

    def __init__(self, notes: Iterable[tuple[str, float]] = ()) -> None:
        self.root = Folder("", None)
        self._folders: dict[str, Folder] = {"": self.root}
        self.expanded: set[str] = set()
        self.sort: Sort = "name"
        self.filter = ""
        self._words: list[str] = []
        self._rows: list[Row] | None = None
        self._index: dict[str, int] | None = None
        self._catalog: Catalog | None = None
        for path, mtime in notes:  # a fresh tree: no cache to drop per note
            self._put(path, mtime, fresh=True)

    def __len__(self) -> int:
        return self.root.count

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        folder, name = _split(path)
        node = self._folders.get(folder)
        return node is not None and name in node.notes

    def is_folder(self, path: str) -> bool:
        return path in self._folders

    def folder_of(self, path: str) -> str:
        """Where "new note here" puts a note: the folder itself, or a note's folder."""
        return path if path in self._folders else _split(path)[0]

    def mtime(self, path: str) -> float | None:
        folder, name = _split(path)
        node = self._folders.get(folder)
        return None if node is None else node.notes.get(name)

    # -- changes ------------------------------------------------------------------------------
    def _ensure(self, path: str) -> Folder:
        folder = self._folders.get(path)
        if folder is None:
            parent = self._ensure(_split(path)[0])
            folder = Folder(path, parent)
            parent.folders[folder.name] = folder
            parent._order = None
            self._folders[path] = folder
        return folder

    def _put(self, path: str, mtime: float, fresh: bool = False) -> None:
        folder_path, name = _split(path)
        folder = self._ensure(folder_path)
        if name not in folder.notes:
            node: Folder | None = folder
            while node is not None:
                node.count += 1
                node = node.parent
        folder.notes[name] = mtime
        if not fresh:
            folder.changed()

    def add(self, path: str, mtime: float) -> None:
        """A note was added, or changed (its new modified time)."""
        self.apply((), [(path, mtime)])

    def add_folder(self, path: str) -> None:
        """An empty folder made from the tree: shown (count 0) until a removal beside it
        prunes the empty folders."""
        self._ensure(path.strip("/"))
        self._dirty()

    def remove(self, path: str) -> bool:
        """A note went away; folders left empty go with it. False when it was not here."""
        folder_path, name = _split(path)
        folder = self._folders.get(folder_path)
        if folder is None or folder.notes.pop(name, None) is None:
            return False
        node: Folder | None = folder
        while node is not None:
            node.count -= 1
            node = node.parent
        folder.changed()
        while folder.parent is not None and folder.count == 0 and not folder.folders:
            parent = folder.parent
            del parent.folders[folder.name]
            del self._folders[folder.path]
            self.expanded.discard(folder.path)
            parent.changed()
            folder = parent
        self._dirty()
        return True

    def apply(self, removed: Iterable[str], added: Iterable[tuple[str, float]]) -> None:
        """A batch of index changes (a move is a removal and an addition), in place."""
        for path in removed:
            self.remove(path)
        for path, mtime in added:
            self._put(path, mtime)
        self._dirty()

    def _dirty(self) -> None:
        self._rows = None
        self._index = None
        self._catalog = None

    # -- what shows ---------------------------------------------------------------------------
    def set_sort(self, sort: Sort) -> None:
        self.sort = sort
        self._rows = self._index = None

    def set_filter(self, text: str) -> None:
        """Show only notes whose file name holds every word (a word with `/` is looked for
        in the whole path), with their folders open."""
        self.filter = text
        self._words = text.casefold().split()
        self._rows = self._index = None

    def toggle(self, path: str) -> None:
        """Open a closed folder, close an open one."""
        self.set_expanded(path, path not in self.expanded)

    def set_expanded(self, path: str, expanded: bool) -> None:
        if expanded and path in self._folders:
            self.expanded.add(path)
        else:
            self.expanded.discard(path)
        self._rows = self._index = None

    def reveal(self, path: str) -> int | None:
        """Open the folders above `path`; its row, or None when it is not shown."""
        folder = _split(path)[0]
        while folder:
            if folder in self._folders and folder not in self.expanded:
                self.expanded.add(folder)
                self._rows = self._index = None
            folder = _split(folder)[0]
        return self.index_of(path)

    def index_of(self, path: str) -> int | None:
        """The row showing `path`, or None."""
        if self._index is None:
            self._index = {row.path: i for i, row in enumerate(self.rows())}
        return self._index.get(path)

    def rows(self) -> list[Row]:
        """The rows shown, top to bottom (cached until something changes)."""
        if self._rows is None:
            self._rows = list(self._filtered() if self._words else self._visible())
        return self._rows

    def _visible(self) -> Iterator[Row]:
        return self._walk(lambda folder: folder.path in self.expanded, None, None)

    def _filtered(self) -> Iterator[Row]:
        """Every folder with a match, open; only the matching notes; counts of matches."""
        if self._catalog is None:
            self._catalog = Catalog(self._folders.values())
        catalog = self._catalog
        hits: set[int] | None = None
        for word in sorted(self._words, key=len, reverse=True):  # the rarest first, likely
            found = catalog.find(word, in_name="/" not in word)
            hits = found if hits is None else hits & found
            if not hits:
                break
        matched: dict[str, set[str]] = {}
        for i in hits or ():
            folder, name = catalog.notes[i]
            matched.setdefault(folder.path, set()).add(name)
        counts: dict[str, int] = {}
        for path, names in matched.items():
            node: Folder | None = self._folders[path]
            while node is not None:
                counts[node.path] = counts.get(node.path, 0) + len(names)
                node = node.parent
        return self._walk(lambda folder: True, matched, counts)

    def _walk(
        self,
        opened: Callable[[Folder], bool],
        only: dict[str, set[str]] | None,
        counts: dict[str, int] | None,
    ) -> Iterator[Row]:
        """Rows depth first, folders before notes, into the folders `opened` says; with a
        filter, only the folders `counts` has and the notes `only` names."""
        stack: list[tuple[Folder, int, bool]] = [(self.root, 0, False)]
        while stack:
            folder, depth, notes_now = stack.pop()
            if notes_now:
                notes = folder.ordered(self.sort)[1]
                prefix = f"{folder.path}/" if folder.path else ""
                keep = None if only is None else only.get(folder.path, set())
                for name in notes:
                    if keep is None or name in keep:
                        yield Row(depth, prefix + name, name, False)
                continue
            if folder is not self.root:
                if counts is not None and folder.path not in counts:
                    continue
                is_open = opened(folder)
                count = folder.count if counts is None else counts[folder.path]
                yield Row(depth - 1, folder.path, folder.name, True, count, is_open)
                if not is_open:
                    continue
            stack.append((folder, depth, True))
            folders = folder.ordered(self.sort)[0]
            stack.extend((f, depth + 1, False) for f in reversed(folders))
