"""The scripted queries of `reme-tui` (SPEC §11): search, read, chunks, links, traverse,
optimize and stats; each registers with the command registry on import."""

from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from reme_core import UNSUPPORTED_OPERATORS, parse_query
from reme_tui.cli.commands import (
    EXIT_OK,
    UsageError,
    command,
    date_arg,
    emit_json,
    finite_number,
    open_workspace,
    whole_number,
)
from reme_tui.text.answers import links_text, traverse_text
from reme_tui.text.reports import optimize_lines, search_dict, search_text
from reme_tui.text.terminal import message

if TYPE_CHECKING:
    from reme_core import SearchRequest, Workspace


# -- search ---------------------------------------------------------------------------------
def _search_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "query",
        nargs="*",  # none: `--path`, `--tag` or dates alone list their notes
        help='words, "a phrase", -word, term*, path:/-path:, tag:, after:/before:, sort:, '
        "Obsidian's [prop], [prop:value], file:, line:(a b) (each negated with -); "
        f"not supported: {UNSUPPORTED_OPERATORS} (the browser's query language; "
        "filters alone list their notes)",
    )
    p.add_argument("--limit", type=whole_number(1), help="hits to return (default 5)")
    p.add_argument("--min-score", type=finite_number, help="drop hits scoring below this")
    p.add_argument("--start-date", type=date_arg, help="inclusive YYYY-MM-DD")
    p.add_argument("--end-date", type=date_arg, help="inclusive YYYY-MM-DD")
    # dest "paths": `path` is the browser's positional folder, which dispatch clears
    p.add_argument(
        "--path", dest="paths", action="append", default=[], help="only paths with this prefix"
    )
    p.add_argument("--tag", action="append", default=[], help="only notes with this tag")
    p.add_argument(
        "--strict-dates",
        action="store_true",
        help="memory mode: a date filter drops undated notes too (a vault always does)",
    )
    p.add_argument(
        "--sort",
        choices=["name", "mtime"],
        help="filters without words list their notes: by name (default) or last modified first",
    )
    p.add_argument("--no-links", action="store_true", help="skip link expansion")
    p.add_argument(
        "--group", action="store_true", help="one hit per note (its best chunk), as the browser"
    )
    p.add_argument("--json", action="store_true", help="print the structured result")
    add_vectors_flag(p)


def add_vectors_flag(p: argparse.ArgumentParser) -> None:
    """`--vectors/--no-vectors`: override `vectors.enabled` of reme.yaml for this run."""
    p.add_argument(
        "--vectors",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="hybrid search with vector recall (default: vectors.enabled in reme.yaml)",
    )


def vectors_override(args: argparse.Namespace) -> dict[str, Any]:
    """The config override of `--vectors/--no-vectors`, if given."""
    flag = getattr(args, "vectors", None)
    return {} if flag is None else {"vectors": {"enabled": flag}}


def wait_for_vectors(ws: Workspace) -> None:
    """Embed what is missing (progress bar on a terminal) so a one-shot answer is hybrid;
    an unavailable provider is a warning, and the answer is keyword-only."""
    from reme_tui.cli.progress import console_progress
    from reme_tui.text.vectors import keyword_only_warning

    if ws.vectors is None:
        return
    with console_progress("Embedding", "chunks") as progress:
        ws.wait_for_vectors(progress=progress)
    if not ws.vectors.ready:
        print(keyword_only_warning(ws.vector_status()), file=sys.stderr)


@command("search", "search the workspace")(_search_args)
def run_search(args: argparse.Namespace) -> int:
    from reme_core import SearchOptions  # (the filters' numpy: not before the command runs)

    if not (args.query or args.paths or args.tag or args.start_date or args.end_date):
        raise UsageError(
            "reme-tui search: a query or a filter (--path, --tag, --start-date, --end-date) "
            "is required"
        )

    @functools.cache
    def request() -> SearchRequest:  # after the walk has started: its imports load numpy
        options = SearchOptions(
            limit=args.limit,
            min_score=args.min_score,
            expand_links=False if args.no_links else None,
            group=args.group,
            order=args.sort,
        )
        parsed = parse_query(" ".join(args.query), typing=False)
        strict = True if args.strict_dates else None
        given = (args.start_date, args.end_date, tuple(args.paths), tuple(args.tag or ()))
        return parsed.request(options, strict_dates=strict).narrowed(*given)

    def warm_up(ws: Workspace) -> None:
        """The search once while the start-up walk finishes (what its first run builds);
        its answer comes from the index the walk brings up to date."""
        ws.search(request())

    ws = open_workspace(args, while_walking=warm_up, **vectors_override(args))
    wait_for_vectors(ws)
    result = ws.search(request())
    if args.json:
        emit_json(search_dict(result))
    else:
        print(search_text(result))
    return EXIT_OK


# -- read / chunks / links / traverse -------------------------------------------------------
def _read_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="workspace-relative path")
    p.add_argument("--start-line", type=whole_number(1), default=None)
    p.add_argument("--end-line", type=whole_number(1), default=None)
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("read", "print lines of a file (1-based, inclusive)")(_read_args)
def run_read(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    result = ws.read(args.file, args.start_line, args.end_line)
    if args.json:
        emit_json({**asdict(result), "notice": result.notice})
        return EXIT_OK
    print(result.text)
    if result.truncated:
        message(result.notice)
    return EXIT_OK


def _file_json_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="workspace-relative path")
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("chunks", "show how a file was chunked")(_file_json_args)
def run_chunks(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    chunks = ws.chunks(args.file)
    if args.json:
        emit_json(
            [
                {"id": c.id, "start_line": c.start_line, "end_line": c.end_line, "text": c.text}
                for c in chunks
            ]
        )
        return EXIT_OK
    if not chunks:
        print(f"{args.file}: no chunks (empty or frontmatter only)")
    for c in chunks:
        print(f"---------- {args.file}:{c.start_line}-{c.end_line} [{c.id}] ----------")
        print(c.text)
    return EXIT_OK


@command("links", "show a file's outlinks and inlinks")(_file_json_args)
def run_links(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    links = ws.links(args.file)
    if args.json:
        emit_json(asdict(links))
    else:
        print(links_text(links))
    return EXIT_OK


def _traverse_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="workspace-relative path")
    p.add_argument("--depth", type=whole_number(0), default=1)
    p.add_argument("--direction", choices=["both", "forward", "backward"], default="both")
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("traverse", "walk the link graph from a file")(_traverse_args)
def run_traverse(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    result = ws.traverse(args.file, args.depth, args.direction)
    if args.json:
        emit_json(asdict(result))
        return EXIT_OK
    print(traverse_text(result))
    return EXIT_OK


# -- maintenance ----------------------------------------------------------------------------
def _no_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the structured result")


@command("optimize", "compact tombstones and vocabulary")(_no_args)
def run_optimize(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    report = ws.optimize()
    if args.json:
        emit_json(report.to_dict())
    else:
        print("\n".join(optimize_lines(report)))
    return EXIT_OK


@command("stats", "index statistics")(_no_args)
def run_stats(args: argparse.Namespace) -> int:
    ws = open_workspace(args)
    stats = ws.stats()
    if args.json:
        emit_json(stats.to_dict())
    else:
        width = max(len(k) for k in stats.to_dict())
        for key, value in stats.to_dict().items():
            print(f"{key.replace('_', ' '):<{width}}  {value}")
    return EXIT_OK
