"""The MCP tools that change files: ReMe's `write`, `save`, `edit`, `move`, `delete`,
`frontmatter_update`, `frontmatter_delete` and `daily_write`.

Each goes through reme_core's one write path (journaled, atomic, link-safe for moves) and is
indexed before it answers, so the next search sees it and a browser open on the workspace
shows it.
"""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from reme_core import (
    RemeError,
    Workspace,
    edit_note,
    save_note,
    stat_path,
    update_frontmatter,
)
from reme_core import daily_write as write_daily_note
from reme_tui.agents.mcp_common import Date, Metadata, NotePath, Register, guarded, result
from reme_tui.text.answers import frontmatter_deleted_text, frontmatter_updated_text
from reme_tui.text.reports import delete_lines, edit_text, move_lines, save_text, write_text


def register_edit_tools(tool: Register, ws: Workspace, allow_delete: bool) -> None:
    """Writing, editing and moving notes (and deleting them, when allowed)."""

    @tool(read_only=False)
    def write(
        path: NotePath,
        content: Annotated[
            str | None,
            Field(
                description="the body; a leading frontmatter block is merged, not nested; "
                "omit to keep the body"
            ),
        ] = None,
        name: Annotated[str | None, Field(description="frontmatter name")] = None,
        description: Annotated[str | None, Field(description="frontmatter description")] = None,
        metadata: Metadata = None,
    ) -> CallToolResult:
        """Create or rewrite a note. `content` is the body (omit it to keep the body); a
        frontmatter block at its start (text from read) is merged, never duplicated.
        `name`, `description` and `metadata` are merged into the frontmatter, keeping every
        key not named (a metadata value of null removes that key). Keep the note's Sources
        links when rewriting. Indexed before this returns."""

        def run() -> CallToolResult:
            report = ws.write(path, content, name, description, metadata)
            return result(write_text(report), report.to_dict())

        return guarded(run)

    @tool(read_only=False)
    def save(
        path: NotePath,
        content: Annotated[str, Field(description="the complete text, frontmatter included")],
        expected_mtime: Annotated[
            str | None,
            Field(description="mtime from stat; refused if the file changed since"),
        ] = None,
    ) -> CallToolResult:
        """Save a note's whole text verbatim; with expected_mtime, refused when someone
        changed the file since (stat it, read it, then save)."""

        def run() -> CallToolResult:
            report = save_note(ws, path, content, expected_mtime)
            data = {"path": report.path, "exists": True, "type": "file", "size": report.size}
            return result(save_text(report), {**data, "mtime": report.mtime})

        return guarded(run)

    @tool(read_only=False)
    def edit(
        path: NotePath,
        old: Annotated[str, Field(min_length=1, description="exact text to find in the body")],
        new: Annotated[str, Field(description="replacement text")] = "",
    ) -> CallToolResult:
        """Find and replace in a note's body, every occurrence (frontmatter excluded);
        refused when the text is not there."""

        def run() -> CallToolResult:
            report = edit_note(ws, path, old, new)
            data = {"path": report.path, "count": report.count, "lines": report.lines}
            return result(edit_text(report), data)

        return guarded(run)

    @tool(read_only=False, aliases={"src": "src_path", "dst": "dst_path"})
    def move(
        src_path: Annotated[str, Field(description="workspace-relative source")],
        dst_path: Annotated[str, Field(description="workspace-relative destination")],
        overwrite: Annotated[
            bool, Field(description="must stay false: an existing destination is refused")
        ] = False,
        retarget: Annotated[
            bool, Field(description="rewrite the wikilinks that point at the note")
        ] = True,
    ) -> CallToolResult:
        """Move or rename a note, rewriting every wikilink that points at it (all or
        nothing). `src`/`dst` are accepted as old names of src_path/dst_path."""

        def run() -> CallToolResult:
            if overwrite and stat_path(ws, dst_path).exists:
                raise RemeError(
                    f"move: {dst_path} exists and overwrite is not supported; "
                    "delete or move it first"
                )
            report = ws.move(src_path, dst_path, rewrite_links=retarget)
            return result("\n".join(move_lines(report)), report.to_dict())

        return guarded(run)

    if allow_delete:

        @tool(read_only=False)
        def delete(path: NotePath) -> CallToolResult:
            """Move a note to .trash/ (undo with `reme-tui undo`); lists the links it leaves
            dangling, to clean up."""

            def run() -> CallToolResult:
                report = ws.delete(path)
                return result("\n".join(delete_lines(report)), report.to_dict())

            return guarded(run)

    register_frontmatter_tools(tool, ws)


def register_frontmatter_tools(tool: Register, ws: Workspace) -> None:
    """Changing frontmatter keys, and writing the daily layer."""

    @tool(read_only=False)
    def frontmatter_update(
        path: NotePath,
        metadata: Annotated[dict[str, object], Field(description="key-values to merge")],
    ) -> CallToolResult:
        """Merge keys into an existing note's frontmatter; the body and other keys are kept."""

        def run() -> CallToolResult:
            report = update_frontmatter(ws, path, dict(metadata))
            text = frontmatter_updated_text(report.path, len(report.set_keys))
            return result(text, report.to_dict())

        return guarded(run)

    @tool(read_only=False)
    def frontmatter_delete(
        path: NotePath,
        keys: Annotated[list[str], Field(min_length=1, description="keys to remove")],
    ) -> CallToolResult:
        """Drop keys from a note's frontmatter (keys it does not have are reported missing)."""

        def run() -> CallToolResult:
            report = update_frontmatter(ws, path, remove=list(keys))
            missing = [k for k in keys if k not in report.removed_keys]
            text = frontmatter_deleted_text(report.path, len(report.removed_keys))
            data = {"path": report.path, "deleted": report.removed_keys, "missing": missing}
            return result(text, data)

        return guarded(run)

    @tool(read_only=False)
    def daily_write(
        name: Annotated[str, Field(min_length=1, description="file name stem and name")],
        description: Annotated[str, Field(description="frontmatter description")],
        session_id: Annotated[str, Field(description="source conversation session id")],
        content: Annotated[str, Field(description="the body")],
        date: Date = "",
        metadata: Metadata = None,
    ) -> CallToolResult:
        """Write daily/<date>/<name>.md with name, description, session_id and a
        source_conversation link, and list it in the day's index page daily/<date>.md."""

        def run() -> CallToolResult:
            report = write_daily_note(ws, name, description, session_id, content, date, metadata)
            return result(write_text(report), report.to_dict())

        return guarded(run)
