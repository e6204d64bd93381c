"""reme_core: index a folder of Markdown memory and search it — no UI, reusable by any program.

Typical use: `Workspace.open("~/memory").search("index regression", limit=5).results`.

The names below are imported on first use (PEP 562): a program that needs only the index
(`reme-tui search`) does not pay for the editing, rendering and vector modules, and a
submodule such as `reme_core.files.scanner` can be imported on its own. `__init__.pyi`
declares the same names for type checkers.
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> (module, name in the module)
_EXPORTS: dict[str, tuple[str, str]] = {
    "BatchReport": ("reme_core.indexing.indexer", "BatchReport"),
    "ChangeFeed": ("reme_core.indexing.change_feed", "ChangeFeed"),
    "Changes": ("reme_core.indexing.indexer", "Changes"),
    "Committed": ("reme_core.indexing.change_feed", "Committed"),
    "Config": ("reme_core.config", "Config"),
    "ConfigError": ("reme_core.errors", "ConfigError"),
    "DeleteReport": ("reme_core.edit.file_ops", "DeleteReport"),
    "Discovered": ("reme_core.files.discovery", "Discovered"),
    "FileChange": ("reme_core.indexing.indexer", "FileChange"),
    "EmbedNote": ("reme_core.parse.embeds", "EmbedNote"),
    "EmbedRef": ("reme_core.parse.embeds", "EmbedRef"),
    "Expanded": ("reme_core.parse.embeds", "Expanded"),
    "FileChunk": ("reme_core.models", "FileChunk"),
    "FileLink": ("reme_core.models", "FileLink"),
    "FileNode": ("reme_core.models", "FileNode"),
    "FileRefused": ("reme_core.errors", "FileRefused"),
    "FilterSamples": ("reme_core.query.samples", "FilterSamples"),
    "Gap": ("reme_core.indexing.change_feed", "Gap"),
    "JournalRefused": ("reme_core.edit.recovery_notes", "JournalRefused"),
    "Recovered": ("reme_core.edit.recovery_notes", "Recovered"),
    "RecoveryProblem": ("reme_core.edit.recovery_notes", "RecoveryProblem"),
    "FeedEvent": ("reme_core.indexing.change_feed", "FeedEvent"),
    "VectorState": ("reme_core.vectors.state", "VectorState"),
    "VectorStatus": ("reme_core.vectors.state", "VectorStatus"),
    "watch_workspace": ("reme_core.indexing.watcher", "watch_workspace"),
    "Heading": ("reme_core.parse.markdown_render", "Heading"),
    "InboundLink": ("reme_core.edit.link_rewrite", "InboundLink"),
    "IndexCounts": ("reme_core.indexing.maintenance", "IndexCounts"),
    "IndexStats": ("reme_core.indexing.maintenance", "IndexStats"),
    "LinkEdit": ("reme_core.edit.link_rewrite", "LinkEdit"),
    "LinkSpan": ("reme_core.parse.markdown_render", "LinkSpan"),
    "MARKDOWN_STYLES": ("reme_core.parse.markdown_render", "STYLE_NAMES"),
    "MAX_EMBED_DEPTH": ("reme_core.parse.embeds", "MAX_EMBED_DEPTH"),
    "MarkdownLinkMatch": ("reme_core.parse.wikilinks", "MarkdownLinkMatch"),
    "ModeReason": ("reme_core.files.workspace_mode", "ModeReason"),
    "MoveReport": ("reme_core.edit.file_ops", "MoveReport"),
    "NO_DATE": ("reme_core.dates", "NO_DATE"),
    "Neighbour": ("reme_core.query.results", "Neighbour"),
    "NotIndexed": ("reme_core.errors", "NotIndexed"),
    "NoteLinks": ("reme_core.query.graph_results", "NoteLinks"),
    "OptimizeReport": ("reme_core.indexing.maintenance", "OptimizeReport"),
    "ParsedQuery": ("reme_core.query.query_language", "ParsedQuery"),
    "Property": ("reme_core.parse.properties", "Property"),
    "PathRefused": ("reme_core.errors", "PathRefused"),
    "RangeError": ("reme_core.errors", "RangeError"),
    "Rebuilt": ("reme_core.indexing.change_feed", "Rebuilt"),
    "ReadResult": ("reme_core.query.reading", "ReadResult"),
    "ReindexSummary": ("reme_core.indexing.rebuild", "ReindexSummary"),
    "RemeError": ("reme_core.errors", "RemeError"),
    "RenderedLine": ("reme_core.parse.markdown_render", "RenderedLine"),
    "RetrieveResult": ("reme_core.query.retrieve", "RetrieveResult"),
    "RetrievedItem": ("reme_core.query.retrieve", "RetrievedItem"),
    "SearchHit": ("reme_core.query.results", "SearchHit"),
    "SearchOutcome": ("reme_core.query.results", "SearchOutcome"),
    "SearchResult": ("reme_core.query.results", "SearchResult"),
    "SearchFilters": ("reme_core.query.filters", "SearchFilters"),
    "SearchOptions": ("reme_core.query.options", "SearchOptions"),
    "SearchRequest": ("reme_core.query.request", "SearchRequest"),
    "TagCount": ("reme_core.query.tag_list", "TagCount"),
    "TraverseEdge": ("reme_core.query.graph_results", "TraverseEdge"),
    "TraverseNode": ("reme_core.query.graph_results", "TraverseNode"),
    "TraverseResult": ("reme_core.query.graph_results", "TraverseResult"),
    "UNSUPPORTED_OPERATORS": ("reme_core.query.query_language", "UNSUPPORTED_OPERATORS"),
    "UndoRefused": ("reme_core.edit.undo_history", "UndoRefused"),
    "UndoReport": ("reme_core.edit.undo", "UndoReport"),
    "WikilinkMatch": ("reme_core.parse.wikilinks", "WikilinkMatch"),
    "Workspace": ("reme_core.workspace", "Workspace"),
    "WorkspaceWarning": ("reme_core.workspace_warning", "WorkspaceWarning"),
    "WorkspaceMode": ("reme_core.files.workspace_mode", "WorkspaceMode"),
    "WriteReport": ("reme_core.edit.write", "WriteReport"),
    "EditReport": ("reme_core.edit.note_jobs", "EditReport"),
    "NoteStat": ("reme_core.edit.note_jobs", "NoteStat"),
    "SaveReport": ("reme_core.edit.note_jobs", "SaveReport"),
    "daily_notes": ("reme_core.edit.note_jobs", "daily_notes"),
    "daily_write": ("reme_core.edit.note_jobs", "daily_write"),
    "edit_note": ("reme_core.edit.note_jobs", "edit_note"),
    "list_folder": ("reme_core.edit.note_jobs", "list_folder"),
    "read_frontmatter": ("reme_core.edit.note_jobs", "read_frontmatter"),
    "save_note": ("reme_core.edit.note_jobs", "save_note"),
    "stat_path": ("reme_core.edit.note_jobs", "stat_path"),
    "update_frontmatter": ("reme_core.edit.note_jobs", "update_frontmatter"),
    "aliases_of": ("reme_core.models", "aliases_of"),
    "names_of": ("reme_core.parse.note_names", "names_of"),
    "choose_mode": ("reme_core.files.workspace_mode", "choose_mode"),
    "date_ordinal": ("reme_core.dates", "date_ordinal"),
    "discover": ("reme_core.files.discovery", "discover"),
    "enclosing_index": ("reme_core.files.discovery", "enclosing_index"),
    "est_tokens": ("reme_core.text.tokenizer", "est_tokens"),
    "existing_file": ("reme_core.edit.file_ops", "existing_file"),
    "find_markdown_links": ("reme_core.parse.wikilinks", "find_markdown_links"),
    "find_wikilinks": ("reme_core.parse.wikilinks", "find_wikilinks"),
    "find_web_links": ("reme_core.parse.web_links", "find_web_links"),
    "WebLinkMatch": ("reme_core.parse.web_links", "WebLinkMatch"),
    "inbound_links": ("reme_core.edit.link_rewrite", "inbound_links"),
    "line_ranges": ("reme_core.parse.anchors", "line_ranges"),
    "list_tags": ("reme_core.query.tag_list", "list_tags"),
    "load_config": ("reme_core.config", "load_config"),
    "outline": ("reme_core.parse.markdown_render", "outline"),
    "parse_query": ("reme_core.query.query_language", "parse_query"),
    "render_markdown": ("reme_core.parse.markdown_render", "render_markdown"),
    "render_properties": ("reme_core.parse.properties", "render_properties"),
    "embed_section": ("reme_core.parse.embeds", "embed_section"),
    "expand_embeds": ("reme_core.parse.embeds", "expand_embeds"),
    "properties": ("reme_core.parse.properties", "properties"),
    "property_value": ("reme_core.parse.properties", "property_value"),
    "suffix_warnings": ("reme_core.edit.file_ops", "suffix_warnings"),
    "walk_ahead": ("reme_core.files.walk_ahead", "walk_ahead"),
    "normalize_relpath": ("reme_core.files.paths", "normalize_relpath"),
    "wikilink_to": ("reme_core.query.link_text", "wikilink_to"),
    "markdown_link_to": ("reme_core.query.link_text", "markdown_link_to"),
    "Bookmark": ("reme_core.files.obsidian_bookmarks", "Bookmark"),
    "BookmarkFile": ("reme_core.files.obsidian_bookmarks", "BookmarkFile"),
    "BookmarksError": ("reme_core.files.obsidian_bookmarks", "BookmarksError"),
    "BOOKMARKS_FILE": ("reme_core.files.obsidian_bookmarks", "BOOKMARKS_FILE"),
    "load_bookmarks": ("reme_core.files.obsidian_bookmarks", "load_bookmarks"),
    "add_bookmark": ("reme_core.files.obsidian_bookmarks", "add_bookmark"),
    "remove_bookmark": ("reme_core.files.obsidian_bookmarks", "remove_bookmark"),
    "bookmark_entry": ("reme_core.files.obsidian_bookmarks", "bookmark_entry"),
    "DailyNoteSettings": ("reme_core.files.obsidian_settings", "DailyNoteSettings"),
    "TemplateSettings": ("reme_core.files.obsidian_settings", "TemplateSettings"),
    "daily_note_settings": ("reme_core.files.obsidian_settings", "daily_note_settings"),
    "template_settings": ("reme_core.files.obsidian_settings", "template_settings"),
    "format_moment": ("reme_core.moment_dates", "format_moment"),
    "parse_moment": ("reme_core.moment_dates", "parse_moment"),
    "fill_template": ("reme_core.edit.templates", "fill_template"),
    "list_templates": ("reme_core.edit.templates", "list_templates"),
    "read_template": ("reme_core.edit.templates", "read_template"),
    "template_body": ("reme_core.edit.templates", "template_body"),
    "daily_note_path": ("reme_core.edit.daily_note", "daily_note_path"),
    "daily_note_date": ("reme_core.edit.daily_note", "daily_note_date"),
    "adjacent_daily_note": ("reme_core.edit.daily_note", "adjacent_daily_note"),
    "open_daily_note": ("reme_core.edit.daily_note", "open_daily_note"),
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import an exported name's module when the name is first used."""
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'reme_core' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
