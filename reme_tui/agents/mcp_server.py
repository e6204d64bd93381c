"""The MCP server (`reme-tui mcp`): one workspace served to agents over stdio, or over
streamable HTTP (`mcp_http.py`).

Tools keep ReMe's job names and parameters (its `default.yaml`: `search`, `read`, `traverse`,
`list`, `stat`, `write`, `save`, `edit`, `move`, `frontmatter_*`, `daily_*`, `version`,
`health_check`), so ReMe's skill and plugin keep working, plus `retrieve`, `links` and, when
allowed, `delete`. Each returns the text a person gets from the CLI and the structured data of its
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
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from mcp.types import Tool as MCPTool
from pydantic import ValidationError

from reme_core import Workspace
from reme_tui.agents.jsonrpc_guard import run_checked_stdio
from reme_tui.agents.mcp_common import ToolFn
from reme_tui.agents.mcp_edit_tools import register_edit_tools
from reme_tui.agents.mcp_read_tools import (
    register_listing_tools,
    register_note_tools,
    register_query_tools,
    version_text,
)
from reme_tui.agents.output_schemas import OUTPUT_SCHEMAS
from reme_tui.agents.tool_args import checked_arguments, validation_line
from reme_tui.text.terminal import message

INSTRUCTIONS = """ReMe memory: a folder of Markdown notes shared with a person.
search finds chunks (path:start-end) and their linked notes; read a range with read(path,
start_line, end_line); follow links with traverse or links; retrieve gives a token-budgeted
context. edit replaces text in a note, save writes its whole text (pass stat's mtime as
expected_mtime), write creates or rewrites a note (keep its Sources links; text from read may
be written back); move keeps links intact.
Paths are workspace-relative, e.g. digest/wiki/solar.md."""

CALL_SECONDS = 60.0  # a tool call that runs longer answers with a tool error


class _RemeServer(MCPServer):
    """MCPServer that checks argument names first (aliases mapped, unknown names refused),
    says `additionalProperties: false` in each input schema, gives each structured answer its
    output schema, and words validation errors on one line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.accepted: dict[str, tuple[str, ...]] = {}
        self.aliases: dict[str, dict[str, str]] = {}

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        for t in tools:
            t.input_schema["additionalProperties"] = False
            t.output_schema = OUTPUT_SCHEMAS.get(t.name, t.output_schema)
        return tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        if name in self.accepted:
            arguments = checked_arguments(
                name, arguments, self.accepted[name], self.aliases.get(name, {})
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(validation_line(name, exc.__cause__)) from None
            raise


def _bounded(fn: ToolFn, name: str, seconds: float) -> Callable[..., Awaitable[CallToolResult]]:
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
    server = _RemeServer(
        "reme", instructions=INSTRUCTIONS, version=version_text(), log_level="WARNING"
    )

    def tool(
        name: str | None = None, *, read_only: bool, aliases: dict[str, str] | None = None
    ) -> Callable[[ToolFn], ToolFn]:
        """`server.add_tool()` with the docstring, dedented, as the description the model
        reads, the read-only or destructive hint, and each call bounded by `call_seconds`."""

        def register(fn: ToolFn) -> ToolFn:
            called = name or fn.__name__
            hints = ToolAnnotations(
                read_only_hint=read_only,
                destructive_hint=None if read_only else True,
                open_world_hint=False,
            )
            description = inspect.cleandoc(fn.__doc__ or "")
            bounded = _bounded(fn, called, call_seconds)
            server.add_tool(bounded, name=called, description=description, annotations=hints)
            server.accepted[called] = tuple(inspect.signature(fn).parameters)
            server.aliases[called] = dict(aliases or {})
            return fn

        return register

    register_query_tools(tool, ws)
    register_note_tools(tool, ws)
    register_listing_tools(tool, ws)
    register_edit_tools(tool, ws, allow_delete)
    return server


@contextlib.asynccontextmanager
async def fresh_index(ws: Workspace) -> AsyncIterator[None]:
    """Run the workspace watcher in this event loop while the body serves: one watcher for
    every client, so a person's edits reach each agent at once."""
    from reme_core import watch_workspace

    stop = asyncio.Event()

    async def keep_fresh() -> None:
        try:
            async for _report in watch_workspace(ws, stop_event=stop):
                pass  # applied: the next tool call answers from it
        except Exception as exc:  # the server keeps answering from the last applied state
            message(f"reme-tui mcp: warning: the watcher stopped ({exc.__class__.__name__}: {exc})")

    watcher = asyncio.create_task(keep_fresh())
    try:
        yield
    finally:
        stop.set()
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(watcher, timeout=5)


async def serve(
    ws: Workspace, allow_delete: bool = False, call_seconds: float = CALL_SECONDS
) -> None:
    """Serve `ws` over stdio until the client closes it, keeping the index fresh meanwhile."""
    server = build_server(ws, allow_delete, call_seconds)
    async with fresh_index(ws):
        await run_checked_stdio(server)
