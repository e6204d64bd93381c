"""The public API of reme_core as type checkers see it (`__init__.py` imports each name on
first use)."""

from reme_core.config import Config, load_config
from reme_core.dates import NO_DATE, date_ordinal
from reme_core.edit.daily_note import (
    adjacent_daily_note,
    daily_note_date,
    daily_note_path,
    open_daily_note,
)
from reme_core.edit.file_ops import DeleteReport, MoveReport, existing_file, suffix_warnings
from reme_core.edit.link_rewrite import InboundLink, LinkEdit, inbound_links
from reme_core.edit.note_jobs import (
    EditReport,
    NoteStat,
    SaveReport,
    daily_notes,
    daily_write,
    edit_note,
    list_folder,
    read_frontmatter,
    save_note,
    stat_path,
    update_frontmatter,
)
from reme_core.edit.recovery_notes import JournalRefused, Recovered, RecoveryProblem
from reme_core.edit.templates import (
    fill_template,
    list_templates,
    read_template,
    template_body,
)
from reme_core.edit.undo import UndoReport
from reme_core.edit.undo_history import UndoRefused
from reme_core.edit.write import WriteReport
from reme_core.errors import (
    ConfigError,
    FileRefused,
    NotIndexed,
    PathRefused,
    RangeError,
    RemeError,
)
from reme_core.files.discovery import Discovered, discover, enclosing_index
from reme_core.files.obsidian_bookmarks import (
    BOOKMARKS_FILE,
    Bookmark,
    BookmarkFile,
    BookmarksError,
    add_bookmark,
    bookmark_entry,
    load_bookmarks,
    remove_bookmark,
)
from reme_core.files.obsidian_settings import (
    DailyNoteSettings,
    TemplateSettings,
    daily_note_settings,
    template_settings,
)
from reme_core.files.paths import normalize_relpath
from reme_core.files.walk_ahead import walk_ahead
from reme_core.files.workspace_mode import ModeReason, WorkspaceMode, choose_mode
from reme_core.indexing.change_feed import ChangeFeed, Committed, FeedEvent, Gap, Rebuilt
from reme_core.indexing.indexer import BatchReport, Changes, FileChange
from reme_core.indexing.maintenance import IndexCounts, IndexStats, OptimizeReport
from reme_core.indexing.rebuild import ReindexSummary
from reme_core.indexing.watcher import watch_workspace
from reme_core.models import FileChunk, FileLink, FileNode, aliases_of
from reme_core.moment_dates import format_moment, parse_moment
from reme_core.parse.anchors import line_ranges
from reme_core.parse.embeds import (
    MAX_EMBED_DEPTH,
    EmbedNote,
    EmbedRef,
    Expanded,
    embed_section,
    expand_embeds,
)
from reme_core.parse.markdown_render import STYLE_NAMES as MARKDOWN_STYLES
from reme_core.parse.markdown_render import (
    Heading,
    LinkSpan,
    RenderedLine,
    outline,
    render_markdown,
)
from reme_core.parse.note_names import names_of
from reme_core.parse.properties import (
    Property,
    properties,
    property_value,
    render_properties,
)
from reme_core.parse.web_links import WebLinkMatch, find_web_links
from reme_core.parse.wikilinks import (
    MarkdownLinkMatch,
    WikilinkMatch,
    find_markdown_links,
    find_wikilinks,
)
from reme_core.query.filters import SearchFilters
from reme_core.query.graph_results import NoteLinks, TraverseEdge, TraverseNode, TraverseResult
from reme_core.query.link_text import markdown_link_to, wikilink_to
from reme_core.query.options import SearchOptions
from reme_core.query.query_language import UNSUPPORTED_OPERATORS, ParsedQuery, parse_query
from reme_core.query.reading import ReadResult
from reme_core.query.request import SearchRequest
from reme_core.query.results import Neighbour, SearchHit, SearchOutcome, SearchResult
from reme_core.query.retrieve import RetrievedItem, RetrieveResult
from reme_core.query.samples import FilterSamples
from reme_core.query.tag_list import TagCount, list_tags
from reme_core.text.tokenizer import est_tokens
from reme_core.vectors.state import VectorState, VectorStatus
from reme_core.workspace import Workspace
from reme_core.workspace_warning import WorkspaceWarning

__all__ = [
    "BOOKMARKS_FILE",
    "MARKDOWN_STYLES",
    "MAX_EMBED_DEPTH",
    "NO_DATE",
    "UNSUPPORTED_OPERATORS",
    "BatchReport",
    "Bookmark",
    "BookmarkFile",
    "BookmarksError",
    "ChangeFeed",
    "Changes",
    "Committed",
    "Config",
    "ConfigError",
    "DailyNoteSettings",
    "DeleteReport",
    "Discovered",
    "EditReport",
    "EmbedNote",
    "EmbedRef",
    "Expanded",
    "FeedEvent",
    "FileChange",
    "FileChunk",
    "FileLink",
    "FileNode",
    "FileRefused",
    "FilterSamples",
    "Gap",
    "Heading",
    "InboundLink",
    "IndexCounts",
    "IndexStats",
    "JournalRefused",
    "LinkEdit",
    "LinkSpan",
    "MarkdownLinkMatch",
    "ModeReason",
    "MoveReport",
    "Neighbour",
    "NotIndexed",
    "NoteLinks",
    "NoteStat",
    "OptimizeReport",
    "ParsedQuery",
    "PathRefused",
    "Property",
    "RangeError",
    "ReadResult",
    "Rebuilt",
    "Recovered",
    "RecoveryProblem",
    "ReindexSummary",
    "RemeError",
    "RenderedLine",
    "RetrieveResult",
    "RetrievedItem",
    "SaveReport",
    "SearchFilters",
    "SearchHit",
    "SearchOptions",
    "SearchOutcome",
    "SearchRequest",
    "SearchResult",
    "TagCount",
    "TemplateSettings",
    "TraverseEdge",
    "TraverseNode",
    "TraverseResult",
    "UndoRefused",
    "UndoReport",
    "VectorState",
    "VectorStatus",
    "WebLinkMatch",
    "WikilinkMatch",
    "Workspace",
    "WorkspaceMode",
    "WorkspaceWarning",
    "WriteReport",
    "add_bookmark",
    "adjacent_daily_note",
    "aliases_of",
    "bookmark_entry",
    "choose_mode",
    "daily_note_date",
    "daily_note_path",
    "daily_note_settings",
    "daily_notes",
    "daily_write",
    "date_ordinal",
    "discover",
    "edit_note",
    "embed_section",
    "enclosing_index",
    "est_tokens",
    "existing_file",
    "expand_embeds",
    "fill_template",
    "find_markdown_links",
    "find_web_links",
    "find_wikilinks",
    "format_moment",
    "inbound_links",
    "line_ranges",
    "list_folder",
    "list_tags",
    "list_templates",
    "load_bookmarks",
    "load_config",
    "markdown_link_to",
    "names_of",
    "normalize_relpath",
    "open_daily_note",
    "outline",
    "parse_moment",
    "parse_query",
    "properties",
    "property_value",
    "read_frontmatter",
    "read_template",
    "remove_bookmark",
    "render_markdown",
    "render_properties",
    "save_note",
    "stat_path",
    "suffix_warnings",
    "template_body",
    "template_settings",
    "update_frontmatter",
    "walk_ahead",
    "watch_workspace",
    "wikilink_to",
]
