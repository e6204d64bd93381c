"""Link expansion's loaded edges, capped before any Python object is made per edge.

A hit's neighbours come from the loaded link columns in one gather each way; the distinct
(hit, neighbour) pairs are found with numpy, only the first `cap` of each direction are
kept (outlinks: in link order; inlinks: by source path, what `LinkGraph.adjacent` shows),
and only their edges become strings. On a corpus of 4–20 links per note, the per-edge loop
this replaces was most of the search job's cost beyond the ranking.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reme_core.index.link_columns import Grouped, LinkColumns


def _pairs(owner: np.ndarray, other: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows grouped by ``owner`` (ascending) as distinct (owner, other) pairs numbered in
    order of their first row: each row's pair, and each pair's owner."""
    key = owner.astype(np.int64) * width + other
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    number = np.empty(len(order), dtype=np.int64)
    number[order] = np.arange(len(order))
    return number[inverse.reshape(-1)], owner[first[order]]


def _rank(pair_owner: np.ndarray) -> np.ndarray:
    """Each pair's place among its owner's pairs (owners ascending)."""
    return np.arange(len(pair_owner)) - np.searchsorted(pair_owner, pair_owner, side="left")


def outlinks(
    base: LinkColumns,
    by_source: Grouped,
    keys: np.ndarray,
    at: np.ndarray,
    cap: int,
    outs: list[dict[str, list[str]]],
) -> None:
    """The first `cap` distinct targets of each key's links, with their anchors, into
    ``outs[at[i]]`` for key ``keys[i]``."""
    rows, owner = by_source.gather(keys)
    if not len(rows):
        return
    targets = base.target[rows]
    pair, pair_owner = _pairs(owner, targets, len(base.strings))
    keep = (_rank(pair_owner) < cap)[pair]
    strings = base.strings
    for k, t, a in zip(
        at[owner[keep]].tolist(),
        targets[keep].tolist(),
        base.anchor[rows[keep]].tolist(),
        strict=True,
    ):
        grouped, target = outs[k], strings[t]
        anchors = grouped.get(target)
        if anchors is None:
            anchors = grouped[target] = []
        if a:  # "" is string 0: most links name no anchor
            anchor = strings[a]
            if anchor and anchor not in anchors:
                anchors.append(anchor)


def inlinks(
    base: LinkColumns,
    by_target: Grouped,
    void: np.ndarray,
    keys: np.ndarray,
    at: np.ndarray,
    cap: int,
    ins: list[dict[str, list[tuple[int, str]]]],
) -> None:
    """The `cap` first sources by path of each key's live inlinks, with each link's line
    and anchor, into ``ins[at[i]]``: the rest are never looked at again (the union with
    sources changed since the load, all void here, keeps the same first `cap`)."""
    rows, owner = by_target.gather(keys)
    sources = base.source[rows]
    live = ~void[sources]
    rows, owner, sources = rows[live], owner[live], sources[live]
    if not len(rows):
        return
    strings = base.strings
    pair, pair_owner = _pairs(owner, sources, len(strings))
    keep_pair = np.ones(len(pair_owner), dtype=bool)
    counts = np.bincount(pair_owner)
    if (counts > cap).any():
        pair_source = np.empty(len(pair_owner), dtype=np.int64)
        pair_source[pair] = sources
        for hub in np.flatnonzero(counts > cap).tolist():
            mine = np.flatnonzero(pair_owner == hub)
            named = sorted(zip(_names(strings, pair_source[mine]), mine.tolist(), strict=True))
            keep_pair[mine] = False
            keep_pair[[p for _, p in named[:cap]]] = True
    keep = keep_pair[pair]
    for k, s, line, a in zip(
        at[owner[keep]].tolist(),
        sources[keep].tolist(),
        base.line[rows[keep]].tolist(),
        base.anchor[rows[keep]].tolist(),
        strict=True,
    ):
        ins[k].setdefault(strings[s], []).append((line, strings[a] if a else ""))


def _names(strings: Sequence[str], ids: np.ndarray) -> list[str]:
    return [strings[i] for i in ids.tolist()]
