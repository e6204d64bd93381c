"""Checking a tool call's argument names before the SDK sees them, and one-line errors.

The SDK's argument models ignore names they do not know, so an agent that sends ReMe's
`path` to a tool expecting something else got the whole workspace back, silently. Here an
old name is mapped to its ReMe name (an alias), and any other unknown name is refused with
the accepted ones listed. The SDK's validation errors (several lines and a URL) are cut to
one line per problem, joined on one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError


def checked_arguments(
    tool: str, arguments: Mapping[str, Any], accepted: tuple[str, ...], aliases: Mapping[str, str]
) -> dict[str, Any]:
    """`arguments` with aliases renamed; a ToolError naming the unknown key and the accepted
    ones, or a key given under both its names."""
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        name = aliases.get(key, key)
        if name not in accepted:
            raise ToolError(f"{tool}: unknown argument {key!r}; accepted: {', '.join(accepted)}")
        if name in out:
            raise ToolError(f"{tool}: {key!r} and {name!r} are the same argument; give one")
        out[name] = value
    return out


def validation_line(tool: str, exc: ValidationError) -> str:
    """The SDK's validation error as one line: `tool: key: problem (got value)`."""
    problems = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(part) for part in err.get("loc", ()) if part != "args")
        got = err.get("input")
        shown = repr(got) if len(repr(got)) <= 60 else repr(got)[:57] + "..."
        detail = f"{err.get('msg', 'invalid')}" + (
            "" if err.get("type") == "missing" else f" (got {shown})"
        )
        problems.append(f"{where or 'arguments'}: {detail}")
    return f"{tool}: " + "; ".join(problems)
