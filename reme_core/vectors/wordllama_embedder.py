"""`vectors.model: wordllama-l2-supercat` (provider `local`): an English embedder, offline.

WordLlama (the `wordllama` extra) ships its weights and tokenizer in its wheel: a static
token-embedding table (256 dimensions, 16 MB) averaged over a text, numpy and the `tokenizers`
library, no torch, nothing downloaded. It is an English model: the bundled multilingual one
stays the default because it also serves Chinese (issue 28, item 2; RESULTS.md measures both).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from reme_core.vectors.packaged_model import PackagedModelEmbedder

MODEL = "wordllama-l2-supercat"
_DIM = 256


class WordLlamaEmbedder(PackagedModelEmbedder):
    """WordLlama `l2_supercat` at 256 dimensions; loads on first use."""

    module = package = "wordllama"
    install = "pip install 'reme-tui[wordllama]'"

    @property
    def name(self) -> str:
        return f"local:{MODEL}"

    @property
    def dim(self) -> int:
        return _DIM

    def _build(self, module: ModuleType) -> Any:
        # The wheel's folder holds `weights/` and `tokenizers/`; given as the cache folder it
        # is where both are found (the package looks for its tokenizer in `tokenizer/` under
        # its own folder, which the wheel does not have), and `disable_download` makes a
        # missing file an error instead of a download.
        own = Path(module.__file__ or "").parent
        return module.WordLlama.load(dim=_DIM, cache_dir=own, disable_download=True)

    def _encode(self, model: Any, texts: list[str]) -> np.ndarray:
        return np.asarray(model.embed(texts, norm=False))
