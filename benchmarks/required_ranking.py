"""The least a ranking that SPEC §8, §10 and §13 ask for does around the BM25 scorer, timed
part by part with the index's own parts: what `ranking / scorer` cannot go under without
dropping some of that work.

The parts, for each query: the check that no other process committed (§10: a CLI or an agent
beside the browser, each seeing the other's edits), the query's terms, the chunks' BM25 (the
scorer itself), the name field's BM25 (§13: known items rank first), the places and texts of
the ten shown chunks from SQLite (§10, §13: the text served is the stored one), and their
matched terms (§8). Left out, though the ranking does them: the property field (§14 asks
for it too: this is a lower bound), the known-item rule, merging the fields into the chunks,
the text check against the files, the filters, building the hits.
"""

from __future__ import annotations

import time
from typing import Any

from benchmarks.measure import median

PARTS = ("freshness", "terms", "chunks", "names", "texts", "matched")


class RequiredRanking:
    """Call it with a query; each part's seconds are kept by name (`PARTS`)."""

    def __init__(self, ws: Any, candidates: int, limit: int = 10) -> None:
        from reme_core.index.name_field import NAMES
        from reme_core.ports import search_index

        self.ws, self.k, self.limit, self.kind = ws, candidates, limit, NAMES
        self.port = search_index(ws)
        self.parts: dict[str, list[float]] = {p: [] for p in PARTS}

    def __call__(self, query: str) -> None:
        port = self.port
        t0 = time.perf_counter()
        self.ws.refresh_if_changed()
        t1 = time.perf_counter()
        with port.lock:  # as the ranking reads the index
            self._ranked(query, [t0, t1])

    def _ranked(self, query: str, ticks: list[float]) -> None:
        port = self.port
        index, tok = port.index, port.tokenizer  # looked up per search, as the ranking does
        terms = list(dict.fromkeys(tok.stem(tok.words(query))))
        ids = [i for i in map(index.vocab.id_of, terms) if i is not None]
        ticks.append(time.perf_counter())
        docs, _ = index.bm25.search(ids, self.k)
        ticks.append(time.perf_counter())
        index.name_field(tok.tokenize_many, False, self.kind).search(terms, self.k)
        ticks.append(time.perf_counter())
        shown = docs[: self.limit]
        port.store.chunk_texts(index.chunks.places(shown).rowids)
        ticks.append(time.perf_counter())
        index.bm25.matched_many(ids, shown.tolist())
        ticks.append(time.perf_counter())
        for part, a, b in zip(PARTS, ticks[:-1], ticks[1:], strict=True):
            self.parts[part].append(b - a)

    def medians_ms(self) -> dict[str, float]:
        """Each part's median, in ms (`required_<part>_p50_ms`)."""
        return {f"required_{p}_p50_ms": median(s) * 1000 for p, s in self.parts.items()}
