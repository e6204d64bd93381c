"""`vectors.model: wordllama-l2-supercat` (provider `local`): an English embedder, offline.

WordLlama (the `wordllama` extra) ships its weights and tokenizer in its wheel: a static
token-embedding table (256 dimensions, 16 MB) averaged over a text, numpy and the `tokenizers`
library, no torch, nothing downloaded. It is an English model: the bundled multilingual one
stays the default because it also serves Chinese (issue 28, item 2; RESULTS.md measures both).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from reme_core.errors import EmbedderUnavailable
from reme_core.vectors.codec import l2_normalize
from reme_core.vectors.embedder import Embedder

MODEL = "wordllama-l2-supercat"
_DIM = 256
_INSTALL_HINT = "pip install 'reme-tui[wordllama]'"


class WordLlamaEmbedder(Embedder):
    """WordLlama `l2_supercat` at 256 dimensions; loads on first use."""

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"local:{MODEL}"

    @property
    def dim(self) -> int:
        return _DIM

    def _load(self) -> Any:
        """Load once, from the wheel's own files only (the lock stops two threads doing it)."""
        with self._lock:
            if self._model is None:
                try:
                    import wordllama
                except ImportError:
                    raise EmbedderUnavailable(
                        "local embedder: the package wordllama is not installed; run: "
                        f"{_INSTALL_HINT}"
                    ) from None
                # The wheel's folder holds `weights/` and `tokenizers/`; given as the cache
                # folder it is where both are found (the package looks for its tokenizer in
                # `tokenizer/` under its own folder, which the wheel does not have), and
                # `disable_download` makes a missing file an error instead of a download.
                own = Path(wordllama.__file__).parent
                try:
                    self._model = wordllama.WordLlama.load(
                        dim=_DIM, cache_dir=own, disable_download=True
                    )
                except (OSError, ValueError, KeyError) as exc:
                    raise EmbedderUnavailable(
                        f"local embedder: wordllama's model files unusable "
                        f"({exc.__class__.__name__}: {exc}); reinstall with {_INSTALL_HINT}"
                    ) from None
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, _DIM), dtype=np.float32)
        vectors = self._load().embed(list(texts), norm=False)
        return l2_normalize(np.asarray(vectors, dtype=np.float32))

    def health_check(self) -> None:
        vec = self.embed(["health check"])
        if vec.shape != (1, _DIM) or not np.isfinite(vec).all():
            raise EmbedderUnavailable(f"local embedder: unusable output (shape {vec.shape})")
