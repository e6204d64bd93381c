"""Search: BM25 (and optional vector) recall, RRF fusion, filters, link expansion (SPEC §8)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from reme_core.dates import NO_DATE, date_ordinal
from reme_core.query.chunk_check import ChunkCheck
from reme_core.query.expansion import expand_many
from reme_core.query.results import SearchHit, SearchResult
from reme_core.text.tokenizer import has_cjk
from reme_core.vectors.fusion import rrf_fuse

if TYPE_CHECKING:
    from reme_core.index.chunk_table import ChunkTable
    from reme_core.query.source import IndexReader

# `term*`: the word matches every term that starts with it, the most frequent first.
_PREFIX = re.compile(r"([^\s*\"]+)\*(?=\s|$)")
PREFIX_TERMS = 24

VectorSearch = Callable[[str, int, "np.ndarray | None"], tuple[np.ndarray, np.ndarray]]


@dataclass(slots=True)
class SearchFilters:
    """Restrictions applied before ranking so `limit` counts only eligible chunks."""

    start_date: str | None = None
    end_date: str | None = None
    paths: Sequence[str] = ()
    tags: Sequence[str] = ()
    exclude_paths: Sequence[str] = ()
    strict_dates: bool = False
    exclude_tags: Sequence[str] = ()

    def active(self) -> bool:
        return bool(
            self.start_date
            or self.end_date
            or self.paths
            or self.tags
            or self.exclude_paths
            or self.exclude_tags
        )


def file_mask(ws: IndexReader, filters: SearchFilters) -> np.ndarray:
    """Boolean mask over file slots of the files the filters admit."""
    index = ws.index
    mask = index.live_slots().copy()
    if filters.start_date or filters.end_date:
        mask &= index.files.date_mask(filters.start_date, filters.end_date, filters.strict_dates)
    if filters.paths:
        mask &= index.files.prefix_mask(filters.paths)
    if filters.exclude_paths:
        mask &= ~index.files.prefix_mask(filters.exclude_paths)
    if filters.tags:
        mask &= index.tag_slots({t.lower().lstrip("#") for t in filters.tags})
    if filters.exclude_tags:
        mask &= ~index.tag_slots({t.lower().lstrip("#") for t in filters.exclude_tags})
    return mask


def validate_date(value: str | None, name: str) -> None:
    """Refuse a date that is not `YYYY-MM-DD` with a message naming the option."""
    from reme_core.errors import RemeError

    if value and date_ordinal(value) == NO_DATE:
        raise RemeError(f"{name}: expected a date as YYYY-MM-DD, got {value!r}")


def run_search(
    ws: IndexReader,
    query: str,
    *,
    limit: int,
    min_score: float,
    filters: SearchFilters,
    vector_weight: float,
    expand_links: bool,
    max_links_per_direction: int,
    phrases: Sequence[str] = (),
    exclude_terms: Sequence[str] = (),
    vector_search: VectorSearch | None = None,
    group: bool = False,
) -> SearchResult:
    """The whole §8 pipeline; the caller holds the workspace lock."""
    validate_date(filters.start_date, "start_date")
    validate_date(filters.end_date, "end_date")
    result = SearchResult(query=query)
    settings = ws.config.search
    index = ws.index
    tokenizer = ws.tokenizer
    terms = tokenizer.query_terms(query)
    for phrase in phrases:
        terms += [t for t in tokenizer.query_terms(phrase) if t not in terms]
    limit = max(1, int(limit))
    candidates = min(settings.max_candidates, math.ceil(limit * settings.candidate_multiplier))
    if phrases or exclude_terms or group:
        candidates = settings.max_candidates
    mask, slots = _doc_mask(ws, filters)
    term_ids = [i for i in (index.vocab.id_of(t) for t in terms) if i is not None]
    term_ids += [i for i in prefix_term_ids(ws, query) if i not in term_ids]
    kw = _Recalled(*_keyword_recall(ws, terms, term_ids, candidates, mask, slots))
    vec_docs, vec_scores = np.zeros(0, np.int64), np.zeros(0)
    if vector_search is not None and query.strip():
        vec_docs, vec_scores = vector_search(query, candidates, mask)
    if not terms and not len(vec_docs) and filters.tags and not phrases:
        return _tagged_notes(ws, result, file_mask(ws, filters), limit)
    if not terms and not len(vec_docs):
        result.message = "Nothing to search for: the query has no words."
        result.counts = {"vector": 0, "keyword": 0, "returned": 0, "hybrid": False}
        return result
    hybrid = bool(len(kw.docs) and len(vec_docs))
    ranked = _fused(kw, vec_docs, vec_scores, vector_weight, min_score)
    others: dict[int, int] = {}
    if group:  # one block per note: its best chunk, and how many more of its chunks matched
        ranked, others = _best_per_note(index.chunks, ranked)
    shown = ranked if (phrases or exclude_terms) else ranked[:limit]
    scores = _Scores(kw.chunk_scores(), dict(zip(vec_docs.tolist(), vec_scores.tolist())), kw.names)
    hits, hit_docs = _hits(ws, shown, scores, others, phrases, exclude_terms, limit)
    _mark_matched(ws, query, term_ids, hits, hit_docs)
    hits.sort(key=lambda h: (-h.score, h.path, h.start_line))
    result.results = hits
    if expand_links:
        result.link_expansion = expand_many(ws, [h.path for h in hits], max_links_per_direction)
    result.counts = {
        "vector": len(vec_docs),
        "keyword": len(kw.docs),
        "returned": len(hits),
        "hybrid": hybrid,
    }
    if not hits:
        result.message = f"No results for {query!r}."
    return result


def _mark_matched(
    ws: IndexReader, query: str, term_ids: list[int], hits: list[SearchHit], docs: list[int]
) -> None:
    """Each hit's matched terms, as the query wrote them (not as their stems)."""
    tokenizer, index = ws.tokenizer, ws.index
    written = dict(zip(reversed(tokenizer.tokenize(query)), reversed(tokenizer.words(query))))
    vocab = index.vocab
    for hit, matched in zip(hits, index.bm25.matched_many(term_ids, docs), strict=True):
        hit.matched_terms = [written.get(term, term) for term in map(vocab.term, matched)]


