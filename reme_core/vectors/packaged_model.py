"""The shared shape of the offline embedders (`local`'s models): a model from an optional
package that ships its weights, imported and built once, on first use.

Building an embedder must stay cheap and never fail for a missing package (SPEC §7): the
import and the weights wait for the first `embed`, under a lock so that two threads (the
vector follower and a query) never load them twice. A missing package or unusable model files
become an `EmbedderUnavailable` that says what to install.
"""

from __future__ import annotations

import importlib
import threading
from abc import abstractmethod
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from reme_core.errors import EmbedderUnavailable
from reme_core.vectors.codec import l2_normalize
from reme_core.vectors.embedder import Embedder


class PackagedModelEmbedder(Embedder):
    """An embedder whose model comes from the package `module` (installed as `package`, by
    `install`); subclasses build the model and encode with it."""

    module: str  # what is imported
    package: str  # what pip installs, as the message names it
    install: str  # the command that installs it

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    @abstractmethod
    def _build(self, module: ModuleType) -> Any:
        """The model, from the imported package (OSError, ValueError or KeyError: its files
        are unusable)."""

    @abstractmethod
    def _encode(self, model: Any, texts: list[str]) -> np.ndarray:
        """One row per text, not yet normalised."""

    def _load(self) -> Any:
        """Import and build the model once; the lock stops two threads loading it twice."""
        with self._lock:
            if self._model is None:
                try:
                    module = importlib.import_module(self.module)
                except ImportError:
                    raise EmbedderUnavailable(
                        f"local embedder: the package {self.package} is not installed; "
                        f"run: {self.install}"
                    ) from None
                try:
                    self._model = self._build(module)
                except (OSError, ValueError, KeyError) as exc:
                    raise EmbedderUnavailable(
                        f"local embedder: {self.package}'s model files unusable "
                        f"({exc.__class__.__name__}: {exc}); reinstall with {self.install}"
                    ) from None
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        return l2_normalize(np.asarray(self._encode(self._load(), list(texts)), np.float32))

    def health_check(self) -> None:
        vec = self.embed(["health check"])
        if vec.shape != (1, self.dim) or not np.isfinite(vec).all():
            raise EmbedderUnavailable(f"local embedder: unusable output (shape {vec.shape})")
