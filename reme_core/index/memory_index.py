"""The in-memory search structures: BM25 postings, per-chunk places, nodes and the link graph.

Built at open from columns (a numpy snapshot, or the store's rows), then kept in step with each
committed batch. Per-chunk places live in a `ChunkTable` (``chunks``), per-file slots in a
`FileTable` (``files``). Files and links stay columns until asked for: a `FileNode` is built on
first access, and the link graph answers from index arrays (see reme_core.index.link_graph).
"""

from __future__ import annotations

import contextlib
import functools
import posixpath
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, cast

import numpy as np

from reme_core.dates import file_date
from reme_core.index.bm25 import BM25Index
from reme_core.index.chunk_table import ChunkTable
from reme_core.index.file_table import FileTable
from reme_core.index.found_links import FoundLinks
from reme_core.index.index_columns import IndexColumns, check_columns
from reme_core.index.link_graph import LinkColumns, LinkGraph
from reme_core.index.link_resolution import LinkFinder, ObsidianResolver
from reme_core.index.name_field import NAMES, PROPERTIES, FieldKind, NameColumns, NameField
from reme_core.index.node_table import NodeTable
from reme_core.models import FileLink, FileNode, note_tags
from reme_core.parse.note_names import Tokenize, latin_name_terms, property_values
from reme_core.text.vocabulary import Vocabulary


