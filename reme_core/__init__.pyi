"""The public API of reme_core as type checkers see it (`__init__.py` imports each name on
first use)."""

from reme_core.config import Config, load_config
from reme_core.dates import NO_DATE, date_ordinal
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
from reme_core.files.walk_ahead import walk_ahead
from reme_core.files.workspace_mode import ModeReason, WorkspaceMode, choose_mode
from reme_core.indexing.change_feed import ChangeFeed, Committed, FeedEvent, Gap, Rebuilt
from reme_core.indexing.indexer import BatchReport, Changes, FileChange
from reme_core.indexing.maintenance import IndexStats, OptimizeReport
from reme_core.indexing.rebuild import ReindexSummary
from reme_core.indexing.watcher import watch_workspace
from reme_core.models import FileChunk, FileLink, FileNode, aliases_of
from reme_core.parse.anchors import line_ranges
from reme_core.parse.markdown_render import STYLE_NAMES as MARKDOWN_STYLES
from reme_core.parse.markdown_render import (
    Heading,
    LinkSpan,
    RenderedLine,
    outline,
    render_markdown,
)
from reme_core.parse.note_names import names_of
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
from reme_core.query.results import Neighbour, SearchHit, SearchResult
from reme_core.query.retrieve import RetrievedItem, RetrieveResult
from reme_core.query.samples import FilterSamples
from reme_core.query.tag_list import TagCount, list_tags
from reme_core.text.tokenizer import est_tokens
from reme_core.vectors.state import VectorState, VectorStatus, describe_vectors
from reme_core.workspace import Workspace

__all__ = [
    "MARKDOWN_STYLES",
    "NO_DATE",
    "UNSUPPORTED_OPERATORS",
    "BatchReport",
    "ChangeFeed",
    "Changes",
    "Committed",
    "Config",
    "ConfigError",
    "DeleteReport",
    "Discovered",
    "EditReport",
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
    "IndexStats",
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
    "RangeError",
    "ReadResult",
    "Rebuilt",
    "ReindexSummary",
    "RemeError",
    "RenderedLine",
    "RetrieveResult",
    "RetrievedItem",
    "SaveReport",
    "SearchFilters",
    "SearchHit",
    "SearchOptions",
    "SearchRequest",
    "SearchResult",
    "TagCount",
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
    "WriteReport",
    "aliases_of",
    "choose_mode",
    "daily_notes",
    "daily_write",
    "date_ordinal",
    "describe_vectors",
    "discover",
    "edit_note",
    "enclosing_index",
    "est_tokens",
    "existing_file",
    "find_markdown_links",
    "find_web_links",
    "find_wikilinks",
    "inbound_links",
    "line_ranges",
    "list_folder",
    "list_tags",
    "load_config",
    "markdown_link_to",
    "names_of",
    "outline",
    "parse_query",
    "read_frontmatter",
    "render_markdown",
    "save_note",
    "stat_path",
    "suffix_warnings",
    "update_frontmatter",
    "walk_ahead",
    "watch_workspace",
    "wikilink_to",
]