def _doc_mask(
    ws: IndexReader, filters: SearchFilters
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The documents (and files) the filters let through; (None, None) without filters."""
    if not filters.active():
        return None, None
    slots = file_mask(ws, filters)
    return ws.index.chunks.doc_mask(slots), slots


def _fused(
    kw: _Recalled,
    vec_docs: np.ndarray,
    vec_scores: np.ndarray,
    vector_weight: float,
    min_score: float,
) -> list[tuple[int, float]]:
    """The candidates in score order: RRF of both branches when both found some, else the
    one that did; those under `min_score` dropped."""
    if len(kw.docs) and len(vec_docs):
        ranked = rrf_fuse(vec_docs.tolist(), kw.docs.tolist(), vector_weight)
    elif len(vec_docs):
        ranked = list(zip(vec_docs.tolist(), vec_scores.tolist()))
    else:
        ranked = list(zip(kw.docs.tolist(), kw.scores.tolist()))
    return [(d, s) for d, s in ranked if s >= min_score]


@dataclass(slots=True)
class _Recalled:
    """The keyword branch's candidates: BM25 (plus each note's name score, on its best
    chunk), and the name part of each score."""

    docs: np.ndarray
    scores: np.ndarray
    names: dict[int, float]

    def chunk_scores(self) -> dict[int, float]:
        """Each candidate's own BM25, without the name part (as the hit reports it)."""
        own = dict(zip(self.docs.tolist(), self.scores.tolist()))
        for doc, part in self.names.items():
            own[doc] -= part
        return own


@dataclass(slots=True)
class _Scores:
    """The parts of each candidate's score that a hit reports."""

    keyword: dict[int, float]
    vector: dict[int, float]
    name: dict[int, float]


def _keyword_recall(
    ws: IndexReader,
    terms: list[str],
    term_ids: list[int],
    candidates: int,
    mask: np.ndarray | None,
    slots: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, dict[int, float]]:
    """BM25 over the chunks, then the name field added to each named note's best chunk."""
    index = ws.index
    kw_docs, kw_scores = (
        index.bm25.search(term_ids, candidates, mask)
        if term_ids
        else (np.zeros(0, np.int64), np.zeros(0))
    )
    if ws.config.search.name_weight > 0 and terms:
        return _with_names(ws, terms, kw_docs, kw_scores, candidates, slots)
    return kw_docs, kw_scores, {}


def _hits(
    ws: IndexReader,
    shown: list[tuple[int, float]],
    scores: _Scores,
    others: dict[int, int],
    phrases: Sequence[str],
    exclude_terms: Sequence[str],
    limit: int,
) -> tuple[list[SearchHit], list[int]]:
    """The ranked documents as hits, text checked against the files, phrase and exclusion
    filters applied, up to `limit`; with the document of each hit."""
    files = ws.index.files
    # Per-hit columns in one gather each (numpy scalar reads cost more than the search's rest).
    at = np.fromiter((d for d, _ in shown), dtype=np.int64, count=len(shown))
    places = ws.index.chunks.places(at)
    texts = ws.store.chunk_texts(places.rowids)
    check = ChunkCheck(ws)  # stored text is shown only when it matches the file
    hits: list[SearchHit] = []
    hit_docs: list[int] = []
    for (doc, score), rowid, slot, start, end in zip(shown, *places, strict=True):
        row = texts.get(rowid)
        if row is not None:
            row = check.text(rowid, files.path(slot), start, end, row)
        if row is None:
            continue
        cid, prefix, body, suffix = row
        text = f"{prefix}{body}{suffix}"
        if not _passes(text, phrases, exclude_terms):
            continue
        hits.append(
            SearchHit(
                path=files.path(slot),
                start_line=start,
                end_line=end,
                text=text,
                score=float(score),
                keyword_score=scores.keyword.get(doc),
                vector_score=scores.vector.get(doc),
                name_score=scores.name.get(doc),
                chunk_id=cid,
                body=body,
                more=others.get(doc, 0),
            )
        )
        hit_docs.append(doc)
        if len(hits) >= limit:
            break
    return hits, hit_docs


