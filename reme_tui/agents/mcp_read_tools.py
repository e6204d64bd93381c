"""The read-only MCP tools: ReMe's `search`, `read`, `traverse`, `list`, `stat`,
`frontmatter_read`, `daily_list`, `version`, `health_check`, and ours (`retrieve`, `links`).

Names and parameters are ReMe's (its `reme/config/default.yaml`), answers keep ReMe's text
where it has one, and each also returns the structured data of the matching `--json`.
"""

from __future__ import annotations

from dataclasses import asdict
from importlib import metadata
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

from reme_core import (
    RemeError,
    SearchOptions,
    Workspace,
    daily_notes,
    list_folder,
    parse_query,
    read_frontmatter,
    stat_path,
)
from reme_tui.agents.mcp_common import AnyPath, Date, NotePath, Register, guarded, result
from reme_tui.text.answers import (
    frontmatter_read_text,
    health_text,
    links_text,
    listed_text,
    no_daily_notes_text,
    retrieve_text,
    traverse_text,
)
from reme_tui.text.reports import search_dict, search_text, stat_text

LIST_LIMIT = 100  # ReMe's default page; a vault may hold 50k notes
Limit = Annotated[int, Field(ge=1, le=1000, description="most results to return")]
Direction = Annotated[
    Literal["forward", "backward", "both"],
    Field(description="forward = outlinks, backward = inlinks, both"),
]
Seeds = Annotated[
    str | list[str],
    Field(description="workspace-relative path, or a list of paths, used as graph seeds"),
]
DateFilter = Annotated[str | None, Field(description="inclusive date bound, YYYY-MM-DD")]


def version_text() -> str:
    try:
        return metadata.version("reme-tui")
    except metadata.PackageNotFoundError:
        return ""


def register_query_tools(tool: Register, ws: Workspace) -> None:
    """Search and retrieve: what an agent asks first."""

    @tool(read_only=True)
    def search(
        query: Annotated[str, Field(description='search query (words, "phrases", tag:x)')],
        limit: Limit = 5,
        min_score: Annotated[float | None, Field(description="drop hits scoring below")] = None,
        start_date: DateFilter = None,
        end_date: DateFilter = None,
        strict_date_filter: Annotated[
            bool | None, Field(description="undated notes fail a date filter")
        ] = None,
    ) -> CallToolResult:
        """Search the memory: the best chunks (path:start-end, score, text) with each hit's
        outlinks and inlinks. Dates are inclusive YYYY-MM-DD; a note's date is a YYYY-MM-DD
        in its path, else its date/created property. Undated notes pass a date filter in a
        memory workspace unless strict_date_filter (in a vault they never do)."""

        def run() -> CallToolResult:
            options = SearchOptions(limit=limit, min_score=min_score)
            request = parse_query(query, typing=False).request(
                options, strict_dates=strict_date_filter
            )
            found = ws.search(request.narrowed(start_date, end_date))
            return result(search_text(found), search_dict(found))

        return guarded(run)

    @tool(read_only=True)
    def retrieve(
        query: Annotated[str, Field(description="what the context is for")],
        limit: Annotated[int, Field(ge=1, le=1000, description="most hits to start from")] = 10,
        budget_tokens: Annotated[
            int | None, Field(ge=1, description="cut the context to about this many tokens")
        ] = None,
        expand_links: Annotated[bool, Field(description="add the notes hits link to")] = True,
    ) -> CallToolResult:
        """Context for a prompt: hits, then the notes they link to, without duplicates, cut
        to a token budget (the first item is always kept)."""

        def run() -> CallToolResult:
            got = ws.retrieve(query, limit, budget_tokens, expand_links, explain=True)
            return result(retrieve_text(got, explain=True), search_dict(got))

        return guarded(run)


def register_note_tools(tool: Register, ws: Workspace) -> None:
    """Reading a note and walking its links."""

    @tool(read_only=True)
    def read(
        path: NotePath,
        start_line: Annotated[int | None, Field(ge=1, description="first line, 1-based")] = None,
        end_line: Annotated[int | None, Field(ge=1, description="last line, inclusive")] = None,
    ) -> CallToolResult:
        """Lines of a file, 1-based and inclusive (e.g. a hit's range), frontmatter included;
        long output says where to continue. To change a note, prefer edit (find and replace)
        or save (whole text); write accepts the text read here (its frontmatter is merged,
        not duplicated)."""

        def run() -> CallToolResult:
            got = ws.read(path, start_line, end_line)
            text = f"{got.text}\n{got.notice}" if got.truncated else got.text
            return result(text, {**asdict(got), "notice": got.notice})

        return guarded(run)

    @tool(read_only=True)
    def traverse(
        path: Seeds,
        depth: Annotated[int, Field(ge=0, le=20, description="most wikilink hops")] = 1,
        direction: Direction = "both",
    ) -> CallToolResult:
        """Walk the wikilink graph breadth-first from one note or several; edges keep the
        link's own direction."""

        def run() -> CallToolResult:
            seeds = [path] if isinstance(path, str) else list(path)
            if not seeds:
                raise RemeError("traverse: path needs at least one seed")
            walks = [ws.traverse(seed, depth, direction) for seed in seeds]
            if len(walks) == 1:
                return result(traverse_text(walks[0]), asdict(walks[0]))
            return result("\n\n".join(traverse_text(w) for w in walks), _merged(walks, seeds))

        return guarded(run)

    @tool(read_only=True)
    def links(path: NotePath) -> CallToolResult:
        """Every outlink and inlink of a note, with names and descriptions; dangling marked."""

        def run() -> CallToolResult:
            found = ws.links(path)
            return result(links_text(found), asdict(found))

        return guarded(run)


