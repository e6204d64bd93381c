"""`reme-tui mcp --http`: the calls of ReMe's Claude Code skill over streamable HTTP with the
SDK's own client, two clients on one server, loopback only unless allowed, SIGTERM a clean
exit (issue 31). A real subprocess on a free loopback port."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from reme_tui.agents.mcp_http import parse_address
from tests.test_mcp import text


@pytest.fixture
def http_server(indexed_demo: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The server on 127.0.0.1 and a port the system picks; its URL from the stderr line."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "reme_tui", "mcp", "-w", str(indexed_demo), "--http", ":0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stderr is not None
    line = ""
    while "serving" not in line:
        line = proc.stderr.readline()
        assert line or proc.poll() is None, "the server exited before serving"
    found = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
    assert found, line
    try:
        yield found.group(1), proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def _call(client: ClientSession, tool: str, **arguments: object) -> CallToolResult:
    result = await client.call_tool(tool, arguments)
    assert isinstance(result, CallToolResult) and not result.is_error, (tool, result)
    return result


async def test_reme_skill_session_over_http(
    http_server: tuple[str, subprocess.Popen[str]], indexed_demo: Path
) -> None:
    url, proc = http_server
    async with (
        streamable_http_client(url) as (read_a, write_a, *_),
        ClientSession(read_a, write_a) as agent,
        streamable_http_client(url) as (read_b, write_b, *_),
        ClientSession(read_b, write_b) as other,
    ):
        await agent.initialize()
        await other.initialize()
        assert (await _call(agent, "version")).structured_content["version"] is not None
        health = await _call(agent, "health_check")
        assert health.structured_content["status"] == "healthy"
        hits = await _call(agent, "search", query="BM25 saturation", limit=3)
        top = hits.structured_content["results"][0]["path"]
        await _call(agent, "traverse", path=top, depth=1)
        await _call(agent, "read", path=top, start_line=1, end_line=5)
        await _call(agent, "daily_list", date="2026-06-22")
        await _call(agent, "frontmatter_read", path=top)
        await _call(
            agent,
            "write",
            path="digest/wiki/okapi-notes.md",
            name="Okapi notes",
            description="a note the agent wrote",
            content="The numbat parameter matters.",
        )
        seen = await _call(other, "search", query="numbat", limit=1)  # the other client
        assert seen.structured_content["results"][0]["path"] == "digest/wiki/okapi-notes.md"
        unknown = await other.call_tool("list", {"dir": "digest"})
        assert unknown.is_error and "accepted: path" in text(unknown)
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(proc.wait, 30) == 0
    assert (indexed_demo / "digest/wiki/okapi-notes.md").is_file()


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        (["--http", "0.0.0.0:0"], "--allow-remote"),
        (["--http", "127.0.0.1:99999"], "HOST:PORT"),
        (["--host", "0.0.0.0", "--port", "0"], "--allow-remote"),  # ReMe's spelling
        (["--http", "--port", "70000"], "HOST:PORT"),
    ],
)
def test_refusals_are_one_line(indexed_demo: Path, address: list[str], reason: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reme_tui", "mcp", "-w", str(indexed_demo), *address],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert reason in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_addresses() -> None:
    assert parse_address("") == ("127.0.0.1", 2333)
    assert parse_address("8000") == ("127.0.0.1", 8000)
    assert parse_address(":0") == ("127.0.0.1", 0)
    assert parse_address("localhost:9") == ("localhost", 9)
    assert parse_address("[::1]:7") == ("::1", 7)
    assert parse_address("[::1]") == ("::1", 2333)


async def test_a_browser_on_the_workspace_sees_the_agent_s_edit(
    http_server: tuple[str, subprocess.Popen[str]], indexed_demo: Path
) -> None:
    from reme_tui.app.browser import RemeApp
    from tests.test_tui_app import SIZE, search, settle, wait_until

    url, _proc = http_server
    app = RemeApp(indexed_demo)
    async with app.run_test(size=SIZE) as pilot:
        await search(pilot, "quillwort")
        assert not app.main.search_pane.hits
        app.main.navigator.open_path("digest/wiki/bm25.md")
        await settle(pilot)
        async with (
            streamable_http_client(url) as (read, write, *_),
            ClientSession(read, write) as agent,
        ):
            await agent.initialize()
            await _call(
                agent, "edit", path="digest/wiki/bm25.md", old="keyword half", new="quillwort half"
            )
        await wait_until(pilot, lambda: bool(app.main.search_pane.hits), timeout=20)
        assert app.main.search_pane.hits[0].path == "digest/wiki/bm25.md"
        await wait_until(pilot, lambda: "quillwort" in app.main.reader.text, timeout=20)
