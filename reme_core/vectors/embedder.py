"""The embedder interface and the factory that builds one from the `vectors:` settings.

Providers import their heavy dependencies lazily, so building an embedder is cheap and never
fails for a missing package; `health_check()` is where unavailability surfaces, as an
`EmbedderUnavailable` whose message a person can act on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from reme_core.errors import ConfigError, EmbedderUnavailable

__all__ = ["Embedder", "EmbedderUnavailable", "make_embedder"]


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


def _positive_int(settings: Mapping[str, Any], key: str, default: int) -> int:
    value = settings.get(key) or default
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"vectors.{key}: expected a positive whole number, got {value!r}")
    return value


def make_embedder(settings: Mapping[str, Any]) -> Embedder:
    """Build the provider named by `settings["provider"]` (`local` or `openai`).

    Keys: provider, model, base_url, api_key_env, dimensions (0/None = the model's own),
    batch_size, timeout. Other keys (enabled, store) are ignored so that
    `dataclasses.asdict(config.vectors)` can be passed as is. Nothing is loaded or contacted
    here; call `health_check()` next.
    """
    provider = settings.get("provider") or "local"
    model = settings.get("model") or ""
    if provider == "local":
        from reme_core.vectors.local_embedder import LocalEmbedder

        return LocalEmbedder(model=model)
    if provider == "openai":
        from reme_core.vectors.openai_embedder import OpenAIEmbedder

        timeout = settings.get("timeout") or 30.0
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ConfigError(f"vectors.timeout: expected a positive number, got {timeout!r}")
        dimensions = settings.get("dimensions") or None
        return OpenAIEmbedder(
            model=model,
            base_url=settings.get("base_url") or "",
            api_key_env=settings.get("api_key_env") or "OPENAI_API_KEY",
            dimensions=None if dimensions is None else _positive_int(settings, "dimensions", 1),
            batch_size=_positive_int(settings, "batch_size", 64),
            timeout=float(timeout),
        )
    raise ConfigError(f"vectors.provider: must be one of local, openai, got {provider!r}")
