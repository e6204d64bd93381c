"""The MCP server (`reme-tui mcp`): one workspace served to an agent over stdio.

Tools keep ReMe's job names and parameters (`search`, `read`, `traverse`), so ReMe's skill
files keep working, plus `retrieve`, `links`, `list`, `write`, `move` and, when allowed,
`delete`. Each returns the text a person gets from the CLI and the structured data of its
`--json`. Bad input is a tool error with the reason, never a dead server. The watcher runs in
the server's event loop, so a person's edits reach the agent at once, and what the agent
writes is indexed before the call returns (the browser's own watcher then shows it).

stdout is the transport: nothing else may print there (the SDK points fd 1 at stderr while
it serves; warnings go to stderr).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from importlib import metadata
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from reme_core import RemeError, Workspace
from reme_tui.agents.jsonrpc_guard import run_checked_stdio
from reme_tui.cli.answers import links_text, list_text, retrieve_text, traverse_text
from reme_tui.cli.terminal_text import message

INSTRUCTIONS = """ReMe memory: a folder of Markdown notes shared with a person.
search finds chunks (path:start-end) and their linked notes; read a range with read(path,
start_line, end_line); follow links with traverse or links; retrieve gives a token-budgeted
context. write creates or rewrites a note (keep its Sources links); move keeps links intact.
Paths are workspace-relative, e.g. digest/wiki/solar.md."""

_Tool = Callable[..., CallToolResult]
LIST_LIMIT = 500  # a vault may hold 50k notes: `list` answers in pages of this size
CALL_SECONDS = 60.0  # a tool call that runs longer answers with a tool error


def _result(text: str, data: Any) -> CallToolResult:
    """A tool answer: the text for the model, the same answer as JSON data for programs."""
    structured = json.loads(json.dumps(data, ensure_ascii=False, default=str))
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )


def _guarded(fn: Callable[[], CallToolResult]) -> CallToolResult:
    """Run a tool body; reme's refusals (escapes, missing files, bad dates) and anything
    unexpected become a tool error with a message the agent can act on."""
    try:
        return fn()
    except RemeError as exc:
        raise ToolError(str(exc)) from None
    except (ValueError, TypeError, OSError) as exc:
        raise ToolError(f"{exc.__class__.__name__}: {exc}") from None


def _version() -> str:
    try:
        return metadata.version("reme-tui")
    except metadata.PackageNotFoundError:
        return ""


def _bounded(fn: _Tool, name: str, seconds: float) -> Callable[..., Awaitable[CallToolResult]]:
    """`fn` as a coroutine: its body on a worker thread, so the event loop answers other
    calls meanwhile, and a tool error once `seconds` pass (the thread is left to finish: a
    write it started still completes, or fails, on its own)."""

    @functools.wraps(fn)
    async def call(**kwargs: Any) -> CallToolResult:
        with anyio.move_on_after(seconds):
            work = functools.partial(fn, **kwargs)
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        raise ToolError(
            f"{name} did not finish within {seconds:g} s (it may still complete: "
            "check before repeating a write)"
        )

    return call


def build_server(
    ws: Workspace, allow_delete: bool = False, call_seconds: float = CALL_SECONDS
) -> MCPServer:
    """The MCP server over `ws`; `delete` is registered only when `allow_delete`."""
    server = MCPServer("reme", instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")

    def tool(name: str | None = None) -> Callable[[_Tool], _Tool]:
        """`server.tool()` with the docstring, dedented, as the description the model reads;
        each call bounded by `call_seconds`."""

        def register(fn: _Tool) -> _Tool:
            description = inspect.cleandoc(fn.__doc__ or "")
            bounded = _bounded(fn, name or fn.__name__, call_seconds)
            server.add_tool(bounded, name=name, description=description)
            return fn

        return register

    _query_tools(tool, ws)
    _note_tools(tool, ws)
    _edit_tools(tool, ws, allow_delete)
    return server


_Register = Callable[..., Callable[[_Tool], _Tool]]  # `tool(name=None)` of build_server


def _query_tools(tool: _Register, ws: Workspace) -> None:
    """Search and retrieve: what an agent asks first."""

    @tool()
    def search(
        query: str,
        limit: int = 5,
        min_score: float | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        strict_date_filter: bool | None = None,
    ) -> CallToolResult:
        """Search the memory: the best chunks (path:start-end, score, text) with each hit's
        outlinks and inlinks. Dates are inclusive YYYY-MM-DD; a note's date is a YYYY-MM-DD
        in its path, else its date/created property. Undated notes pass a date filter in a
        memory workspace unless strict_date_filter (in a vault they never do)."""

        def run() -> CallToolResult:
            if limit < 1:
                raise RemeError(f"limit must be at least 1, got {limit}")
            result = ws.search(
                query, limit, min_score, start_date, end_date, strict_date_filter=strict_date_filter
            )
            return _result(result.answer(), result.to_dict())

        return _guarded(run)

    @tool()
    def retrieve(
        query: str,
        limit: int = 10,
        budget_tokens: int | None = None,
        expand_links: bool = True,
    ) -> CallToolResult:
        """Context for a prompt: hits, then the notes they link to, without duplicates, cut
        to a token budget (the first item is always kept)."""

        def run() -> CallToolResult:
            result = ws.retrieve(query, limit, budget_tokens, expand_links, explain=True)
            return _result(retrieve_text(result, explain=True), result.to_dict())

        return _guarded(run)


def _note_tools(tool: _Register, ws: Workspace) -> None:
    """Reading a note and walking its links, and listing the notes."""

    @tool()
    def read(
        path: str, start_line: int | None = None, end_line: int | None = None
    ) -> CallToolResult:
        """Lines of a file, 1-based and inclusive (e.g. a hit's range); long output says
        where to continue."""

        def run() -> CallToolResult:
            result = ws.read(path, start_line, end_line)
            text = f"{result.text}\n{result.notice}" if result.truncated else result.text
            return _result(text, {**asdict(result), "notice": result.notice})

        return _guarded(run)

    @tool()
    def traverse(path: str, depth: int = 1, direction: str = "both") -> CallToolResult:
        """Walk the wikilink graph breadth-first from a note; direction is both, forward
        (outlinks) or backward (inlinks)."""

        def run() -> CallToolResult:
            result = ws.traverse(path, depth, direction)
            return _result(traverse_text(result), asdict(result))

        return _guarded(run)

    @tool()
    def links(path: str) -> CallToolResult:
        """Every outlink and inlink of a note, with names and descriptions; dangling marked."""

        def run() -> CallToolResult:
            found = ws.links(path)
            return _result(links_text(found), asdict(found))

        return _guarded(run)

    @tool("list")
    def list_files(prefix: str = "", limit: int = LIST_LIMIT) -> CallToolResult:
        """Indexed notes whose path starts with `prefix` (e.g. digest/), with name and
        description."""

        def run() -> CallToolResult:
            if limit < 1:
                raise RemeError(f"limit must be at least 1, got {limit}")
            paths = [p for p in ws.files() if p.startswith(prefix)]
            entries = []
            for p in paths[:limit]:
                node = ws.node(p)
                name = node.name if node is not None else ""
                desc = node.description if node is not None else ""
                entries.append({"path": p, "name": name, "description": desc})
            data = {"prefix": prefix, "total": len(paths), "files": entries}
            return _result(list_text(entries, len(paths)), data)

        return _guarded(run)


def _edit_tools(tool: _Register, ws: Workspace, allow_delete: bool) -> None:
    """Writing and moving notes (and deleting them, when allowed)."""

    @tool()
    def write(
        path: str,
        content: str | None = None,
        name: str | None = None,
        description: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> CallToolResult:
        """Create or rewrite a note. `content` is the body (omit it to keep the body);
        `name`, `description` and `metadata` are merged into the frontmatter, keeping every
        key not named (a metadata value of null removes that key). Keep the note's Sources
        links when rewriting. Indexed before this returns."""

        def run() -> CallToolResult:
            report = ws.write(path, content, name, description, metadata)
            return _result(report.answer(), report.to_dict())

        return _guarded(run)

    @tool()
    def move(src: str, dst: str) -> CallToolResult:
        """Move or rename a note, rewriting every wikilink that points at it."""

        def run() -> CallToolResult:
            report = ws.move(src, dst)
            return _result("\n".join(report.lines()), report.to_dict())

        return _guarded(run)

    if allow_delete:

        @tool()
        def delete(path: str) -> CallToolResult:
            """Move a note to .trash/ (undo with `reme-tui undo`); lists the links it leaves
            dangling, to clean up."""

            def run() -> CallToolResult:
                report = ws.delete(path)
                return _result("\n".join(report.lines()), report.to_dict())

            return _guarded(run)


async def serve(
    ws: Workspace, allow_delete: bool = False, call_seconds: float = CALL_SECONDS
) -> None:
    """Serve `ws` over stdio until the client closes it, keeping the index fresh meanwhile."""
    from reme_core.indexing.watcher import watch_workspace

    server = build_server(ws, allow_delete, call_seconds)
    stop = asyncio.Event()

    async def keep_fresh() -> None:
        try:
            async for _report in watch_workspace(ws, stop_event=stop):
                pass  # applied: the next tool call answers from it
        except Exception as exc:  # the server keeps answering from the last applied state
            message(f"reme-tui mcp: warning: the watcher stopped ({exc.__class__.__name__}: {exc})")

    watcher = asyncio.create_task(keep_fresh())
    try:
        await run_checked_stdio(server)
    finally:
        stop.set()
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(watcher, timeout=5)
