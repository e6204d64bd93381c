"""The output schema of each tool's structured answer: the keys a program can rely on.

Loose on purpose (`required` keys and their JSON types, extra keys allowed): the SDK's
client checks every answer against its tool's schema, so a schema must never be stricter
than what the tool returns.
"""

from __future__ import annotations

from typing import Any

_TYPES = {
    "s": "string",
    "i": "integer",
    "n": "number",
    "b": "boolean",
    "a": "array",
    "o": "object",
    "s?": ["string", "null"],
    "i?": ["integer", "null"],
    "sa": ["string", "array"],
}


def _obj(**fields: str) -> dict[str, Any]:
    """`{"path": "s", "count": "i"}` as a JSON schema whose keys are all required."""
    return {
        "type": "object",
        "properties": {k: {"type": _TYPES[t]} for k, t in fields.items()},
        "required": list(fields),
    }


_WRITE = _obj(
    path="s", created="b", lines="i", set_keys="a", removed_keys="a", body_replaced="b", indexed="b"
)

OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "search": _obj(query="s", results="a", link_expansion="o", counts="o"),
    "read": _obj(path="s", start_line="i", end_line="i", total_lines="i", text="s", truncated="b"),
    "traverse": _obj(path="sa", depth="i", direction="s", nodes="a", edges="a"),
    "links": _obj(outlinks="a", inlinks="a"),
    "list": _obj(path="s", recursive="b", total="i", count="i", items="a", files="a"),
    "stat": _obj(path="s", exists="b"),
    "frontmatter_read": _obj(path="s", exists="b", frontmatter="o"),
    "daily_list": _obj(date="s", count="i", notes="a"),
    "version": _obj(version="s"),
    "health_check": _obj(status="s", version="s", files="i", chunks="i", links="i"),
    "write": _WRITE,
    "frontmatter_update": _WRITE,
    "daily_write": _WRITE,
    "save": _obj(path="s", exists="b", type="s", size="i", mtime="s"),
    "edit": _obj(path="s", count="i", lines="i"),
    "frontmatter_delete": _obj(path="s", deleted="a", missing="a"),
    "move": _obj(src="s", dst="s", dry_run="b", indexed="b", files="a", edits="a"),
    "delete": _obj(path="s", trash="s?", inbound="a"),
}
