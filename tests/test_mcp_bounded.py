"""`reme-tui mcp` under hostile traffic (issue 26): every malformed JSON-RPC line is answered
with a JSON-RPC error, and a call that cannot finish does not hold up the others. A real
server subprocess over pipes (the SDK's client cannot send malformed lines) and the SDK's own
client; read timeouts turn "no reply" into a failure."""

from __future__ import annotations

import asyncio
import fcntl
import json
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from reme_core import Workspace
from reme_tui.agents.jsonrpc_guard import MAX_LINE, check_line

REPLY_SECONDS = 20


def _line(message: object) -> bytes:
    return json.dumps(message).encode()


def _request(rid: object, method: object, **extra: Any) -> bytes:
    return _line({"jsonrpc": "2.0", "id": rid, "method": method, **extra})


# (name, the line, the id the error must carry, the error code)
MALFORMED: list[tuple[str, bytes, object, int]] = [
    ("cut JSON", b'{"jsonrpc": "2.0", "id": 1, "method": ', None, -32700),
    ("not UTF-8", b'\xff\xfe{"x"', None, -32700),
    ("plain word", b"hello", None, -32700),
    ("number", b"42", None, -32600),
    ("string", b'"ping"', None, -32600),
    ("null", b"null", None, -32600),
    ("empty object", b"{}", None, -32600),
    ("empty batch", b"[]", None, -32600),
    ("batch", b"[" + _request(2, "ping") + b"," + _request(3, "ping") + b"]", None, -32600),
    ("batch of junk", b"[1, 2, 3]", None, -32600),
    ("no jsonrpc", _line({"id": 4, "method": "ping"}), 4, -32600),
    ("jsonrpc 1.0", _line({"jsonrpc": "1.0", "id": 5, "method": "ping"}), 5, -32600),
    ("no method", _line({"jsonrpc": "2.0", "id": 6}), None, -32600),
    ("method a number", _request(7, 5), 7, -32600),
    ("id an object", _request({"a": 1}, "ping"), None, -32600),
    ("id a list", _request([1], "ping"), None, -32600),
    ("id a float", _request(1.5, "ping"), None, -32600),
    ("id a bool", _request(True, "ping"), None, -32600),
    ("id null", _request(None, "ping"), None, -32600),
    ("unknown method", _request(8, "no/such"), 8, -32601),
    ("params a list", _request(9, "tools/call", params=[1, 2]), 9, -32602),
    ("params a string", _request(10, "tools/list", params="x"), 10, -32602),
    ("call without name", _request(11, "tools/call", params={}), 11, -32602),
    (
        "arguments a list",
        _request(12, "tools/call", params={"name": "read", "arguments": [1]}),
        12,
        -32602,
    ),
    ("huge method", _request(13, "x" * 2_000_000), 13, -32601),
    ("result without id", _line({"jsonrpc": "2.0", "result": {}}), None, -32600),
    (
        "result and error",
        _line({"jsonrpc": "2.0", "id": 14, "result": {}, "error": {}}),
        None,
        -32600,
    ),
    ("deep nesting", b"[" * 100_000 + b"]" * 100_000, None, -32700),
]


class RawServer:
    """`reme-tui mcp` on pipes, spoken to line by line."""

    def __init__(self, root: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "reme_tui", "mcp", "-w", str(root), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], REPLY_SECONDS)
        assert ready, "no reply"
        line = self.proc.stdout.readline()
        assert line, "the server closed its output"
        return json.loads(line)

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def served(make_tree) -> Path:
    root = make_tree({"a.md": "# A\n\nalpha note\n", "b.md": "# B\n\nbravo [[a]]\n"})
    Workspace.open(root).close()
    return root


def test_every_malformed_message_gets_a_json_rpc_error(served: Path) -> None:
    server = RawServer(served)
    try:
        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        server.send(_request(0, "initialize", params=init))
        assert server.reply()["id"] == 0
        server.send(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        unanswered = []
        for name, raw, rid, code in MALFORMED:
            server.send(raw)
            try:
                answer = server.reply()
            except AssertionError:
                unanswered.append(name)
                continue
            assert answer["id"] == rid, (name, answer)
            assert answer["error"]["code"] == code, (name, answer)
        assert unanswered == []
        # A line too long to hold is refused as it is read.
        server.send(_request(15, "ping", params={"pad": "x" * MAX_LINE}))
        assert server.reply()["error"] == {
            "code": -32600,
            "message": f"Invalid request: over {MAX_LINE} characters",
        }
        # A well-formed notification is not answered (JSON-RPC), and the server still serves.
        server.send(_line({"jsonrpc": "2.0", "method": "notifications/whatever"}))
        server.send(b"")
        server.send(_request(99, "ping"))
        assert server.reply() == {"jsonrpc": "2.0", "id": 99, "result": {}}
    finally:
        assert server.close() == 0


def test_well_formed_messages_pass_the_check() -> None:
    assert check_line(_request(1, "ping").decode()) is None
    assert check_line(_request("x", "tools/list", params={}).decode()) is None
    assert (
        check_line(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}).decode())
        is None
    )
    assert check_line(_line({"jsonrpc": "2.0", "id": 3, "result": {}}).decode()) is None


async def test_a_call_that_cannot_finish_holds_up_nothing(served: Path) -> None:
    """A move waits on the undo lock another process holds: searches and pings go on, and
    the move ends with a tool error at the call limit, not a client timeout."""
    undo = served / ".reme-tui" / "undo"
    undo.mkdir(parents=True, exist_ok=True)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "reme_tui", "mcp", "-w", str(served), "--call-seconds", "3"],
    )
    with open(undo / ".lock", "wb") as held, open(served.parent / "stderr.txt", "w") as errlog:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            move = asyncio.create_task(client.call_tool("move", {"src": "a.md", "dst": "c.md"}))
            await asyncio.sleep(0.5)
            assert not move.done()
            for _ in range(3):
                found = await asyncio.wait_for(client.call_tool("search", {"query": "bravo"}), 20)
                assert [r["path"] for r in found.structured_content["results"]] == ["b.md"]
                await asyncio.wait_for(client.send_ping(), 20)
            moved = await asyncio.wait_for(move, 30)
            assert moved.is_error
            assert "did not finish within 3 s" in moved.content[0].text
            fcntl.flock(held.fileno(), fcntl.LOCK_UN)
            await asyncio.wait_for(client.send_ping(), 20)


def test_call_seconds_must_be_positive(served: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "reme_tui", "mcp", "-w", str(served), "--call-seconds", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode != 0
    assert "--call-seconds must be more than 0" in done.stderr
    assert "Traceback" not in done.stderr
