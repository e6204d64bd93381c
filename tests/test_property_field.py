"""The property field (issue 27, item 3) is built like the name field: a rebuild's pool
workers tokenise it, it travels in the snapshot (a cold search adopts it, not builds it),
and after edits it ranks as a field built from the files would."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from reme_core import Workspace
from reme_core.index.name_field import PROPERTIES, NameField
from reme_core.parse.note_names import property_text
from reme_core.text.tokenizer import without_cjk
from tests.conftest import write_files
from tests.helpers import parts

WORDS = ["apple", "river", "stone", "cloud", "ember", "frost", "grove", "harbor", "iris"]


def _notes(root: Path, n: int) -> list[str]:
    files: dict[str, str | bytes] = {}
    for i in range(n):
        a, b = WORDS[i % len(WORDS)], WORDS[(i * 7) % len(WORDS)]
        head = ""
        if i % 2 == 0:
            head = f"---\ndescription: the {b} of {a} country\nstatus: [{a}, draft {i}]\n---\n"
        files[f"notes/{a}-{i:03d}.md"] = f"{head}# {a}\n\nbody text words\n"
    write_files(root, files)
    old = time.time() - 3600  # not racily clean
    for rel in files:
        os.utime(root / rel, (old, old))
    return sorted(files)


def _ranking(ws: Workspace, field: NameField, word: str) -> list[tuple[str, float]]:
    terms = ws.tokenizer.query_terms(word)
    slots, scores = field.search(terms, len(parts(ws).index.files))
    paths = [parts(ws).index.files.path(s) for s in slots.tolist()]
    return sorted(zip(paths, np.round(scores, 9).tolist(), strict=True))


def _check(ws: Workspace, field: NameField) -> None:
    index, tok = parts(ws).index, ws.tokenizer
    fresh = NameField.build(
        index.files.paths,
        index.live_slots(),
        index.nodes.frontmatter,
        lambda texts: tok.tokenize_many(list(map(without_cjk, texts))),
        {},
        PROPERTIES,
    )
    for word in [*WORDS, "country", "draft", "river country"]:
        assert _ranking(ws, field, word) == _ranking(ws, fresh, word), word


def _adopted(ws: Workspace) -> NameField:
    entry = parts(ws).index._cache.get("props-False")  # private: what the test is about
    assert entry is not None and entry[0] == parts(ws).index._version
    return entry[1]


def test_property_text_takes_every_value_but_the_names() -> None:
    fm = {"title": "T", "aliases": ["A"], "description": "d", "n": 3, "x": {"y": [1, None]}}
    assert property_text("p.md", fm).split("\n") == ["d", "3", "1"]
    deep: dict = {}
    for _ in range(50):
        deep = {"k": deep or "leaf"}
    assert property_text("p.md", {"deep": deep}) == ""  # bounded depth


def test_a_rebuild_writes_the_property_field_and_a_cold_open_adopts_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    paths = _notes(root, 300)  # above the pool threshold: the real rebuild path
    Workspace.open(root, {"workers": 2}).close()
    ws = Workspace.open(root)
    try:
        field = _adopted(ws)
        _check(ws, field)
        hit = ws.search("country").results[0]
        assert hit.property_score is not None and _adopted(ws) is field
        for rel in paths[::7]:
            (root / rel).write_text("---\ndescription: lantern country\n---\n# x\n")
        (root / paths[1]).unlink()
        then = time.time() - 1800
        for rel in paths[::7]:
            os.utime(root / rel, (then, then))
        ws.sync()
        ws.search("lantern")
        _check(ws, _adopted(ws))
        assert _adopted(ws).vocab is field.vocab  # updated, not built again
    finally:
        ws.close()  # saves the updated field
    ws = Workspace.open(root)
    try:
        _check(ws, _adopted(ws))
        assert {h.path for h in ws.search("lantern", limit=100).results} == set(paths[::7])
    finally:
        ws.close()
