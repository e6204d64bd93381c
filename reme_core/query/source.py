"""What the query functions read, as a protocol: the facade satisfies them, and the query
modules need not import it (reme_core.workspace composes them, not the other way round)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reme_core.config import Config
    from reme_core.index.memory_index import MemoryIndex
    from reme_core.models import FileChunk
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
