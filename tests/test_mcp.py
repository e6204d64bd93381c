"""`reme-tui mcp` driven by the MCP SDK's own client over stdio: a real subprocess, the demo
workspace, every tool called (issue 16). No mocks."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from tests.helpers import REME_TUI

REME_READ_TOOLS = {"search", "read", "traverse", "list", "stat", "frontmatter_read", "daily_list"}
REME_TOOLS = REME_READ_TOOLS | {"version", "health_check", "move", "write", "save", "edit"}
REME_TOOLS |= {"frontmatter_update", "frontmatter_delete", "daily_write"}
BASE_TOOLS = REME_TOOLS | {"retrieve", "links"}


def _server(workspace: Path, *extra: str) -> StdioServerParameters:
    """`reme-tui mcp -w WORKSPACE` (the installed script, else the same module)."""
    return StdioServerParameters(
        command=REME_TUI[0], args=[*REME_TUI[1:], "mcp", "-w", str(workspace), *extra]
    )


@contextlib.asynccontextmanager
async def session(workspace: Path, *extra: str) -> AsyncIterator[ClientSession]:
    with open(workspace.parent / "server-stderr.txt", "w") as errlog:
        async with (
            stdio_client(_server(workspace, *extra), errlog=errlog) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            yield client


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def call(client: ClientSession, tool: str, **arguments: object) -> CallToolResult:
    result = await client.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult)
    return result


async def test_every_tool_over_stdio(indexed_demo: Path) -> None:
    async with session(indexed_demo) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == BASE_TOOLS  # no delete without --allow-delete
        params = set(tools["search"].input_schema["properties"])
        assert params == {
            "query",
            "limit",
            "min_score",
            "start_date",
            "end_date",
            "strict_date_filter",
        }
        assert set(tools["read"].input_schema["properties"]) == {"path", "start_line", "end_line"}

        found = await call(client, "search", query="recall regression frontmatter", limit=1)
        assert not found.is_error
        hit = found.structured_content["results"][0]
        assert hit["path"] == "daily/2026-06-15/retrieval-regression.md"
        assert text(found).startswith(f"========== {hit['path']}:{hit['start_line']}-")
        assert "outlinks (" in text(found)

        lines = await call(client, "read", path=hit["path"], start_line=1, end_line=3)
        assert lines.structured_content["start_line"] == 1
        assert lines.structured_content["end_line"] == 3
        assert text(lines) == lines.structured_content["text"]
        assert len(text(lines).split("\n")) == 3

        walk = await call(client, "traverse", path=hit["path"], depth=1, direction="forward")
        assert walk.structured_content["nodes"][0]["path"] == hit["path"]
        assert text(walk).endswith("edges")

        got = await call(client, "retrieve", query="seaside trip", limit=3, budget_tokens=400)
        assert not got.is_error and got.structured_content["items"]
        assert (
            got.structured_content["budget_used"] <= 400
            or len(got.structured_content["items"]) == 1
        )

        neighbours = await call(client, "links", path=hit["path"])
        assert {"outlinks", "inlinks"} <= set(neighbours.structured_content)
        assert text(neighbours).startswith("outlinks (")

        listed = await call(client, "list", prefix="digest/wiki/")
        paths = [f["path"] for f in listed.structured_content["files"]]
        assert paths and all(p.startswith("digest/wiki/") for p in paths)
        assert "digest/wiki/bm25.md" in text(listed)

        wrote = await call(
            client,
            "write",
            path="digest/wiki/marmalade-index.md",
            content="# Marmalade index\n\nThe zyzzyva trick. Sources: [[digest/wiki/bm25.md]]",
            name="Marmalade index",
            description="a note an agent wrote",
            metadata={"kind": "concept"},
        )
        assert not wrote.is_error, text(wrote)
        assert wrote.structured_content["created"] and wrote.structured_content["indexed"]
        assert (indexed_demo / "digest/wiki/marmalade-index.md").is_file()
        again = await call(client, "search", query="zyzzyva")
        assert [r["path"] for r in again.structured_content["results"]] == [
            "digest/wiki/marmalade-index.md"
        ]

        escaped = await call(client, "write", path="../x.md", content="no")
        assert escaped.is_error and "escapes the workspace" in text(escaped)
        assert not (indexed_demo.parent / "x.md").exists()

        moved = await call(
            client, "move", src="digest/wiki/marmalade-index.md", dst="digest/wiki/marmalade.md"
        )
        assert moved.structured_content["dst"] == "digest/wiki/marmalade.md"
        assert (indexed_demo / "digest/wiki/marmalade.md").is_file()

        absent = await client.call_tool("delete", {"path": "digest/wiki/marmalade.md"})
        assert absent.is_error
        assert (indexed_demo / "digest/wiki/marmalade.md").is_file()


async def test_bad_input_is_a_tool_error_and_the_server_lives_on(indexed_demo: Path) -> None:
    async with session(indexed_demo) as client:
        cases = [
            ("read", {"path": "../../etc/passwd"}, "escapes the workspace"),
            ("read", {"path": "digest/none.md"}, "none.md"),
            ("search", {"query": "solar", "start_date": "2026-13-45"}, "YYYY-MM-DD"),
            ("traverse", {"path": "digest/wiki/bm25.md", "direction": "sideways"}, "direction"),
            ("move", {"src": "digest/wiki/bm25.md", "dst": "/tmp/x.md"}, "absolute"),
            ("write", {"path": "metadata/x.md", "content": "x"}, "metadata"),
            ("search", {"query": "solar", "limit": "many"}, "limit"),
        ]
        for name, arguments, reason in cases:
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            assert reason in text(result), (name, text(result))
        still = await call(client, "search", query="solar", limit=1)
        assert not still.is_error and still.structured_content["results"]


async def test_delete_only_with_allow_delete(indexed_demo: Path) -> None:
    async with session(indexed_demo, "--allow-delete") as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert tools == BASE_TOOLS | {"delete"}
        gone = await call(client, "delete", path="digest/wiki/hnsw.md")
        assert not gone.is_error, text(gone)
        assert gone.structured_content["trash"].startswith(".trash/")
        assert not (indexed_demo / "digest/wiki/hnsw.md").exists()
        assert (indexed_demo / gone.structured_content["trash"]).is_file()


async def test_a_person_s_edit_reaches_the_agent_without_a_restart(indexed_demo: Path) -> None:
    async with session(indexed_demo) as client:
        assert (await call(client, "search", query="quetzalcoatl")).structured_content[
            "results"
        ] == []
        note = indexed_demo / "daily/2026-06-15/by-hand.md"
        note.write_text("---\nname: By hand\n---\n# By hand\n\nquetzalcoatl sighting\n")
        for _ in range(100):  # the watcher applies it within its quiet window
            found = await call(client, "search", query="quetzalcoatl")
            if found.structured_content["results"]:
                break
            await asyncio.sleep(0.1)
        assert [r["path"] for r in found.structured_content["results"]] == [
            "daily/2026-06-15/by-hand.md"
        ]