def _merged(walks: list[Any], seeds: list[str]) -> dict[str, Any]:
    """Several walks as one graph: each node once at its smallest depth, each edge once."""
    nodes: dict[str, dict[str, Any]] = {}
    edges: dict[str, dict[str, Any]] = {}
    for walk in walks:
        for node in walk.nodes:
            seen = nodes.get(node.path)
            if seen is None or node.depth < seen["depth"]:
                nodes[node.path] = asdict(node)
        for edge in walk.edges:
            edges.setdefault(repr(sorted(asdict(edge).items())), asdict(edge))
    first = walks[0]
    return {
        "path": seeds,
        "depth": first.depth,
        "direction": first.direction,
        "nodes": list(nodes.values()),
        "edges": list(edges.values()),
    }


def register_listing_tools(tool: Register, ws: Workspace) -> None:
    """Listing, inspecting and the daily layer, plus the server's own health."""

    @tool("list", read_only=True, aliases={"prefix": "path"})
    def list_files(
        path: AnyPath = "",
        recursive: Annotated[bool, Field(description="include every subfolder")] = False,
        sort_by: Annotated[
            Literal["mtime"] | None, Field(description="mtime = most recently modified first")
        ] = None,
        extensions: Annotated[
            list[str] | None, Field(description='keep only these extensions, e.g. ["md"]')
        ] = None,
        limit: Annotated[int, Field(ge=1, le=10_000, description="most files to return")] = (
            LIST_LIMIT
        ),
    ) -> CallToolResult:
        """Files in a folder (recursive: and below), a note's name and description beside
        it; filtered by extension, newest first with sort_by=mtime. (`prefix` is accepted as
        the old name of `path`.)"""

        def run() -> CallToolResult:
            paths = list_folder(ws, path, recursive, extensions, newest_first=sort_by == "mtime")
            folder = path.strip().strip("/")
            entries = []
            for p in paths[:limit]:
                node = ws.node(p)
                name = node.name if node is not None else ""  # not indexed: no name
                desc = node.description if node is not None else ""
                entries.append({"path": p, "name": name, "description": desc})
            where = folder or "."
            text = listed_text(entries, len(paths), where)
            data = {
                "path": folder,
                "recursive": recursive,
                "total": len(paths),
                "count": len(entries),
                "items": [e["path"] for e in entries],
                "files": entries,
            }
            return result(text, data)

        return guarded(run)

    @tool(read_only=True)
    def stat(path: AnyPath) -> CallToolResult:
        """A file's or folder's type, size, mtime and ctime (ISO), and a note's frontmatter;
        pass mtime to save as expected_mtime."""
        return guarded(lambda: _stat(ws, path))

    @tool(read_only=True)
    def frontmatter_read(path: NotePath) -> CallToolResult:
        """A note's frontmatter as a mapping."""

        def run() -> CallToolResult:
            meta = read_frontmatter(ws, path)
            text = frontmatter_read_text(path, len(meta))
            return result(text, {"path": path, "exists": True, "frontmatter": meta})

        return guarded(run)

    @tool(read_only=True)
    def daily_list(date: Date = "") -> CallToolResult:
        """The notes of one day (daily/<date>/<name>.md) with their frontmatter."""

        def run() -> CallToolResult:
            notes = daily_notes(ws, date or None)
            day = notes[0]["path"].split("/")[1] if notes else (date or "today")
            lines = [_daily_line(n) for n in notes]
            text = "\n".join(lines) if lines else no_daily_notes_text(day)
            return result(text, {"date": date, "count": len(notes), "notes": notes})

        return guarded(run)

    @tool(read_only=True)
    def version() -> CallToolResult:
        """The reme-tui version serving this workspace."""
        return result(version_text(), {"version": version_text()})

    @tool(read_only=True)
    def health_check() -> CallToolResult:
        """Is the server answering, and what its index holds."""

        def run() -> CallToolResult:
            stats = ws.stats().to_dict()
            counts = (stats["files"], stats["chunks"], stats["links"])
            text = health_text(version_text(), *counts)
            return result(text, {"status": "healthy", "version": version_text(), **stats})

        return guarded(run)


def _stat(ws: Workspace, path: str) -> CallToolResult:
    found = stat_path(ws, path)
    return result(stat_text(found), found.to_dict())


def _daily_line(note: dict[str, Any]) -> str:
    """ReMe's line: `- path: P name: N description: D <other keys>`, one line each."""
    first = [k for k in ("name", "description", "session_id", "source_conversation") if k in note]
    keys = first + [k for k in note if k not in {"path", *first}]
    parts = [f"- path: {note['path']}"]
    for key in keys:
        value = note[key]
        if value is None or value == "":
            continue
        parts.append(f"{key}: {' '.join(str(value).splitlines())}")
    return " ".join(parts)
