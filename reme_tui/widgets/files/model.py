"""The files tree as data: folders with note counts, sorting, a name filter, visible rows.

No Textual here: the view draws `rows()` and the controller feeds changes. It is built for
50k notes: a change walks only the changed note's folders (no rebuild), each folder's sorted
children are cached until that folder changes (in name order, until a name comes or goes:
a note's new time sorts nothing again, and shows nothing new), and `rows()` is a `Rows` of
blocks (a folder's row, a run of its notes) that makes a `Row` only when one is asked for: the
view asks for the rows on screen. The filter is one comprehension per folder over its
case-folded names.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import Literal, NamedTuple, overload

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

    __slots__ = (
        "_by_name",
        "_by_time",
        "_folded",
        "_newest",
        "count",
        "folders",
        "name",
        "notes",
        "parent",
        "path",
    )

    def __init__(self, path: str, parent: Folder | None) -> None:
        self.path = path
        self.name = _split(path)[1]
        self.parent = parent
        self.folders: dict[str, Folder] = {}
        self.notes: dict[str, float] = {}
        self.count = 0  # notes in this folder and every folder below
        self._newest: float | None = None  # cached: the newest note below
        self._by_name: tuple[list[Folder], list[str]] | None = None  # until a name comes or goes
        self._by_time: tuple[list[Folder], list[str]] | None = None  # until a time changes
        self._folded: tuple[list[str], list[str]] | None = None  # ordered notes, case-folded

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
        if self._by_name is None:
            self._by_name = (
                sorted(self.folders.values(), key=lambda f: natural_key(f.name)),
                sorted(self.notes, key=natural_key),
            )
        if sort == "name":
            return self._by_name
        if self._by_time is None:  # stable: equal times keep the name order
            folders, notes = self._by_name
            self._by_time = (
                sorted(folders, key=Folder.newest, reverse=True),
                sorted(notes, key=self.notes.__getitem__, reverse=True),
            )
        return self._by_time

    def matching(self, sort: Sort, words: list[str], in_path: list[str]) -> list[str]:
        """Its notes, in `sort` order, whose name holds every word of `words` and whose path
        every word of `in_path` (all case-folded)."""
        notes = self.ordered(sort)[1]
        if self._folded is None or self._folded[0] is not notes:
            self._folded = (notes, [name.casefold() for name in notes])
        pairs = list(zip(notes, self._folded[1], strict=True))
        for word in words:
            pairs = [p for p in pairs if word in p[1]]
        prefix = f"{self.path}/".casefold() if self.path else ""
        for word in in_path:
            pairs = [p for p in pairs if word in prefix + p[1]]
        return [p[0] for p in pairs]

    def renamed(self) -> None:
        """A note or sub-folder came or went: its name order too, then as `changed`."""
        self._by_name = None
        self.changed()

    def changed(self) -> None:
        """A modified time below changed: the time order and newest time of it and its
        parents, again (the name order stays)."""
        self._by_time = None
        folder: Folder | None = self
        while folder is not None:
            folder._newest = None
            if folder.parent is not None:
                folder.parent._by_time = None  # it may sort elsewhere in time order now
            folder = folder.parent


class Rows(Sequence[Row]):
    """The rows shown, as blocks: a folder's row, or a run of one folder's notes. A `Row` is
    made when one is asked for, so a filter matching 50k notes costs no 50k objects."""

    def __init__(self) -> None:
        self._blocks: list[Row | tuple[int, str, list[str]]] = []  # (depth, folder, names)
        self._starts: list[int] = []
        self._length = 0
        self._folder_rows: dict[str, int] = {}  # folder -> its row
        self._note_blocks: dict[str, int] = {}  # folder -> the block of its notes

    def add_folder(self, row: Row) -> None:
        self._folder_rows[row.path] = self._length
        self._blocks.append(row)
        self._starts.append(self._length)
        self._length += 1

    def add_notes(self, depth: int, folder: str, names: list[str]) -> None:
        if names:
            self._note_blocks[folder] = len(self._blocks)
            self._blocks.append((depth, folder, names))
            self._starts.append(self._length)
            self._length += len(names)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> list[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | list[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        block = bisect_right(self._starts, index) - 1
        item = self._blocks[block]
        if isinstance(item, Row):
            return item
        depth, folder, names = item
        name = names[index - self._starts[block]]
        return Row(depth, f"{folder}/{name}" if folder else name, name, False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def index_of(self, path: str) -> int | None:
        """The row showing `path` (a folder or a note), or None."""
        if path in self._folder_rows:
            return self._folder_rows[path]
        folder, name = _split(path)
        block = self._note_blocks.get(folder)
        if block is None:
            return None
        names = self._blocks[block][2]
        try:
            return self._starts[block] + names.index(name)
        except ValueError:
            return None


class FilesModel:
    """The indexed notes as a tree; `rows()` is what the view shows, cached between changes."""

    def __init__(self, notes: Iterable[tuple[str, float]] = ()) -> None:
        self.root = Folder("", None)
        self._folders: dict[str, Folder] = {"": self.root}
        self.expanded: set[str] = set()
        self.sort: Sort = "name"
        self.filter = ""
        self._words: list[str] = []
        self._rows: Rows | None = None
        for path, mtime in notes:  # a fresh tree: no cache to drop per note
            self._put(path, mtime, fresh=True)

    def __len__(self) -> int:
        return self.root.count

    def prepare(self) -> None:
        """Sort and case-fold every folder's notes now (in the worker that builds the tree),
        so that the first filter typed does not pay for it on the UI thread."""
        for folder in self._folders.values():
            folder.matching(self.sort, [], [])

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
            parent.renamed()
            self._folders[path] = folder
        return folder

    def _put(self, path: str, mtime: float, fresh: bool = False) -> bool:
        """Put a note in; whether a row changes (a new note, or any note in time order)."""
        folder_path, name = _split(path)
        folder = self._ensure(folder_path)
        new = name not in folder.notes
        if new:
            node: Folder | None = folder
            while node is not None:
                node.count += 1
                node = node.parent
        folder.notes[name] = mtime
        if fresh:
            return True
        if new:
            folder.renamed()
        else:
            folder.changed()
        return new or self.sort == "modified"

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
        folder.renamed()
        while folder.parent is not None and folder.count == 0 and not folder.folders:
            parent = folder.parent
            del parent.folders[folder.name]
            del self._folders[folder.path]
            self.expanded.discard(folder.path)
            parent.renamed()
            folder = parent
        self._dirty()
        return True

    def apply(self, removed: Iterable[str], added: Iterable[tuple[str, float]]) -> bool:
        """A batch of index changes (a move is a removal and an addition), in place; whether
        the rows shown change (not for notes only modified, in name order)."""
        shown = False
        for path in removed:
            shown = self.remove(path) or shown
        for path, mtime in added:
            shown = self._put(path, mtime) or shown
        if shown:
            self._dirty()
        return shown

    def _dirty(self) -> None:
        self._rows = None

    # -- what shows ---------------------------------------------------------------------------
    def set_sort(self, sort: Sort) -> None:
        self.sort = sort
        self._rows = None

    def set_filter(self, text: str) -> None:
        """Show only notes whose file name holds every word (a word with `/` is looked for
        in the whole path), with their folders open."""
        self.filter = text
        self._words = text.casefold().split()
        self._rows = None

    def toggle(self, path: str) -> None:
        """Open a closed folder, close an open one."""
        self.set_expanded(path, path not in self.expanded)

    def set_expanded(self, path: str, expanded: bool) -> None:
        if expanded and path in self._folders:
            self.expanded.add(path)
        else:
            self.expanded.discard(path)
        self._rows = None

    def reveal(self, path: str) -> int | None:
        """Open the folders above `path`; its row, or None when it is not shown."""
        folder = _split(path)[0]
        while folder:
            if folder in self._folders and folder not in self.expanded:
                self.expanded.add(folder)
                self._rows = None
            folder = _split(folder)[0]
        return self.index_of(path)

    def index_of(self, path: str) -> int | None:
        """The row showing `path`, or None."""
        return self.rows().index_of(path)

    def rows(self) -> Rows:
        """The rows shown, top to bottom (cached until something changes)."""
        if self._rows is None:
            self._rows = self._filtered() if self._words else self._walk(None, None)
        return self._rows

    @property
    def shown_notes(self) -> int:
        """How many notes the tree holds, or match the filter."""
        if not self._words:
            return self.root.count
        return sum(len(block[2]) for block in self.rows()._blocks if not isinstance(block, Row))

    def _filtered(self) -> Rows:
        """Every folder with a match, open; only the matching notes; counts of matches."""
        in_path = [w for w in self._words if "/" in w]
        in_name = [w for w in self._words if "/" not in w]
        matched: dict[str, list[str]] = {}
        counts: dict[str, int] = {}
        for path, folder in self._folders.items():
            hits = folder.matching(self.sort, in_name, in_path) if folder.notes else []
            if hits:
                matched[path] = hits
                node: Folder | None = folder
                while node is not None:
                    counts[node.path] = counts.get(node.path, 0) + len(hits)
                    node = node.parent
        return self._walk(matched, counts)

    def _walk(self, only: dict[str, list[str]] | None, counts: dict[str, int] | None) -> Rows:
        """Rows depth first, folders before notes, into open folders; with a filter (`only`:
        each folder's matching notes, `counts`: matches below each folder) into every folder
        with a match."""
        rows = Rows()
        stack: list[tuple[Folder, int, bool]] = [(self.root, 0, False)]
        while stack:
            folder, depth, notes_now = stack.pop()
            if notes_now:
                names = folder.ordered(self.sort)[1] if only is None else only.get(folder.path)
                rows.add_notes(depth, folder.path, names or [])
                continue
            if folder is not self.root:
                if counts is None:
                    is_open, count = folder.path in self.expanded, folder.count
                elif folder.path in counts:
                    is_open, count = True, counts[folder.path]
                else:
                    continue
                rows.add_folder(Row(depth - 1, folder.path, folder.name, True, count, is_open))
                if not is_open:
                    continue
            stack.append((folder, depth, True))
            folders = folder.ordered(self.sort)[0]
            stack.extend((f, depth + 1, False) for f in reversed(folders))
        return rows
