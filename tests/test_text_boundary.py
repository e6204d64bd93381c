"""Sentences people read are written in `reme_tui/text/` only: the core returns data, and the
browser's controllers, dialogs and widgets take their words from `text/`.

An AST scan finds every string literal or f-string of three words or more outside a
docstring, an exception raised to the caller, SQL, a regular expression, CSS, a binding's or
an input's label. Each file that still has some is listed below with how many and why: a new
sentence there, or in any other file, fails here by name; so does a file that has fewer than
listed (shrink the list when moving words out)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import reme_core
import reme_tui

ROOT = Path(reme_core.__file__).parent.parent

_SQL = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|WITH|DROP|ALTER|BEGIN)\b")
_WORD = re.compile(r"[A-Za-z]{2,}")
# Errors raised to callers are one-line facts (`PathRefused: … escapes the workspace`).
_ERROR = re.compile(r"(Error|Refused|Exception|Conflict|Busy|Unavailable|NotIndexed)$")
# Calls whose string arguments are code, not words: SQL, regexes, argparse and MCP schemas.
_CODE_CALLS = {
    "compile",
    "execute",
    "executemany",
    "executescript",
    "add_argument",
    "add_parser",
    "Field",
}
# Labels that stay with what they label (a binding, a palette entry, an input's hint).
_LABEL_CALLS = {"Binding", "Option"}
_LABEL_KEYWORDS = {"placeholder", "tooltip", "name"}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _words(node: ast.AST) -> str | None:
    """The literal words of a string or an f-string, None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
    return None


def _excused_lines(tree: ast.Module) -> set[int]:
    """Lines of CSS, bindings and input labels (the TUI's words that stay where they are)."""
    lines: set[int] = set()

    def cover(node: ast.AST) -> None:
        lines.update(n.lineno for n in ast.walk(node) if hasattr(n, "lineno"))

    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id.endswith("CSS") for t in node.targets)
        ) or (isinstance(node, ast.Call) and _name(node.func) in _LABEL_CALLS):
            cover(node)
        elif isinstance(node, ast.keyword) and node.arg in _LABEL_KEYWORDS:
            cover(node.value)
    return lines


def sentences(source: str) -> list[tuple[int, str]]:
    """(line, words) of each sentence for people built in `source`."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    # docstrings, and the bare string after an attribute that documents it
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    labels = _excused_lines(tree)
    found = []
    for node in ast.walk(tree):
        text = _words(node)
        if text is None or id(node) in docs or isinstance(parents.get(node), ast.JoinedStr):
            continue
        if len(_WORD.findall(text)) < 3 or " " not in text.strip() or _SQL.match(text):
            continue
        if node.lineno in labels or _in_error_or_code(node, parents):
            continue
        found.append((node.lineno, text))
    return found


def _is_log(func: ast.expr) -> bool:
    """`self.app.log.error(...)`: a line for the developer's console, not for people."""
    return isinstance(func, ast.Attribute) and _name(func.value) == "log"


def _in_error_or_code(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.Raise | ast.Assert):
            return True
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if _ERROR.search(name) or name in _CODE_CALLS or _is_log(node.func):
                return True
    return False


# file -> (how many sentences it still builds, why they are there)
_STORED = "a file's parse warnings, stored per file in the index and shown with the note"
_CORE_LEFT = {
    "reme_core/config.py": (1, "a config error's place (line, column), raised as ConfigError"),
    "reme_core/edit/file_ops.py": (2, "MoveReport.warnings (JSON); the undo label it stores"),
    "reme_core/edit/link_rewrite.py": (3, "an unrewritten link's reason: MoveReport JSON field"),
    "reme_core/edit/note_jobs.py": (1, "the description ReMe's daily job writes into a note"),
    "reme_core/edit/undo.py": (5, "UndoRefused's words (raised) and undo history labels"),
    "reme_core/errors.py": (2, "SQLite's own message matched; the disk-full error"),
    "reme_core/files/paths.py": (1, "why a too-deep path is refused (raised, or stored)"),
    "reme_core/files/state_files.py": (1, "NotRegular's reason (raised)"),
    "reme_core/files/text_decode.py": (3, _STORED),
    "reme_core/parse/embeds.py": (4, "an embed's placeholder drawn inside the rendered note"),
    "reme_core/parse/frontmatter.py": (4, _STORED),
    "reme_core/parse/markdown_render.py": (6, "callout kinds: names, not sentences"),
    "reme_core/query/query_language.py": (1, "the operators refused: listed in QueryError"),
    "reme_core/query/reading.py": (1, "ReMe's read truncation marker: agents parse it"),
    "reme_core/query/search.py": (1, "a type annotation in a string"),
    "reme_core/store/schema.py": (1, "a schema check's reason: a StoreError rebuilds"),
    "reme_core/vectors/local_embedder.py": (1, "VectorStatus.reason: the install hint"),
    "reme_core/vectors/wordllama_embedder.py": (1, "VectorStatus.reason: the install hint"),
    "reme_core/vectors/openai_embedder.py": (3, "VectorStatus.reason: why the endpoint failed"),
    "reme_core/vectors/vector_index.py": (1, "a type annotation in a string"),
}
_TUI_LEFT = {
    "reme_tui/agents/jsonrpc_guard.py": (10, "JSON-RPC error messages: the protocol's errors"),
    "reme_tui/agents/mcp_http.py": (1, "the HTTP server's start-up line on stderr"),
    "reme_tui/agents/mcp_server.py": (2, "the server's instructions to agents; a watcher failure"),
    "reme_tui/app/commands.py": (38, "the palette's entries: a title and help per action"),
    "reme_tui/settings.py": (9, "the settings file's template and its one-line errors (file:line)"),
}


def _left(package: Path, skip: tuple[str, ...]) -> dict[str, int]:
    counts = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(skip):
            continue
        found = sentences(path.read_text(encoding="utf-8"))
        if found:
            counts[rel] = len(found)
    return counts


def test_the_core_builds_no_new_sentence() -> None:
    allowed = {path: count for path, (count, _why) in _CORE_LEFT.items()}
    assert _left(Path(reme_core.__file__).parent, ()) == allowed


def test_the_browser_takes_its_words_from_text() -> None:
    """Controllers, dialogs and widgets: `notify`, `Static`, hints and status lines come
    from `reme_tui/text/`; so do the MCP tools' answers (the CLI's argparse help is left to
    its commands)."""
    skip = tuple(f"reme_tui/{d}/" for d in ("text", "cli", "demo"))
    allowed = {path: count for path, (count, _why) in _TUI_LEFT.items()}
    assert _left(Path(reme_tui.__file__).parent, skip) == allowed


def test_the_scan_finds_a_sentence_and_spares_errors_and_labels() -> None:
    source = '''
def f(n):
    """A docstring of many words is not a sentence for people."""
    if n < 0:
        raise ValueError(f"{n} is below zero, as said")
    notify(f"{n} notes were moved here")
    Binding("q", "quit", "Quit the whole browser")
    Input(placeholder="type a path here")
    return "No note matches the filters."
'''
    assert sorted(line for line, _ in sentences(source)) == [6, 9]
