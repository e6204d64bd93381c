"""Search: BM25 (and optional vector) recall, fusion, filters, link expansion (SPEC §8)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from reme_core.index.bm25 import top_k_of
from reme_core.index.name_field import NAMES, PROPERTIES
from reme_core.query.chunk_check import ChunkCheck
from reme_core.query.expansion import expand_many
from reme_core.query.filters import SearchFilters, file_mask, validate_date
from reme_core.query.known_item import exact_name_docs, names_first
from reme_core.query.notes import note_chunks
from reme_core.query.options import ResolvedOptions
from reme_core.query.results import SearchHit, SearchOutcome, SearchResult
from reme_core.query.text_checks import TextChecks, note_fields_text
from reme_core.text.tokenizer import has_cjk
from reme_core.vectors.fusion import fuse

if TYPE_CHECKING:
    from reme_core.config import SearchSettings
    from reme_core.index.chunk_table import ChunkTable
    from reme_core.index.memory_index import MemoryIndex
    from reme_core.index.name_field import FieldKind
    from reme_core.ports import SearchIndex
    from reme_core.text.tokenizer import Tokenizer

# `term*`: the word matches every term that starts with it, the most frequent first. The
# look-behind starts a match only where a word starts: without it a long word with no `*`
# was tried again from each of its characters (quadratic: 80k characters took 81 s).
_PREFIX = re.compile(r"(?<![^\s*\"])([^\s*\"]+)\*(?=\s|$)")
PREFIX_TERMS = 24
_NO_SLOTS, _NO_SCORES = np.zeros(0, np.int64), np.zeros(0)  # a field that matched nothing

VectorSearch = Callable[[str, int, "np.ndarray | None"], tuple[np.ndarray, np.ndarray]]


def run_search(
    ws: SearchIndex,
    query: str,
    options: ResolvedOptions,
    filters: SearchFilters,
    checks: TextChecks,
    vector_search: VectorSearch | None = None,
) -> SearchResult:
    """The whole §8 pipeline; the caller holds the workspace lock."""
    validate_date(filters.start_date, "start_date")
    validate_date(filters.end_date, "end_date")
    result = SearchResult(query=query)
    index, tokenizer = ws.index, ws.tokenizer
    phrases = checks.phrases
    # The query's words and their terms, once: the recall, the known-item rule and the
    # matched terms all read them.
    words = tokenizer.words(query)
    stems = tokenizer.stem(words)
    terms = _query_terms(tokenizer, stems, [*phrases, *(w for g in checks.lines for w in g)])
    limit, group = options.limit, options.group
    candidates = _candidate_count(ws.config.search, limit, bool(checks) or group)
    mask, slots = _doc_mask(index, filters)
    term_ids = [i for i in (index.vocab.id_of(t) for t in terms) if i is not None]
    term_ids = list(dict.fromkeys([*term_ids, *prefix_term_ids(index, tokenizer, query)]))
    kw = _Recalled(*_keyword_recall(ws, terms, term_ids, candidates, mask, slots))
    vec_docs, vec_scores = np.zeros(0, np.int64), np.zeros(0)
    if vector_search is not None and query.strip():
        vec_docs, vec_scores = vector_search(query, candidates, mask)
    if not terms and not len(vec_docs) and filters.lists() and not phrases:
        return _listed_notes(ws, result, file_mask(index, filters), limit, options.order)
    if not terms and not len(vec_docs):
        result.outcome = SearchOutcome.NO_WORDS
        result.counts = _counts(0, 0, 0, hybrid=False)
        return result
    fusion = ws.config.search.fusion
    ranked = _fused(kw, vec_docs, vec_scores, options, fusion, any(map(has_cjk, terms)))
    ranked = names_first(ranked, exact_name_docs(ws, query, stems, kw.names))
    others: dict[int, int] = {}
    if group:  # one block per note: its best chunk, and how many more of its chunks matched
        ranked, others = _best_per_note(index.chunks, ranked)
    shown = ranked if checks else ranked[:limit]
    vec = dict(zip(vec_docs.tolist(), vec_scores.tolist()))
    scores = _Scores(kw.chunk_scores(), vec, kw.names, kw.props)
    hits, hit_docs = _hits(ws, shown, scores, others, checks, limit)
    _mark_matched(index, words, stems, term_ids, hits, hit_docs)
    hits.sort(key=lambda h: (-h.score, h.path, h.start_line))
    result.results = hits
    if options.expand_links:
        paths = [h.path for h in hits]
        result.link_expansion = expand_many(index, paths, options.max_links_per_direction)
    hybrid = bool(len(kw.docs) and len(vec_docs))
    result.counts = _counts(len(vec_docs), len(kw.docs), len(hits), hybrid=hybrid)
    if not hits:
        result.outcome = SearchOutcome.NO_RESULTS
    return result


def _query_terms(tokenizer: Tokenizer, stems: list[str], phrases: Sequence[str]) -> list[str]:
    """The query's distinct terms (``stems``: all of them, in order), then those of each
    phrase not among them yet."""
    terms = list(dict.fromkeys(stems))
    for phrase in phrases:
        terms += [t for t in tokenizer.query_terms(phrase) if t not in terms]
    return terms


def _candidate_count(settings: SearchSettings, limit: int, exhaustive: bool) -> int:
    """How many documents each branch recalls: a multiple of `limit`, capped; the cap itself
    when hits are filtered after ranking (phrases, exclusions) or grouped by note."""
    if exhaustive:
        return settings.max_candidates
    return min(settings.max_candidates, math.ceil(limit * settings.candidate_multiplier))


def _counts(vector: int, keyword: int, returned: int, *, hybrid: bool) -> dict[str, int | bool]:
    """What each branch found and how many hits came back (`SearchResult.counts`)."""
    return {"vector": vector, "keyword": keyword, "returned": returned, "hybrid": hybrid}


def _mark_matched(
    index: MemoryIndex,
    words: list[str],
    stems: list[str],
    term_ids: list[int],
    hits: list[SearchHit],
    docs: list[int],
) -> None:
    """Each hit's matched terms, as the query wrote them (``words``; ``stems``: their
    terms), not as their stems."""
    written = dict(zip(reversed(stems), reversed(words)))
    vocab = index.vocab
    for hit, matched in zip(hits, index.bm25.matched_many(term_ids, docs), strict=True):
        hit.matched_terms = [written.get(term, term) for term in map(vocab.term, matched)]


def _doc_mask(
    index: MemoryIndex, filters: SearchFilters
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The documents (and files) the filters let through; (None, None) without filters."""
    if not filters.active():
        return None, None
    slots = file_mask(index, filters)
    return index.chunks.doc_mask(slots), slots


