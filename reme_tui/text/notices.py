"""The browser's toasts: what a key press could not do, and what happened off screen. One
sentence per situation, used by every controller, dialog and widget that meets it."""

from __future__ import annotations

STILL_OPENING = "The workspace is still opening."
OPEN_A_NOTE_FIRST = "Open a note first."
GRAPH_NEEDS_A_NOTE = "Open a note first: the graph is drawn around it."
COPY_NEEDS_A_NOTE = "Open or highlight a note to copy from."
BOOKMARK_NEEDS_SOMETHING = "Open a note or type a search first."
NO_HISTORY = "No notes opened yet."
NO_OTHER_NOTE = "No other note to pick."
NOTHING_BEHIND = "Nothing to go back to."
FOLDER_NOT_MOVED = "A folder is not moved or deleted as a whole: highlight a note."
ONLY_WEB_LINKS = "Only http and https links are opened."
NO_LINKS_HERE = "This note has no links."
SELECT_A_LINK = "Press Tab to select a link, then Enter to follow it."

# toast titles
CREATED_TODAY = "Created today's note"
OPTIMIZE_TITLE = "Optimize index: before → after"
WEB_OPENING = "Opening in the browser"
WEB_COPIED = "Copied: Web link"
WEB_NO_BROWSER = "No browser found: the link was copied"


def no_daily_note(step: int) -> str:
    """Stepping past the first or the last daily note."""
    return f"No {'earlier' if step < 0 else 'later'} daily note."


def missing_file(name: str) -> str:
    """A link to an image, a PDF or another attachment that is not in the workspace."""
    return f"{name} is not in the workspace: a link to a file does not make a note."


def dangling_link(path: str) -> str:
    """A link followed to a note that does not exist."""
    return f"Dangling link: {path} does not exist (yet)."


def unfollowable_link(reason: object) -> str:
    """A link that cannot become a note (e.g. out of the workspace)."""
    return f"This link cannot be followed: {reason}"


def created(path: str) -> str:
    return f"Created {path}"


def worker_failed(name: str) -> str:
    """The title of a background job's error toast."""
    return f"{name} failed"


def cannot_save_theme(settings_file: object, strerror: object) -> str:
    return f"{settings_file}: cannot save the theme ({strerror})"


def edit_settings_elsewhere(settings_file: object) -> str:
    return f"Edit {settings_file} from another shell; it applies at the next start."


def cannot_open_with(path: object, editor: str, exc: object) -> str:
    return f"Cannot open {path} with {editor!r}: {exc}"


def cannot_run(editor: str, exc: object) -> str:
    return f"Cannot run {editor!r}: {exc}"


def no_terminal_to_lend(editor: str, path: str) -> str:
    """`e` in a session without a terminal (headless, web): edit elsewhere, the watcher
    brings the change."""
    return (
        f"This session has no terminal to lend {editor!r} (headless or web). Edit "
        f"{path} from another shell: the watcher shows the change here."
    )


def folded(label: str) -> str:
    """A folded hub of the graph was chosen: it opens nothing."""
    return f"{label}: notes folded to keep the graph readable."


def attachment(path: str, reason: str) -> str:
    """A link led to a file that is not a note; the reader's reason may start with the path."""
    return f"{path} is an attachment, not a note ({reason.removeprefix(f'{path}: ')})."


def anchor_missing(anchor: str, path: str) -> str:
    return f"#{anchor} is not in {path}; showing the top."
