"""Link rewriting for a move: find the links that point at a file and plan their new text.

Only a link's target changes; `!`, anchor, alias, spacing, BOM, line endings and undecodable
bytes stay as they were. In a vault each link keeps the form it was written in (see
`link_forms`), relative Markdown links are rewritten too, and so are the moved note's own
links that its new folder would break. In memory mode (ReMe's literal paths) a link is the
full path. Planning only reads; `move_journal` writes the planned files, and calls
`replan_file` again for any file that changed after it was read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reme_core.edit.link_forms import LinkWorld, markdown_destination, wikilink_target
from reme_core.edit.target import in_scope
from reme_core.errors import FileRefused, RemeError
from reme_core.files.paths import normalize_relpath, resolve_inside
from reme_core.files.scanner import scan
from reme_core.files.scope import Scope
from reme_core.index.link_resolution import ObsidianResolver, normalize_target
from reme_core.parse.wikilinks import (
    MarkdownLinkMatch,
    WikilinkMatch,
    find_markdown_links,
    find_wikilinks,
)
from reme_core.ports import edit_index

if TYPE_CHECKING:
    from reme_core.parse.settings import ParseSettings
    from reme_core.ports import EditIndex, Facade

_NEWLINE = re.compile(r"(\r\n|\r|\n)")
_BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class LinkEdit:
    """One rewritten link: the file it is in (after the move), its line, old and new text."""

    path: str
    line: int
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class InboundLink:
    """A link that points at a file: where it is written, its exact text and, for a link a
    move leaves as it is, why."""

    path: str
    line: int
    raw: str
    reason: str = ""


def inbound_links(ws: Facade, path: str) -> list[InboundLink]:
    """Every link written today that points at `path`, read from the linking files."""
    return inbound_of(edit_index(ws), path)


def inbound_of(ws: EditIndex, path: str) -> list[InboundLink]:
    """`inbound_links` for code that holds the port already.

    The graph names the linking files; their current text gives exact lines and link text.
    """
    rel = normalize_relpath(path)
    world = _world_now(ws)
    found: list[InboundLink] = []
    for source, text in _linking_texts(ws, rel):
        for m in find_wikilinks(text.normalized):
            if m.target and _finds(world, source, m.target) == rel:
                found.append(InboundLink(source, m.line, m.raw))
        found.extend(
            InboundLink(source, m.line, m.raw)
            for m in _markdown_links(ws.settings, source, text.normalized)
            if world is not None and world.markdown(source, m.target) == rel
        )
    found.sort(key=lambda link: (link.path, link.line))
    return found


def _finds(world: LinkWorld | None, source: str, raw: str) -> str | None:
    """The file a wikilink in `source` finds: the literal path (memory mode), else Obsidian's."""
    if world is None:
        return normalize_target(source, raw, relative=False)
    return world.wikilink(source, raw)


# -- planning ---------------------------------------------------------------------------------
@dataclass(slots=True)
class _Text:
    """A file's text split so that edits keep its BOM, line endings and undecodable bytes."""

    encoding: str
    bom: bool
    lines: list[str]
    endings: list[str]

    @classmethod
    def read(cls, full: Path, rel: str, encoding: str) -> _Text:
        """Read a file, refusing one that would not encode back to the same bytes."""
        return cls.parse(full.read_bytes(), rel, encoding)

    @classmethod
    def parse(cls, data: bytes, rel: str, encoding: str) -> _Text:
        """Split a file's bytes, refusing bytes that would not encode back the same."""
        text = data.decode(encoding, errors="surrogateescape")
        bom = text.startswith(_BOM)
        parts = _NEWLINE.split(text[1:] if bom else text)
        self = cls(encoding, bom, parts[0::2], [*parts[1::2], ""])
        if self.encode() != data:
            raise FileRefused(f"{rel}: cannot be rewritten byte for byte in {encoding}")
        return self

    @property
    def normalized(self) -> str:
        """The text as the indexer sees it: LF only, no BOM (same line numbers and columns)."""
        return "\n".join(self.lines)

    def encode(self) -> bytes:
        """The file's bytes, with its own BOM and line endings."""
        body = "".join(line + end for line, end in zip(self.lines, self.endings, strict=True))
        return ((_BOM if self.bom else "") + body).encode(self.encoding, errors="surrogateescape")


@dataclass(slots=True)
class Rewrite:
    """One file to rewrite: its path when written, the bytes read, new bytes, permission bits."""

    path: str
    old: bytes
    new: bytes
    mode: int


@dataclass(slots=True)
class MovePlan:
    """Everything a move will change, computed before anything is written."""

    edits: list[LinkEdit] = field(default_factory=list)
    untouched: list[InboundLink] = field(default_factory=list)
    writes: list[Rewrite] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)


