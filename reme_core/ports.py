"""What the query, edit, vector and watch code takes of a workspace, as protocols, in one place.

The facade (`reme_core.workspace`) keeps its parts behind one private attribute
(`WorkspaceParts`); `read_index(ws)`, `edit_index(ws)`, … wrap it in a small adapter that
satisfies these protocols. The modules that take them never import the facade, so the
stages stay one-way (files -> index -> indexing -> query -> edit).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reme_core.config import Config
    from reme_core.edit.recovery_notes import RecoveryNote
    from reme_core.files.scope import Scope
    from reme_core.index.memory_index import MemoryIndex
    from reme_core.indexing.indexer import BatchReport, Changes
    from reme_core.indexing.maintenance import OptimizeReport
    from reme_core.models import FileChunk, FileNode
    from reme_core.parse.settings import ParseSettings
    from reme_core.parts import WorkspaceParts
    from reme_core.query.reading import ReadResult
    from reme_core.query.request import SearchRequest
    from reme_core.query.results import SearchResult
    from reme_core.store.database import Store
    from reme_core.text.tokenizer import Tokenizer


class ReadIndex(Protocol):
    """A workspace as the code above the index sees it: its config, its live in-memory
    index (read under `lock`) and its store."""

    config: Config

    @property
    def index(self) -> MemoryIndex: ...

    @property
    def store(self) -> Store: ...

    @property
    def lock(self) -> threading.RLock: ...


class SearchIndex(ReadIndex, Protocol):
    """What a search reads: the workspace's files and tokenizer besides the index. Questions
    about one note take the index itself (reme_core.query.notes)."""

    root: Path

    @property
    def tokenizer(self) -> Tokenizer: ...


class Retrievable(SearchIndex, Protocol):
    """What `retrieve` adds: search, line ranges, nodes and chunks (each taking the index
    lock itself)."""

    def search(
        self,
        query: SearchRequest | str,
        limit: int | None = None,
        *,
        expand_links: bool | None = None,
    ) -> SearchResult: ...

    def read(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> ReadResult: ...

    def node(self, path: str) -> FileNode | None: ...

    def chunks(self, path: str) -> list[FileChunk]: ...


class EditIndex(ReadIndex, Protocol):
    """What the edit functions take: the files, settings and index, the writer's lock, and
    the one way to tell the index what changed."""

    root: Path
    mode: str  # "memory" or "vault": what a new note's frontmatter holds, where daily notes go
    settings: ParseSettings
    recovery: list[RecoveryNote]
    watch_scope: Scope
    rebuild_scope: Scope

    @property
    def state_dir(self) -> Path: ...

    @property
    def write_lock(self) -> threading.RLock: ...

    def apply(self, changes: Changes) -> BatchReport: ...

    def node(self, path: str) -> FileNode | None:
        """The indexed node of a path (taking the index lock), or None."""
        ...


class VectorHost(ReadIndex, Protocol):
    """What vector recall reads of a workspace, and hears of its batches."""

    def add_listener(self, fn: Callable[[BatchReport], None]) -> None: ...


class Watched(Protocol):
    """What the live watcher needs of a workspace."""

    root: Path
    config: Config
    watch_scope: Scope
    rebuild_scope: Scope

    @property
    def index(self) -> MemoryIndex: ...

    @property
    def lock(self) -> threading.RLock: ...

    def diff(self) -> Changes: ...

    def apply(self, changes: Changes, *, pool_from: int | None = None) -> BatchReport: ...

    def rebuilt_elsewhere(self) -> bool: ...

    def optimize(self) -> OptimizeReport: ...


class Facade(Protocol):
    """A workspace as the adapters below read it: its public names and, behind one private
    attribute, its parts. `reme_core.workspace.Workspace` is one."""

    root: Path
    mode: str
    config: Config
    settings: ParseSettings
    recovery: list[RecoveryNote]
    watch_scope: Scope
    rebuild_scope: Scope

    @property
    def _parts(self) -> WorkspaceParts: ...

    @property
    def state_dir(self) -> Path: ...

    @property
    def tokenizer(self) -> Tokenizer: ...

    def search(
        self,
        query: SearchRequest | str,
        limit: int | None = None,
        *,
        expand_links: bool | None = None,
    ) -> SearchResult: ...

    def read(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> ReadResult: ...

    def node(self, path: str) -> FileNode | None: ...

    def chunks(self, path: str) -> list[FileChunk]: ...

    def apply(self, changes: Changes, *, pool_from: int | None = None) -> BatchReport: ...

    def add_listener(self, fn: Callable[[BatchReport], None]) -> None: ...

    def diff(self) -> Changes: ...

    def rebuilt_elsewhere(self) -> bool: ...

    def optimize(self) -> OptimizeReport: ...


class _Port:
    """The one adapter: a facade's public names, plus its parts' index, store and locks.
    Made per use (cheap); it satisfies every protocol above."""

    def __init__(self, ws: Facade) -> None:
        self._ws = ws
        self.root = ws.root
        self.mode = ws.mode
        self.config = ws.config
        self.settings = ws.settings
        self.recovery = ws.recovery
        self.watch_scope = ws.watch_scope
        self.rebuild_scope = ws.rebuild_scope

    @property
    def _parts(self) -> WorkspaceParts:
        return self._ws._parts

    @property
    def index(self) -> MemoryIndex:
        return self._ws._parts.index

    @property
    def store(self) -> Store:
        return self._ws._parts.store

    @property
    def lock(self) -> threading.RLock:
        return self._ws._parts.lock

    @property
    def write_lock(self) -> threading.RLock:
        return self._ws._parts.write_lock

    @property
    def state_dir(self) -> Path:
        return self._ws.state_dir

    @property
    def tokenizer(self) -> Tokenizer:
        return self._ws.tokenizer

    def search(
        self,
        query: SearchRequest | str,
        limit: int | None = None,
        *,
        expand_links: bool | None = None,
    ) -> SearchResult:
        return self._ws.search(query, limit, expand_links=expand_links)

    def read(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> ReadResult:
        return self._ws.read(path, start_line, end_line)

    def node(self, path: str) -> FileNode | None:
        return self._ws.node(path)

    def chunks(self, path: str) -> list[FileChunk]:
        return self._ws.chunks(path)

    def apply(self, changes: Changes, *, pool_from: int | None = None) -> BatchReport:
        return self._ws.apply(changes, pool_from=pool_from)

    def add_listener(self, fn: Callable[[BatchReport], None]) -> None:
        self._ws.add_listener(fn)

    def diff(self) -> Changes:
        return self._ws.diff()

    def rebuilt_elsewhere(self) -> bool:
        return self._ws.rebuilt_elsewhere()

    def optimize(self) -> OptimizeReport:
        return self._ws.optimize()


# The narrow ways in, one per protocol (package-internal: not re-exported).
def read_index(ws: Facade) -> ReadIndex:
    """The index, store and lock of a workspace, for code that reads them."""
    return _Port(ws)


def search_index(ws: Facade) -> SearchIndex:
    """What a search reads of a workspace."""
    return _Port(ws)


def retrievable(ws: Facade) -> Retrievable:
    """What `retrieve` reads of a workspace."""
    return _Port(ws)


def edit_index(ws: Facade) -> EditIndex:
    """What the edit functions take of a workspace (with the writer's lock)."""
    return _Port(ws)


def vector_host(ws: Facade) -> VectorHost:
    """What vector recall reads of a workspace."""
    return _Port(ws)


def watched(ws: Facade) -> Watched:
    """What the live watcher takes of a workspace."""
    return _Port(ws)
