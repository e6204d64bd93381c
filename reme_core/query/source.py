"""What the query functions read, as a protocol: the facade satisfies them, and the query
modules need not import it (reme_core.workspace composes them, not the other way round)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from reme_core.indexing.live_index import HoldsIndex

if TYPE_CHECKING:
    from reme_core.text.tokenizer import Tokenizer


class IndexReader(HoldsIndex, Protocol):
    """A workspace's files, settings, live index (read under `lock`) and its tokenizer: what a
    search reads. Questions about one note take the index itself (reme_core.query.notes)."""

    root: Path

    @property
    def tokenizer(self) -> Tokenizer: ...
