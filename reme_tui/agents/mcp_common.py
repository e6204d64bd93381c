"""What every MCP tool module shares: the answer shape, the error rule, the parameter types.

A parameter type carries the description, enum and bounds the agent reads in the schema, so
each is written once here and reused by every tool that takes it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Protocol

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from reme_core import RemeError

ToolFn = Callable[..., CallToolResult]


class Register(Protocol):
    """`tool(...)` of `build_server`: registers a function as a tool with its hints."""

    def __call__(
        self,
        name: str | None = None,
        *,
        read_only: bool,
        aliases: dict[str, str] | None = None,
    ) -> Callable[[ToolFn], ToolFn]: ...


NotePath = Annotated[
    str, Field(description="workspace-relative path of a note, e.g. digest/wiki/solar.md")
]
AnyPath = Annotated[
    str, Field(description="workspace-relative path of a file or folder ('' = the root)")
]
Date = Annotated[str, Field(description="YYYY-MM-DD; empty = today")]
Metadata = Annotated[
    dict[str, Any] | None,
    Field(description="frontmatter keys to set; a value of null removes that key"),
]


def result(text: str, data: Any) -> CallToolResult:
    """A tool answer: the text for the model, the same answer as JSON data for programs."""
    structured = json.loads(json.dumps(data, ensure_ascii=False, default=str))
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )


def guarded(fn: Callable[[], CallToolResult]) -> CallToolResult:
    """Run a tool body; reme's refusals (escapes, missing files, bad dates) and anything
    unexpected become a tool error with a message the agent can act on."""
    try:
        return fn()
    except RemeError as exc:
        raise ToolError(str(exc)) from None
    except (ValueError, TypeError, OSError) as exc:
        raise ToolError(f"{exc.__class__.__name__}: {exc}") from None
