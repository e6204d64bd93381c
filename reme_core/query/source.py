"""What the query functions read, as protocols: the facade satisfies them, and the query
modules need not import it (reme_core.workspace composes them, not the other way round)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reme_core.config import Config
    from reme_core.index.memory_index import MemoryIndex
    from reme_core.models import FileChunk, FileNode
    from reme_core.query.reading import ReadResult
    from reme_core.query.search import SearchResult
    from reme_core.store.database import Store
    from reme_core.text.tokenizer import Tokenizer


class IndexReader(Protocol):
    """A workspace's files, settings and live index, read under `lock`."""

    root: Path
    config: Config

    @property
    def index(self) -> MemoryIndex: ...

    @property
    def store(self) -> Store: ...

    @property
    def lock(self) -> threading.RLock: ...

    @property
    def tokenizer(self) -> Tokenizer: ...

    def chunks(self, path: str) -> list[FileChunk]: ...


class Retrievable(IndexReader, Protocol):
    """What `retrieve` adds: searching, reading line ranges and looking up nodes."""

    def search(
        self, query: str, limit: int | None = None, *, expand_links: bool | None = None
    ) -> SearchResult: ...

    def read(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> ReadResult: ...

    def node(self, path: str) -> FileNode | None: ...
