"""`retrieve`: search hits followed by their one-hop link targets, cut to a token budget.

Made for an agent's hot path (seed 002): no exceptions for degraded paths, a deliberately crude
token estimate, and evidence on every item so a host can show why it reached the prompt.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from reme_core.errors import RemeError
from reme_core.parse.anchors import line_ranges
from reme_core.ports import Retrievable
from reme_core.query.results import SearchOutcome
from reme_core.text.tokenizer import est_tokens


@dataclass(slots=True)
class RetrievedItem:
    """One entry of the injected sequence."""

    source: str
    path: str
    start_line: int
    end_line: int
    text: str
    score: float | None = None
    keyword_score: float | None = None
    vector_score: float | None = None
    via: str | None = None
    matched_terms: list[str] = field(default_factory=list)
    tokens_est: int = 0
    name: str = ""


@dataclass(slots=True)
class RetrieveResult:
    """Items that survived the budget, and what the host may want to log."""

    query: str
    items: list[RetrievedItem] = field(default_factory=list)
    budget_used: int = 0
    embedding_used: bool = False
    unresolved_links: list[str] = field(default_factory=list)
    dropped: list[RetrievedItem] = field(default_factory=list)
    outcome: SearchOutcome = SearchOutcome.HITS
    """What the search under it came to (`matched`: the notes its filters listed)."""
    matched: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The data (`--json` adds the sentence the outcome reads as)."""
        data = asdict(self)
        del data["outcome"], data["matched"]
        return data


def _link_item(ws: Retrievable, target: str, anchor: str, via: str) -> RetrievedItem | None:
    node = ws.node(target)
    if node is None:
        return None
    spans = line_ranges(anchor) if anchor else []
    span = spans[0] if spans else None
    try:
        if span:
            read = ws.read(target, span[0], span[1])
            start, end, text = read.start_line, read.end_line, read.text
        else:
            chunks = ws.chunks(target)
            if chunks:
                start, end, text = chunks[0].start_line, chunks[0].end_line, chunks[0].text
            else:
                start, end, text = 1, 1, f"{node.name}: {node.description}".strip(": ")
    except RemeError:
        return None
    return RetrievedItem("link", target, start, end, text, via=via, name=node.name)


def run_retrieve(
    ws: Retrievable,
    query: str,
    limit: int,
    budget_tokens: int | None,
    expand_links: bool,
    explain: bool,
) -> RetrieveResult:
    """Search, inject one-hop link targets after their hit, de-duplicate, prefix-cut."""
    found = ws.search(query, limit=limit, expand_links=False)
    result = RetrieveResult(query=query, outcome=found.outcome, matched=found.matched)
    result.embedding_used = bool(found.counts.get("vector"))
    sequence: list[RetrievedItem] = []
    seen_chunks: set[tuple[str, int, int]] = set()
    seen_paths: set[str] = set()
    for hit in found.results:
        key = (hit.path, hit.start_line, hit.end_line)
        if key in seen_chunks:
            continue
        seen_chunks.add(key)
        seen_paths.add(hit.path)
        node = ws.node(hit.path)
        sequence.append(
            RetrievedItem(
                "hit",
                hit.path,
                hit.start_line,
                hit.end_line,
                hit.text,
                score=hit.score,
                keyword_score=hit.keyword_score,
                vector_score=hit.vector_score,
                matched_terms=list(hit.matched_terms),
                name=node.name if node else "",
            )
        )
        if expand_links:
            sequence += _link_items(ws, hit.path, seen_paths, result.unresolved_links)
    _cut_to_budget(result, sequence, budget_tokens)
    if not explain:
        result.dropped = []
    return result


def _link_items(
    ws: Retrievable, path: str, seen_paths: set[str], unresolved: list[str]
) -> list[RetrievedItem]:
    """The notes `path` links to that are not in the sequence yet (added to `seen_paths`);
    dangling links are noted in `unresolved` as written."""
    with ws.lock:  # one view of the index for the links and what they reach
        outlinks = [
            (link, link.target_path in ws.index.nodes, ws.index.graph.is_dangling(link.target_path))
            for link in ws.index.graph.outlinks(path)
        ]
    items = []
    for link, indexed, dangling in outlinks:
        target = link.target_path
        if target in seen_paths:
            continue
        if not indexed:
            raw = f"[[{link.raw_target or target}]]"
            if dangling and raw not in unresolved:
                unresolved.append(raw)
            continue
        item = _link_item(ws, target, link.target_anchor, path)
        if item is not None:
            seen_paths.add(target)
            items.append(item)
    return items


def _cut_to_budget(
    result: RetrieveResult, sequence: list[RetrievedItem], budget_tokens: int | None
) -> None:
    """Keep the longest prefix within the budget (the first item always), drop the rest."""
    used = 0
    cut = False
    for position, item in enumerate(sequence):
        item.tokens_est = est_tokens(item.text)
        fits = budget_tokens is None or position == 0 or used + item.tokens_est <= budget_tokens
        cut = cut or not fits
        if cut:
            result.dropped.append(item)
        else:
            result.items.append(item)
            used += item.tokens_est
    result.budget_used = used