def _tagged_notes(
    ws: IndexReader, result: SearchResult, slots: np.ndarray, limit: int
) -> SearchResult:
    """A tag without words lists the notes that have it: each note's first chunk, by path."""
    files = ws.index.files
    paths = sorted(files.path(i) for i in np.flatnonzero(slots).tolist())
    for path in paths[:limit]:
        for chunk in ws.chunks(path)[:1]:
            result.results.append(
                SearchHit(path, chunk.start_line, chunk.end_line, chunk.text, 0.0, body=chunk.body)
            )
    result.counts = {"vector": 0, "keyword": 0, "returned": len(result.results), "hybrid": False}
    result.message = f"{len(paths)} notes with that tag" if paths else "No note has that tag."
    return result


def _best_per_note(
    chunks: ChunkTable, ranked: list[tuple[int, float]]
) -> tuple[list[tuple[int, float]], dict[int, int]]:
    """The first (best) ranked chunk of each note, and the count of the note's others."""
    first: dict[int, int] = {}
    best: list[tuple[int, float]] = []
    others: dict[int, int] = {}
    slots = chunks.slots(np.fromiter((d for d, _ in ranked), np.int64, len(ranked))).tolist()
    for (doc, score), slot in zip(ranked, slots, strict=True):
        lead = first.get(slot)
        if lead is None:
            first[slot] = doc
            best.append((doc, score))
        else:
            others[lead] = others.get(lead, 0) + 1
    return best, others


def _with_names(
    ws: IndexReader,
    terms: list[str],
    docs: np.ndarray,
    scores: np.ndarray,
    k: int,
    slot_mask: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, dict[int, float]]:
    """The keyword ranking with each matching note's name score added to its best chunk
    (its top chunk among the candidates, else its first chunk); the name parts by doc."""
    index = ws.index
    weight = ws.config.search.name_weight
    cjk = any(map(has_cjk, terms))
    slots, name_scores = index.name_field(ws.tokenizer.tokenize, cjk).search(terms, k)
    if slot_mask is not None and len(slots):
        keep = slot_mask[slots]
        slots, name_scores = slots[keep], name_scores[keep]
    if not len(slots):
        return docs, scores, {}
    best: dict[int, int] = {}
    for doc, slot in zip(docs.tolist(), index.chunks.slots(docs).tolist(), strict=True):
        best.setdefault(slot, doc)  # docs come best first
    total = dict(zip(docs.tolist(), scores.tolist()))
    parts: dict[int, float] = {}
    for slot, name_score in zip(slots.tolist(), name_scores.tolist(), strict=True):
        doc = best.get(slot)
        if doc is None:
            chunks = index.chunks.docs_of(index.files.path(slot))
            if chunks is None or not len(chunks):
                continue  # a note of frontmatter only: no chunk to show
            doc = int(chunks[0])
        parts[doc] = weight * name_score
        total[doc] = total.get(doc, 0.0) + parts[doc]
    ranked = sorted(total.items(), key=lambda item: (-item[1], item[0]))
    out_docs = np.fromiter((d for d, _ in ranked), np.int64, len(ranked))
    out_scores = np.fromiter((s for _, s in ranked), np.float64, len(ranked))
    return out_docs, out_scores, parts


def prefix_term_ids(ws: IndexReader, query: str) -> list[int]:
    """Vocabulary ids that the query's `term*` words stand for (bounded per word)."""
    out: list[int] = []
    index = ws.index
    for word in _PREFIX.findall(query):
        words = ws.tokenizer.words(word)
        if not words:
            continue
        ids = index.vocab.with_prefix(words[-1], 50 * PREFIX_TERMS)
        if len(ids) > PREFIX_TERMS:
            sizes = index.bm25.posting_sizes(ids)
            ids = [ids[i] for i in np.argsort(-sizes, kind="stable")[:PREFIX_TERMS].tolist()]
        out += [i for i in ids if i not in out]
    return out


def _passes(text: str, phrases: Sequence[str], exclude_terms: Sequence[str]) -> bool:
    if not (phrases or exclude_terms):
        return True
    lowered = text.lower()
    if any(p.lower() not in lowered for p in phrases):
        return False
    return not any(t.lower() in lowered for t in exclude_terms)
