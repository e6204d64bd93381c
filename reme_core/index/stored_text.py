"""How the snapshot stores text: string tables NUL-joined, JSON values, and per-file JSON
rows (frontmatter, warnings, tags) kept encoded until one is asked for.

A cold search of 50,000 notes reads the frontmatter of the ~80 notes it shows, not all
50,000: decoding them all was a fifth of opening the workspace. The snapshot stores each
file's value as one JSON text, NUL-separated (JSON never holds a raw NUL); a row is decoded
on first access and kept. A snapshot is never trusted, so a row that is not valid JSON of
the expected shape reads as the empty value, as a file without frontmatter would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, overload

import numpy as np

from reme_core.text.joined_strings import JoinedStrings
from reme_core.text.json_text import json_text

T = TypeVar("T")

# A JSON escape of a lone surrogate: no text this program indexes has one, and no database,
# JSON output or terminal could take it.
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def unpack_json(arr: np.ndarray) -> Any:
    """A stored JSON value; ValueError for anything else (or a lone surrogate in it)."""
    if arr.dtype != np.uint8:
        raise ValueError("text arrays are bytes")
    data = arr.tobytes()
    if _SURROGATE.search(data):
        raise ValueError("text with lone surrogates")
    return json.loads(data)


# How `pack_strings` stores a list of strings: NUL-joined UTF-8 (split is ~5x faster to read than
# a JSON array), or a JSON array for a list in which some string holds a NUL of its own.
_JOINED, _AS_JSON = ord("S"), ord("J")


def pack_strings(values: Sequence[str]) -> np.ndarray:
    """A list of strings as stored."""
    joined = "\0".join(values)
    if joined.count("\0") == max(len(values) - 1, 0):
        data = bytes([_JOINED]) + joined.encode("utf-8")
    else:
        data = bytes([_AS_JSON]) + json.dumps(list(values)).encode("ascii")
    return np.frombuffer(data, dtype=np.uint8)


def unpack_table(arr: np.ndarray, n: int | None = None) -> Sequence[str]:
    """A stored string table (the vocabulary, the link strings) left joined (`JoinedStrings`):
    a search looks up its few terms and paths without splitting 150k strings."""
    if arr.dtype == np.uint8 and len(arr) and arr[0] == _JOINED:
        return JoinedStrings(arr[1:].tobytes(), n)
    return unpack_strings(arr, n)


def unpack_strings(arr: np.ndarray, n: int | None = None) -> list[str]:
    """A stored list of strings (of ``n`` of them, when given); ValueError otherwise."""
    if arr.dtype != np.uint8 or not len(arr):
        raise ValueError("text arrays are bytes")
    if arr[0] == _AS_JSON:
        values = unpack_json(arr[1:])
        if not isinstance(values, list) or set(map(type, values)) - {str}:
            raise ValueError("a list of strings was expected")
    elif arr[0] == _JOINED:
        body = arr[1:].tobytes().decode("utf-8")  # strict: no lone surrogate gets through
        values = body.split("\0") if body or n != 0 else []
    else:
        raise ValueError("unknown text encoding")
    if n is not None and len(values) != n:
        raise ValueError("a list of strings of another length")
    return values


def is_mapping(value: Any) -> bool:
    """A frontmatter row: a JSON object."""
    return isinstance(value, dict)


def is_text_list(value: Any) -> bool:
    """A warnings or tags row: a JSON array of strings."""
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


class JsonRows(Sequence[T]):
    """A read-only sequence of JSON values over NUL-separated UTF-8 texts."""

    __slots__ = ("_bounds", "_data", "_decoded", "_empty", "_n", "_valid")

    def __init__(
        self, data: np.ndarray, n: int, valid: Callable[[Any], bool], empty: Callable[[], T]
    ) -> None:
        """``data``: uint8 bytes of ``n`` texts joined by NUL (counted when first read)."""
        self._data, self._n = data, n
        self._bounds: tuple[np.ndarray, np.ndarray] | None = None  # found on first read
        self._valid, self._empty = valid, empty
        self._decoded: dict[int, T] = {}

    @classmethod
    def of_texts(
        cls, texts: list[str], valid: Callable[[Any], bool], empty: Callable[[], T]
    ) -> JsonRows[T]:
        """Rows over JSON texts as `json_text` wrote them (a rebuild's, for the store): kept
        encoded as a snapshot's are. UnicodeEncodeError for a text with a lone surrogate."""
        data = np.frombuffer("\0".join(texts).encode("utf-8"), dtype=np.uint8)
        return cls(data, len(texts), valid, empty)

    def stored(self) -> np.ndarray | None:
        """All rows as stored when none was decoded (and so none can have been changed) and
        the rows are sound: a snapshot written again copies them in one piece."""
        if self._decoded or (self._n and int(self._rows()[1][-1]) != len(self._data)):
            return None
        return self._data

    def _rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Each row's start and end; rows of another count than promised are all empty."""
        if self._bounds is None:
            n = self._n
            ends = np.flatnonzero(self._data == 0) if n else np.zeros(0, np.int64)
            if n and len(ends) == n - 1:
                ends = np.append(ends, len(self._data))
                self._bounds = (np.concatenate([[0], ends[:-1] + 1]), ends)
            else:  # a damaged snapshot: no row can be told from the next
                empty = np.zeros(n, np.int64)
                self._bounds = (empty, empty)
        return self._bounds

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        value = self._decoded.get(i)
        if value is None:
            value = self._decoded[i] = self._decode(i)
        return value

    def __iter__(self) -> Iterator[T]:
        return (self[i] for i in range(len(self)))

    def raw(self, i: int) -> bytes:
        """Row ``i`` as stored (a snapshot written again copies it without decoding)."""
        starts, ends = self._rows()
        return self._data[int(starts[i]) : int(ends[i])].tobytes()

    def decoded(self, i: int) -> bool:
        """Whether row ``i`` has been decoded (and so may have been handed out)."""
        return i in self._decoded

    def _decode(self, i: int) -> T:
        text = self.raw(i)
        if _SURROGATE.search(text):
            return self._empty()
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return self._empty()
        return value if self._valid(value) else self._empty()


class PickedRows(Sequence[Any]):
    """Per-file values for a snapshot written again: each a row of loaded `JsonRows` (by
    index) or a value of its own. `pack_rows` copies a picked row as stored, so a snapshot
    after a batch decodes none of the unchanged files' JSON (it held the readers' lock
    for a second at 5k notes)."""

    def __init__(self, source: Sequence[Any] | None) -> None:
        self.source = source
        self._rows: list[tuple[int, Any]] = []  # (source index or -1, own value)

    def pick(self, i: int) -> None:
        """Row ``i`` of the source."""
        self._rows.append((i, None))

    def own(self, value: Any) -> None:
        """A value of its own (a file changed since the load)."""
        self._rows.append((-1, value))

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        at, value = self._rows[i]
        if at < 0:
            return value
        assert self.source is not None
        return self.source[at]

    def texts(self) -> list[bytes]:
        """Each row's stored bytes: a loaded row never decoded as stored."""
        source = self.source
        rows = source if isinstance(source, JsonRows) else None
        out = []
        for k, (at, value) in enumerate(self._rows):
            if at < 0:
                out.append(json_text(value).encode("utf-8"))
            elif rows is not None and not rows.decoded(at):
                out.append(rows.raw(at))
            else:
                out.append(json_text(self[k]).encode("utf-8"))
        return out


def pack_rows(values: Sequence[Any]) -> np.ndarray:
    """The stored form of per-file values: each as JSON, NUL-separated, UTF-8.

    Rows of a loaded `JsonRows` that were never decoded are copied as stored. A lone
    surrogate cannot be encoded: UnicodeEncodeError (a ValueError), and no snapshot.
    """
    if isinstance(values, PickedRows):
        texts = values.texts()
    elif isinstance(values, JsonRows):
        stored = values.stored()
        if stored is not None:
            return stored
        texts = [
            json_text(values[i]).encode("utf-8") if values.decoded(i) else values.raw(i)
            for i in range(len(values))
        ]
    else:
        texts = [json_text(v).encode("utf-8") for v in values]
    return np.frombuffer(b"\0".join(texts), dtype=np.uint8)


def check_relative(paths: Sequence[str]) -> None:
    """ValueError unless every path is workspace-relative text (one pass over them joined)."""
    if not isinstance(paths, JoinedStrings) and set(map(type, paths)) - {str}:
        raise ValueError("paths are not all text")
    joined = "\0".join(paths)
    # Every segment of every path between NULs: none may be empty (absolute paths, "//"),
    # "." or "..", and a path may hold no NUL of its own.
    segments = f"\0{joined}\0".replace("/", "\0")
    if paths and (
        joined.count("\0") != len(paths) - 1
        or "\0\0" in segments
        or "\0.\0" in segments
        or "\0..\0" in segments
    ):
        raise ValueError("a path is not workspace-relative")


def pack_json(value: Any) -> np.ndarray:
    """One JSON value as stored (ASCII)."""
    # ensure_ascii: one byte per character of the JSON, whatever the text
    return np.frombuffer(json.dumps(value, default=str).encode("ascii"), dtype=np.uint8)
