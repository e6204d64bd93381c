"""Link-safe file operations: move (rewriting inbound wikilinks), delete, create.

"Memory as files" only holds if the graph survives edits: a move rewrites every `[[old path]]`
that points at the file, a delete says which links it leaves dangling (seed 003, "Human and
Agent Editing"). Writes are all-or-nothing: new contents go to temp files beside the originals,
then replace them, then the file moves; any failure puts every original back.

Case-only renames on case-insensitive file systems are out of scope: the destination "already
exists" there and is refused.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Container, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reme_core.errors import FileRefused, PathRefused, RemeError
from reme_core.link_resolution import ObsidianResolver, normalize_target
from reme_core.memory_index import _aliases
from reme_core.paths import METADATA_DIR, is_ignored, normalize_relpath, resolve_inside
from reme_core.wikilinks import WikilinkMatch, find_markdown_links, find_wikilinks

if TYPE_CHECKING:
    from reme_core.workspace import Workspace

# A wikilink target ends at `#` or `|` and cannot hold brackets or a line break, so a path
# with any of them could not be linked to after the move.
_UNLINKABLE = re.compile(r"[\[\]#|\n\r]")
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


@dataclass(slots=True)
class MoveReport:
    """What a move did (or, with `dry_run`, would do).

    `untouched` lists inbound links left pointing at the old path: Markdown links (never
    rewritten, ReMe's rule) and, with `rewrite_links=False`, every wikilink.
    """

    src: str
    dst: str
    dry_run: bool
    edits: list[LinkEdit] = field(default_factory=list)
    untouched: list[InboundLink] = field(default_factory=list)
    indexed: bool = True

    @property
    def files(self) -> list[str]:
        """The files whose text changed (or would change), sorted."""
        return sorted({e.path for e in self.edits})

    def to_dict(self) -> dict[str, Any]:
        return {
            "src": self.src,
            "dst": self.dst,
            "dry_run": self.dry_run,
            "indexed": self.indexed,
            "files": self.files,
            "edits": [asdict(e) for e in self.edits],
            "untouched": [asdict(i) for i in self.untouched],
        }

    def lines(self) -> list[str]:
        """A human-readable account, one change per line."""
        would = "would " if self.dry_run else ""
        out = [f"{would}move {self.src} -> {self.dst}"]
        if not self.indexed:
            out.append(f"  note: {self.dst} is outside the indexed folders")
        n, files = len(self.edits), len(self.files)
        out.append(f"{would}rewrite {n} link{_s(n)} in {files} file{_s(files)}")
        out.extend(f"  {e.path}:{e.line}  {e.old} -> {e.new}" for e in self.edits)
        if self.untouched:
            out.append(
                f"{len(self.untouched)} inbound link{_s(len(self.untouched))} not rewritten:"
            )
            out.extend(f"  {i.path}:{i.line}  {i.raw}" for i in self.untouched)
        return out


@dataclass(slots=True)
class DeleteReport:
    """A deleted file and the inbound links that now dangle (to clean up by hand)."""

    path: str
    inbound: list[InboundLink] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "inbound": [asdict(i) for i in self.inbound]}

    def lines(self) -> list[str]:
        out = [f"deleted {self.path}"]
        if self.inbound:
            n = len(self.inbound)
            out.append(f"{n} inbound link{_s(n)} now dangling:")
            out.extend(f"  {i.path}:{i.line}  {i.raw}" for i in self.inbound)
        return out


def _s(n: int) -> str:
    return "" if n == 1 else "s"


# -- public operations ------------------------------------------------------------------------
def move(
    ws: Workspace, src: str, dst: str, rewrite_links: bool = True, dry_run: bool = False
) -> MoveReport:
    """Move `src` to `dst`, rewrite the wikilinks that target it, update the index at once.

    Only links that resolve to `src` change, and only their target: `!`, anchor, alias and any
    spacing stay. Links in code and Markdown links are left alone (Markdown links are listed
    in `untouched`). Raises `PathRefused` / `FileRefused` before touching anything, or
    `RemeError` after putting every file back.
    """
    from reme_core.workspace import Changes

    with ws.write_lock:
        src_rel = existing_file(ws, src)
        dst_rel = check_new_path(ws, dst)
        if dst_rel == src_rel:
            raise PathRefused(f"{dst}: is the file being moved")
        plan = _plan_move(ws, src_rel, dst_rel, rewrite_links)
        report = MoveReport(
            src_rel, dst_rel, dry_run, plan.edits, plan.untouched, in_scope(ws, dst_rel)
        )
        if dry_run:
            return report
        _commit(ws.root, plan.writes, src_rel, dst_rel)
        with ws.lock:
            src_indexed = src_rel in ws.index.nodes
        ws.apply(
            Changes(
                added=[dst_rel] if report.indexed else [],
                modified=sorted(p for p in plan.rewritten if p != src_rel),
                deleted=[src_rel] if src_indexed else [],
            )
        )
    return report


def delete(ws: Workspace, path: str) -> DeleteReport:
    """Remove a file, drop it from the index, and return the links that still point at it."""
    from reme_core.workspace import Changes

    with ws.write_lock:
        rel = existing_file(ws, path)
        inbound = [link for link in inbound_links(ws, rel) if link.path != rel]
        try:
            (ws.root / rel).unlink()
        except OSError as exc:
            raise RemeError(f"{rel}: cannot delete ({exc.strerror})") from None
        with ws.lock:
            indexed = rel in ws.index.nodes
        if indexed:
            ws.apply(Changes(deleted=[rel]))
    return DeleteReport(rel, inbound)


def create(
    ws: Workspace,
    path: str,
    name: str,
    description: str,
    metadata: Mapping[str, Any] | None = None,
    body: str = "",
) -> Path:
    """Write a new Markdown note with `name`, `description` and `metadata` as frontmatter.

    `name` and `description` come first and win over the same keys in `metadata`, so the
    fields every ReMe note should carry are always there. Returns the absolute path.
    """
    import yaml

    from reme_core.workspace import Changes

    fields: dict[str, Any] = {"name": name, "description": description}
    for key, value in (metadata or {}).items():
        fields.setdefault(str(key), value)
    try:
        header = yaml.safe_dump(fields, allow_unicode=True, sort_keys=False)
    except yaml.YAMLError as exc:
        raise RemeError(f"{path}: metadata cannot be written as YAML ({exc})") from None
    if body and not body.endswith("\n"):
        body += "\n"
    data = f"---\n{header}---\n{body}".encode(ws.config.encoding)
    with ws.write_lock:
        rel = check_new_path(ws, path)
        if not rel.endswith(".md"):
            raise PathRefused(f"{rel}: a note is Markdown; end the path with .md")
        target = ws.root / rel
        made: list[Path] = []
        try:
            made = _make_parents(ws.root, rel)
            with open(target, "xb") as fh:
                fh.write(data)
        except OSError as exc:
            if not isinstance(exc, FileExistsError):
                target.unlink(missing_ok=True)
            _remove_dirs(made)
            raise RemeError(f"{rel}: cannot write ({exc.strerror})") from None
        if in_scope(ws, rel):
            ws.apply(Changes(added=[rel]))
    return target


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


# -- path checks ------------------------------------------------------------------------------
def existing_file(ws: Workspace, path: str) -> str:
    """The normalised path of an existing regular file of the workspace, or `PathRefused`."""
    rel = normalize_relpath(path)
    if rel.split("/")[0] == METADATA_DIR:
        raise PathRefused(f"{rel}: {METADATA_DIR}/ holds the index, not notes")
    full = resolve_inside(ws.root, rel)
    if not full.is_file():
        what = "a folder" if full.is_dir() else "missing"
        raise PathRefused(f"{rel}: not a file ({what})")
    return rel


def check_new_path(ws: Workspace, path: str) -> str:
    """The normalised path for a file about to be written, refusing anything unsafe.

    Refused: absolute paths, escapes (also through symlinks), characters a wikilink cannot
    hold, paths the index ignores, an existing path, and a folder that is really a file.
    """
    if isinstance(path, str) and ("\n" in path or "\r" in path):
        raise PathRefused(f"{path!r}: a path with a line break cannot be linked to")
    rel = normalize_relpath(path)
    bad = _UNLINKABLE.search(rel)
    if bad:
        raise PathRefused(f"{rel}: contains {bad.group()!r}; [ ] # | cannot appear in a wikilink")
    if is_ignored(rel):
        raise PathRefused(f"{rel}: the index ignores this path (metadata/, dot-files, temp names)")
    full = resolve_inside(ws.root, rel)
    if os.path.lexists(full):
        raise PathRefused(f"{rel}: already exists")
    parent = full.parent
    while parent != ws.root and not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise PathRefused(
            f"{rel}: {parent.relative_to(ws.root).as_posix()} is a file, not a folder"
        )
    return rel


def in_scope(ws: Workspace, rel: str) -> bool:
    """Whether a fresh reindex would index this path."""
    return ws.watch_scope.covers(rel) or ws.rebuild_scope.covers(rel)


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
        return normalize_target(self.source, raw, relative=False) or raw

    def wikilink(self, raw: str) -> str:
        target = self.literal(raw)
        if self.resolver is None or target in self.nodes:
            return target
        return self.resolver.resolve(self.source, raw) or target


@dataclass(slots=True)
class _Write:
    path: Path
    old: bytes
    new: bytes
    mode: int


@dataclass(slots=True)
class _Plan:
    edits: list[LinkEdit] = field(default_factory=list)
    untouched: list[InboundLink] = field(default_factory=list)
    writes: list[_Write] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)


def _plan_move(ws: Workspace, src: str, dst: str, rewrite_links: bool) -> _Plan:
    plan = _Plan()
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
        plan.writes.append(_Write(full, old, text.encode(), mode & 0o7777))
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
    aliases = {path: _aliases(node.frontmatter) for path, node in nodes.items()}
    if src_node is not None:
        aliases[dst] = _aliases(src_node.frontmatter)
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
def _commit(root: Path, writes: list[_Write], src: str, dst: str) -> None:
    """Rewrite every file, then move; on any failure restore every original and raise."""
    temps: list[str] = []
    replaced: list[_Write] = []
    made: list[Path] = []
    try:
        for w in writes:
            temps.append(_write_temp(w.path, w.new, w.mode))
        for w, tmp in zip(writes, temps, strict=True):
            os.replace(tmp, w.path)
            replaced.append(w)
        made = _make_parents(root, dst)
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


def _rollback(replaced: list[_Write], temps: list[str], made: list[Path]) -> list[str]:
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
    _remove_dirs(made)
    return failed


def _make_parents(root: Path, rel: str) -> list[Path]:
    """Create the missing folders of `rel` under `root`; returns them, outermost first.

    The list grows as folders appear, so a failure halfway still lets the caller remove them.
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
        _remove_dirs(made)
        raise
    return made


def _remove_dirs(made: list[Path]) -> None:
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()
