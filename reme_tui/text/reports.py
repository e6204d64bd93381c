"""What a search, a move, a delete, an undo, an optimize and ReMe's small jobs say to a
person or an agent: the core returns their reports as data, these render them (the CLI, the
MCP server, the browser's dialogs and toasts all print the same lines). The core types are
imported for checking only: the CLI imports this before its index modules load."""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING, Any

from reme_tui.text.words import dangling, plural

if TYPE_CHECKING:
    from reme_core import (
        DeleteReport,
        EditReport,
        MoveReport,
        Neighbour,
        NoteStat,
        OptimizeReport,
        ReindexSummary,
        RetrieveResult,
        SaveReport,
        SearchHit,
        SearchOutcome,
        SearchResult,
        UndoReport,
        WriteReport,
    )


# -- search ---------------------------------------------------------------------------------------
def search_note(query: str, outcome: SearchOutcome, matched: int) -> str:
    """The sentence a search's outcome reads as: none for ranked hits; why there are none;
    how many notes its filters alone listed."""
    match outcome.value:
        case "no_words":
            return "Nothing to search for: the query has no words."
        case "no_results":
            return f"No results for {query!r}."
        case "listed":
            return f"{plural(matched, 'note')} {'matches' if matched == 1 else 'match'}"
        case "none_listed":
            return "No note matches the filters."
    return ""


def search_dict(result: SearchResult | RetrieveResult) -> dict[str, Any]:
    """A search's or a retrieve's `--json` (and MCP structured content): the core's data and
    the sentence its outcome reads as, under `message`."""
    data = result.to_dict()
    data["message"] = search_note(result.query, result.outcome, result.matched)
    return data


def search_text(result: SearchResult) -> str:
    """The answer to a search: one block per hit, then its outlinks and inlinks."""
    if not result.results:
        return search_note(result.query, result.outcome, result.matched) or (
            f"No results for {result.query!r}."
        )
    return "\n".join(hit_text(h, result.link_expansion.get(h.path)) for h in result.results)


def score_text(hit: SearchHit) -> str:
    """`score=…` alone, or with the vector and keyword parts when both branches ran (SPEC §8;
    the name part is in the structured result)."""
    if hit.vector_score is not None and hit.keyword_score is not None:
        return (
            f"score={hit.score:.4f} vector={hit.vector_score:.4f} keyword={hit.keyword_score:.4f}"
        )
    return f"score={hit.score:.4f}"


def hit_text(hit: SearchHit, links: dict[str, list[Neighbour]] | None) -> str:
    """One block of a search's answer."""
    more = f" +{hit.more} more" if hit.more else ""
    lines = [
        f"========== {hit.path}:{hit.start_line}-{hit.end_line} [{score_text(hit)}]{more}"
        " =========="
    ]
    lines.append(hit.text)
    for direction, arrow in (("outlinks", "->"), ("inlinks", "<-")):
        neighbours = (links or {}).get(direction) or []
        if not neighbours:
            continue
        lines.append(f"  {direction} ({len(neighbours)}):")
        for n in neighbours:
            parts = [f"    {arrow} {n.path}"]
            if n.name:
                parts.append(f'name="{n.name}"')
            if n.description:
                parts.append(f'description="{n.description}"')
            if n.dangling:
                parts.append("(dangling)")
            lines.append("  ".join(parts))
    return "\n".join(lines)


# -- move, delete, undo ---------------------------------------------------------------------------
def move_summary(report: MoveReport) -> str:
    """One line: how many links change, in how many files, and how many cannot."""
    would = "would " if report.dry_run else ""
    left = len(report.untouched)
    text = (
        f"{would}rewrite {plural(len(report.edits), 'link')} in {plural(len(report.files), 'file')}"
    )
    if left:
        text += f"; {plural(left, 'link')} {'would be' if report.dry_run else 'are'} left broken"
    return text


def move_head(report: MoveReport) -> list[str]:
    """The move, its warnings and the summary: what a preview shows above the links."""
    would = "would " if report.dry_run else ""
    out = [f"{would}move {report.src} -> {report.dst}"]
    out.extend(f"  warning: {w}" for w in report.warnings)
    if not report.indexed:
        out.append(f"  note: {report.dst} is outside the indexed folders")
    out.append(move_summary(report))
    return out


def move_lines(report: MoveReport) -> list[str]:
    """A move's account, one change per line."""
    out = move_head(report)
    out.extend(f"  {e.path}:{e.line}  {e.old} -> {e.new}" for e in report.edits)
    if report.untouched:
        out.append(f"{plural(len(report.untouched), 'link')} not rewritten:")
        out.extend(
            f"  {i.path}:{i.line}  {i.raw}" + (f"  ({i.reason})" if i.reason else "")
            for i in report.untouched
        )
    return out