def _fused(
    kw: _Recalled,
    vec_docs: np.ndarray,
    vec_scores: np.ndarray,
    options: ResolvedOptions,
    fusion: str,
    cjk: bool,
) -> list[tuple[int, float]]:
    """The candidates in score order: both branches fused by `fusion` when both found some,
    else the one that did; those under `min_score` dropped."""
    if len(kw.docs) and len(vec_docs):
        vector = (vec_docs.tolist(), vec_scores.tolist())
        keyword = (kw.docs.tolist(), kw.scores.tolist())
        ranked = fuse(fusion, vector, keyword, kw.names, cjk=cjk, rrf_weight=options.vector_weight)
    elif len(vec_docs):
        ranked = list(zip(vec_docs.tolist(), vec_scores.tolist()))
    else:
        ranked = list(zip(kw.docs.tolist(), kw.scores.tolist()))
    return [(d, s) for d, s in ranked if s >= options.min_score]


@dataclass(slots=True)
class _Recalled:
    """The keyword branch's candidates: BM25 (plus each note's name and property scores, on
    its best chunk), and the name and property parts of each score."""

    docs: np.ndarray
    scores: np.ndarray
    names: dict[int, float]
    props: dict[int, float]

    def chunk_scores(self) -> dict[int, float]:
        """Each candidate's own BM25, without the field parts (as the hit reports it)."""
        own = dict(zip(self.docs.tolist(), self.scores.tolist()))
        for parts in (self.names, self.props):
            for doc, part in parts.items():
                own[doc] -= part
        return own


