"""The scripted-command registry and what every command shares: the workspace flag, opening
the workspace, JSON output, exit codes.

Command modules (cli.py, cli_files.py, cli_watch.py) register with `@command`; cli.py parses
and dispatches. Living apart from cli.py, the registry is one object even when cli.py runs
as `python -m reme_tui.cli.program`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import reme_core
from reme_core import NO_DATE, date_ordinal, discover, enclosing_index
from reme_tui.text.terminal import json_text, message

if TYPE_CHECKING:
    from reme_core import Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

AddArguments = Callable[[argparse.ArgumentParser], None]
Run = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """Bad arguments: exit code 2."""


@dataclass(frozen=True, slots=True)
class Command:
    """A scripted subcommand: how to declare its arguments and how to run it."""

    help: str
    add_arguments: AddArguments
    run: Run


COMMANDS: dict[str, Command] = {}


def command(name: str, help: str) -> Callable[[AddArguments], Callable[[Run], Run]]:
    """Register a subcommand: `@command(name, help)(add_arguments)` on its run function."""

    def wrap(add_arguments: AddArguments) -> Callable[[Run], Run]:
        def bind(run: Run) -> Run:
            COMMANDS[name] = Command(help, add_arguments, run)
            return run

        return bind

    return wrap


def add_workspace_flag(p: argparse.ArgumentParser) -> None:
    """`-w/--workspace`, taken by the browser and by every command."""
    p.add_argument(
        "-w",
        "--workspace",
        help="workspace folder (default: $REME_WORKSPACE, else the workspace at or above .)",
    )


def workspace_path(args: argparse.Namespace) -> Path:
    """`--workspace` (or the browser's PATH), else `$REME_WORKSPACE`, else the workspace at or
    above the current folder (SPEC §13); says on stderr which one when it is not the obvious."""
    chosen = getattr(args, "path", None) or args.workspace or os.environ.get("REME_WORKSPACE")
    if chosen:
        path = Path(chosen).expanduser()
    else:
        found = discover(Path.cwd())
        path = found.path
        if found.how == "above":
            print(f"reme-tui: workspace {path} (found above the current folder)", file=sys.stderr)
        elif found.how == "reme-default":
            print(f"reme-tui: workspace {path} (ReMe's default folder)", file=sys.stderr)
    outer = enclosing_index(path) if path.is_dir() else None
    if outer is not None:
        print(
            f"reme-tui: note: {path} lies inside the workspace {outer}; it gets an index of "
            f"its own (open {outer} to search it all)",
            file=sys.stderr,
        )
    return path


def print_warnings(ws: Workspace, *, mode: bool = False) -> None:
    """The workspace's warnings (a rebuilt index, an index kept in memory) on stderr; first
    its mode and why, when `mode` or when worth saying (notes left out, layer-named folders
    read as notes)."""
    from reme_tui.text.mode import mode_line, worth_saying
    from reme_tui.text.opening import open_warnings

    if mode or worth_saying(ws.mode_choice):
        message(f"reme-tui: {mode_line(ws.mode_choice)}")
    for warning in open_warnings(ws.warnings, ws.recovery):
        message(f"reme-tui: warning: {warning}")


def open_workspace(
    args: argparse.Namespace,
    *,
    while_walking: Callable[[Workspace], object] | None = None,
    **overrides: Any,
) -> Workspace:
    """Open the workspace and apply the start-up diff, with progress when building
    (``while_walking``: see `Workspace.open`)."""
    path = workspace_path(args)
    # Before the index modules are imported: the walk then runs beside the import and load.
    walk = reme_core.walk_ahead(path, overrides or None)
    from reme_tui.cli.progress import console_progress

    with console_progress("Indexing") as progress:
        opened = reme_core.Workspace.open(
            path, overrides or None, progress=progress, walk=walk, while_walking=while_walking
        )
        ws = track(opened)
    print_warnings(ws)
    return ws


_OPENED: list[Workspace] = []


def track(ws: Workspace) -> Workspace:
    """Remember a workspace the command opened, for `close_opened`."""
    _OPENED.append(ws)
    return ws


def close_opened() -> None:
    """Close what the command opened (the CLI leaves without tearing objects down): the
    database log is folded in and removed, a stale snapshot is written."""
    while _OPENED:
        ws = _OPENED.pop()
        with contextlib.suppress(Exception):
            ws.close()


def emit_json(data: Any) -> None:
    """Print a structured result (exact text; no raw control character reaches a terminal)."""
    print(json_text(data))


def date_arg(value: str) -> str:
    """argparse type of a `YYYY-MM-DD` flag: a bad date is a usage error naming the flag."""
    if date_ordinal(value) == NO_DATE:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD, got {value!r}")
    return value


def whole_number(minimum: int) -> Callable[[str], int]:
    """argparse type of a whole-number flag of at least `minimum` (a usage error otherwise)."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
        if number < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {number}")
        return number

    return parse


def finite_number(value: str) -> float:
    """argparse type of a number flag: nan and inf are refused as usage errors."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {value!r}")
    return number


_JSON_ERRORS: list[bool] = [False]  # set by `json_errors` when the command was given --json


def json_errors(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """With `--json` among `argv`, errors of this run (usage ones from `parser` too) are
    reported by `fail` as a JSON object, so a script reads one format on both streams."""
    words = list(argv)
    if "--" in words:
        words = words[: words.index("--")]
    _JSON_ERRORS[0] = "--json" in words
    if not _JSON_ERRORS[0]:
        return

    def error(text: str) -> NoReturn:
        raise UsageError(f"{parser.prog}: {text}")

    parser.error = error  # type: ignore[method-assign,assignment]


def fail(text: str, code: int) -> None:
    """Report why a command failed on stderr: `{"error": ..., "code": N}` after `--json`,
    else `reme-tui: <text>`."""
    if _JSON_ERRORS[0]:
        print(json.dumps({"error": text, "code": code}, ensure_ascii=False), file=sys.stderr)
    else:
        message(f"reme-tui: {text}")
