"""Han runs to search-mode words: rjieba (Rust) when present, jieba (the reference) otherwise.

jieba is the reference segmenter: its search mode with the HMM off (``cut_for_search(run,
HMM=False)``) defines the Chinese terms of the index. Loading its dictionary costs about a
second in every fresh process, which a one-word CLI search pays in full. rjieba 0.2.2 is a
Rust port that ships the same dictionary and loads it in ~0.15 s; it is used only because its
search-mode cut is identical to jieba's on every Han run of the bundled demo and of the public
Chinese vault, and on 50,000 random runs of dictionary words mixed with rare Han characters
(0 mismatches; ``benchmarks/segmenter_check.py`` repeats the check, ``tests/test_tokenizer.py``
keeps it on the demo). So the index terms, and with them the index fingerprint, are the same
whichever of the two a process loads, and processes using either can share one index.

Unknown words fall back to single characters (HMM off) on the document and the query side
alike, instead of context-dependent guesses that may not line up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import lru_cache, partial

Cut = Callable[[str], Sequence[str]]

_lock = threading.Lock()
_cut: Cut | None = None
_failed = False
backend = ""  # "rjieba" or "jieba" once loaded; "" before, or when neither can be imported


def jieba_cut() -> Cut:
    """The reference: jieba's search-mode cut with its dictionary loaded (raises if missing)."""
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    cut = partial(jieba.dt.cut_for_search, HMM=False)
    # jieba is pure Python (~3M chars/s); headings repeat in every chunk's prefix and phrases
    # recur, so a small cache of whole runs pays for itself. Small: a run seldom recurs far
    # away, and 64k runs held ~45 MB in every pool worker.
    return lru_cache(maxsize=1 << 12)(lambda run: tuple(cut(run)))


def rjieba_cut() -> Cut:
    """rjieba's search-mode cut (HMM off); raises ImportError when rjieba is not installed."""
    import rjieba

    return partial(rjieba.cut_for_search, hmm=False)


def load() -> Cut | None:
    """The process's Han segmenter, loaded once and quietly; None when neither is available."""
    global _cut, _failed, backend
    if _cut is not None or _failed:
        return _cut
    with _lock:
        if _cut is None and not _failed:
            for name, make in (("rjieba", rjieba_cut), ("jieba", jieba_cut)):
                try:
                    _cut, backend = make(), name
                    break
                except Exception:  # import or dictionary failure: try the next, then bigrams
                    continue
            _failed = _cut is None
        return _cut
