"""The embedder a `vectors:` configuration names: `local` or `openai`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reme_core.errors import ConfigError
from reme_core.vectors.embedder import Embedder
from reme_core.vectors.wordllama_embedder import MODEL as WORDLLAMA


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
        if model == WORDLLAMA:  # the English option (the `wordllama` extra)
            from reme_core.vectors.wordllama_embedder import WordLlamaEmbedder

            return WordLlamaEmbedder()
        from reme_core.vectors.local_embedder import LocalEmbedder  # its imports are heavy

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
