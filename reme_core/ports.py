"""What the query, edit, vector and watch code takes of a workspace, as protocols, in one place.

The facade (`reme_core.workspace`) satisfies them; the modules that take them never import
it, so the stages stay one-way (files -> index -> indexing -> query -> edit).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reme_core.config import Config
    from reme_core.files.scanner import Scope
    from reme_core.index.memory_index import MemoryIndex
    from reme_core.indexing.indexer import BatchReport, Changes
    from reme_core.indexing.maintenance import OptimizeReport
    from reme_core.models import FileChunk, FileNode
    from reme_core.parse.settings import ParseSettings
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
    settings: ParseSettings
    warnings: list[str]
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

    def apply(self, changes: Changes) -> BatchReport: ...

    def rebuilt_elsewhere(self) -> bool: ...

    def optimize(self) -> OptimizeReport: ...
