"""`reme-tui mcp --http`: the same tools over streamable HTTP at ReMe's address.

ReMe's Claude Code plugin connects to `http://127.0.0.1:2333/mcp`; serving there lets it work
unchanged. Every client shares one warm index and one watcher. The server listens on a
loopback address unless told otherwise: anyone who can reach the port can read and write the
workspace. SIGINT and SIGTERM stop it cleanly (open streams closed, watcher stopped).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import signal
import socket
from collections.abc import Iterator

import uvicorn

from reme_core import RemeError, Workspace
from reme_tui.agents.mcp_server import CALL_SECONDS, build_server, fresh_index
from reme_tui.text.terminal import message

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 2333  # ReMe's own port: its plugin's .mcp.json points here
MCP_PATH = "/mcp"


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT`, `HOST`, `:PORT` or `PORT` (IPv6 as `[::1]:2333`) with ReMe's defaults."""
    text = text.strip()
    host, port = DEFAULT_HOST, str(DEFAULT_PORT)
    if text.isdigit():
        port = text
    elif text.startswith("["):
        inside, _, rest = text[1:].partition("]")
        host, port = inside, rest.removeprefix(":") or port
    elif text.count(":") == 1:
        host, port = text.split(":")
        host = host or DEFAULT_HOST
    elif text:
        host = text
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise RemeError(f"--http: {text!r} is not HOST:PORT (port 0-65535)")
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int, allow_remote: bool) -> socket.socket:
    """The bound listening socket; a clear refusal for a non-loopback host without
    `allow_remote`, or when the address cannot be bound."""
    if not allow_remote and not is_loopback(host):
        raise RemeError(
            f"refusing to listen on {host}: not a loopback address, so anyone who reaches it "
            "could read and change the workspace; pass --allow-remote to do it anyway"
        )
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(info[0], socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(info[4])
        sock.listen(128)
    except OSError as exc:
        raise RemeError(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    sock.setblocking(False)
    return sock


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling: `serve_http` stops it on SIGINT/SIGTERM and
    then returns normally instead of re-raising the signal."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve_http(
    ws: Workspace,
    sock: socket.socket,
    allow_delete: bool = False,
    call_seconds: float = CALL_SECONDS,
) -> None:
    """Serve `ws` over streamable HTTP on `sock` until SIGINT or SIGTERM."""
    server = build_server(ws, allow_delete, call_seconds)
    host, port = sock.getsockname()[:2]
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5, lifespan="on")
    http = _Server(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, lambda: setattr(http, "should_exit", True))
    shown = f"[{host}]" if ":" in host else host
    message(f"reme-tui mcp: serving http://{shown}:{port}{MCP_PATH} (Ctrl-C stops)")
    async with fresh_index(ws):
        await http.serve(sockets=[sock])
