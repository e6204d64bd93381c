"""What a workspace warns about (`WorkspaceWarning`: an index rebuilt or in memory, a file
left out) and what the open did after a crash (`Recovered`, `JournalRefused`); one line each,
for the CLI's stderr and the browser's toasts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reme_tui.text.words import plural

if TYPE_CHECKING:
    from reme_core import JournalRefused, Recovered, RecoveryProblem, WorkspaceWarning


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


_STATE_IS = {"symlink": "a symbolic link", "file": "a file, not a folder"}


def warning_line(w: WorkspaceWarning) -> str:
    """One warning in words."""
    match w.kind:
        case "state_not_folder":
            return (
                f"{w.path} is {_STATE_IS.get(w.detail, w.detail)}: the index is kept in memory only"
            )
        case "waited_for_build":
            return "another process was building this index: waited for it"
        case "settings_changed":
            return "index settings changed: rebuilding the index"
        case "mostly_missing":
            many = f"it lists {w.count} files, most of which do not exist"
            return f"{w.path}: {many}; rebuilt from the files"
        case "damaged":
            return f"{w.path}: {w.detail}; rebuilt from the files"
        case "disk_full":
            return "the disk is full: index in memory"
        case "unwritable":
            return f"cannot write {w.path}/ ({w.detail}): index in memory"
        case "index_moved":
            return (
                f"moved the index from {w.path}/ to {w.detail}/: in a vault, "
                f"{w.path}/ is notes like any other folder"
            )
        case "entry_removed":
            return f"{w.path} was {w.detail}; removed it (derived state is never followed)"
        case "not_indexed":
            return f"{w.path}: {w.detail}; not indexed"
    return f"parallel parsing stopped ({w.detail}); parsing here"


def open_warnings(
    warnings: list[WorkspaceWarning], recovery: list[Recovered | JournalRefused]
) -> list[str]:
    """Everything the workspace has to say, for the CLI and the browser alike: its warnings
    (a rebuilt index, an index in memory), then what recovery did."""
    return [*map(warning_line, warnings), *map(recovery_line, recovery)]
