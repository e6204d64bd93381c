"""`reme-tui retrieve` and `reme-tui write`: what an agent does over MCP, from a script.

They register with the command registry on import; program.py imports this module.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from reme_tui.cli.commands import (
    EXIT_OK,
    UsageError,
    command,
    emit_json,
    open_workspace,
    whole_number,
)
from reme_tui.text.answers import retrieve_text
from reme_tui.text.reports import search_dict, write_text


def _retrieve_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("query", help="words to search for")
    p.add_argument("--limit", type=whole_number(1), default=10, help="hits (default 10)")
    p.add_argument(
        "--budget-tokens", type=whole_number(1), default=None, help="cut the sequence to this"
    )
    p.add_argument("--no-links", action="store_true", help="hits only, no linked notes")
    p.add_argument("--explain", action="store_true", help="also list what the budget dropped")
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("retrieve", "hits then their linked notes, cut to a token budget")(_retrieve_args)
def run_retrieve(args: argparse.Namespace) -> int:
    """Print the sequence an agent would get as context (seed 002)."""
    ws = open_workspace(args)
    result = ws.retrieve(
        args.query, args.limit, args.budget_tokens, not args.no_links, explain=args.explain
    )
    if args.json:
        emit_json(search_dict(result))
    else:
        print(retrieve_text(result, explain=args.explain))
    return EXIT_OK


def _meta(value: str) -> tuple[str, Any]:
    """argparse type of `--meta KEY=VALUE`: VALUE is read as YAML (`tags=[a, b]`, `n=3`)."""
    import yaml

    key, sep, raw = value.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {value!r}")
    try:
        parsed = yaml.safe_load(raw) if raw else ""
    except yaml.YAMLError:
        parsed = raw
    return key.strip(), parsed


def _write_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="workspace-relative path of the note (ends in .md)")
    p.add_argument(
        "--body", default=None, help="the new body (default: read stdin when it is not a terminal)"
    )
    p.add_argument("--keep-body", action="store_true", help="change only the frontmatter")
    p.add_argument("--name", default=None, help="frontmatter name")
    p.add_argument("--description", default=None, help="frontmatter description")
    p.add_argument(
        "--meta",
        type=_meta,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another frontmatter key, VALUE read as YAML (repeatable)",
    )
    p.add_argument(
        "--unset", action="append", default=[], metavar="KEY", help="remove a frontmatter key"
    )
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("write", "create or rewrite a note, merging fields into its frontmatter")(_write_args)
def run_write(args: argparse.Namespace) -> int:
    """Write the note (body from --body or stdin), index it, print what changed."""
    if args.body is not None and args.keep_body:
        raise UsageError("--body and --keep-body exclude each other")
    body: str | None = args.body
    if body is None and not args.keep_body:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("give the body with --body, on stdin, or pass --keep-body")
        body = sys.stdin.read()
    metadata: dict[str, Any] = dict(args.meta)
    metadata.update(dict.fromkeys(args.unset))
    ws = open_workspace(args)
    report = ws.write(args.file, body, args.name, args.description, metadata or None)
    if args.json:
        emit_json(report.to_dict())
    else:
        print(write_text(report))
    return EXIT_OK