@dataclass(slots=True)
class _Scores:
    """The parts of each candidate's score that a hit reports."""

    keyword: dict[int, float]
    vector: dict[int, float]
    name: dict[int, float]
    prop: dict[int, float]


def _keyword_recall(
    ws: SearchIndex,
    terms: list[str],
    term_ids: list[int],
    candidates: int,
    mask: np.ndarray | None,
    slots: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, dict[int, float], dict[int, float]]:
    """BM25 over the chunks, then the name and property fields added to each matching
    note's best chunk; with the name and property parts by doc."""
    index, settings = ws.index, ws.config.search
    docs, scores = (
        index.bm25.search(term_ids, candidates, mask)
        if term_ids
        else (np.zeros(0, np.int64), np.zeros(0))
    )
    fields: list[tuple[np.ndarray, np.ndarray, float]] = []
    for kind, weight in ((NAMES, settings.name_weight), (PROPERTIES, settings.property_weight)):
        found = _field_matches(ws, kind, terms, candidates, slots) if weight > 0 and terms else None
        fields.append((*found, weight) if found is not None else (_NO_SLOTS, _NO_SCORES, weight))
    return _with_fields(ws.index, (docs, scores), fields)


def _hits(
    ws: SearchIndex,
    shown: list[tuple[int, float]],
    scores: _Scores,
    others: dict[int, int],
    checks: TextChecks,
    limit: int,
) -> tuple[list[SearchHit], list[int]]:
    """The ranked documents as hits, text checked against the files, phrase, `line:` and
    exclusion filters applied, up to `limit`; with the document of each hit."""
    files, nodes = ws.index.files, ws.index.nodes
    # Per-hit columns in one gather each (numpy scalar reads cost more than the search's rest).
    at = np.fromiter((d for d, _ in shown), dtype=np.int64, count=len(shown))
    places = ws.index.chunks.places(at)
    texts = ws.store.chunk_texts(places.rowids)
    check = ChunkCheck(ws.root, ws.config, ws.index.checked_rows)  # text shown only as on disk
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
        if checks and not checks.passes(
            text, functools.partial(note_fields_text, nodes, files.path(slot))
        ):
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
                property_score=scores.prop.get(doc),
                chunk_id=cid,
                body=body,
                more=others.get(doc, 0),
            )
        )
        hit_docs.append(doc)
        if len(hits) >= limit:
            break
    return hits, hit_docs


def _listed_notes(
    ws: SearchIndex, result: SearchResult, slots: np.ndarray, limit: int, order: str
) -> SearchResult:
    """Filters without words (`path:`, `tag:`, dates, `[prop]`, `file:`) list the notes they
    admit: each note's first chunk, by path or (`order` "mtime") last modified first."""
    index = ws.index
    admitted = np.flatnonzero(slots)
    if order == "mtime":
        mtimes = index.stat_columns()[1][admitted]
        # A file stored "racily clean" (RACY_MTIME, negative) was written moments before it
        # was read: it is among the newest.
        mtimes = np.where(mtimes < 0, np.inf, mtimes)
        admitted = admitted[np.argsort(-mtimes, kind="stable")]
    paths = [index.files.path(i) for i in admitted.tolist()]
    if order == "name":
        paths.sort()
    check = ChunkCheck(ws.root, ws.config, index.checked_rows)
    for path in paths:
        for chunk in note_chunks(index, ws.store, check, path)[:1]:
            result.results.append(
                SearchHit(path, chunk.start_line, chunk.end_line, chunk.text, 0.0, body=chunk.body)
            )
        if len(result.results) >= limit:
            break
    result.counts = _counts(0, 0, len(result.results), hybrid=False)
    result.outcome = SearchOutcome.LISTED if paths else SearchOutcome.NONE_LISTED
    result.matched = len(paths)
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


