"""One search hit as a result block: `path:start-end [score]`, then the lines that matched.

The block is built in the search worker but laid out when drawn, because only then is the
pane's width known: the path is shortened from the left to keep the header on one line, and
a long line is cut from the left so that its first matched term stays visible.

Every row is one unwrapped line, so a block's height is known without rendering it:
`HitVisual` (what an OptionList draws a block with) tells Textual that height, so laying out
all hits costs nothing and only the blocks on screen are rendered.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.text import Text
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

from reme_core import SearchHit
from reme_tui.widgets.safe_text import drawable
from reme_tui.widgets.segments import SEGMENT_CONSOLE, styled_segments

SNIPPET_LINES = 3
ELLIPSIS = "…"


def body_lines(hit: SearchHit) -> list[str]:
    """The chunk's own source lines, `start_line..end_line`, without the heading skeleton.

    Search gives the body; a hit made elsewhere falls back to counting lines from the end.
    """
    if hit.body:
        return drawable(hit.body).split("\n")
    lines = drawable(hit.text).split("\n")
    extra = len(lines) - (hit.end_line - hit.start_line + 1)
    return lines[extra:] if extra > 0 else lines


def usable_terms(terms: list[str]) -> list[str]:
    """Lower-cased terms worth marking, longest first (one ASCII letter marks everything)."""
    kept = {t.lower() for t in terms if t.strip() and not (len(t) == 1 and t.isascii())}
    return sorted(kept, key=len, reverse=True)


def best_lines(
    start_line: int, body: list[str], terms: list[str], size: int = SNIPPET_LINES
) -> list[tuple[int, str]]:
    """The `size` non-blank lines (with true line numbers) that hold the most matched terms.

    Windows are ranked by distinct terms, then by matching lines, then by how close the first
    match sits to the window's second line (one line of context above it).
    """
    numbered = [(start_line + i, ln) for i, ln in enumerate(body) if ln.strip()]
    if len(numbered) <= size:
        return numbered
    found = [{t for t in terms if t in ln.lower()} for _, ln in numbered]
    best: tuple[int, int, int, int] | None = None
    best_start = 0
    for start in range(len(numbered) - size + 1):
        window = found[start : start + size]
        covered = set().union(*window)
        matching = [i for i, terms_in in enumerate(window) if terms_in]
        offset = abs(matching[0] - 1) if matching else 0
        key = (len(covered), len(matching), -offset, -start)
        if best is None or key > best:
            best, best_start = key, start
    return numbered[best_start : best_start + size]


def shorten_left(path: str, width: int) -> str:
    """`path` in at most `width` cells, cut from the left at a folder boundary when possible."""
    if cell_len(path) <= width:
        return path
    if width <= 1:
        return ELLIPSIS[:width]
    room = width - 1
    parts = path.split("/")
    for k in range(1, len(parts)):
        tail = "/" + "/".join(parts[k:])
        if cell_len(tail) <= room:
            return ELLIPSIS + tail
    tail = ""
    for char in reversed(path):
        if cell_len(char + tail) > room:
            break
        tail = char + tail
    return ELLIPSIS + tail


def _crop_to_match(line: str, terms: list[str], width: int) -> str:
    """Cut a long line from the left when its first match would fall past the right edge."""
    lowered = line.lower()
    spots = [(lowered.find(t), t) for t in terms if t in lowered]
    if not spots:
        return line
    index, term = min(spots)
    if cell_len(line[: index + len(term)]) <= width:
        return line
    lead = max(width - cell_len(term) - width // 4, 0)  # left context; a quarter stays free
    cut = index
    while cut > 0 and cell_len(line[cut - 1 : index]) <= lead:
        cut -= 1
    return ELLIPSIS + line[cut:]


@dataclass(slots=True)
class HitBlock:
    """A rich renderable: the header line, then numbered snippet lines with terms marked."""

    path: str
    start_line: int
    end_line: int
    score: str
    lines: list[tuple[int, str]]
    terms: list[str] = field(default_factory=list)
    more: int = 0  # other matching chunks of the same note (the browser groups by note)

    @classmethod
    def of(cls, hit: SearchHit, terms: list[str]) -> HitBlock:
        """Pick the snippet lines of a hit (done in the search worker)."""
        usable = usable_terms(terms)
        lines = best_lines(hit.start_line, body_lines(hit), usable)
        score = f"{hit.score:.4f}"
        return cls(hit.path, hit.start_line, hit.end_line, score, lines, usable, hit.more)

    @property
    def height(self) -> int:
        """Rows the block renders at any width (a newline in the path splits the header)."""
        return self.path.count("\n") + 1 + len(self.lines)

    @property
    def width(self) -> int:
        """Cells of the widest row when nothing is shortened."""
        digits = len(str(self.lines[-1][0])) if self.lines else 1
        return max([cell_len(self.header), *(digits + 1 + cell_len(ln) for _, ln in self.lines)])

    @property
    def header(self) -> str:
        """The full, unshortened header text."""
        return f"{drawable(self.path)}:{self.start_line}-{self.end_line} [{self.score}]{self._more}"

    @property
    def _more(self) -> str:
        return f" +{self.more} more" if self.more else ""

    def header_text(self, width: int) -> Text:
        """The header fitted to `width` cells (the path gives way first)."""
        tail = f":{self.start_line}-{self.end_line}"
        score = f" [{self.score}]{self._more}"
        room = width - cell_len(tail) - cell_len(score)
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(shorten_left(drawable(self.path), max(room, 8)), style="bold")
        text.append(tail, style="bold")
        text.append(score, style="dim")
        return text

    def rows(self, width: int) -> list[Text]:
        """The header and the numbered snippet lines, fitted to `width` cells."""
        rows = [self.header_text(width)]
        digits = len(str(self.lines[-1][0])) if self.lines else 1
        for number, line in self.lines:
            body = Text(_crop_to_match(line, self.terms, width - digits - 1))
            body.highlight_words(self.terms, style="bold reverse", case_sensitive=False)
            text = Text(no_wrap=True, overflow="ellipsis")
            text.append(f"{number:>{digits}} ", style="dim")
            text.append_text(body)
            rows.append(text)
        return rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        yield from self.rows(options.max_width)

    def visualize(self) -> HitVisual:
        """The Textual visual an OptionList draws this block with."""
        return HitVisual(self)


class HitVisual(Visual):
    """How Textual draws a `HitBlock`: measured by counting rows, drawn row by row.

    Rows are cut to the width directly (as Rich's `no_wrap` + ellipsis would), without the
    console's render pipeline; the segments are the same.
    """

    def __init__(self, block: HitBlock) -> None:
        self.block = block

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        """The widest row, unshortened."""
        return self.block.width

    def get_height(self, rules: RulesMap, width: int) -> int:
        """The block's row count (no row wraps)."""
        return self.block.height

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        """One strip per row, on the option's base style."""
        console = SEGMENT_CONSOLE
        base = style.rich_style
        strips: list[Strip] = []
        for row in self.block.rows(width):
            for line in row.split(allow_blank=True):
                if "\t" in line:
                    line.expand_tabs(console.tab_size)
                line.truncate(width, overflow="ellipsis")
                strips.append(Strip(styled_segments(line, base)))
        return strips[:height]
