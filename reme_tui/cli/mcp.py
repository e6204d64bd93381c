"""`reme-tui mcp`: serve the workspace to an agent over MCP stdio (see SKILL.md).

The `mcp` SDK is imported only when this command runs (the `[mcp]` extra); without it the
command says how to install it.
"""

from __future__ import annotations

import argparse
import contextlib

from reme_core import RemeError
from reme_tui.cli.commands import EXIT_OK, command, open_workspace


def _mcp_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-delete",
        action="store_true",
        help="offer the delete tool (to .trash/; off by default)",
    )
    p.add_argument(
        "--call-seconds",
        type=float,
        default=None,
        metavar="S",
        help="answer a tool call that runs longer than S seconds with an error (default 60)",
    )
    p.add_argument(
        "--http",
        nargs="?",
        const="",
        default=None,
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio "
        "(default 127.0.0.1:2333, ReMe's address)",
    )
    p.add_argument("--host", help="with --http (implied): the address (default 127.0.0.1)")
    p.add_argument(
        "--port", type=int, help="with --http (implied): the port (default 2333, ReMe's)"
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="with --http, allow a host that is not a loopback address",
    )


@command("mcp", "serve the workspace to an AI agent over MCP (stdio, or HTTP)")(_mcp_args)
def run_mcp(args: argparse.Namespace) -> int:
    """Open the workspace (start-up diff on stderr), then serve until the client leaves."""
    import asyncio

    try:
        from reme_tui.agents.mcp_server import CALL_SECONDS, serve
    except ImportError as exc:
        raise RemeError(
            f"the MCP server needs the mcp package ({exc}); install it with "
            "pip install 'reme-tui[mcp]'"
        ) from None
    seconds = CALL_SECONDS if args.call_seconds is None else args.call_seconds
    if not seconds > 0:
        raise RemeError(f"--call-seconds must be more than 0, got {args.call_seconds}")
    if args.http is None and args.host is None and args.port is None:
        ws = open_workspace(args)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve(ws, allow_delete=args.allow_delete, call_seconds=seconds))
        return EXIT_OK
    from reme_tui.agents.mcp_http import listen, parse_address, serve_http

    host, port = parse_address(args.http or "")
    if args.host is not None or args.port is not None:  # ReMe's --host/--port spelling
        host, port = parse_address(
            f"[{args.host or host}]:{port if args.port is None else args.port}"
        )
    sock = listen(host, port, allow_remote=args.allow_remote)
    ws = open_workspace(args)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_http(ws, sock, allow_delete=args.allow_delete, call_seconds=seconds))
    return EXIT_OK
