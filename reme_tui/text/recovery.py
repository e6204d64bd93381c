"""What the open says about a crash it cleaned up after: an operation finished or rolled
back (`Recovered`), a journal it would not run (`JournalRefused`); one line each, for the
CLI's stderr and the browser's toasts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reme_tui.text.words import plural

if TYPE_CHECKING:
    from reme_core import JournalRefused, Recovered, RecoveryProblem


def recovery_line(note: Recovered | JournalRefused) -> str:
    """One line for what recovery did with one journal."""
    from reme_core import Recovered  # loaded already: the open made `note`

    return _recovered(note) if isinstance(note, Recovered) else _refused(note)


def _recovered(op: Recovered) -> str:
    if op.temps_only:
        text = f"{op.label} was interrupted; removed its temp file (the note is whole)"
    elif op.finished and op.kind == "delete":
        text = f"{op.label} was interrupted; finished it now (`undo` brings it back)"
    elif op.finished:
        text = f"{op.label} was interrupted; finished it now ({plural(len(op.changed), 'file')})"
    else:
        text = f"{op.label} was interrupted; rolled back, every file is as it was"
    if op.problems:
        text += "; but " + "; ".join(map(_problem, op.problems))
    return text


def _problem(problem: RecoveryProblem) -> str:
    if problem.kind == "left":
        return f"{problem.path} was left as it is ({problem.reason})"
    if problem.kind == "not_moved":
        return f"{problem.path} could not be moved to {problem.other} ({problem.reason})"
    return f"{problem.path} could not be put back ({problem.reason})"


def _refused(journal: JournalRefused) -> str:
    if journal.kind == "not_regular":
        return f"{journal.journal}: {journal.what}; removed it, no file was changed"
    if journal.kind == "invalid":
        return f"{journal.journal}: not a valid journal; removed"
    return (
        f"{journal.journal}: {journal.entry} is {journal.what}; recovery refused it (set aside"
        f" as {journal.aside}); no file was changed, none outside the workspace was touched"
    )


def open_warnings(warnings: list[str], recovery: list[Recovered | JournalRefused]) -> list[str]:
    """Everything the open has to say, for the CLI and the browser alike: its warnings (a
    rebuilt index, an index in memory), then what recovery did."""
    return [*warnings, *map(recovery_line, recovery)]
