"""Link rewriting for a move: find the links that point at a file, rewrite their targets, and
write every changed file all-or-nothing.

Only a link's target changes; `!`, anchor, alias, spacing, BOM, line endings and undecodable
bytes stay as they were. New contents go to temp files beside the originals, then replace them,
then the file moves; any failure puts every original back.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from reme_core.errors import FileRefused, RemeError
from reme_core.link_resolution import ObsidianResolver, normalize_target
from reme_core.models import aliases_of
from reme_core.paths import normalize_relpath, resolve_inside
from reme_core.wikilinks import WikilinkMatch, find_markdown_links, find_wikilinks

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
        data = full.read_bytes()
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
class Write:
    """One file to rewrite: old bytes (for rollback), new bytes and its permission bits."""

    path: Path
    old: bytes
    new: bytes
    mode: int


@dataclass(slots=True)
class MovePlan:
    """Everything a move will change, computed before anything is written."""

    edits: list[LinkEdit] = field(default_factory=list)
    untouched: list[InboundLink] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)


def plan_move(ws: Workspace, src: str, dst: str, rewrite_links: bool) -> MovePlan:
    """The link edits and file writes for moving `src` to `dst`; reads only, writes nothing.

    A link found by name or alias (Obsidian) that still finds the file after the move is left
    alone. Raises `FileRefused` for a read-only linking file.
    """
    plan = MovePlan()
    after: tuple[ObsidianResolver, set[str]] | None = None
    for source, text in _linking_texts(ws, src):
        where = dst if source == src else source
        now = _Resolution(ws, source)
        by_line: dict[int, list[WikilinkMatch]] = {}
        for m in find_wikilinks(text.normalized):
            if not m.target or now.wikilink(m.target) != src:
                continue
            if not rewrite_links:
                plan.untouched.append(InboundLink(where, m.line, m.raw))
                continue
            if now.literal(m.target) != src:
                # Found by name or alias (Obsidian): leave it when it still finds the file.
                after = after or _resolver_after_move(ws, src, dst)
                if _Resolution(ws, where, after).wikilink(m.target) == dst:
                    continue
            by_line.setdefault(m.line, []).append(m)
        plan.untouched.extend(
            InboundLink(where, link.line, link.raw)
            for link in _markdown_inbound(ws, source, text.normalized, src)
        )
        if not by_line:
            continue
        old = text.encode()
        for line, matches in by_line.items():
            content = text.lines[line - 1]
            for m in sorted(matches, key=lambda m: m.start, reverse=True):
                content = content[: m.start] + _retarget(m, dst) + content[m.end :]
            plan.edits.extend(LinkEdit(where, line, m.raw, _retarget(m, dst)) for m in matches)
            text.lines[line - 1] = content
        full = ws.root / source
        mode = full.stat().st_mode
        if not mode & 0o222:
            raise FileRefused(
                f"{source}: is read-only, so its links to {src} cannot be rewritten "
                "(make it writable, or move without rewriting links)"
            )
        plan.writes.append(Write(full, old, text.encode(), mode & 0o7777))
        plan.rewritten.append(source)
    plan.edits.sort(key=lambda e: (e.path, e.line))
    plan.untouched.sort(key=lambda i: (i.path, i.line))
    return plan


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


# -- committing -------------------------------------------------------------------------------
def commit_move(root: Path, writes: list[Write], src: str, dst: str) -> None:
    """Rewrite every file, then move; on any failure restore every original and raise."""
    temps: list[str] = []
    replaced: list[Write] = []
    made: list[Path] = []
    try:
        for w in writes:
            temps.append(_write_temp(w.path, w.new, w.mode))
        for w, tmp in zip(writes, temps, strict=True):
            os.replace(tmp, w.path)
            replaced.append(w)
        made = make_parents(root, dst)
        os.rename(root / src, root / dst)
    except OSError as exc:
        failed = _rollback(replaced, temps, made)
        message = f"move failed at {exc.filename or src} ({exc.strerror}); "
        if failed:
            raise RemeError(message + "could not restore: " + ", ".join(failed)) from None
        raise RemeError(message + "every file is as it was") from None


def _write_temp(path: Path, data: bytes, mode: int) -> str:
    """A temp file beside `path` holding `data` (a dot name, so the index ignores it)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".reme-tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
    except OSError:
        os.unlink(tmp)
        raise
    return tmp


def _rollback(replaced: list[Write], temps: list[str], made: list[Path]) -> list[str]:
    """Put originals back, drop temps and new folders; returns files that could not be restored."""
    failed = []
    for w in replaced:
        try:
            os.replace(_write_temp(w.path, w.old, w.mode), w.path)
        except OSError:
            failed.append(str(w.path))
    for tmp in temps:
        with contextlib.suppress(OSError):  # gone when it was already renamed into place
            os.unlink(tmp)
    remove_dirs(made)
    return failed


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
