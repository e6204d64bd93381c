"""Classic test collections with relevance judgements, read from a folder (never fetched).

Each reader returns a `Collection`: the documents (id -> text), the queries (number -> text)
and the judgements (query number -> {document id: gain}); every gain here is 1 (binary
judgements). The files are not in the repository; `benchmarks/.collections/` (git-ignored)
is where `quality.py` looks, one folder per collection:

- `med/`: `MED.ALL`, `MED.QRY`, `MED.REL`; Medline, 1,033 abstracts, 30 queries. One public
  copy: the GitHub repository ronancummins/gen_polya, folder `data/med/`.
- `npl/`: `doc-text`, `query-text`, `rlv-ass`; NPL (Vaswani), 11,429 abstracts, 93 queries.
  One public copy: stefreschke/Information-Retrieval, folder `npl/`.
- `cacm/`: `cacm.all`, `query.text`, `qrels.text`; CACM, 3,204 titles (most with abstracts),
  64 queries of which 52 are judged. One public copy: kavinsan/Information-Retrieval-Project,
  at its root.

The Glasgow IR group distributes all three; the sha256 of the copies measured in RESULTS.md
are in `SHA256` below. Cranfield and CISI are deliberately absent: they are held out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

_FIELD = re.compile(r"^\.([A-Z])(?: (\d+))?\s*$")

SHA256 = {
    "med/MED.ALL": "87980b3ccb7f0aad3025bcbefbc0aa4882f9fdbce7868a0f2ab0c2e310460055",
    "med/MED.QRY": "41fbc9d7a0ac8620d53e09b3429d2695cecc63d4bf7e15e55bbcee0785a1798c",
    "med/MED.REL": "aef5ac922c08d5711ffd525985e03cda4272694e35f646deab90177f329ff575",
    "npl/doc-text": "a69b907bdbf59e43b8004e521eb3560dbbaa9cd5facfad4b30b0392434ba18e4",
    "npl/query-text": "0f5e9a179334183cc3b04fe24d9bdfc3f656b08330e6798d8df5dc621bf8e6d5",
    "npl/rlv-ass": "1af78732abed49055218c1548c27cfa354c5d02a9b6c9cb854b9d0b74fcce24c",
    "cacm/cacm.all": "0d0eaa9e54987161482a217dcef670a8032d687b1bbe84ba0a8e310b675bd52f",
    "cacm/query.text": "2fe81273fd7db3beccad1090c84630dea561469b7c19ad03e71370c8c7399cc9",
    "cacm/qrels.text": "da4202b0c70cad7d91c9a028eaf8cbd0a4ca981ebdc3955eb75ba7b6de6f185c",
}


@dataclass(frozen=True, slots=True)
class Collection:
    """Documents, queries and judgements of one test collection."""

    name: str
    docs: dict[int, str]
    queries: dict[int, str]
    qrels: dict[int, dict[int, int]]


def smart_records(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """`(id, {field letter: text})` for each `.I` record of a SMART-format file."""
    rid, fields, field = 0, {}, ""
    for line in path.read_text("latin-1").splitlines():
        m = _FIELD.match(line)
        if m and m.group(1) == "I" and m.group(2):
            if rid:
                yield rid, fields
            rid, fields, field = int(m.group(2)), {}, ""
        elif m:
            field = m.group(1)
            fields[field] = ""
        elif field:
            fields[field] = f"{fields[field]}\n{line}"
    if rid:
        yield rid, fields


def _joined(fields: dict[str, str], letters: str) -> str:
    return "\n\n".join(" ".join(fields[c].split()) for c in letters if fields.get(c, "").strip())


def _slash_records(path: Path) -> Iterator[tuple[int, str]]:
    """NPL's format: a number on its own line, the text, then a line holding `/`."""
    number, lines = 0, []
    for line in path.read_text("latin-1").splitlines():
        if line.strip() == "/":
            if number:
                yield number, " ".join(" ".join(lines).split())
            number, lines = 0, []
        elif not number and line.strip().isdigit():
            number = int(line.strip())
        else:
            lines.append(line)


def read_med(folder: Path) -> Collection:
    docs = {i: _joined(f, "W") for i, f in smart_records(folder / "MED.ALL")}
    queries = {i: _joined(f, "W") for i, f in smart_records(folder / "MED.QRY")}
    qrels: dict[int, dict[int, int]] = {}
    for line in (folder / "MED.REL").read_text("latin-1").splitlines():
        parts = line.split()
        if len(parts) >= 3:
            qrels.setdefault(int(parts[0]), {})[int(parts[2])] = 1
    return Collection("MED", docs, queries, qrels)


def read_npl(folder: Path) -> Collection:
    docs = dict(_slash_records(folder / "doc-text"))
    queries = dict(_slash_records(folder / "query-text"))
    qrels = {
        q: dict.fromkeys(map(int, text.split()), 1)
        for q, text in _slash_records(folder / "rlv-ass")
    }
    return Collection("NPL", docs, queries, qrels)


def read_cacm(folder: Path) -> Collection:
    # Title, abstract and authors: several queries ask for an author's papers.
    docs = {i: _joined(f, "TWA") for i, f in smart_records(folder / "cacm.all")}
    queries = {i: _joined(f, "W") for i, f in smart_records(folder / "query.text")}
    qrels: dict[int, dict[int, int]] = {}
    for line in (folder / "qrels.text").read_text("latin-1").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            qrels.setdefault(int(parts[0]), {})[int(parts[1])] = 1
    return Collection("CACM", docs, queries, qrels)


READERS: dict[str, tuple[tuple[str, ...], Callable[[Path], Collection]]] = {
    "med": (("MED.ALL", "MED.QRY", "MED.REL"), read_med),
    "npl": (("doc-text", "query-text", "rlv-ass"), read_npl),
    "cacm": (("cacm.all", "query.text", "qrels.text"), read_cacm),
}


def load(base: Path, name: str) -> Collection | None:
    """The collection `name` from `base/name/`, or None when its files are not all there."""
    files, reader = READERS[name]
    folder = base / name
    if not all((folder / f).is_file() for f in files):
        return None
    return reader(folder)
