"""`reme-tui move`, `delete` and `new`: link-safe file operations from the shell (issue 7).

`register(cli)` adds them to the command registry of the module passed in, which cli.py does
for itself, so they exist whether cli.py was imported or run as `__main__`.
"""

from __future__ import annotations

import argparse
import sys
from functools import partial
from types import ModuleType
from typing import TYPE_CHECKING

from reme_core import existing_file, inbound_links

if TYPE_CHECKING:
    from reme_core import Workspace


def register(cli: ModuleType) -> None:
    """Register the file commands with `cli.command`."""
    cli.command("move", "move or rename a file, rewriting the wikilinks that point at it")(
        _move_args
    )(partial(run_move, cli))
    cli.command("delete", "delete a file and list the links it leaves dangling")(_delete_args)(
        partial(run_delete, cli)
    )
    cli.command("new", "create a note with name and description frontmatter")(_new_args)(
        partial(run_new, cli)
    )


def _move_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("src", help="workspace-relative path of the file to move")
    p.add_argument("dst", help="workspace-relative destination (must not exist)")
    p.add_argument("--no-rewrite", action="store_true", help="leave inbound links as they are")
    p.add_argument("--dry-run", action="store_true", help="show what would change, change nothing")
    p.add_argument("--json", action="store_true", help="print the structured result")


def run_move(cli: ModuleType, args: argparse.Namespace) -> int:
    ws = cli.open_workspace(args)
    report = ws.move(args.src, args.dst, rewrite_links=not args.no_rewrite, dry_run=args.dry_run)
    if args.json:
        cli.emit_json(report.to_dict())
    else:
        print("\n".join(report.lines()))
    return cli.EXIT_OK


def _delete_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="workspace-relative path of the file to delete")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.add_argument("--json", action="store_true", help="print the structured result")


def run_delete(cli: ModuleType, args: argparse.Namespace) -> int:
    ws = cli.open_workspace(args)
    if not args.yes:
        if not sys.stdin.isatty():
            raise cli.UsageError(
                f"delete {args.file}: stdin is not a terminal, so it cannot ask; pass --yes"
            )
        if not _confirm(ws, existing_file(ws, args.file)):
            print("nothing deleted", file=sys.stderr)
            return cli.EXIT_FAILED
    report = ws.delete(args.file)
    if args.json:
        cli.emit_json(report.to_dict())
    else:
        print("\n".join(report.lines()))
    return cli.EXIT_OK


def _confirm(ws: Workspace, path: str) -> bool:
    """Show what links to `path`, then ask; only `y` or `yes` deletes."""
    inbound = [link for link in inbound_links(ws, path) if link.path != path]
    if inbound:
        print(f"{len(inbound)} inbound link(s) will be left dangling:", file=sys.stderr)
        for link in inbound:
            print(f"  {link.path}:{link.line}  {link.raw}", file=sys.stderr)
    try:
        answer = input(f"delete {path}? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _new_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="workspace-relative path of the new note (ends in .md)")
    p.add_argument("--name", required=True, help="frontmatter name")
    p.add_argument("--description", required=True, help="frontmatter description")
    p.add_argument("--tag", action="append", default=[], help="a frontmatter tag (repeatable)")
    p.add_argument("--body", default="", help="Markdown body after the frontmatter")


def run_new(cli: ModuleType, args: argparse.Namespace) -> int:
    ws = cli.open_workspace(args)
    metadata = {"tags": args.tag} if args.tag else None
    path = ws.create(args.file, args.name, args.description, metadata, args.body)
    print(f"created {path.relative_to(ws.root).as_posix()}")
    return cli.EXIT_OK