def plan_move(ws: EditIndex, src: str, dst: str, rewrite_links: bool) -> MovePlan:
    """The link edits and file writes for moving `src` to `dst`; reads only, writes nothing.

    A link that still finds the file after the move is left alone. Raises `FileRefused`
    for a read-only linking file.
    """
    plan = MovePlan()
    planner = _FilePlanner(ws, src, dst, rewrite_links)
    for source, text in _linking_texts(ws, src, include_target=True):
        old = text.encode()
        edits, untouched = planner.plan(source, text)
        plan.untouched.extend(untouched)
        if not edits:
            continue
        plan.edits.extend(edits)
        mode = (ws.root / source).stat().st_mode
        if not mode & 0o222:
            raise FileRefused(
                f"{source}: is read-only, so its links to {src} cannot be rewritten "
                "(make it writable, or move without rewriting links)"
            )
        plan.writes.append(Rewrite(source, old, text.encode(), mode & 0o7777))
        plan.rewritten.append(source)
    plan.edits.sort(key=lambda e: (e.path, e.line))
    plan.untouched.sort(key=lambda i: (i.path, i.line))
    return plan


def replan_file(
    ws: EditIndex, source: str, data: bytes, src: str, dst: str
) -> tuple[bytes, list[LinkEdit]]:
    """The new bytes of one linking file whose bytes are now `data` (it changed after the
    plan read it), and its edits; `data` itself when no link in it points at `src` now."""
    text = _Text.parse(data, source, ws.config.encoding)
    edits, _ = _FilePlanner(ws, src, dst, True).plan(source, text)
    return (text.encode() if edits else data), sorted(edits, key=lambda e: e.line)


@dataclass(frozen=True, slots=True)
class _Change:
    """One replacement in a line: columns `start:end` become `text`; the link before/after."""

    start: int
    end: int
    text: str
    old: str
    new: str


class _FilePlanner:
    """Retargets, in one file's text, the links of a move of `src` to `dst`."""

    def __init__(self, ws: EditIndex, src: str, dst: str, rewrite_links: bool) -> None:
        self.ws, self.src, self.dst, self.rewrite_links = ws, src, dst, rewrite_links
        self._files: list[str] | None = None  # every file, listed once for both worlds
        self.now = _world_now(ws, self._every_file)
        self._after: LinkWorld | None = None
        # Moving a note: a link elsewhere matters only when it finds that note, which
        # resolving among notes alone tells (no listing of the other files needed).
        self.src_is_note = ws.node(src) is not None

    def _every_file(self) -> list[str]:
        if self._files is None:
            self._files = _every_file(self.ws)
        return self._files

    @property
    def after(self) -> LinkWorld:
        """The vault as the move leaves it (built on first need)."""
        if self._after is None:
            src, dst = self.src, self.dst
            files = lambda: [*(p for p in self._every_file() if p != src), dst]  # noqa: E731
            self._after = _world_after_move(self.ws, src, dst, files)
        return self._after

    def _elsewhere(
        self, source: str, found_note: Callable[[str, str], str | None], raw: str
    ) -> bool:
        """True for a link in a file other than the moved note that cannot find it."""
        return source != self.src and self.src_is_note and found_note(source, raw) != self.src

    def plan(self, source: str, text: _Text) -> tuple[list[LinkEdit], list[InboundLink]]:
        """Edit `text.lines` in place; returns the edits made and the links left alone."""
        where = self.dst if source == self.src else source
        untouched: list[InboundLink] = []
        by_line: dict[int, list[_Change]] = {}
        normalized = text.normalized
        for m in find_wikilinks(normalized):
            if m.target:
                self._wikilink(source, where, m, by_line, untouched)
        if self.now is not None:
            for md in _markdown_links(self.ws.settings, source, normalized):
                self._markdown(source, where, md, by_line, untouched)
        edits: list[LinkEdit] = []
        for line, changes in sorted(by_line.items()):
            content = text.lines[line - 1]
            for c in sorted(changes, key=lambda c: c.start, reverse=True):
                content = content[: c.start] + c.text + content[c.end :]
            edits.extend(LinkEdit(where, line, c.old, c.new) for c in changes)
            text.lines[line - 1] = content
        return edits, untouched

    def _goal(self, source: str, old: str | None) -> str | None:
        """Where a link that found `old` must lead after the move; None: it is not affected
        (it finds another file, from a file that does not move, or finds nothing)."""
        if old is None or (old != self.src and source != self.src):
            return None
        return self.dst if old == self.src else old

    def _wikilink(
        self,
        source: str,
        where: str,
        m: WikilinkMatch,
        by_line: dict[int, list[_Change]],
        untouched: list[InboundLink],
    ) -> None:
        if self.now is not None and self._elsewhere(source, self.now.wikilink_note, m.target):
            return
        old = _finds(self.now, source, m.target)
        if self.now is None:  # memory mode: literal paths, written in full
            if old != self.src:
                return
            target: str | None = self.dst
        else:
            goal = self._goal(source, old)
            if goal is None or self.after.finds(where, m.target, goal):
                return
            target = None
            if self.rewrite_links:
                assert old is not None
                target = wikilink_target(m.target, old, goal, where, self.after)
                if target is None:
                    untouched.append(InboundLink(where, m.line, m.raw, f"no link finds {goal}"))
                    return
        if not self.rewrite_links:
            untouched.append(InboundLink(where, m.line, m.raw, "rewriting turned off"))
            return
        assert target is not None
        try:
            new = _retarget(m, target)
        except RemeError as exc:
            untouched.append(InboundLink(where, m.line, m.raw, str(exc)))
            return
        by_line.setdefault(m.line, []).append(_Change(m.start, m.end, new, m.raw, new))

    def _markdown(
        self,
        source: str,
        where: str,
        m: MarkdownLinkMatch,
        by_line: dict[int, list[_Change]],
        untouched: list[InboundLink],
    ) -> None:
        assert self.now is not None
        if self._elsewhere(source, self.now.markdown_note, m.target):
            return
        old = self.now.markdown(source, m.target)
        goal = self._goal(source, old)
        if goal is None:
            return
        if normalize_target(source, m.target, relative=True) == old:
            # A true relative path: it must stay one (other Markdown readers go by it).
            if normalize_target(where, m.target, relative=True) == goal:
                return
        elif self.after.finds(where, m.target, goal, markdown=True):
            return  # found by name, and still found
        if not self.rewrite_links:
            untouched.append(InboundLink(where, m.line, m.raw, "rewriting turned off"))
            return
        dest = markdown_destination(m.dest, goal, where)
        at = m.dest_start - m.start
        new = m.raw[:at] + dest + m.raw[at + len(m.dest) :]
        change = _Change(m.dest_start, m.dest_start + len(m.dest), dest, m.raw, new)
        by_line.setdefault(m.line, []).append(change)


