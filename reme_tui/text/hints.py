"""The browser's standing words: a pane's status line, a list's key hint, a dialog's question
or preview line, the reader's welcome. Counts through `words.plural`; text that holds a
note's path or a URL takes it already made drawable by the caller."""

from __future__ import annotations

from rich.text import Text

from reme_tui.text.words import plural

# -- panes ----------------------------------------------------------------------------------------
OPENING = "Opening the workspace…"
OPENING_INDEX = "opening the index…"
COULD_NOT_OPEN = "could not open the workspace"
READING_NOTES = "Reading the notes…"
TYPE_TO_FILTER = "type to filter"
LINKS_WAITING = "Open a note to see its links."
GATHERING = "Gathering the notes within 2 links…"
NOT_INDEXED_LINKS = "Not an indexed note: no links to show."
ADD_A_WORD = "Add a word to search for."
NO_RESULTS = "No results."
MORE_HITS = " (showing the first 50: refine the query for more)"
SWITCHER_PLACEHOLDER = "Open note: name, path or description…"


def progress_line(verb: str, total: int, done: int) -> str:
    """The status bar while an index is built or caught up."""
    return f"{verb}: {total:,} notes found, {done:,} read"


def could_not_open(root: object, error: str) -> str:
    """The reader's message when the workspace did not open (markup)."""
    return f"[b]Could not open {root}[/b]\n\n{error}"


def link_counts(outlinks: int, inlinks: int, mentions: int) -> str:
    """The links pane's line over a note's links."""
    said = plural(mentions, "mention", commas=True)
    return f"{outlinks:,} out · {inlinks:,} in · {said}"


def within_two_links(n: int) -> str:
    return f"{n:,} notes within 2 links"


def hits_line(n: int, timing: str, more: str) -> str:
    """The search pane's line over its hits."""
    return f"{plural(n, 'hit')}{timing}{more}"


def query_error(message: str) -> str:
    return f"[b red]Query error:[/] {message}"


def search_help(folder: str, dates: tuple[str, str] | None) -> str:
    """What the search box accepts, with a real top folder (markup-escaped by the caller)
    and the dates its notes span (a date example only when a note has a date)."""
    span = f"[b]after:[/b]{dates[0]}  [b]before:[/b]{dates[1]}\n" if dates else ""
    return (
        "Type to search.\n\n"
        f'[b]"exact phrase"[/b]  [b]-word[/b]  [b]path:[/b]{folder}  [b]tag:[/b]x\n'
        f"{span}A filter alone lists its notes ([b]sort:mtime[/b]: newest first).\n\n"
        "↓/Enter moves to the results; Enter opens a hit."
    )


def search_placeholder(folder: str) -> str:
    """The empty search box's one-line example."""
    example = f" path:{folder}/" if folder else ""
    return f'Search  (e.g. words "a phrase" -word{example})'


# -- the reader -----------------------------------------------------------------------------------
WELCOME = (
    "Search on the left ([b]/[/b]), or press [b]o[/b] to open a note by name.\n\n"
    "In a note: [b]Tab[/b] selects a link, [b]Enter[/b] follows it, "
    "[b]b[/b] goes back;\n[b]r[/b] renames, [b]n[/b] makes a new note, "
    "[b]l[/b] shows or hides the links, [b]Ctrl+P[/b] has the rest."
)


def no_notes_yet(root: object) -> str:
    return (
        f"[b]This workspace has no notes yet.[/b]\n\nAdd Markdown files under "
        f"{root} (daily/, digest/ or any folder) and they appear here."
    )


def gone(path: str, *, on_disk: bool) -> str:
    """The reader's message for the open note deleted, from the browser or `on_disk`."""
    how = "was deleted (or moved) on disk" if on_disk else "was deleted"
    return f"[b]{path}[/b] {how}.\n\nPress [b]b[/b] to go back, or search for another note."


# -- pick lists -----------------------------------------------------------------------------------
BOOKMARKS_KEYS = "Enter opens · d removes · Esc closes"
NO_BOOKMARKS = "No bookmarks yet: Ctrl+B bookmarks the open note, a heading or the search."
NO_TAGS = "No tags in this workspace."
NEW_FROM_TEMPLATE = "New note from a template"


def bookmarks_hint(n: int) -> str:
    return f"{plural(n, 'bookmark')} · {BOOKMARKS_KEYS}" if n else NO_BOOKMARKS


def bookmark_here_hint(shown_file: str) -> str:
    return f"Enter bookmarks it · kept in {shown_file}"


def foreign_bookmark(kind: str) -> str:
    """A bookmark kind the browser keeps but cannot open (drawable `kind`)."""
    return f"  ({kind}: kept, opens in Obsidian)"


def history_hint(n: int) -> str:
    return f"{plural(n, 'recent note')}, newest first · Enter opens"


def templates_hint(n: int) -> str:
    return f"{plural(n, 'template')} · Enter chooses · Esc cancels"


def tag_tree_hint(n: int) -> str:
    return f"{plural(n, 'tag')} · Enter lists a tag's notes · ←/→ fold" if n else NO_TAGS


def tags_hint(shown: int, n: int) -> str:
    return f"{shown} of {plural(n, 'tag')} · Enter lists a tag's notes"


def tagged_notes_hint(n: int, back: str) -> str:
    """A tag's notes listed; Esc goes `back` ("the tree", "all tags")."""
    return f"{plural(n, 'note')} · Enter opens · Esc: {back}"


def cannot_list_tags(error: object) -> str:
    return f"Cannot list the tags: {error}"


# -- dialogs --------------------------------------------------------------------------------------
TYPE_NEW_PATH = "Type the new path."
TYPE_FOLDER_PATH = "Type the folder's path."
MOVE_ANYWAY = "Press Move again to move it anyway."
REWRITE_LINKS = "Rewrite links that point at it"
NO_INBOUND = "No other note links to it."
LOOKING_FOR_LINKS = "Looking for links to it…"
TRASH_EXPLAINED = "It moves to .trash/ in the workspace; Ctrl+Z puts it back."
MOVE_TO_TRASH = "Move to trash"
VAULT_NAME_OPTIONAL = " (optional: a vault note gets no frontmatter unless given)"
NEEDS_A_KEY = "A property needs a key."
CREATE_LINKED = "Create the linked note?"
OPEN_WEB_LINK = "Open the web link?"
DRAWING_GRAPH = "Drawing the graph…"
GRAPH_LEGEND = "   → links to  ← links here  ↔ both"


def move_title(src: str) -> str:
    return f"Move or rename {src}"


def create_linked(written: str, path: str) -> Text:
    """The question of a link to a note that does not exist (both drawable)."""
    return Text.assemble(
        written,
        " points at a note that does not exist yet.\nCreate ",
        (path, "bold"),
        " and open it?",
    )


def no_display(url: str) -> Text:
    """Why a web link is offered as a copy (a drawable `url`)."""
    return Text.assemble(
        (url, "bold"),
        "\nThis terminal has no display of its own (it may be remote): the system"
        " browser would start on this machine. Copy the link instead to open it"
        " where you are.",
    )


def no_graph(centre: str, error: object) -> str:
    return f"No graph for {centre}: {error}"


def drawing_graph_of(path: str) -> str:
    return f"Drawing the graph of {path}…"