class MemoryIndex:
    """Everything a search touches, held in memory; mutated only by the workspace's writer."""

    def __init__(
        self,
        obsidian: bool,
        exists: Callable[[str], bool],
        attachments: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        self.vocab = Vocabulary()
        self.bm25 = BM25Index()
        self.nodes = NodeTable()
        self.files = FileTable()
        self.chunks = ChunkTable()
        self.graph = LinkGraph(exists=exists)
        self._obsidian = obsidian
        self._resolver: ObsidianResolver | None = None  # made on first need (`resolver`)
        self._list_attachments = attachments
        self._attachments: ObsidianResolver | None = None
        self._attachment_paths: list[str] | None = None  # what `_attachments` was made of
        # (folder, written, literal) -> the path found: valid for the notes and attachments
        # as they are, so emptied by `relink_all`; filled from a snapshot's found links when
        # first needed (`_found_pending`: the loaded links, literal and resolved)
        self._found: dict[tuple[str, str, str], str] = {}
        self._found_pending: tuple[LinkColumns, LinkColumns] | None = None
        # Attachments adopted from a snapshot, not yet compared with a walk (`attachments_differ`)
        self.attachments_unchecked = False
        # Links resolved that the loaded snapshot lacked: the next snapshot keeps them.
        self.found_unsaved = False
        self._version = 0  # bumped by every change of a node: keys the filter caches
        # Chunk rowids whose stored text is known to match their file (reme_core.query.chunk_check):
        # those this process indexed, and those checked against the disk since the load.
        self.checked_rows: set[int] = set()
        self._cache: dict[str, tuple[int, Any]] = {}
        # per CJK mode, path -> (names, terms): only changed files are tokenised again
        self._name_terms: dict[tuple[str, bool], dict[str, tuple[str, list[str]]]] = {}
        self._name_tokenize: Tokenize | None = None  # of the last Latin field
        # path -> the version that last put or removed it: what a name field must update
        self._changed_at: dict[str, int] = {}
        # A Latin name field was built that the loaded columns lacked: a snapshot written now
        # saves the next cold search building it (about a second at 50k notes).
        self.names_unsaved = False

    # -- building -----------------------------------------------------------------------------
    def load(self, cols: IndexColumns) -> None:
        """Fill every structure from columns: numpy and bulk dict builds, no object per row.

        ValueError when the columns do not fit together or break an invariant of the rows
        (`check_columns`): a snapshot or database from elsewhere is never trusted.
        """
        check_columns(cols)
        files = cols.files
        n = len(files.paths)
        self.vocab = Vocabulary(cols.vocab)
        ptr, docs, tfs = cols.postings
        self.bm25 = BM25Index.from_postings(
            ptr, docs, tfs, cols.doc_lengths, len(cols.vocab), checked=cols.postings_checked
        )
        self.files = FileTable.from_columns(files)
        paths = self.files.paths
        slots = self.files.slots_of_ids(cols.doc_file)
        self.chunks = ChunkTable.from_columns(
            paths, slots, cols.doc_rowid, cols.doc_start, cols.doc_end, self.files.slot
        )
        if not self.chunks.ends_within(np.asarray(files.sizes, dtype=np.int64)):
            raise ValueError("chunks end past the last line their file can have")
        links = cols.links
        self.nodes = NodeTable(files, links)
        self._version += 1
        if self._obsidian:
            self._resolver = None
            adopted = self._adopt_found(cols.found, links)
            links = adopted if adopted is not None else self._resolved_columns(links)
        self.graph.load(list(paths), links)
        for kind, stored in ((NAMES, cols.names), (PROPERTIES, cols.props)):
            if stored is not None:
                self._seed_field(kind, stored, n)

    def _seed_field(self, kind: FieldKind, stored: NameColumns, n_files: int) -> None:
        """Adopt a snapshot's Latin field (and as the CJK one when no text has CJK)."""
        try:
            field = NameField.from_columns(stored, n_files, kind)
        except ValueError:
            return  # built again on first use
        # Without its postings (an older snapshot), every open sorts them: write them once.
        self.names_unsaved = self.names_unsaved or stored.postings is None
        for cjk in (False, True) if field.cjk_free else (False,):
            self._cache[f"{kind.key}-{cjk}"] = (self._version, field)

    def name_columns(self, paths: Sequence[str], kind: FieldKind = NAMES) -> NameColumns | None:
        """The Latin name (or property) field's rows for ``paths`` (the snapshot's file
        order), so that a cold search need not build it: current, or built again when this
        process built one before (an adopted field's tokenizer is not known here: then None)."""
        key = f"{kind.key}-False"
        entry = self._cache.get(key)
        if entry is None or entry[0] != self._version:
            if self._name_tokenize is None:
                return None
            self.name_field(self._name_tokenize, False, kind)  # kept terms: changes tokenised
            entry = self._cache[key]
        return entry[1].columns(self.files.slots(paths))

    @property
    def resolver(self) -> ObsidianResolver | None:
        """Obsidian's resolution over the notes (None: memory mode's literal paths), made
        on first need: a warm open takes its links as found (`FoundLinks`)."""
        if self._obsidian and self._resolver is None:
            self._resolver = ObsidianResolver(list(self.nodes))
        return self._resolver

    def _adopt_found(self, stored: FoundLinks | None, links: LinkColumns) -> LinkColumns | None:
        """``links`` as a snapshot found them, with the attachments they were found among
        (compared with a walk after the first screen); None when there are none that stand."""
        resolved = stored.resolved(links, self.nodes) if stored is not None else None
        if stored is None or resolved is None:
            self.found_unsaved = True
            return None
        if stored.attachments is not None:
            self._attachment_paths = list(stored.attachments)  # indexed on first need
            self.attachments_unchecked = True
        self._found_pending = (links, resolved)
        return resolved

    def found_links(self, links: LinkColumns) -> FoundLinks | None:
        """``links`` (literal) as found now, for the snapshot (None: memory mode)."""
        if not self._obsidian:
            return None
        attachments = None if self._attachment_paths is None else list(self._attachment_paths)
        return FoundLinks.of(links, self._resolved_columns(links), attachments)

    def _memo(self) -> dict[tuple[str, str, str], str]:
        """The found paths by (folder, written, literal) target, a snapshot's taken in."""
        if self._found_pending is not None:
            links, resolved = self._found_pending
            self._found_pending = None
            strings, found = links.strings, resolved.strings
            sources, raws = links.source.tolist(), links.raw.tolist()
            for i, (t, f) in enumerate(zip(links.target.tolist(), resolved.target.tolist())):
                literal = strings[t]
                if literal and literal not in self.nodes:
                    source = strings[sources[i]]
                    key = (posixpath.dirname(source), strings[raws[i]] or literal, literal)
                    self._found.setdefault(key, found[f])
        return self._found

    def attachments_differ(self, listed: Iterable[str]) -> bool:
        """Whether the vault's files other than notes (``listed``: every file, a walk made
        after the first screen) are not those the snapshot's resolutions were made among."""
        self.attachments_unchecked = False
        others = {p for p in listed if p not in self.nodes}
        return others != set(self._attachment_paths or ())

    def _find(self, source: str, literal: str, raw: str, folder: str | None = None) -> str:
        """What ``source``'s link finds (the literal target when nothing), once per
        (folder, written, literal) target while the files stay the same (a found note
        since removed is looked for again)."""
        memo = self._memo()
        key = (posixpath.dirname(source) if folder is None else folder, raw, literal)
        found = memo.get(key)
        if found is None or not (
            found == literal or found in self.nodes or found in (self._attachment_resolver() or ())
        ):
            finder = self.link_finder()
            assert finder is not None  # vaults only
            found = memo[key] = finder.find(source, literal, raw) or literal
        return found

    def _resolved_columns(self, links: LinkColumns) -> LinkColumns:
        """Obsidian vaults: each literal target that is not a note, found as `_resolved` does.

        A resolution depends on the linking file only through its folder (relative targets,
        the nearest-folder tie-break), so each (folder, written target) is resolved once: a
        vault's `[[Note]]` links repeat the same few targets from many files (Pokerole's
        23,713 links resolved 23,713 times took ~0.5 s of every cold open).
        """
        strings = list(links.strings)
        sid = dict(zip(strings, range(len(strings))))
        target = links.target.copy()
        sources, raws = links.source.tolist(), links.raw.tolist()
        folder_of: dict[int, str] = {}
        for i, t in enumerate(links.target.tolist()):
            literal = strings[t]
            if not literal or literal in self.nodes:
                continue
            source = strings[sources[i]]
            folder = folder_of.get(sources[i])
            if folder is None:
                folder = folder_of[sources[i]] = posixpath.dirname(source)
            found = self._find(source, literal, strings[raws[i]] or literal, folder)
            found_id = sid.get(found)
            if found_id is None:
                found_id = sid[found] = len(strings)
                strings.append(found)
            target[i] = found_id
        return LinkColumns(
            strings,
            links.source,
            target,
            links.anchor,
            links.alias,
            links.raw,
            links.line,
            links.embed,
        )

    def _put_node(self, node: FileNode, file_id: int, origin: str) -> None:
        self._version += 1
        path = node.path
        self._changed_at[path] = self._version
        self.nodes.put(node)
        self.files.put(path, file_id, origin, file_date(path, node.frontmatter))
        if self._resolver is not None:
            self._resolver.add(path)

    def remove_file(self, path: str) -> None:
        """Tombstone a file's chunks and drop its node and outgoing edges."""
        self.remove_files([path])

    def remove_files(self, paths: Iterable[str]) -> None:
        """`remove_file` for many, their chunks tombstoned at once (a batch's swap)."""
        dead = []
        for path in paths:
            self._version += 1
            self._changed_at[path] = self._version
            docs = self.chunks.remove_file(path)
            if docs is not None and len(docs):
                dead.append(docs)
            self.nodes.discard(path)
            self.files.remove(path)
            self.graph.remove_file(path)
            if self._resolver is not None:
                self._resolver.remove(path)
        if dead:
            self.bm25.remove_many(np.concatenate(dead))

    def add_files(
        self,
        nodes: Sequence[FileNode],
        file_ids: Sequence[int],
        origins: Sequence[str],
        counts: Sequence[int],
        rowids: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        doc_ptr: np.ndarray,
        term_ids: np.ndarray,
        tfs: np.ndarray,
    ) -> None:
        """Add committed files (old versions removed first) with one BM25 ``add_many``.

        ``counts`` is each file's number of chunks; the chunk arrays and the CSR
        (``doc_ptr``, ``term_ids``, ``tfs``) cover all of them in file order.
        """
        for node, file_id, origin in zip(nodes, file_ids, origins, strict=True):
            self._put_node(node, file_id, origin)
        if not len(rowids):
            return
        self.checked_rows.update(rowids.tolist())  # parsed from the files just now
        docs = self.bm25.add_many(doc_ptr, term_ids, tfs)
        paths = [n.path for n in nodes]
        slots = self.files.slots(paths).astype(np.int32)
        self.chunks.add(paths, counts, docs, slots, rowids, starts, ends)

    def columns(self, lock: AbstractContextManager[Any] | None = None) -> IndexColumns | None:
        """Everything as `load` takes it, as a load of the stored rows would give it (the
        snapshot after edits); None when the chunks are not in rowid order. With ``lock``
        (the readers'), each part is gathered under it in turn: the caller keeps writers out,
        and a search waits for one part only."""
        part = lock if lock is not None else contextlib.nullcontext()
        with part:
            postings, doc_lengths = self.bm25.live_postings()
            ptr = postings[0]
            if len(ptr) - 1 < len(self.vocab):  # terms no chunk uses yet still count
                ptr = np.concatenate([ptr, np.full(len(self.vocab) + 1 - len(ptr), ptr[-1])])
                postings = (ptr, postings[1], postings[2])
        with part:
            chunks = self.chunks.columns(self.bm25.live_docs())
        rowid = chunks.rowids
        if len(rowid) > 1 and not bool(np.all(rowid[1:] > rowid[:-1])):
            return None
        with part:
            paths = self.files.live_by_id()
            slot_file = self.files.slot_ids()
            dates = self.files.dates_of(paths)
            origins = self.files.origins_of(paths)
            ids = self.files.ids(paths)
        doc_file = slot_file[chunks.slots] if len(rowid) else np.zeros(0, np.int64)
        if len(doc_file) and doc_file.min() < 0:
            return None
        with part:
            files, links = self.nodes.columns(paths, origins, dates)
        files.ids = ids
        with part:
            vocab = self.vocab.terms()
            names = self.name_columns(paths)
        with part:
            props = self.name_columns(paths, PROPERTIES)
            found = self.found_links(links)
        return IndexColumns(
            vocab=vocab,
            postings=postings,
            doc_lengths=doc_lengths,
            doc_rowid=rowid,
            doc_file=doc_file,
            doc_start=chunks.starts,
            doc_end=chunks.ends,
            files=files,
            links=links,
            names=names,
            props=props,
            found=found,
        )

    # -- filters (cached per version: searches between batches reuse them) ------------------
    def memo(self, key: str) -> dict[Any, Any]:
        """A dict kept until the index changes (its version moves): what a search derives
        from the notes as they are now and may reuse (the known-item rule's name terms)."""
        return cast(dict[Any, Any], self._cached(f"memo-{key}", dict))

    def _cached(self, key: str, build: Callable[[], Any]) -> Any:
        entry = self._cache.get(key)
        if entry is None or entry[0] != self._version:
            entry = self._cache[key] = (self._version, build())
        return entry[1]

    def name_field(
        self, tokenize: Tokenize, cjk: bool = True, kind: FieldKind = NAMES
    ) -> NameField:
        """The names (or, `PROPERTIES`, the property values) of the live files as a field of
        their own (built once per version); ``tokenize`` takes a list of texts
        (`Tokenizer.tokenize_many`).

        ``cjk=False`` leaves the CJK part of names out, so a Latin query never waits for
        jieba's dictionary (about a second) to tokenise Chinese file names.
        """
        if not cjk:
            self._name_tokenize = plain = tokenize
            tokenize = functools.partial(latin_name_terms, plain)
        cache = self._name_terms.setdefault((kind.key, cjk), {})
        key = f"{kind.key}-{cjk}"
        entry = self._cache.get(key)
        if entry is not None and entry[0] == self._version:
            return entry[1]
        args = (self.files.paths, self.live_slots(), self.nodes.frontmatter, tokenize, cache)
        if entry is None:
            field = NameField.build(*args, kind)
            self.names_unsaved = self.names_unsaved or not cjk
        else:  # only the files changed since that version are named again
            since = entry[0]
            changed = {
                slot
                for p, v in self._changed_at.items()
                if v > since and (slot := self.files.slot(p)) is not None
            }
            field = entry[1].updated(*args, changed)
        self._cache[key] = (self._version, field)
        return field

    def stat_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the start-up diff compares with a walk (whose paths' slots come from
        `FileTable.slots_or_none`): per slot whether its file is indexed, its mtime and size."""
        return self.nodes.stat_columns(self.files.slot, len(self.files))

    def live_slots(self) -> np.ndarray:
        """Bool per file slot: its file is indexed now."""
        return self._cached(
            "live",
            lambda: np.fromiter(
                (p in self.nodes for p in self.files.paths), bool, count=len(self.files)
            ),
        )

    def tag_slots(self, tags: Iterable[str]) -> np.ndarray:
        """Bool per file slot: its file is indexed and has one of ``tags`` (lower case), or a
        tag nested below one."""
        by_tag = self._cached("tags", self._tag_index)
        mask = np.zeros(len(self.files), dtype=bool)
        for tag in tags:
            nested = f"{tag}/"  # `a` takes `a/b` too, as Obsidian's tag search does
            for key, slots in by_tag.items():
                if key == tag or key.startswith(nested):
                    mask[slots] = True
        return mask

    def property_slots(self, name: str, value: str | None) -> np.ndarray:
        """Bool per file slot: its note has the property ``name`` (any case) and, unless
        ``value`` is None, a value holding ``value`` (case-insensitive; "null": an empty
        property), as Obsidian's `[name]` and `[name:value]` find."""
        by_key = self._cached("properties", self._property_index)
        mask = np.zeros(len(self.files), dtype=bool)
        want = None if value is None else value.lower()
        for slot, values in by_key.get(name.strip().lower(), ()):
            if want is None:
                mask[slot] = True
            elif want == "null":
                mask[slot] = not values
            else:
                mask[slot] = any(want in v for v in values)
        return mask

    def _property_index(self) -> dict[str, list[tuple[int, list[str]]]]:
        by_key: dict[str, list[tuple[int, list[str]]]] = {}
        paths = list(self.nodes)
        for path, slot in zip(paths, self.files.slots(paths).tolist(), strict=True):
            frontmatter = self.nodes.frontmatter(path)
            if not frontmatter:
                continue
            for key, values in property_values(frontmatter).items():
                by_key.setdefault(key, []).append((slot, [v.lower() for v in values]))
        return by_key

    def _tag_index(self) -> dict[str, np.ndarray]:
        by_tag: dict[str, list[int]] = {}
        slots = self.files.slots(list(self.nodes)).tolist()
        for path, slot in zip(self.nodes, slots, strict=True):
            tags = note_tags(self.nodes.frontmatter(path), self.nodes.inline_tags(path))
            for tag in {t.lower() for t in tags}:
                by_tag.setdefault(tag, []).append(slot)
        return {tag: np.asarray(found, dtype=np.int64) for tag, found in by_tag.items()}

    def relink(self, paths: Iterable[str]) -> None:
        """(Re)resolve the given files' links into the graph."""
        for path in paths:
            self.graph.set_links(path, self._resolved(path))

    def relink_all(self) -> None:
        """Re-resolve every file's links (Obsidian resolution depends on the set of files)."""
        self._attachments = self._attachment_paths = None
        self._found, self._found_pending = {}, None
        self.found_unsaved = True
        self.relink(list(self.nodes))

    def link_finder(self) -> LinkFinder | None:
        """Which file a link finds, in a vault (None: memory mode's literal paths)."""
        if self.resolver is None:
            return None
        return LinkFinder(self.nodes, self.resolver, self._attachment_resolver)

    def _attachment_resolver(self) -> ObsidianResolver | None:
        """Obsidian finds `![[diagram.png]]` anywhere in the vault: the non-notes, listed on
        first need (None when this index is given no way to list them)."""
        if self._list_attachments is None:
            return None
        if self._attachments is None:
            if self._attachment_paths is None:
                self._attachment_paths = [
                    p for p in self._list_attachments() if p not in self.nodes
                ]
            self._attachments = ObsidianResolver(self._attachment_paths)
        return self._attachments

    def _resolved(self, path: str) -> list[FileLink]:
        node = self.nodes.get(path)
        links = node.links if node is not None else []
        if not self._obsidian:
            return [link for link in links if link.target_path]
        out = []
        for link in links:
            if not link.target_path:
                continue
            target = link.target_path
            if target not in self.nodes:
                target = self._find(path, target, link.raw_target or target)
            out.append(
                FileLink(
                    path,
                    target,
                    link.target_anchor,
                    link.line,
                    link.alias,
                    link.embed,
                    link.raw_target,
                )
            )
        return out
