"""Where a written link points in a vault, and the text that points at a new place in the
form the link was written.

Obsidian's "shortest path when possible": a name-only link stays name-only while that name
finds just one file (else the shortest path that does), a path stays a path (a full path a
full path), `.md` appears only where it was written, a relative link stays relative, and a
Markdown destination keeps its `<…>` or URL-encoding. Memory mode (ReMe's literal paths)
never comes here: its links are always the full path.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Container, Iterable
from urllib.parse import quote, unquote

from reme_core.index.link_resolution import LinkFinder, ObsidianResolver, normalize_target

# Characters a plain (unbracketed) Markdown destination cannot hold as they are.
_UNSAFE_PLAIN = {" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E", "%": "%25"}


class LinkWorld:
    """The files a vault has (now, or as a move will leave it), and which one a link finds.

    Finds as the graph does (`LinkFinder`, the one rule): the literal path when it is a note,
    else Obsidian's rule among notes, else among the other files (attachments, listed by
    `files` only when first needed).
    """

    def __init__(
        self,
        resolver: ObsidianResolver,
        notes: Container[str],
        files: Callable[[], Iterable[str]],
    ) -> None:
        self.resolver, self.notes, self._files = resolver, notes, files
        self._others: ObsidianResolver | None = None
        self.finder = LinkFinder(notes, resolver, lambda: self.others)

    @property
    def others(self) -> ObsidianResolver:
        """The files that are not notes, resolved by the same rule."""
        if self._others is None:
            self._others = ObsidianResolver(p for p in self._files() if p not in self.notes)
        return self._others

    def wikilink(self, source: str, raw: str) -> str | None:
        """The file a wikilink target written in `source` finds; None when none does."""
        return self.finder.find(source, normalize_target(source, raw, relative=False), raw)

    def wikilink_note(self, source: str, raw: str) -> str | None:
        """The note a wikilink target finds, or None (notes come before other files, so
        this alone says whether a link finds a given note, without listing the files)."""
        return self.finder.note(source, normalize_target(source, raw, relative=False), raw)

    def markdown(self, source: str, raw: str) -> str | None:
        """The file a (URL-decoded) Markdown destination in `source` finds; None when none."""
        literal = normalize_target(source, raw, relative=True)
        if literal is None:
            return None
        return self.finder.find(source, literal, raw)

    def markdown_note(self, source: str, raw: str) -> str | None:
        """The note a Markdown destination finds, or None (see `wikilink_note`)."""
        literal = normalize_target(source, raw, relative=True)
        if literal is None:
            return None
        return self.finder.note(source, literal, raw)

    def finds(self, source: str, raw: str, goal: str, markdown: bool = False) -> bool:
        """Whether the link finds `goal`; for a note, without listing the other files."""
        note = (self.markdown_note if markdown else self.wikilink_note)(source, raw)
        if note is not None or goal in self.notes:
            return note == goal
        return (self.markdown if markdown else self.wikilink)(source, raw) == goal

    def unambiguous(self, source: str, raw: str, goal: str) -> bool:
        """`raw` finds `goal` and no other file could be meant by it."""
        if not self.finds(source, raw, goal):
            return False
        candidates = self.resolver.candidates(source, raw) or self.others.candidates(source, raw)
        return candidates == {goal}


def wikilink_target(written: str, old: str, goal: str, where: str, world: LinkWorld) -> str | None:
    """The target to write instead of `written` (which found `old`) so that the link, in the
    file at `where`, finds `goal` in the same form; None when no text of that form does."""
    for form in _wikilink_forms(written, old, goal, where):
        if world.unambiguous(where, form, goal):
            return form
    return None


def _wikilink_forms(written: str, old: str, goal: str, where: str) -> list[str]:
    """Candidate targets, shortest first, in the form of `written`."""
    shown = _with_suffix_as_written(written, goal)
    if written.startswith(("./", "../")):
        return [_relative(written, shown, where), shown]
    parts = shown.split("/")
    suffixes = ["/".join(parts[i:]) for i in range(len(parts) - 1, -1, -1)]  # name … full
    if "/" not in written:
        return suffixes
    literal = normalize_target(where, written, relative=False) or ""
    if literal.lower() in (old.lower(), old.lower().removesuffix(".md")):
        return [shown]  # the full path was written: the full path again
    return suffixes[1:] or suffixes  # a partial path stays a path (at the root: the name)


def markdown_destination(written: str, goal: str, where: str) -> str:
    """The destination to write instead of `written` (the raw text between the parentheses,
    with its `#fragment`): the path from `where` to `goal`, encoded as `written` was."""
    angle = written.startswith("<") and written.endswith(">")
    inner = written[1:-1].strip() if angle else written
    path, hash_, fragment = inner.partition("#")
    decoded = unquote(path)
    rel = _relative(decoded, _with_suffix_as_written(decoded, goal), where)
    if angle and not any(c in rel for c in "<>\n"):
        return f"<{rel}{hash_}{fragment}>"
    if path.isascii() and not decoded.isascii():
        encoded = quote(rel, safe="/!$&'*+,;=:@-._~")  # it was written fully encoded
    else:
        encoded = "".join(_UNSAFE_PLAIN.get(c, c) for c in rel)
    return f"{encoded}{hash_}{fragment}"


def _with_suffix_as_written(written: str, goal: str) -> str:
    """`goal` with `.md` only when `written` had it (in the case written); other files keep
    their extension, which is part of their name."""
    if not goal.lower().endswith(".md"):
        return goal
    if written.lower().endswith(".md"):
        return goal[:-3] + written[-3:]
    return goal[:-3]


def _relative(written: str, shown: str, where: str) -> str:
    """`shown` relative to the folder of `where`, with a leading `./` when `written` had one."""
    rel = posixpath.relpath(shown, posixpath.dirname(where) or ".")
    if written.startswith("./") and not rel.startswith("../"):
        rel = "./" + rel
    return rel
