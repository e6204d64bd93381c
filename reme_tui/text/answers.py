"""Text answers shared by the command line and the MCP server: what a person reads in a shell
and what an agent reads in a tool result are the same text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reme_tui.text.reports import search_note
from reme_tui.text.words import plural

if TYPE_CHECKING:
    from reme_core import Neighbour, NoteLinks, RetrieveResult, TraverseResult


def retrieve_text(result: RetrieveResult, explain: bool = False) -> str:
    """One block per retrieved item (hit or link target), then the budget line; with
    `explain`, the items the budget dropped."""
    if not result.items:
        return search_note(result.query, result.outcome, result.matched) or (
            f"No results for {result.query!r}."
        )
    lines: list[str] = []
    for item in result.items:
        if item.source == "hit":
            why = f"hit score={item.score:.4f}" if item.score is not None else "hit"
        else:
            why = f"link via {item.via}" if item.via else "link"
        lines.append(
            f"========== {item.path}:{item.start_line}-{item.end_line} [{why}] "
            f"~{item.tokens_est} tokens =========="
        )
        lines.append(item.text)
    n = len(result.items)
    lines.append(f"budget used: ~{result.budget_used} tokens in {plural(n, 'item')}")
    if result.unresolved_links:
        lines.append(f"unresolved links: {', '.join(result.unresolved_links)}")
    if explain and result.dropped:
        lines.append(f"dropped by the budget ({len(result.dropped)}):")
        lines.extend(
            f"  {d.path}:{d.start_line}-{d.end_line} ({d.source}, ~{d.tokens_est} tokens)"
            for d in result.dropped
        )
    return "\n".join(lines)


def traverse_text(result: TraverseResult) -> str:
    """The walk as `reme-tui traverse` prints it: one node per line, indented by depth."""
    lines = []
    for node in result.nodes:
        mark = "" if node.indexed else "  (not indexed)"
        name = f'  name="{node.name}"' if node.name else ""
        lines.append(f"{'  ' * node.depth}[{node.depth}] {node.path}{name}{mark}")
    lines.append(f"{len(result.nodes)} nodes, {len(result.edges)} edges")
    return "\n".join(lines)


def links_text(links: NoteLinks) -> str:
    """Outlinks then inlinks, one per line, marking dangling links and attachments."""
    lines = []
    for direction, arrow in (("outlinks", "->"), ("inlinks", "<-")):
        neighbours: list[Neighbour] = getattr(links, direction)
        lines.append(f"{direction} ({len(neighbours)}):")
        for n in neighbours:
            anchors = "".join(f"#{a}" for a in n.anchors[:1])
            parts = [f"  {arrow} {n.path}{anchors}"]
            if n.name:
                parts.append(f'name="{n.name}"')
            if n.dangling:
                parts.append("(dangling)")
            elif not n.indexed:
                parts.append("(attachment)")
            lines.append("  ".join(parts))
    return "\n".join(lines)


def list_text(entries: list[dict[str, str]], total: int) -> str:
    """One indexed note per line with its name and description; says when it was cut."""
    lines = []
    for e in entries:
        parts = [e["path"]]
        if e["name"]:
            parts.append(f'name="{e["name"]}"')
        if e["description"]:
            parts.append(f'description="{e["description"]}"')
        lines.append("  ".join(parts))
    shown = len(entries)
    if shown < total:
        lines.append(f"[{shown} of {total} files shown; narrow the prefix or raise the limit]")
    elif not entries:
        lines.append("no indexed files match")
    return "\n".join(lines)


# -- ReMe's tool answers: its own words, byte for byte ("key(s)", "file(s)"), which its agents read
def listed_text(entries: list[dict[str, str]], total: int, where: str) -> str:
    """`list`'s answer: how many files under the folder, then one per line."""
    if not entries:
        return f"No files found under {where}."
    return f"Listed {len(entries)} file(s) under {where}:\n{list_text(entries, total)}"


def frontmatter_read_text(path: str, keys: int) -> str:
    return f"Read frontmatter from {path} ({keys} key(s))"


def frontmatter_updated_text(path: str, keys: int) -> str:
    return f"Updated {keys} key(s) on {path}"


def frontmatter_deleted_text(path: str, keys: int) -> str:
    return f"Deleted {keys} key(s) from {path}"


def no_daily_notes_text(day: str) -> str:
    return f"No notes found for {day}"


def health_text(version: str, files: int, chunks: int, links: int) -> str:
    """`health_check`'s answer: the server answers, and what its index holds."""
    return f"reme-tui v{version} - healthy ({files} files, {chunks} chunks, {links} links indexed)"