def _field_matches(
    ws: SearchIndex, kind: FieldKind, terms: list[str], k: int, slot_mask: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """The `k` best (file slots, field scores) of a field (names or property values) for
    the query's terms, those the filters let through; None when none matched."""
    field = ws.index.name_field(ws.tokenizer.tokenize_many, any(map(has_cjk, terms)), kind)
    slots, field_scores = field.search(terms, k)
    if slot_mask is not None and len(slots):
        keep = slot_mask[slots]
        slots, field_scores = slots[keep], field_scores[keep]
    return (slots, field_scores) if len(slots) else None


def _with_fields(
    index: MemoryIndex,
    ranked: tuple[np.ndarray, np.ndarray],
    fields: list[tuple[np.ndarray, np.ndarray, float]],
) -> tuple[np.ndarray, np.ndarray, dict[int, float], dict[int, float]]:
    """The keyword ranking (docs, scores) with each matching note's field scores (names,
    then property values: (slots, scores, weight) each) added to its best chunk (its top
    chunk among the candidates, else its first chunk); the fields' parts by doc.

    A field part only raises the chunk it lands on, so a note's best chunk is the same
    for every field: both are added in one pass, in the order one pass per field would
    add them (the same sums, bit for bit)."""
    docs, scores = ranked
    if not any(len(slots) for slots, _, _ in fields):
        return docs, scores, {}, {}
    # Each ranked note's best doc: the first of its docs (they come best first); the first
    # doc of a note not ranked; -1 for a note of frontmatter only (no chunk to show). A few
    # hundred items at most: dicts, numpy's fixed cost per call was most of this merge.
    doc_list = docs.tolist()
    # Built backwards: a note's first doc is the last one written for its slot.
    best = dict(zip(index.chunks.slots(docs[::-1]).tolist(), doc_list[::-1], strict=True))
    asked = [slot for slots, _, _ in fields for slot in slots.tolist()]
    unranked = [slot for slot in dict.fromkeys(asked) if slot not in best]
    if unranked:
        firsts = index.chunks.first_docs(np.array(unranked, dtype=np.int64), index.files.path)
        best.update(zip(unranked, firsts.tolist(), strict=True))
    # Each doc's chunk score plus its field scores, added in this order (as one bincount
    # over chunks, names, properties adds them), best first, then by doc id.
    total = dict(zip(doc_list, scores.tolist(), strict=True))
    parts: list[dict[int, float]] = []
    for slots, field_scores, weight in fields:
        part: dict[int, float] = {}
        for slot, score in zip(slots.tolist(), field_scores.tolist(), strict=True):
            doc = best[slot]
            if doc >= 0:
                part[doc] = added = weight * score
                total[doc] = total.get(doc, 0.0) + added
        parts.append(part)
    out_docs, out_scores = top_k_of(total, len(total))
    return out_docs, out_scores, parts[0], parts[1]


def prefix_term_ids(index: MemoryIndex, tokenizer: Tokenizer, query: str) -> list[int]:
    """Vocabulary ids that the query's `term*` words stand for (bounded per word)."""
    out: dict[int, None] = {}  # ordered and deduplicated in linear time
    for word in dict.fromkeys(_PREFIX.findall(query)):
        words = tokenizer.words(word)
        if not words:
            continue
        ids = index.vocab.with_prefix(words[-1], 50 * PREFIX_TERMS)
        if len(ids) > PREFIX_TERMS:
            sizes = index.bm25.posting_sizes(ids)
            ids = [ids[i] for i in np.argsort(-sizes, kind="stable")[:PREFIX_TERMS].tolist()]
        out.update(dict.fromkeys(ids))
    return list(out)
