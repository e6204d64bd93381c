"""Chunks of JSONL and plain text: whole lines packed, so a record is never torn apart.

Only a line that alone exceeds the limit (a huge JSON record, a minified blob) is cut, into
byte windows with a small overlap, and never inside a `[[wikilink]]` or a UTF-8 character.
"""

from __future__ import annotations

import re
from itertools import accumulate

from reme_core.models import FileChunk

_WIKILINK_RE = re.compile(rb"!?\[\[.*?\]\]")
_MIN_WINDOW = 16  # below this a window could not hold even a word; only absurd limits get here


def chunk_text(
    path: str, text: str, max_bytes: int = 4096, overlap_bytes: int = 200
) -> list[FileChunk]:
    """Chunks of a normalised text file, each within `max_bytes` UTF-8 bytes.

    Consecutive whole lines are packed (blank lines at a chunk's edges are left out), and
    such a chunk's body is exactly its source lines. A line longer than `max_bytes` becomes
    several chunks, all with `start_line == end_line` (that line): their body is a byte
    window of the line, not the whole line, consecutive windows share about
    `overlap_bytes`, and the prefix is `[Part X/N]\\n`. A window grows past the limit only
    to keep a wikilink longer than the window whole.
    """
    if max_bytes < 1:
        raise ValueError("max_bytes must be positive")
    lines = text.split("\n")
    ascii_only = text.isascii()
    widths = [
        len(line) if ascii_only else len(line.encode("utf-8", "surrogatepass")) for line in lines
    ]
    offsets = [0, *accumulate(w + 1 for w in widths)]
    chunks: list[FileChunk] = []
    start = end = -1

    def flush() -> None:
        if start >= 0:
            body = "\n".join(lines[start : end + 1])
            chunks.append(FileChunk(path, start + 1, end + 1, body))

    for i, line in enumerate(lines):
        if not line.strip():
            continue
        if widths[i] > max_bytes:
            flush()
            start = -1
            chunks.extend(_windows(path, i + 1, line, max_bytes, overlap_bytes))
        elif start >= 0 and offsets[i + 1] - offsets[start] - 1 <= max_bytes:
            end = i
        else:
            flush()
            start = end = i
    flush()
    return chunks


def _windows(path: str, line_no: int, line: str, max_bytes: int, overlap: int) -> list[FileChunk]:
    """Byte windows of one oversized line, numbered `[Part X/N]`."""
    data = line.encode("utf-8", "surrogatepass")
    links = [m.span() for m in _WIKILINK_RE.finditer(data)]
    width = 1
    while True:
        size = max(max_bytes - len("[Part /]\n") - 2 * width, _MIN_WINDOW)
        spans = [
            (a, b)
            for a, b in _spans(data, links, size, min(overlap, size // 4))
            if data[a:b].strip()
        ]
        if len(str(len(spans))) <= width:
            break
        width = len(str(len(spans)))
    total = len(spans)
    return [
        FileChunk(
            path,
            line_no,
            line_no,
            data[a:b].decode("utf-8", "surrogatepass"),
            prefix=f"[Part {k}/{total}]\n",
        )
        for k, (a, b) in enumerate(spans, 1)
    ]


def _spans(
    data: bytes, links: list[tuple[int, int]], size: int, overlap: int
) -> list[tuple[int, int]]:
    """(start, end) byte windows covering `data`, cut at spaces or character boundaries."""
    spans: list[tuple[int, int]] = []
    start = 0
    while True:
        end = start + size
        if end >= len(data):
            spans.append((start, len(data)))
            return spans
        space = data.rfind(b" ", max(start + 1, end - size // 8), end)
        if space >= 0:
            end = space + 1
        else:
            while data[end] & 0xC0 == 0x80:  # a UTF-8 continuation byte
                end -= 1
        end = _outside_links(end, links, start)
        spans.append((start, end))
        if end >= len(data):
            return spans
        nxt = max(end - overlap, start + 1)
        while data[nxt] & 0xC0 == 0x80:
            nxt += 1
        space = data.find(b" ", nxt, end)
        if space >= 0:
            nxt = space + 1
        nxt = _outside_links(nxt, links, start)
        start = nxt if start < nxt < end else end


def _outside_links(pos: int, links: list[tuple[int, int]], floor: int) -> int:
    """Move a cut out of any wikilink: to its start, or past its end when that start is `floor`."""
    for a, b in links:
        if a < pos < b:
            return a if a > floor else b
        if a >= pos:
            break
    return pos
