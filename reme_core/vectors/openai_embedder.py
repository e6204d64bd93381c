"""Provider `openai`: any OpenAI-compatible `POST {base_url}/embeddings` endpoint.

Standard library only (urllib), so vLLM, llama.cpp, Ollama, LM Studio or the OpenAI API all work
without an SDK. Every failure becomes an `EmbedderUnavailable` with the status and a short reason,
which the caller shows as the vector status while BM25 keeps answering.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from reme_core.errors import ConfigError, EmbedderUnavailable
from reme_core.vectors.codec import l2_normalize
from reme_core.vectors.embedder import Embedder

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
_MAX_RETRY_AFTER = 30.0
_REASON_CHARS = 200


class _Retryable(Exception):
    """A failure worth another try (rate limit, server error, connection trouble)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _short_reason(body: bytes) -> str:
    """The useful part of an error body: `error.message`, `error`, `detail`, or its first line."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data.get("message")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err:
            text = str(err)
    text = " ".join(text.split())
    return text[:_REASON_CHARS] + ("…" if len(text) > _REASON_CHARS else "")


def _retry_after(headers: Any) -> float | None:
    value = headers.get("Retry-After") if headers is not None else None
    if value is None:
        return None
    try:
        return min(max(float(value), 0.0), _MAX_RETRY_AFTER)
    except (TypeError, ValueError):
        return None


class OpenAIEmbedder(Embedder):
    """Batched, bounded-retry client; the API key is read from the environment at each request."""

    def __init__(
        self,
        model: str,
        base_url: str = "",
        api_key_env: str = "OPENAI_API_KEY",
        dimensions: int | None = None,
        batch_size: int = 64,
        timeout: float = 30.0,
        max_tries: int = 3,
        backoff: float = 0.5,
    ) -> None:
        if not model:
            raise ConfigError("vectors.model: the openai provider needs a model name")
        self._model = model
        self._url = (base_url or DEFAULT_BASE_URL).rstrip("/") + "/embeddings"
        self._api_key_env = api_key_env
        self._dimensions = dimensions
        self._batch_size = max(1, batch_size)
        self._timeout = timeout
        self._max_tries = max(1, max_tries)
        self._backoff = backoff
        self._dim = dimensions

    @property
    def name(self) -> str:
        suffix = f"@{self._dimensions}" if self._dimensions else ""
        return f"openai:{self._model}{suffix}"

    @property
    def dim(self) -> int:
        """Known from `dimensions`, else learned from the first answer (probing if needed)."""
        if self._dim is None:
            self.health_check()
        assert self._dim is not None
        return self._dim

    def health_check(self) -> None:
        self.embed(["health check"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.empty((0, self._dim or 0), dtype=np.float32)
        parts = [
            self._embed_batch(texts[i : i + self._batch_size])
            for i in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        payload: dict[str, Any] = {"model": self._model, "input": texts}
        if self._dimensions:
            payload["dimensions"] = self._dimensions
        data = self._post(payload)
        try:
            items = sorted(data["data"], key=lambda item: item["index"])
            matrix = np.array([item["embedding"] for item in items], dtype=np.float32)
        except (KeyError, TypeError, ValueError):
            raise self._unavailable("the answer has no data[i].embedding list") from None
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise self._unavailable(
                f"asked for {len(texts)} embeddings, got an array of shape {matrix.shape}"
            )
        if self._dim is not None and matrix.shape[1] != self._dim:
            raise self._unavailable(f"expected {self._dim}-dim vectors, got {matrix.shape[1]}")
        if not np.isfinite(matrix).all():
            raise self._unavailable("the answer contains non-finite numbers")
        self._dim = matrix.shape[1]
        return l2_normalize(matrix)

    def _unavailable(self, reason: str) -> EmbedderUnavailable:
        return EmbedderUnavailable(f"embeddings at {self._url} (model {self._model}): {reason}")

    def _post(self, payload: dict[str, Any]) -> Any:
        """POST with up to `max_tries` attempts and exponential backoff on retryable failures."""
        body = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self._api_key_env, "") if self._api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        last = ""
        for attempt in range(self._max_tries):
            try:
                return self._post_once(body, headers, bool(key))
            except _Retryable as exc:
                last = str(exc)
                if attempt + 1 < self._max_tries:
                    delay = exc.retry_after
                    time.sleep(self._backoff * 2**attempt if delay is None else delay)
        raise self._unavailable(f"{last} (after {self._max_tries} tries)")

    def _post_once(self, body: bytes, headers: dict[str, str], has_key: bool) -> Any:
        import http.client  # here, not at import: every start-up would pay for ssl and certifi
        import urllib.error
        import urllib.request

        request = urllib.request.Request(self._url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            reason = f"HTTP {exc.code}: {_short_reason(exc.read()) or exc.reason}"
            if exc.code in _RETRY_STATUS:
                raise _Retryable(reason, _retry_after(exc.headers)) from None
            if exc.code in (401, 403):
                hint = "is it valid?" if has_key else "it is not set"
                reason += f" (API key from ${self._api_key_env}: {hint})"
            raise self._unavailable(reason) from None
        except TimeoutError:
            raise _Retryable(f"no answer within {self._timeout:g} s") from None
        except urllib.error.URLError as exc:
            raise _Retryable(f"cannot connect ({exc.reason})") from None
        except (OSError, http.client.HTTPException) as exc:
            raise _Retryable(f"connection failed ({exc.__class__.__name__})") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise self._unavailable(f"the answer is not JSON: {_short_reason(raw)!r}") from None
