"""`reme-tui move`, `delete`, `undo` and `new`: link-safe file operations from the shell.

They register with the command registry on import; cli.py imports this module.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import reme_core
from reme_tui.cli.commands import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    command,
    emit_json,
    open_workspace,
)
from reme_tui.text.reports import delete_lines, move_lines, undo_lines
from reme_tui.text.words import dangling

if TYPE_CHECKING:
    from reme_core import Workspace


def _move_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("src", help="workspace-relative path of the file to move")
    p.add_argument("dst", help="workspace-relative destination (must not exist)")
    p.add_argument("--no-rewrite", action="store_true", help="leave inbound links as they are")
    p.add_argument("--dry-run", action="store_true", help="show what would change, change nothing")
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("move", "move or rename a file, rewriting the wikilinks that point at it")(_move_args)
def run_move(args: argparse.Namespace) -> int:
    """Move the file; print the rewritten links (or, with --dry-run, the ones it would)."""
    ws = open_workspace(args)
    report = ws.move(args.src, args.dst, rewrite_links=not args.no_rewrite, dry_run=args.dry_run)
    if args.json:
        emit_json(report.to_dict())
    else:
        print("\n".join(move_lines(report)))
    return EXIT_OK


def _delete_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="workspace-relative path of the file to delete")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument(
        "--permanent", action="store_true", help="remove it for good instead of moving to .trash/"
    )
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("delete", "move a file to .trash/ and list the links it leaves dangling")(_delete_args)
def run_delete(args: argparse.Namespace) -> int:
    """Delete after a y/N question on a terminal (or --yes); never asks a pipe."""
    ws = open_workspace(args)
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError(
                f"delete {args.file}: stdin is not a terminal, so it cannot ask; pass --yes"
            )
        if not _confirm(ws, reme_core.existing_file(ws, args.file), args.permanent):
            print("nothing deleted", file=sys.stderr)
            return EXIT_FAILED
    report = ws.delete(args.file, permanent=args.permanent)
    if args.json:
        emit_json(report.to_dict())
    else:
        print("\n".join(delete_lines(report)))
        if report.trash:
            print("`reme-tui undo` puts it back", file=sys.stderr)
    return EXIT_OK


def _confirm(ws: Workspace, path: str, permanent: bool) -> bool:
    """Show what links to `path`, then ask; only `y` or `yes` deletes."""
    inbound = [link for link in reme_core.inbound_links(ws, path) if link.path != path]
    if inbound:
        print(f"{dangling(len(inbound), ahead=True)}:", file=sys.stderr)
        for link in inbound:
            print(f"  {link.path}:{link.line}  {link.raw}", file=sys.stderr)
    question = f"delete {path} permanently" if permanent else f"move {path} to .trash/"
    try:
        answer = input(f"{question}? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _undo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("undo", "revert the last delete or move through reme-tui; repeat to walk back")(_undo_args)
def run_undo(args: argparse.Namespace) -> int:
    """Undo what the browser, the CLI or the library did last; exit 1 when it refuses."""
    ws = open_workspace(args)
    report = ws.undo()
    if args.json:
        emit_json(report.to_dict())
    else:
        print("\n".join(undo_lines(report)))
    return EXIT_OK


def _new_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="workspace-relative path of the new note (ends in .md)")
    p.add_argument("--name", required=True, help="frontmatter name")
    p.add_argument("--description", required=True, help="frontmatter description")
    p.add_argument("--tag", action="append", default=[], help="a frontmatter tag (repeatable)")
    p.add_argument("--body", default="", help="Markdown body after the frontmatter")
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("new", "create a note with name and description frontmatter")(_new_args)
def run_new(args: argparse.Namespace) -> int:
    """Create the note and print its path."""
    ws = open_workspace(args)
    metadata = {"tags": args.tag} if args.tag else None
    path = ws.create(args.file, args.name, args.description, metadata, args.body)
    rel = path.relative_to(ws.root).as_posix()
    if args.json:
        emit_json({"path": rel, "created": True, "indexed": ws.node(rel) is not None})
    else:
        print(f"created {rel}")
    return EXIT_OK
