"""Every message the MCP server reads gets an answer or is a well-formed notification/response.

The SDK's stdio transport drops a line it cannot decode (and one whose id, method or params
have the wrong type) without a reply, so a client waits for ever. Each line is checked here
first: one that is not a JSON-RPC 2.0 message as MCP allows it (an object, no batch, id a
string or an integer, method a string, params an object) is answered with JSON-RPC's own
error (parse error, invalid request, invalid params) and never reaches the server; the rest
pass through untouched. A line of MAX_LINE characters or more is refused without being read
into memory whole.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TextIO

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    jsonrpc_message_adapter,
)

Reply = Callable[[JSONRPCError], Awaitable[None]]
MAX_LINE = 16 * 1024 * 1024  # characters: a longer message is refused, never held whole


def _error(code: int, message: str, request_id: str | int | None = None) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


def _request_id(message: dict[str, Any]) -> tuple[bool, str | int | None]:
    """(valid, id): an id is a string or an integer (not a bool, float or null, per MCP)."""
    if "id" not in message:
        return True, None
    value = message["id"]
    ok = isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
    return ok, value if ok else None


def check_line(line: str) -> JSONRPCError | None:
    """The error that answers `line`, or None when it is a message to pass to the server."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return _error(PARSE_ERROR, "Parse error: the message is not JSON")
    if isinstance(message, list):
        return _error(INVALID_REQUEST, "Invalid request: batches are not supported")
    if not isinstance(message, dict):
        return _error(INVALID_REQUEST, "Invalid request: a message is a JSON object")
    ok, request_id = _request_id(message)
    if not ok:
        return _error(INVALID_REQUEST, "Invalid request: id must be a string or an integer")
    if message.get("jsonrpc") != "2.0":
        return _error(INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"', request_id)
    if "method" in message:
        if not isinstance(message["method"], str):
            return _error(INVALID_REQUEST, "Invalid request: method must be a string", request_id)
        if not isinstance(message.get("params", {}), dict):
            return _error(INVALID_PARAMS, "Invalid params: params must be an object", request_id)
    elif request_id is None or ("result" in message) == ("error" in message):
        return _error(INVALID_REQUEST, "Invalid request: no method, nor a response to a request")
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        return _error(INVALID_REQUEST, "Invalid request: not a JSON-RPC message", request_id)
    return None


async def _lines(raw: TextIO) -> AsyncIterator[str | None]:
    """stdin's lines, each read on a worker thread; None for one of MAX_LINE characters or
    more, which is read past in parts and never held whole."""
    while line := await anyio.to_thread.run_sync(raw.readline, MAX_LINE):
        if len(line) < MAX_LINE or line.endswith("\n"):
            yield line
            continue
        while (rest := await anyio.to_thread.run_sync(raw.readline, MAX_LINE)) and not (
            rest.endswith("\n")
        ):
            pass
        yield None


async def _checked(lines: AsyncIterator[str | None], reply: Reply) -> AsyncIterator[str]:
    """The lines to hand to the SDK; each other non-blank line is answered by `reply`."""
    async for line in lines:
        if line is None:
            await reply(_error(INVALID_REQUEST, f"Invalid request: over {MAX_LINE} characters"))
            continue
        if not line.strip():
            continue
        error = check_line(line)
        if error is None:
            yield line
        else:
            await reply(error)


async def run_checked_stdio(server: MCPServer) -> None:
    """`server.run_stdio_async()`, with every incoming line checked by `check_line`."""
    ready = anyio.Event()
    sink: list[Any] = []

    async def reply(error: JSONRPCError) -> None:
        await ready.wait()
        await sink[0].send(SessionMessage(error))

    # A private descriptor for stdin: closing its text layer leaves fd 0 open.
    with open(os.dup(0), encoding="utf-8", errors="replace") as raw:
        lines = _checked(_lines(raw), reply)
        async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]
            sink.append(write)
            ready.set()
            lowlevel = server._lowlevel_server  # what run_stdio_async runs (SDK 2.x)
            await lowlevel.run(read, write, lowlevel.create_initialization_options())
