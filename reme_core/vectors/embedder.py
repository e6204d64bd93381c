"""The embedder interface (reme_core.vectors.providers builds one from the settings).

Providers import their heavy dependencies lazily, so building an embedder is cheap and never
fails for a missing package; `health_check()` is where unavailability surfaces, as an
`EmbedderUnavailable` whose message a person can act on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from reme_core.errors import EmbedderUnavailable

__all__ = ["Embedder", "EmbedderUnavailable"]


class Embedder(ABC):
    """Turns texts into unit-length float32 vectors."""

    @property
    @abstractmethod
    def name(self) -> str:
        """`provider:model` (plus anything else that changes the vectors); stored beside each
        vector so that a different name invalidates it."""

    @property
    @abstractmethod
    def dim(self) -> int:
        """Length of every vector this embedder returns."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32 with L2-normalised rows; raises EmbedderUnavailable."""

    @abstractmethod
    def health_check(self) -> None:
        """Raise EmbedderUnavailable with a clear reason if `embed` cannot work right now."""
