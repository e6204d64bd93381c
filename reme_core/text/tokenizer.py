"""One tokenizer for documents and queries, so a query term matches exactly what was indexed.

Latin/digit runs (``\\w`` minus CJK, accents kept) are lower-cased words; underscores join
words (``snake_case``) but edge underscores are dropped, so ``__bold__`` finds ``bold``.
Han runs go through jieba's search mode (the longest word plus its sub-words; computed by
rjieba where installed, see ``segmenter``), or become character bigrams with
``use_jieba=False``; kana and Hangul runs always become bigrams
(jieba only knows Han and would split them into single characters).

With ``stemmer="english"`` (the workspace default) every word is then reduced to its Snowball
English stem through PyStemmer, so "tripling capacities" meets "Capacity tripled"; the
stemmer changes only Latin letters, so CJK terms pass through as they are.

Speed matters more than elegance here: the indexer tokenises tens of millions of words. Text
is cut into pieces at ASCII punctuation and whitespace by one byte-level ``translate`` and a
``split`` (no token spans those characters); pieces that are pure ASCII are words already
(edge underscores stripped), and only the few pieces holding non-ASCII characters go through
the CJK split and the Unicode word pattern.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
import unicodedata
from collections.abc import Callable
from itertools import repeat

from reme_core.text import segmenter

_HAN = "\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_KANA_HANGUL = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\uac00-\ud7af"
# Two groups: re.split yields [other, han, kana/hangul, other, han, kana/hangul, ..., other].
_CJK_SPLIT_PATTERN = f"([{_HAN}]+)|([{_KANA_HANGUL}]+)"
_CJK_CHAR_PATTERN = f"[{_HAN}{_KANA_HANGUL}]"
_WORD = re.compile(r"[^\W_]+(?:_+[^\W_]+)*")
_WORD_BYTES = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyz_")
# Byte tables for ``bytes.translate``: ASCII other than [a-z0-9_] becomes a space (upper case
# is lowered in the ASCII table); UTF-8 bytes of non-ASCII characters are kept as they are.
_PIECES = bytes(b if b in _WORD_BYTES or b >= 0x80 else 0x20 for b in range(256))
_PIECES_ASCII = bytes(
    b + 32 if 65 <= b <= 90 else b if b in _WORD_BYTES else 0x20 for b in range(256)
)
_UNDERSCORE = "_"
_WORD_RUN = re.compile(r"[^\W_]+")

# A word longer than this is cut to its first MAX_TERM_CHARS characters, in documents and
# queries alike, so a long query word still finds the long word it was cut from (Lucene's and
# Elasticsearch's default token length). Words of a language are far shorter: the cap only
# touches blobs (hashes, minified code), and it bounds the work a pasted 200k-character word
# can make (stemming, prefix look-ups, highlighting).
MAX_TERM_CHARS = 255
STEMMERS = ("english", "none")
_stemmers = threading.local()  # a PyStemmer object is not to be shared between threads


def _strip_edges(words: list[str]) -> list[str]:
    """ASCII pieces of ``[a-z0-9_]`` as words: edge underscores dropped, empty pieces too."""
    return list(filter(None, map(str.strip, words, repeat(_UNDERSCORE))))


@functools.cache
def _cjk_split() -> re.Pattern[str]:
    """Compiled on first non-ASCII text: the CJK classes took 4.5 ms of every start-up."""
    return re.compile(_CJK_SPLIT_PATTERN)


@functools.cache
def _cjk_char() -> re.Pattern[str]:
    return re.compile(_CJK_CHAR_PATTERN)


def _bigrams(run: str) -> list[str]:
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _stem_words(name: str) -> Callable[[list[str]], list[str]]:
    """This thread's Snowball stemmer for ``name`` (PyStemmer keeps a cache of its own)."""
    stem = getattr(_stemmers, name, None)
    if stem is None:
        import Stemmer

        stem = Stemmer.Stemmer(name).stemWords
        setattr(_stemmers, name, stem)
    return stem


