"""One file in, one node + chunks + token counts out, a batch at a time (reme_core.parse.parse_pool
runs batches in a process pool).

Each pool worker numbers terms in a term space of its own that lasts the whole job, and a batch
ships only the terms its worker never sent before: the parent maps each distinct term to the
global vocabulary once per worker (not once per batch), then translates ids with one gather.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reme_core.errors import FileRefused
from reme_core.files.paths import regular_inside
from reme_core.files.text_decode import decode_text, looks_binary
from reme_core.gc_pause import bulk_objects
from reme_core.index.link_resolution import normalize_target
from reme_core.models import FileLink, FileNode, ParsedFile, content_hash
from reme_core.parse.frontmatter import split_frontmatter
from reme_core.parse.markdown_chunker import chunk_markdown_scanned
from reme_core.parse.note_names import NameTerms, name_terms_of, property_text
from reme_core.parse.parsed_columns import ParsedColumns
from reme_core.parse.settings import ParseSettings
from reme_core.parse.tags import inline_tags
from reme_core.parse.text_chunker import chunk_text
from reme_core.parse.wikilinks import find_markdown_links, find_wikilinks, remember_code_lines
from reme_core.text.tokenizer import Tokenizer, tokenizer_for
from reme_core.text.vocabulary import Vocabulary

VANISHED = "vanished"


@dataclass(slots=True)
class ParsedBatch:
    """Parsed files of one batch (as columns: `ParsedColumns`) with their chunks' term
    counts as flat arrays.

    ``term_idx`` indexes the batch's term space: ``terms`` are the ones new to it (ids from
    ``space[1]`` on, for a pool worker's space; from 0 for a batch of its own). `TermSpaces`
    turns them into vocabulary ids.
    """

    parsed: ParsedColumns = field(default_factory=ParsedColumns)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    space: tuple[int, int] | None = None  # (worker pid, size of its term space before)
    doc_nterms: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    term_idx: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    tfs: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    names: NameTerms | None = None  # the files' name terms, when asked for (a rebuild)
    props: NameTerms | None = None  # and their property terms


class _WordIds(dict[str, int]):
    """Words to term ids; an unknown word is -1 (a plain lookup, without `get`'s default
    argument, is a quarter faster over a batch's 200k words)."""

    __slots__ = ()

    def __missing__(self, word: str) -> int:
        return -1


class _TermSpace:
    """Term ids local to one worker (or one batch), looked up by the word before stemming.

    A word is stemmed the first time this space sees it (stemming every token was a quarter
    of a worker's time); its term id is then one dict lookup per occurrence.
    """

    def __init__(self, job: str = "") -> None:
        self.job = job
        self.terms: dict[str, int] = {}  # term -> id, in first-seen order
        self.word_ids = _WordIds()  # word -> its term's id

    def add(self, words: list[str], tokenizer: Tokenizer) -> tuple[list[str], np.ndarray]:
        """Every word's term id (int64), and the terms new to this space, in the order their
        first words appear (the order the vocabulary assigns ids in).

        One dict pass over the words: unknown ones come back as -1 and only they (a few of
        a batch) are stemmed, numbered and put in place.
        """
        word_ids, terms = self.word_ids, self.terms
        ids = np.fromiter(map(word_ids.__getitem__, words), dtype=np.int64, count=len(words))
        unknown = np.flatnonzero(ids < 0).tolist()
        if not unknown:
            return [], ids
        fresh = list(dict.fromkeys(map(words.__getitem__, unknown)))
        new: list[str] = []
        for word, term in zip(fresh, tokenizer.stem(fresh), strict=True):
            term_id = terms.get(term)
            if term_id is None:
                term_id = terms[term] = len(terms)
                new.append(term)
            word_ids[word] = term_id
        ids[unknown] = [word_ids[words[i]] for i in unknown]
        return new, ids


# This process's term space while it serves a pool job.
_SPACE = _TermSpace()


# Not blocking (a FIFO), not inherited; the flags a platform lacks are left out.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_stable(path: Path, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """Read a file, re-reading when it changed while being read (size or mtime moved).

    One descriptor for the stat before, the read and the stat after (path look-ups were
    half the cost of reading a small note); it opens without blocking, so a FIFO put in a
    file's place after the walk cannot hang the parse.
    """
    for _ in range(3):
        fd = os.open(path, _READ_FLAGS)
        try:
            before = os.fstat(fd)
            if before.st_size > max_bytes:
                raise FileRefused(
                    f"larger than max_file_bytes ({before.st_size} > {max_bytes} bytes)"
                )
            data = _read_all(fd, before.st_size)
            after = os.fstat(fd)
        finally:
            os.close(fd)
        if (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size) and len(
            data
        ) == after.st_size:
            return data, after
    return data, after


def _read_all(fd: int, size: int) -> bytes:
    """Everything from `fd`, expected to be `size` bytes (one read when it is)."""
    data = os.read(fd, size + 1)
    if len(data) <= size and (len(data) == size or not data):
        return data
    parts = [data]
    while block := os.read(fd, 1 << 20):
        parts.append(block)
    return b"".join(parts)


def parse_file(root: Path, relpath: str, settings: ParseSettings) -> ParsedFile:
    """Decode, split frontmatter, chunk and collect links of one file; raises on refusal."""
    data, st = read_stable(root / relpath, settings.max_file_bytes)
    if looks_binary(data):
        raise FileRefused("binary file (NUL byte in the first 8 KiB)")
    text, warnings = decode_text(data, relpath, settings.encoding, settings.invalid_encoding_policy)
    node = FileNode(
        path=relpath,
        st_mtime=st.st_mtime,
        size=st.st_size,
        content_hash=content_hash(data),
        warnings=list(warnings),
    )
    if relpath.endswith(".md"):
        fm = split_frontmatter(text)
        node.frontmatter = fm.data
        if fm.warning:
            node.warnings.append(fm.warning)
        chunks, code = chunk_markdown_scanned(
            relpath, text, fm.end_line + 1, settings.chunk_max_bytes
        )
        if code is not None:  # the links and tags below are found outside it, unscanned
            remember_code_lines(text, code)
        if settings.markdown_links:
            node.inline_tags = inline_tags(text, fm.end_line + 1)
    else:
        chunks = chunk_text(relpath, text, settings.chunk_max_bytes)
    node.links = collect_links(relpath, text, settings.markdown_links and relpath.endswith(".md"))
    node.chunk_ids = [c.id for c in chunks]
    return ParsedFile(node=node, chunks=chunks)


def collect_links(relpath: str, text: str, markdown_links: bool) -> list[FileLink]:
    """Wikilinks (and, for Obsidian vaults, local Markdown links) as literal targets."""
    links: list[FileLink] = []
    if "[[" in text:
        for m in find_wikilinks(text):
            if not m.target:
                continue
            target = normalize_target(relpath, m.target, relative=False) or m.target
            links.append(
                FileLink(relpath, target, m.anchor, m.line, m.alias, m.embed, raw_target=m.target)
            )
    if markdown_links and "](" in text:
        for md in find_markdown_links(text):
            md_target = normalize_target(relpath, md.target, relative=True)
            if md_target:
                links.append(
                    FileLink(
                        relpath,
                        md_target,
                        md.anchor,
                        md.line,
                        md.text,
                        md.embed,
                        raw_target=md.target,
                    )
                )
    if links:
        links.sort(key=lambda link: link.line)
    return links


def parse_batch(
    root: str, relpaths: Sequence[str], settings: ParseSettings, job: str = "", names: bool = False
) -> ParsedBatch:
    """Parse and tokenise a batch; refused or vanished files are reported, never raised.

    ``job`` names a pool job: term ids then come from this process's term space for that job
    (see the module docstring); without it the batch numbers its own terms from 0. Files that
    are gone, or no longer regular files inside the workspace, are reported as vanished.
    ``names`` also tokenises the files' names and property values for their fields
    (`NameTerms`).
    Term counting is one vectorised pass over the whole batch (word -> term id by a C-level
    `map`, then `np.unique` of (chunk, term) keys) rather than a Counter per chunk.
    """
    with bulk_objects():  # a batch's objects are freed by reference counting: ~12% faster
        return _parse_batch(root, relpaths, settings, job, names)


def _parse_batch(
    root: str, relpaths: Sequence[str], settings: ParseSettings, job: str, names: bool
) -> ParsedBatch:
    global _SPACE
    tokenizer = tokenizer_for(settings.use_jieba, settings.stemmer)
    batch = ParsedBatch()
    words: list[str] = []
    lengths: list[int] = []
    base = Path(root)
    fit = set(regular_inside(base, relpaths))
    for rel in relpaths:
        if rel not in fit:
            batch.skipped.append((rel, VANISHED))
            continue
        try:
            parsed = parse_file(base, rel, settings)
        except FileNotFoundError:
            batch.skipped.append((rel, VANISHED))
            continue
        except (FileRefused, OSError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            batch.skipped.append((rel, reason))
            continue
        for chunk in parsed.chunks:
            chunk_words = tokenizer.words(chunk.text)
            lengths.append(len(chunk_words))
            words.extend(chunk_words)
        batch.parsed.append(parsed)
    if names:
        batch.names = name_terms_of(tokenizer.tokenize_many, batch.parsed)
        batch.props = name_terms_of(tokenizer.tokenize_many, batch.parsed, property_text)
    if job and _SPACE.job != job:
        _SPACE = _TermSpace(job)
    space = _SPACE if job else _TermSpace()
    known = len(space.terms)
    batch.terms, ids = space.add(words, tokenizer)
    batch.space = (os.getpid(), known) if job else None
    n_terms = max(len(space.terms), 1)
    chunk_of = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    keys, tfs = np.unique(chunk_of * n_terms + ids, return_counts=True)
    batch.doc_nterms = np.bincount(keys // n_terms, minlength=len(lengths)).astype(np.int32)
    batch.term_idx = (keys % n_terms).astype(np.int32)
    batch.tfs = tfs.astype(np.int32)
    return batch


class TermSpaces:
    """Vocabulary ids for the batches of one `parse_many` run, taken in the order yielded.

    Results are consumed in submission order and each worker takes its tasks in that order, so
    a batch's terms always extend the space its earlier (already mapped) batches built. Map
    with the vocabulary the batches are written with (after any reload), and start a new
    instance to map the same batches again.
    """

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self._maps: dict[int, tuple[np.ndarray, int]] = {}  # pid -> (buffer, ids in use)

    def ids(self, batch: ParsedBatch) -> np.ndarray:
        """The batch's term ids in the vocabulary (its new terms are added to it)."""
        fresh = self.vocab.add_many(batch.terms)
        if batch.space is None:
            mapping = fresh
        else:
            pid, known = batch.space
            buffer, used = self._maps.get(pid, (np.zeros(0, np.int32), 0))
            if used != known:
                raise RuntimeError(f"worker {pid} term space out of step: {used} != {known}")
            need = used + len(fresh)
            if need > len(buffer):  # grows by doubling: no copy of the whole map per batch
                buffer = np.concatenate([buffer[:used], np.empty(max(need, 2 * used), np.int32)])
            buffer[used:need] = fresh
            self._maps[pid] = (buffer, need)
            mapping = buffer[:need]
        return mapping[batch.term_idx] if len(batch.term_idx) else batch.term_idx
