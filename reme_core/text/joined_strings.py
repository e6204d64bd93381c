"""Strings stored NUL-joined (a snapshot's vocabulary), read without splitting them all.

A cold search looks up a handful of its 150k terms; splitting them and building a dict took
a fifth of opening a 50k-note workspace. `index_of` finds one string by a byte search, and
`__getitem__` cuts one out; the list is made only when something needs all of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np


class JoinedStrings(Sequence[str]):
    """``n`` strings, UTF-8 and NUL-joined (None: as many as there are, at least one);
    ValueError for bytes that are not that."""

    def __init__(self, data: bytes, n: int | None) -> None:
        data.decode("utf-8")  # strict: no lone surrogate, no invalid byte gets through
        if n is None:
            n = data.count(b"\0") + 1
        elif (not n and data) or n < 0 or data.count(b"\0") != max(n - 1, 0):
            raise ValueError("joined strings of another count")
        self._data = b"\0" + data + b"\0" if n else b"\0"  # no strings: nothing between NULs
        self._n = n
        self._nuls: np.ndarray | None = None  # byte offset of every separator, when needed
        self._list: list[str] | None = None

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if self._list is not None or isinstance(i, slice):
            return self.to_list()[i]
        if not -self._n <= i < self._n:
            raise IndexError("string index out of range")
        nuls = self._separators()
        i %= self._n
        return self._data[int(nuls[i]) + 1 : int(nuls[i + 1])].decode("utf-8")

    def _separators(self) -> np.ndarray:
        if self._nuls is None:
            self._nuls = np.flatnonzero(np.frombuffer(self._data, np.uint8) == 0)
        return self._nuls

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_list())

    def index_of(self, value: str) -> int | None:
        """The position of the first string equal to ``value``, None when there is none."""
        if "\0" in value:
            return None
        try:
            needle = b"\0" + value.encode("utf-8") + b"\0"
        except UnicodeEncodeError:  # a lone surrogate is no stored string
            return None
        at = self._data.find(needle)
        return None if at < 0 else int(np.searchsorted(self._separators(), at))

    def joined(self) -> str:
        """Every string in one, NUL between them (one regex search over them all)."""
        return self._data[1:-1].decode("utf-8") if self._n else ""

    def split_list(self) -> list[str] | None:
        """The list of every string when it was made already, else None."""
        return self._list

    def to_list(self) -> list[str]:
        """Every string, in order (made once)."""
        if self._list is None:
            self._list = self._data[1:-1].decode("utf-8").split("\0") if self._n else []
        return self._list


def take(values: Sequence[str], ids: np.ndarray) -> list[str]:
    """``values[i]`` for each id: list indexing in C when the strings are a list (or a
    `JoinedStrings` already split), one cut per id otherwise (a cold search's few)."""
    if isinstance(values, JoinedStrings) and values.split_list() is None:
        return [values[i] for i in ids.tolist()]
    return list(map(as_list(values).__getitem__, ids.tolist()))


def as_list(values: Sequence[str]) -> list[str]:
    """``values`` as a list (a `JoinedStrings` split once, a list as it is)."""
    if isinstance(values, JoinedStrings):
        return values.to_list()
    return values if isinstance(values, list) else list(values)