def move_preview(report: MoveReport) -> list[str]:
    """A dry run grouped by file: the summary, then every link that changes and every one
    left broken, with why (a modal is narrower than a CLI, so one link per line)."""
    out = move_head(report)
    for path, edits in groupby(report.edits, key=lambda e: e.path):
        out.append(f"  {path}")
        out.extend(f"    {e.line}: {e.old} -> {e.new}" for e in edits)
    if report.untouched:
        out.append(f"{plural(len(report.untouched), 'link')} cannot be rewritten:")
        for path, links in groupby(report.untouched, key=lambda i: i.path):
            out.append(f"  {path}")
            out.extend(
                f"    {i.line}: {i.raw}" + (f"  ({i.reason})" if i.reason else "") for i in links
            )
    return out


def delete_lines(report: DeleteReport) -> list[str]:
    """A delete's account: the deleted file, then each link left dangling."""
    where = f"moved to {report.trash}" if report.trash else "permanently"
    out = [f"deleted {report.path} ({where})"]
    if report.inbound:
        out.append(f"{dangling(len(report.inbound))}:")
        out.extend(f"  {i.path}:{i.line}  {i.raw}" for i in report.inbound)
    return out


def undo_lines(report: UndoReport) -> list[str]:
    """An undo's account, one change per line."""
    if report.op == "delete":
        return [f"restored {report.path} from {report.source}"]
    out = [f"moved {report.source} back to {report.path}"]
    out.append(f"restored the links in {plural(len(report.files), 'file')}")
    out.extend(f"  {path}" for path in report.files)
    return out


def moved_toast(report: MoveReport) -> str:
    """The browser's word on a finished move."""
    return f"{report.src} → {report.dst}\n{move_summary(report)}"


def deleted_toast(report: DeleteReport) -> str:
    """The browser's word on a delete into the trash, and the way back."""
    left = f"\n{dangling(len(report.inbound))}" if report.inbound else ""
    return f"Moved {report.path} to {report.trash}{left}\nCtrl+Z puts it back"


def undone_toast(report: UndoReport) -> str:
    """The browser's word on an undo: what came back (the files it touched left out)."""
    return "\n".join(undo_lines(report)[:2])


# -- upkeep ---------------------------------------------------------------------------------------
def rebuild_line(summary: ReindexSummary) -> str:
    """`reme-tui rebuild`'s summary line: each count after its name."""
    return (
        f"files {summary.files}  chunks {summary.chunks}  links {summary.links}  "
        f"dangling links {summary.dangling_links}  skipped {len(summary.skipped)}  "
        f"seconds {summary.seconds:.2f}"
    )


def rebuild_toast(summary: ReindexSummary) -> str:
    """The browser's word on a finished rebuild."""
    return (
        f"{plural(summary.files, 'file')}, {plural(summary.chunks, 'chunk')}, "
        f"{plural(summary.links, 'link')} ({summary.dangling_links} dangling), "
        f"{len(summary.skipped)} skipped in {summary.seconds:.1f} s"
    )


def optimize_lines(report: OptimizeReport) -> list[str]:
    """`what: before -> after` lines for the CLI and the browser."""
    return [
        f"documents:   {report.docs_before} -> {report.docs_after}",
        f"tombstones:  {report.tombstones_before} -> {report.tombstones_after}",
        f"vocabulary:  {report.vocabulary_before} -> {report.vocabulary_after}",
        f"database:    {report.db_bytes_before} -> {report.db_bytes_after} bytes",
        f"seconds:     {report.seconds:.3f}",
    ]


# -- ReMe's jobs ----------------------------------------------------------------------------------
def write_text(report: WriteReport) -> str:
    """One line for a person or an agent, plus a note when the file is not indexed."""
    verb = "created" if report.created else "updated"
    parts = [f"{verb} {report.path} ({report.lines} lines)"]
    if report.set_keys:
        parts.append(f"frontmatter set: {', '.join(report.set_keys)}")
    if report.removed_keys:
        parts.append(f"removed: {', '.join(report.removed_keys)}")
    if not report.created and not report.body_replaced:
        parts.append("body kept")
    text = "; ".join(parts)
    if not report.indexed:
        text += f"\n  note: {report.path} is outside the indexed folders (not searchable)"
    return text


def stat_text(stat: NoteStat) -> str:
    """ReMe's line: `stat: PATH (file, N bytes)`, `(dir)` or `not found`."""
    if not stat.exists:
        return f"stat: {stat.path} not found"
    if stat.type == "dir":
        return f"stat: {stat.path} (dir)"
    return f"stat: {stat.path} (file, {stat.size} bytes)"


def edit_text(report: EditReport) -> str:
    return f"Replaced {report.count} occurrence(s) in {report.path}"


def save_text(report: SaveReport) -> str:
    return f"Saved {report.path} ({report.size} bytes)"
