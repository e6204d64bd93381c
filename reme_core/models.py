"""The data model shared by every stage: files become nodes, chunks and links."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def content_hash(data: bytes) -> str:
    """A file's content hash (`FileNode.content_hash`): what tells a touched file from an
    edited one."""
    import hashlib  # here: OpenSSL's start-up is a tenth of a cold search's imports

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def chunk_id(path: str, start_line: int, end_line: int, text: str) -> str:
    """Stable id of a chunk: the same content at the same place always gets the same id."""
    import hashlib  # here: OpenSSL's start-up is a tenth of a cold search's imports

    digest = hashlib.blake2b(digest_size=12)
    digest.update(f"{path}\0{start_line}\0{end_line}\0".encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class FileLink:
    """One wikilink (or, with Obsidian resolution, Markdown link) from one file to another.

    `target_path` is the resolved workspace-relative target; `raw_target` is what was written.
    """

    source_path: str
    target_path: str
    target_anchor: str = ""
    line: int = 0
    alias: str = ""
    embed: bool = False
    raw_target: str = ""


@dataclass(slots=True)
class FileChunk:
    """A retrievable piece of one file.

    `body` is the exact source lines `start_line..end_line` (1-based, inclusive, joined with
    "\\n"). `prefix` is the heading skeleton (and repeated table header / fence, `[Part X/N]`)
    shown before it and `suffix` a closing fence after it; neither is part of the line range.
    """

    path: str
    start_line: int
    end_line: int
    body: str
    prefix: str = ""
    suffix: str = ""
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            self.id = chunk_id(self.path, self.start_line, self.end_line, self.text)

    @property
    def text(self) -> str:
        """What is indexed and shown: skeleton prefix, exact body, closing suffix."""
        return f"{self.prefix}{self.body}{self.suffix}"


@dataclass(slots=True)
class FileNode:
    """One indexed file: where it is, what its frontmatter says, what it links to."""

    path: str
    st_mtime: float = 0.0
    size: int = 0
    frontmatter: dict[str, Any] = field(default_factory=dict)
    links: list[FileLink] = field(default_factory=list)
    chunk_ids: list[str] = field(default_factory=list)
    content_hash: str = ""
    warnings: list[str] = field(default_factory=list)
    inline_tags: list[str] = field(default_factory=list)  # `#tags` of the body (vaults)

    @property
    def name(self) -> str:
        value = self.frontmatter.get("name")
        return str(value) if value is not None else ""

    @property
    def description(self) -> str:
        value = self.frontmatter.get("description")
        return str(value) if value is not None else ""

    @property
    def tags(self) -> list[str]:
        """The note's tags: frontmatter ones (whatever shape the YAML gave them), then the
        body's inline ones; each once, whatever its case (Obsidian's tags ignore case)."""
        return note_tags(self.frontmatter, self.inline_tags)


def note_tags(frontmatter: Mapping[str, Any], inline: list[str]) -> list[str]:
    """Frontmatter tags then inline tags, each once (case-insensitively, first spelling)."""
    seen: dict[str, str] = {}
    for tag in (*frontmatter_tags(frontmatter), *inline):
        seen.setdefault(tag.lower(), tag)
    return list(seen.values())


def frontmatter_tags(frontmatter: Mapping[str, Any]) -> list[str]:
    """Tags of a frontmatter mapping, as Obsidian reads them: `tags`, else `tag` (also
    Capitalised or in CAPITALS), a list or a string of comma- or space-separated tags, `#`
    optional; null entries none."""
    raw = _first_key(frontmatter, _TAG_KEYS)
    if raw is None:
        return []
    if isinstance(raw, str):
        parts = raw.replace(",", " ").split()
    elif isinstance(raw, (list, tuple)):
        parts = [str(t) for t in raw if t is not None and not isinstance(t, (dict, list))]
    elif isinstance(raw, dict):
        return []
    else:
        parts = [str(raw)]
    return [p.strip().lstrip("#") for p in parts if p.strip().lstrip("#")]


def aliases_of(frontmatter: Mapping[str, Any]) -> list[str]:
    """Aliases of a frontmatter mapping: the one rule the name field, the switcher and the
    links pane share (links never resolve by alias). `aliases`, else `alias` (also
    Capitalised or in CAPITALS), a list or a comma-separated string; empty, null and
    non-string entries are no alias (an empty `- ` is not a note named "None").
    """
    raw = _first_key(frontmatter, _ALIAS_KEYS)
    if isinstance(raw, str):
        raw = raw.split(",")
    if not isinstance(raw, (list, tuple)):
        return []
    names = (a.strip() for a in raw if isinstance(a, str))
    return list(dict.fromkeys(a for a in names if a))


def _spellings(*keys: str) -> tuple[str, ...]:
    """Each key as written, capitalised and in capitals (Obsidian reads `Aliases:` too)."""
    return tuple(form for key in keys for form in (key, key.title(), key.upper()))


_TAG_KEYS = _spellings("tags", "tag")
_ALIAS_KEYS = _spellings("aliases", "alias")


def _first_key(frontmatter: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    """The first non-empty value among `keys` (lookups only: this runs for every note at
    every open)."""
    for key in keys:
        value = frontmatter.get(key)
        if value is not None and value != "" and value != []:
            return value
    return None


@dataclass(slots=True)
class ParsedFile:
    """What a chunker makes of one file, before it reaches the stores."""

    node: FileNode
    chunks: list[FileChunk]
