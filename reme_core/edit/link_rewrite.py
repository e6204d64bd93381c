"""Link rewriting for a move: find the links that point at a file and plan their new text.

Only a link's target changes; `!`, anchor, alias, spacing, BOM, line endings and undecodable
bytes stay as they were. Planning only reads; `move_journal` writes the planned files, and
calls `replan_file` again for any file that changed after it was read.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reme_core.errors import FileRefused, RemeError
from reme_core.files.paths import normalize_relpath, resolve_inside
from reme_core.index.link_resolution import ObsidianResolver, normalize_target
from reme_core.models import aliases_of
from reme_core.parse.wikilinks import WikilinkMatch, find_markdown_links, find_wikilinks

if TYPE_CHECKING:
    from reme_core.workspace import Workspace

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
    """A link that points at a file: where it is written and its exact text."""

    path: str
    line: int
    raw: str


def inbound_links(ws: Workspace, path: str) -> list[InboundLink]:
    """Every link written today that points at `path`, read from the linking files.

    The graph names the linking files; their current text gives exact lines and link text.
    """
    rel = normalize_relpath(path)
    found: list[InboundLink] = []
    for source, text in _linking_texts(ws, rel):
        target_of = _Resolution(ws, source)
        for m in find_wikilinks(text.normalized):
            if m.target and target_of.wikilink(m.target) == rel:
                found.append(InboundLink(source, m.line, m.raw))
        found.extend(_markdown_inbound(ws, source, text.normalized, rel))
    found.sort(key=lambda link: (link.path, link.line))
    return found


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


class _Resolution:
    """Where a link written in `source` points, by the workspace's rule (literal or Obsidian)."""

    def __init__(
        self, ws: Workspace, source: str, after: tuple[ObsidianResolver, set[str]] | None = None
    ) -> None:
        self.source = source
        with ws.lock:
            self.nodes: Container[str] = ws.index.nodes
            self.resolver = ws.index.resolver
        if after is not None:
            self.resolver, self.nodes = after

    def literal(self, raw: str) -> str:
        """The target as a normalised workspace path (the raw text when it is none)."""
        return normalize_target(self.source, raw, relative=False) or raw

    def wikilink(self, raw: str) -> str:
        """The file a wikilink finds: the literal path, else by name or alias (Obsidian)."""
        target = self.literal(raw)
        if self.resolver is None or target in self.nodes:
            return target
        return self.resolver.resolve(self.source, raw) or target


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


def plan_move(ws: Workspace, src: str, dst: str, rewrite_links: bool) -> MovePlan:
    """The link edits and file writes for moving `src` to `dst`; reads only, writes nothing.

    A link found by name or alias (Obsidian) that still finds the file after the move is left
    alone. Raises `FileRefused` for a read-only linking file.
    """
    plan = MovePlan()
    planner = _FilePlanner(ws, src, dst, rewrite_links)
    for source, text in _linking_texts(ws, src):
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
    ws: Workspace, source: str, data: bytes, src: str, dst: str
) -> tuple[bytes, list[LinkEdit]]:
    """The new bytes of one linking file whose bytes are now `data` (it changed after the
    plan read it), and its edits; `data` itself when no link in it points at `src` now."""
    text = _Text.parse(data, source, ws.config.encoding)
    edits, _ = _FilePlanner(ws, src, dst, True).plan(source, text)
    return (text.encode() if edits else data), sorted(edits, key=lambda e: e.line)


class _FilePlanner:
    """Retargets, in one file's text, the links of a move of `src` to `dst`."""

    def __init__(self, ws: Workspace, src: str, dst: str, rewrite_links: bool) -> None:
        self.ws, self.src, self.dst, self.rewrite_links = ws, src, dst, rewrite_links
        self.after: tuple[ObsidianResolver, set[str]] | None = None

    def plan(self, source: str, text: _Text) -> tuple[list[LinkEdit], list[InboundLink]]:
        """Edit `text.lines` in place; returns the edits made and the links left alone."""
        ws, src, dst = self.ws, self.src, self.dst
        where = dst if source == src else source
        now = _Resolution(ws, source)
        untouched: list[InboundLink] = []
        by_line: dict[int, list[WikilinkMatch]] = {}
        for m in find_wikilinks(text.normalized):
            if not m.target or now.wikilink(m.target) != src:
                continue
            if not self.rewrite_links:
                untouched.append(InboundLink(where, m.line, m.raw))
                continue
            if now.literal(m.target) != src:
                # Found by name or alias (Obsidian): leave it when it still finds the file.
                self.after = self.after or _resolver_after_move(ws, src, dst)
                if _Resolution(ws, where, self.after).wikilink(m.target) == dst:
                    continue
            by_line.setdefault(m.line, []).append(m)
        untouched.extend(
            InboundLink(where, link.line, link.raw)
            for link in _markdown_inbound(ws, source, text.normalized, src)
        )
        edits: list[LinkEdit] = []
        for line, matches in by_line.items():
            content = text.lines[line - 1]
            for m in sorted(matches, key=lambda m: m.start, reverse=True):
                content = content[: m.start] + _retarget(m, dst) + content[m.end :]
            edits.extend(LinkEdit(where, line, m.raw, _retarget(m, dst)) for m in matches)
            text.lines[line - 1] = content
        return edits, untouched


def _linking_texts(ws: Workspace, target: str) -> Iterable[tuple[str, _Text]]:
    """The files the graph says link to `target`, with their current text."""
    with ws.lock:
        sources = sorted({link.source_path for link in ws.index.graph.inlinks(target)})
    for source in sources:
        try:
            full = resolve_inside(ws.root, source)
            yield source, _Text.read(full, source, ws.config.encoding)
        except FileNotFoundError:
            continue  # deleted since it was indexed: nothing left to rewrite
        except OSError as exc:
            raise RemeError(f"{source}: cannot read ({exc.strerror})") from None


def _markdown_inbound(ws: Workspace, source: str, text: str, target: str) -> list[InboundLink]:
    """Markdown links to `target` (graph edges in Obsidian vaults only; never rewritten)."""
    if not ws.settings.markdown_links or not source.endswith(".md"):
        return []
    return [
        InboundLink(source, m.line, m.raw)
        for m in find_markdown_links(text)
        if normalize_target(source, m.target, relative=True) == target
    ]


def _resolver_after_move(ws: Workspace, src: str, dst: str) -> tuple[ObsidianResolver, set[str]]:
    """The Obsidian resolver as it will be once `src` is at `dst`."""
    with ws.lock:
        nodes = dict(ws.index.nodes)
    src_node = nodes.pop(src, None)
    aliases = {path: aliases_of(node.frontmatter) for path, node in nodes.items()}
    if src_node is not None:
        aliases[dst] = aliases_of(src_node.frontmatter)
    paths = set(aliases)
    return ObsidianResolver(paths, aliases), paths


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
def make_parents(root: Path, rel: str) -> list[Path]:
    """Create the missing folders of `rel` under `root`; returns them, outermost first.

    A failure halfway removes the folders made so far before it raises.
    """
    made: list[Path] = []
    folder = root
    try:
        for part in rel.split("/")[:-1]:
            folder = folder / part
            if not folder.is_dir():
                folder.mkdir()
                made.append(folder)
    except OSError:
        remove_dirs(made)
        raise
    return made


def remove_dirs(made: list[Path]) -> None:
    """Remove folders made by `make_parents`, innermost first, where they are still empty."""
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()
