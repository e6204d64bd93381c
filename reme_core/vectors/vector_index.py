"""The workspace's vector branch: one embedder, one in-memory store, one backfill thread.

Keys. A vector is stored under the chunk's `id` from the chunks table and the embedder's
`name`. That id is blake2b over the chunk's path, line range and text (`models.chunk_id`), so
it changes whenever the embedded text could; it is already stored, so the keys of every live
chunk come from one cheap query and a rebuild reuses vectors without re-reading any text. The
price: a chunk whose line range moves (an edit above it, a rename) is embedded again. The
database also records `name dim=…` in meta `vectors_model`; when the model or dimension
changes, the rows of any other model or length are dropped.

Doc ids. The store is indexed by the BM25 doc ids of `ws.index`, and `_follow` brings it in
step whenever that index changed, under the workspace lock and before any vector search:
docs tombstoned in BM25 are tombstoned here, and when the index was replaced (reload after
optimize or after another process's commit, rebuild) the held vectors are renumbered by
matching chunk ids. So nothing is embedded twice, and a tombstoned chunk never comes back.

Backfill. A daemon thread resolves docs without vectors: first from SQLite (persisted earlier,
or by another process), then by embedding `batch_size` texts at a time *without* holding the
workspace lock; each batch is committed in its own transaction, so killing the process loses
at most the batch being embedded. A provider that fails turns vector recall off (BM25 keeps
answering) and is checked again every `retry_seconds`, or at once by `retry()`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np

from reme_core.errors import ConfigError, EmbedderUnavailable
from reme_core.ports import VectorHost
from reme_core.progress import ProgressFn
from reme_core.vectors import STORE_KINDS, make_store
from reme_core.vectors.codec import blobs_to_matrix, vector_to_blob
from reme_core.vectors.embedder import Embedder
from reme_core.vectors.providers import make_embedder
from reme_core.vectors.state import OFF, VectorState, VectorStatus
from reme_core.vectors.store import VectorStore, empty_result

if TYPE_CHECKING:
    from reme_core.index.memory_index import MemoryIndex


VectorSearch = Callable[[str, int, "np.ndarray | None"], tuple[np.ndarray, np.ndarray]]

_CHECKING, _RUNNING, _UNAVAILABLE, _CLOSED = "checking", "running", "unavailable", "closed"
_LOOKUP = 1024  # pending docs looked up in SQLite per step
_NO_DOCS = np.empty(0, dtype=np.int64)


def _live_docs(index: MemoryIndex) -> np.ndarray:
    """Every live BM25 doc id, ascending."""
    return index.chunks.live_docs()


class VectorIndex:
    """Vector recall for one workspace; `prepare(query)` is the vector branch of a search."""

    poll_seconds = 2.0  # how often an idle backfill looks for work nobody announced
    retry_seconds = 30.0  # how often an unavailable provider is checked again

    def __init__(self, ws: VectorHost, embedder: Embedder | None = None) -> None:
        settings = ws.config.vectors
        if settings.store not in STORE_KINDS:
            raise ConfigError(
                f"vectors.store: must be one of {', '.join(STORE_KINDS)}, got {settings.store!r}"
            )
        self.embedder = embedder or make_embedder(asdict(settings))
        self.store_kind = settings.store
        self.batch_size = max(1, settings.batch_size)
        self.store: VectorStore | None = None
        self.embedded = 0  # chunks this process embedded
        self.reused = 0  # vectors taken from the database instead
        self.embed_seconds = 0.0  # time spent embedding them (throughput = embedded / this)
        self._ws = ws
        self._state = _CHECKING
        self._reason = ""
        self._keys: dict[int, str] = {}  # doc id -> chunk id of the vector held for it
        self._index: MemoryIndex | None = None
        self._epoch = 0  # bumped when doc ids change meaning (new index or new store)
        self._seen = (-1, -1)  # (n_total, n_tombstones) of the index when last followed
        self._pending = _NO_DOCS  # live docs without a vector
        self._total = 0
        self._check_lock = threading.Lock()
        self._changed = threading.Condition()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        ws.add_listener(self._on_batch)

    # -- life cycle ---------------------------------------------------------------------------
    def start(self, check_now: bool = False) -> None:
        """Start the backfill thread; with `check_now` the health check runs here first."""
        if check_now:
            self._check()
        self._thread = threading.Thread(target=self._run, name="reme-vectors", daemon=True)
        self._thread.start()

    def retry(self) -> bool:
        """Check an unavailable provider again now; True when vector recall is on."""
        if self._state == _UNAVAILABLE:
            self._check()
        return self.ready

    def close(self, timeout: float = 5.0) -> None:
        """Stop the thread; a batch being embedded is dropped (it was never committed)."""
        self._stop.set()
        self._wake.set()
        self._set_state(_CLOSED)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _on_batch(self, _report: object) -> None:
        self._wake.set()

    # -- state --------------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        """Whether searches use the vector branch (possibly while the backfill still runs)."""
        return self._state == _RUNNING and self.store is not None

    def progress(self) -> tuple[int, int]:
        """(chunks with a vector, live chunks)."""
        return (len(self.store) if self.store is not None else 0), self._total

    def status(self) -> VectorStatus:
        """Where vector recall stands, with its progress."""
        if self._state == _CLOSED:
            return OFF
        name, kind = self.embedder.name, self.store_kind
        if self._state == _UNAVAILABLE:
            return VectorStatus(VectorState.UNAVAILABLE, provider=name, reason=self._reason)
        if self._state == _CHECKING:
            return VectorStatus(VectorState.STARTING, provider=name, store=kind)
        done, total = self.progress()
        state = VectorState.EMBEDDING if done < total else VectorState.ON
        return VectorStatus(state, done, total, name, kind)

    def _set_state(self, state: str, reason: str = "") -> None:
        with self._changed:
            if self._state != _CLOSED:
                self._state, self._reason = state, reason
            self._changed.notify_all()

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def wait(self, timeout: float | None = None, progress: ProgressFn | None = None) -> bool:
        """Block until every live chunk has a vector (True), or the provider is unavailable,
        the index is closed or `timeout` passes (False). For the CLI and tests."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self.store is not None:
                with self._ws.lock:
                    self._follow()
            if progress is not None and self.store is not None:
                progress(*self.progress())
            with self._changed:
                if self._state in (_UNAVAILABLE, _CLOSED):
                    return False
                if self._state == _RUNNING and not self._pending.size:
                    return True
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(0.2 if left is None else min(left, 0.2))

    # -- searching ----------------------------------------------------------------------------
    def prepare(self, query: str) -> VectorSearch | None:
        """Embed the query now (outside the workspace lock) and return the vector branch for
        `run_search`, which calls it under the lock; None when vector recall is not on."""
        if not self.ready or not query.strip():
            return None
        try:
            vec = self.embedder.embed([query])[0]
        except EmbedderUnavailable as exc:
            self._set_state(_UNAVAILABLE, str(exc))
            self._wake.set()
            return None

        def vector_search(
            _query: str, k: int, mask: np.ndarray | None
        ) -> tuple[np.ndarray, np.ndarray]:
            self._follow()
            store = self.store
            return store.search(vec, k, mask) if store is not None else empty_result()

        return vector_search

    def search(
        self, query: str, k: int, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k live docs by cosine to the query: (doc ids, scores), best first."""
        branch = self.prepare(query)
        if branch is None:
            return empty_result()
        with self._ws.lock:
            return branch(query, k, mask)

    # -- keeping in step with the BM25 doc ids (caller holds ws.lock) -------------------------
    def _follow(self) -> None:
        index = self._ws.index
        seen = (index.bm25.n_total, index.bm25.n_tombstones)
        if self.store is None or (index is self._index and seen == self._seen):
            return
        live = _live_docs(index)
        if index is not self._index or seen[0] < self._seen[0]:
            self._epoch += 1
            if self._keys:
                self._renumber(index, live)
        held = self.store.doc_ids()
        dead = np.setdiff1d(held, live, assume_unique=True)
        if dead.size:
            self.store.remove(dead)
            for doc in dead.tolist():
                self._keys.pop(doc, None)
        self._pending = np.setdiff1d(live, held, assume_unique=True)
        self._total = int(live.size)
        self._index, self._seen = index, seen

    def _renumber(self, index: MemoryIndex, live: np.ndarray) -> None:
        """The index was rebuilt: move held vectors to the new ids of the same chunk ids."""
        assert self.store is not None
        key_of_row = self._ws.store.vectors.chunk_ids()
        new_doc = {
            key_of_row[rowid]: doc
            for doc, rowid in zip(live.tolist(), index.chunks.rowids(live).tolist(), strict=True)
            if rowid in key_of_row
        }
        doc_map = np.full(max(self._keys) + 1, -1, dtype=np.int64)
        keys: dict[int, str] = {}
        for old, key in self._keys.items():
            new = new_doc.get(key)
            if new is not None and new not in keys:
                doc_map[old] = new
                keys[new] = key
        self.store.optimize(doc_map)
        self._keys = keys

    def _add(self, docs: list[int], keys: list[str], vectors: np.ndarray, epoch: int) -> None:
        """Hold vectors for docs that are still live and waiting (others were removed); ids
        from before a renumbering mean other chunks now, so those vectors wait in SQLite."""
        assert self.store is not None
        if epoch != self._epoch:
            return
        ids = np.asarray(docs, dtype=np.int64)
        keep = np.isin(ids, self._pending)
        if not keep.any():
            return
        self.store.add(ids[keep], vectors[keep])
        for doc, key, k in zip(docs, keys, keep.tolist(), strict=True):
            if k:
                self._keys[doc] = key
        self._pending = np.setdiff1d(self._pending, ids[keep], assume_unique=True)

    # -- the backfill thread ------------------------------------------------------------------
    def _check(self) -> bool:
        """Health check; on success make the store, drop stale vectors and resume."""
        with self._check_lock:
            self._set_state(_CHECKING)
            try:
                self.embedder.health_check()
                dim = self.embedder.dim
                with self._ws.lock:
                    if self._stop.is_set():
                        return False
                    self._invalidate(dim)
                    if self.store is None or self.store.dim != dim:
                        self.store = make_store(self.store_kind, dim)
                        self._keys, self._index, self._seen = {}, None, (-1, -1)
                        self._epoch += 1
                    self._follow()
            except EmbedderUnavailable as exc:
                self._set_state(_UNAVAILABLE, str(exc))
                return False
            except ImportError as exc:
                self._set_state(_UNAVAILABLE, f"{self.store_kind} store: {exc}")
                return False
            self._set_state(_RUNNING)
            self._wake.set()
            return True

    def _invalidate(self, dim: int) -> None:
        """Drop vectors of another model or dimension, once per change (caller holds ws.lock)."""
        store = self._ws.store
        current = f"{self.embedder.name} dim={dim}"
        if store.meta("vectors_model") != current:
            with store.transaction():
                store.vectors.drop_vectors_except(self.embedder.name, 4 * dim)
                store.put_meta({"vectors_model": current})

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            if self._state == _CHECKING:
                self._check()
                continue
            if self._state == _UNAVAILABLE:
                self._wake.wait(self.retry_seconds)
                if not self._stop.is_set() and self._state == _UNAVAILABLE:
                    self._check()
                continue
            try:
                busy = self._step()
            except EmbedderUnavailable as exc:
                self._set_state(_UNAVAILABLE, str(exc))
                continue
            except Exception as exc:  # a busy or damaged database: BM25 must keep working
                if not self._stop.is_set():
                    self._set_state(_UNAVAILABLE, f"{exc.__class__.__name__}: {exc}")
                continue
            self._notify()
            if not busy:
                self._wake.wait(self.poll_seconds)

    def _step(self) -> bool:
        """Resolve some pending docs from SQLite, embed one batch of the rest; False when idle."""
        ws, name = self._ws, self.embedder.name
        with ws.lock:
            if self._stop.is_set() or self.store is None:
                return False
            self._follow()
            if not self._pending.size:
                return False
            dim, epoch = self.store.dim, self._epoch
            docs = self._pending[:_LOOKUP].tolist()
            rowids = ws.index.chunks.rowids(docs).tolist()
            key_of_row = ws.store.vectors.chunk_ids(rowids)
            orphans = [d for d, r in zip(docs, rowids, strict=True) if r not in key_of_row]
            if orphans:  # the database moved on (another writer); the next reload follows it
                self._pending = np.setdiff1d(self._pending, orphans, assume_unique=True)
                self._total -= len(orphans)
            known = [
                (d, r, key_of_row[r]) for d, r in zip(docs, rowids, strict=True) if r in key_of_row
            ]
            stored = ws.store.vectors.vectors_for([k for _, _, k in known], name)
            found = [(d, k) for d, _, k in known if k in stored]
            if found:
                matrix = blobs_to_matrix((stored[k] for _, k in found), dim)
                self._add([d for d, _ in found], [k for _, k in found], matrix, epoch)
                self.reused += len(found)
            todo = [(d, r, k) for d, r, k in known if k not in stored][: self.batch_size]
            texts = ws.store.chunk_texts([r for _, r, _ in todo])
        todo = [item for item in todo if item[1] in texts]
        if not todo:
            return True
        started = time.perf_counter()
        vectors = self.embedder.embed(["".join(texts[r][1:]) for _, r, _ in todo])
        self.embed_seconds += time.perf_counter() - started
        with ws.lock:
            if self._stop.is_set():
                return False
            with ws.store.transaction():
                ws.store.vectors.put_vectors(
                    name,
                    ((k, vector_to_blob(v)) for (_, _, k), v in zip(todo, vectors, strict=True)),
                )
            self.embedded += len(todo)
            self._follow()
            self._add([d for d, _, _ in todo], [k for _, _, k in todo], vectors, epoch)
        return True
