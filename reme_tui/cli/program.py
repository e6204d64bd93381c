"""`reme-tui`: open the browser, or script the index (SPEC §11).

Exit codes: 0 success (no hits is success), 2 usage errors, 1 refused or failed operations.
No traceback reaches a user unless REME_DEBUG is set.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import shutil
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import reme_core
from reme_core import RemeError
from reme_core.errors import DISK_FULL, disk_full
from reme_core.gc_pause import bulk_objects
from reme_tui.cli import files as cli_files  # noqa: F401  (their commands register on import)
from reme_tui.cli import mcp as cli_mcp  # noqa: F401  (their commands register on import)
from reme_tui.cli import memory as cli_memory  # noqa: F401  (their commands register on import)
from reme_tui.cli import queries as cli_queries  # noqa: F401  (their commands register on import)
from reme_tui.cli import watch as cli_watch  # noqa: F401  (their commands register on import)
from reme_tui.cli.commands import (
    COMMANDS,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    add_workspace_flag,
    close_opened,
    fail,
    json_errors,
    print_warnings,
    track,
    workspace_path,
)
from reme_tui.cli.queries import add_vectors_flag, wait_for_vectors
from reme_tui.text.reports import rebuild_line
from reme_tui.text.terminal import message, terminal_safe_stdout


# -- the browser ----------------------------------------------------------------------------
def run_reindex(path: Path, vectors: bool | None = None) -> int:
    """Rebuild derived state from the files with a progress bar, then print a summary; with
    vector recall on, also embed every chunk without a stored vector and wait for it."""
    from reme_tui.cli.progress import console_progress
    from reme_tui.text.vectors import vectors_line

    if not path.is_dir():
        raise RemeError(f"{path}: not a folder")
    overrides = None if vectors is None else {"vectors": {"enabled": vectors}}
    with console_progress("Rebuilding") as progress:
        # Opening a folder with no index already builds it: do not build it twice.
        ws = track(reme_core.Workspace.open(path, overrides, sync=False, progress=progress))
        summary = ws.last_reindex or ws.reindex(progress)
    print_warnings(ws, mode=True)
    print(rebuild_line(summary))
    for skipped_path, reason in summary.skipped:
        print(f"  skipped {skipped_path}: {reason}")
    if ws.vectors is not None:
        wait_for_vectors(ws)
        v = ws.vectors
        rate = f"{v.embedded / v.embed_seconds:.1f}" if v.embedded and v.embed_seconds else "-"
        print(
            f"vectors {v.progress()[0]}  embedded {v.embedded}  reused {v.reused}  "
            f"chunks/s {rate}  {vectors_line(ws.vector_status())}"
        )
    return EXIT_OK


DEMO_COPIES_KEPT = 3


def demo_workspace() -> Path:
    """Copy the bundled demo workspace to a fresh folder under the user data directory; the
    newest `DEMO_COPIES_KEPT` copies are kept, older ones removed (each --demo is a fresh start,
    and the data folder does not grow without end)."""
    from platformdirs import user_data_path

    source = Path(__file__).resolve().parent.parent / "demo"
    target = user_data_path("reme-tui") / f"demo-{time.strftime('%Y%m%d-%H%M%S')}"
    suffix = 1
    while target.exists():
        suffix += 1
        target = target.with_name(f"{target.name.split('~')[0]}~{suffix}")
    shutil.copytree(source, target)
    _prune_demo_copies(target.parent)
    return target


def _prune_demo_copies(folder: Path) -> None:
    """Remove all but the newest demo copies (only folders this program named, no symlinks)."""
    copies = sorted(
        (p for p in folder.glob("demo-*") if p.is_dir() and not p.is_symlink()),
        key=lambda p: p.name,
    )
    for old in copies[:-DEMO_COPIES_KEPT]:
        shutil.rmtree(old, ignore_errors=True)


def version_text() -> str:
    """`reme-tui 0.2.0 (Textual 8.2.8)`: what a bug report needs, read from the installed
    distributions' metadata."""
    from importlib.metadata import PackageNotFoundError, version

    def installed(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "unknown"

    return f"reme-tui {installed('reme-tui')} (Textual {installed('textual')})"


class _VersionAction(argparse.Action):
    """`--version`, with the metadata read only when asked (start-up stays short)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(version_text())
        parser.exit()


class _CompletionAction(argparse.Action):
    """`--print-completion bash|zsh|fish`: a shell completion script of every command."""

    def __call__(self, parser: argparse.ArgumentParser, _ns: Any, shell: Any, *_: Any) -> None:
        if shell == "fish":
            from reme_tui.cli.fish_completion import fish_script

            print(fish_script(completion_parser()), end="")
        else:
            import shtab

            print(shtab.complete(completion_parser(), shell=str(shell)))
        parser.exit()


def completion_parser() -> argparse.ArgumentParser:
    """The whole command line as one argparse tree (the dispatch splits it by hand)."""
    parser = build_parser()
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, cmd in sorted(COMMANDS.items()):
        sub = commands.add_parser(name, help=cmd.help)
        add_workspace_flag(sub)
        cmd.add_arguments(sub)
    return parser


HELP_EPILOG = """\
examples:
  reme-tui --demo                      open a fresh copy of the bundled demo
  reme-tui ~/notes                     browse a folder of Markdown notes
  reme-tui search 'solar -panel path:digest/ after:2026-06-01' --json
  reme-tui read daily/2026-06-20.md --start-line 10 --end-line 20
  reme-tui --reindex -w ~/notes        rebuild the index with a progress bar

query syntax (browser, search, library alike):
  words            notes with the words, ranked by BM25 (English stemmed, Chinese by jieba)
  "a phrase"       the words next to each other        term*    a prefix
  -word            leave out notes with the word
  path:daily/      only paths under a folder           -path:x  leave a folder out
  tag:x, -tag:x    notes with (without) a tag
  after:D before:D inclusive YYYY-MM-DD: a date in the note's path, else its date/created
                   property (a vault drops undated notes; memory mode keeps them)
  sort:mtime       path:, tag: and dates without words list their notes, by name or
                   (sort:mtime, --sort mtime) last modified first

exit codes:
  0  success (no hits is success)
  1  refused or failed (the reason on stderr; also a bad reme.yaml)
  2  usage error (a bad flag or value)

environment:
  REME_WORKSPACE   the workspace when neither -w nor PATH is given
  REME_DEBUG       set to show tracebacks of unexpected errors
  VISUAL, EDITOR   the editor `e` opens in the browser

settings: reme.yaml at the workspace root (unknown keys are errors); the browser's own
theme, keymap and pane defaults in settings.yaml under the user config folder.
"""


def run_browser(path: Path) -> int:
    """Open the Textual app on a workspace. The workspace's open starts first, so that its
    load (or first build) runs while the browser's modules import and its screen is drawn."""
    from reme_tui.opening import Opening  # here: it loads `reme_core.workspace` (~0.15 s)

    if not path.is_dir():
        raise RemeError(f"{path}: not a folder")
    say_mode(path)
    opening = Opening(path).start()
    with bulk_objects():  # ~1,700 classes and functions: no collector pass while they load
        from reme_tui.app.browser import RemeApp
    gc.freeze()  # and none over them later: the modules live as long as the process
    app = RemeApp(path, opening=opening)
    app.run()
    if app.ws is not None:
        track(app.ws)  # closed before the fast exit, like a command's
    if app.crash is not None:
        raise BrowserCrashed(app.crash)
    return app.return_code or EXIT_OK


class BrowserCrashed(Exception):
    """The browser stopped on an error of its own (Textual has restored the terminal)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def report_crash(exc: Exception) -> None:
    """One line naming the error and the log with its traceback (REME_DEBUG: the traceback
    itself; Textual has printed the browser's already)."""
    from reme_tui.crash_log import write_crash_log

    error = exc.error if isinstance(exc, BrowserCrashed) else exc
    if disk_full(error):  # no crash: said as it is, in one line
        fail(DISK_FULL, EXIT_FAILED)
        return
    if os.environ.get("REME_DEBUG") and not isinstance(exc, BrowserCrashed):
        raise exc
    log = write_crash_log(error, [version_text()])
    detail = str(error).strip().splitlines()
    what = f"{type(error).__name__}: {detail[0]}" if detail else type(error).__name__
    where = f"; the traceback is in {log}" if log is not None else ""
    stage = "the browser stopped on an unexpected error" if error is not exc else "unexpected error"
    fail(f"{stage}: {what}{where}", EXIT_FAILED)


def say_mode(path: Path) -> None:
    """The browser's first line on stderr: the workspace's mode and why (its header says it
    too). A bad reme.yaml is left for the browser to explain."""
    from reme_tui.text.mode import mode_line

    root = path.resolve()
    try:
        choice = reme_core.choose_mode(root, reme_core.load_config(root))
    except RemeError:
        return
    message(f"reme-tui: {root}: {mode_line(choice)}")


def build_parser() -> argparse.ArgumentParser:
    """The parser of `reme-tui` without a command: open the browser, or `--reindex`."""
    parser = argparse.ArgumentParser(
        prog="reme-tui",
        description="Browse and search a folder of Markdown memory.",
        epilog="commands: "
        + ", ".join(sorted(COMMANDS))
        + " (reme-tui COMMAND --help)\n\n"
        + HELP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-V", "--version", action=_VersionAction, help="print the version, then exit"
    )
    parser.add_argument(
        "--print-completion",
        choices=["bash", "zsh", "fish"],
        action=_CompletionAction,
        help='print a shell completion script (eval "$(reme-tui --print-completion bash)")',
    )
    add_workspace_flag(parser)
    parser.add_argument("path", nargs="?", help="workspace folder to open")
    parser.add_argument(
        "--demo",
        action="store_true",
        help=f"open a fresh copy of the demo (the newest {DEMO_COPIES_KEPT} copies are kept)",
    )
    parser.add_argument("--reindex", action="store_true", help="rebuild the index, then exit")
    add_vectors_flag(parser)
    return parser


def build_command_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one scripted command."""
    cmd = COMMANDS[name]
    parser = argparse.ArgumentParser(prog=f"reme-tui {name}", description=cmd.help)
    add_workspace_flag(parser)
    cmd.add_arguments(parser)
    return parser


def _not_a_command(token: str) -> None:
    """A first word that is neither a command nor an existing path: a usage error that names
    the closest command (`reme-tui serch solar` was taken for a folder named `serch`)."""
    if Path(token).expanduser().exists():
        return
    import difflib  # only for a mistyped command

    close = difflib.get_close_matches(token, COMMANDS, n=1, cutoff=0.6)
    if close:
        raise UsageError(f"'{token}' is not a command; did you mean '{close[0]}'?")
    if "/" not in token and "." not in token:
        raise UsageError(
            f"'{token}' is neither a command nor a folder (commands: {', '.join(sorted(COMMANDS))})"
        )


def _split_command(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """Find a subcommand name among the arguments (global -w may come before it)."""
    args = list(argv)
    i = 0
    while i < len(args):
        token = args[i]
        if token in ("-w", "--workspace", "--print-completion"):  # the options with a value
            i += 2
            continue
        if token.startswith("-"):
            i += 1
            continue
        if token in COMMANDS:
            return token, args[:i] + args[i + 1 :]
        _not_a_command(token)
        return None, args
    return None, args


def dispatch(argv: Sequence[str]) -> int:
    """Run the command named in `argv`, else the browser (or `--reindex`) on the workspace."""
    name, rest = _split_command(argv)
    if name is not None:
        parser = build_command_parser(name)
        json_errors(parser, rest)
        if name == "search":  # `-word` is the query language's exclusion, not an option
            args, extra = parser.parse_known_args(rest)
            if any(x.startswith("--") for x in extra):
                parser.parse_args(rest)  # a real mistake: argparse says which, exit 2
            args.query += extra
        else:
            args = parser.parse_args(rest)
        args.path = None
        with terminal_safe_stdout():  # file content never drives the user's terminal
            return COMMANDS[name].run(args)
    args = build_parser().parse_args(rest)
    if args.demo:
        path = demo_workspace()
        print(f"demo workspace: {path}", file=sys.stderr)
    else:
        path = workspace_path(args)
    if args.reindex:
        with terminal_safe_stdout():
            return run_reindex(path, args.vectors)
    return run_browser(path)


# Set before numpy loads: OpenBLAS otherwise starts a thread per core at import, whose spin
# took ~0.08 s of CPU from a cold search (and the core its start-up walk runs on). Nothing
# here multiplies matrices large enough to gain from BLAS threads: the vector index's work
# is one matrix-vector product per query.
_ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1"}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; turns every failure into a message and an exit code."""
    for name, value in _ONE_BLAS_THREAD.items():
        os.environ.setdefault(name, value)  # the user's own setting wins
    try:
        code = dispatch(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        code = EXIT_USAGE
        fail(str(exc), code)
    except RemeError as exc:
        code = EXIT_FAILED
        fail(str(exc), code)
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = EXIT_OK
    except Exception as exc:
        code = EXIT_FAILED
        report_crash(exc)
    close_opened()
    if argv is None:
        _exit(code)
    return code


def _exit(code: int) -> NoReturn:
    """Leave without freeing every object one by one (a fifth of a second at 50k files).

    The command's workspaces are closed by then (`close_opened`: each writes its snapshot)
    and the parse pool shut down after its job, so no exit handler has work left; output is
    flushed. A live non-daemon thread gets the ordinary exit, which waits for it.
    """
    main_thread = threading.main_thread()
    if any(t is not main_thread and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