class Tokenizer:
    """Text to search terms; deterministic for a given mode, stemmer and jieba dictionary."""

    def __init__(self, use_jieba: bool = True, stemmer: str = "none") -> None:
        if stemmer not in STEMMERS:
            raise ValueError(f"stemmer must be one of {', '.join(STEMMERS)}, got {stemmer!r}")
        self.use_jieba = use_jieba
        self.stemmer = stemmer

    def tokenize(self, text: str) -> list[str]:
        """Terms of ``text`` in reading order, duplicates kept (term frequencies need them)."""
        return self.stem(self.words(text))

    def stem(self, words: list[str]) -> list[str]:
        """The terms of `words` (one per word, in order): a word's term depends on that word
        alone, so a caller that sees a word many times may stem it once."""
        if self.stemmer == "none" or not words:
            return words
        return _stem_words(self.stemmer)(words)

    def warm_up(self) -> bool:
        """Load the Han segmenter now (e.g. in a UI thread); True when rjieba or jieba is used."""
        return self.use_jieba and segmenter.load() is not None

    def tokenize_many(self, texts: list[str]) -> list[list[str]]:
        """`tokenize` of each text, the stemming done in one call for all of them (the name
        field tokenises 50k short names: a stemmer call each was a quarter of its build)."""
        words = list(map(self.words, texts))
        if self.stemmer == "none":
            return words
        terms = self.stem(list(itertools.chain.from_iterable(words)))
        out: list[list[str]] = []
        at = 0
        for text_words in words:
            out.append(terms[at : at + len(text_words)])
            at += len(text_words)
        return out

    def words(self, text: str) -> list[str]:
        """The words of ``text`` before stemming (what a prefix is matched against), each
        cut to MAX_TERM_CHARS."""
        words = self._words(text)
        if max(map(len, words), default=0) > MAX_TERM_CHARS:
            return [w[:MAX_TERM_CHARS] for w in words]
        return words

    def _words(self, text: str) -> list[str]:
        if text.isascii():
            words = text.encode("ascii").translate(_PIECES_ASCII).decode("ascii").split()
            return _strip_edges(words) if _UNDERSCORE in text else words
        text = unicodedata.normalize("NFKC", text).lower()
        pieces = (
            text.encode("utf-8", "surrogatepass")
            .translate(_PIECES)
            .decode("utf-8", "surrogatepass")
            .split()
        )
        ascii_flags = list(map(str.isascii, pieces))
        underscores = _UNDERSCORE in text
        out: list[str] = []
        start = 0
        while start <= len(pieces):
            try:
                end = ascii_flags.index(False, start)
            except ValueError:
                end = len(pieces)
            out.extend(_strip_edges(pieces[start:end]) if underscores else pieces[start:end])
            if end < len(pieces):
                out.extend(self._mixed(pieces[end]))
            start = end + 1
        return out

    def _mixed(self, piece: str) -> list[str]:
        """Terms of a normalised, lower-cased piece that holds non-ASCII characters."""
        parts = _cjk_split().split(piece)
        out = _WORD.findall(parts[0])
        cut = segmenter.load() if self.use_jieba and len(parts) > 1 else None
        for i in range(1, len(parts), 3):
            han, other, rest = parts[i], parts[i + 1], parts[i + 2]
            if han:
                out.extend(cut(han) if cut else _bigrams(han))
            else:
                out.extend(_bigrams(other))
            if rest:
                out.extend(_WORD.findall(rest))
        return out

    def query_terms(self, text: str) -> list[str]:
        """Distinct terms of a query in first-seen order (BM25 counts each query term once)."""
        return list(dict.fromkeys(self.tokenize(text)))


_TOKENIZERS: dict[tuple[bool, str], Tokenizer] = {}


def tokenizer_for(use_jieba: bool, stemmer: str = "none") -> Tokenizer:
    """One tokenizer per process and mode, so jieba's dictionary loads once."""
    tok = _TOKENIZERS.get((use_jieba, stemmer))
    if tok is None:
        tok = _TOKENIZERS[use_jieba, stemmer] = Tokenizer(use_jieba, stemmer)
    return tok


def has_cjk(text: str) -> bool:
    """Whether text holds Han, kana or Hangul (whose terms need jieba or bigrams)."""
    return not text.isascii() and _cjk_char().search(text) is not None


def without_cjk(text: str) -> str:
    """The text with its CJK characters blanked: its Latin words, without loading jieba."""
    return text if text.isascii() else _cjk_char().sub(" ", text)


def est_tokens(text: str) -> int:
    """Crude cost for budgets (seed 002): one per latin word plus one per CJK character."""
    if text.isascii():
        return len(_WORD_RUN.findall(text))
    cjk_char = _cjk_char()
    return len(cjk_char.findall(text)) + len(_WORD_RUN.findall(cjk_char.sub(" ", text)))