def _linking_texts(
    ws: EditIndex, target: str, include_target: bool = False
) -> Iterable[tuple[str, _Text]]:
    """The files the graph says link to `target` (and, `include_target`, the file itself,
    whose own relative links a move can break), with their current text."""
    with ws.lock:
        sources = {link.source_path for link in ws.index.graph.inlinks(target)}
        if include_target and target in ws.index.nodes:
            sources.add(target)
    for source in sorted(sources):
        try:
            full = resolve_inside(ws.root, source)
            yield source, _Text.read(full, source, ws.config.encoding)
        except FileNotFoundError:
            continue  # deleted since it was indexed: nothing left to rewrite
        except OSError as exc:
            raise RemeError(f"{source}: cannot read ({exc.strerror})") from None


def _markdown_links(settings: ParseSettings, source: str, text: str) -> list[MarkdownLinkMatch]:
    """Markdown links of a note (graph edges in Obsidian vaults only)."""
    if not settings.markdown_links or not source.endswith(".md"):
        return []
    return find_markdown_links(text)


def _world_now(ws: EditIndex, files: Callable[[], list[str]] | None = None) -> LinkWorld | None:
    """The vault as it is (None in memory mode: links are literal paths there)."""
    with ws.lock:
        resolver, nodes = ws.index.resolver, ws.index.nodes
    if resolver is None:
        return None
    return LinkWorld(resolver, nodes, files or (lambda: _every_file(ws)))


def _world_after_move(
    ws: EditIndex, src: str, dst: str, files: Callable[[], list[str]]
) -> LinkWorld:
    """The vault as it will be once `src` is at `dst` (`files`: every file then)."""
    with ws.lock:
        table = ws.index.nodes
        paths = {path for path in table if path != src}
        if src in table and in_scope(ws, dst):
            paths.add(dst)
    return LinkWorld(ObsidianResolver(paths), paths, files)


def _every_file(ws: EditIndex) -> list[str]:
    """Every file of the workspace outside its state folder (what an embed may find)."""
    return list(scan(ws.root, Scope(("",), ("",), ws.state_dir.name)))


def _retarget(m: WikilinkMatch, target: str) -> str:
    """The link text with only its target replaced (keeps `!`, spaces, `\\|`, anchor, alias)."""
    head = m.raw.index("[[") + 2
    inner = m.raw[head:-2]
    cut = min((i for i in (inner.find("#"), inner.find("|")) if i >= 0), default=len(inner))
    written = inner[:cut]
    start = head + len(written) - len(written.lstrip())
    if not m.raw.startswith(m.target, start):
        raise RemeError(f"cannot locate the target in {m.raw!r}")
    return m.raw[:start] + target + m.raw[start + len(m.target) :]


# -- folders ----------------------------------------------------------------------------------
