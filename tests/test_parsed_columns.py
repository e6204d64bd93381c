"""Parsed files as columns (`ParsedColumns`), what a parse batch carries from a pool worker:
the objects made from them are the parsed ones, through pickling too, and links added to
the index's columns from them read as the same links added one tuple at a time."""

from __future__ import annotations

import pickle
from pathlib import Path

from reme_core.index.link_columns import LinkColumns, LinkColumnsBuilder
from reme_core.parse.parsed_columns import ParsedColumns
from reme_core.parse.parsing import parse_batch, parse_file
from reme_core.parse.settings import ParseSettings
from tests.conftest import write_files

NOTES = {
    "a.md": "---\nname: Alpha\naliases: [first]\n---\n# A\n\nsee [[b.md#Part|the b]] and "
    "![[pic.png]]\n\n## Two\n\n#tag text "
    + "word " * 1500
    + "\n\n## Three\n\n[[c.md]] "
    + "more " * 1500
    + "\n",
    "b.md": "# B\n\n## Part\n\nplain [md](a.md) [[a.md]] [[a.md]]\n",
    "empty.md": "",
    "notes.jsonl": '{"x": 1}\n{"y": 2}\n',
    "c.md": "no links, one chunk\n",
}


def _links(cols: LinkColumns) -> list[tuple[str, str, str, int, str, bool, str]]:
    s = cols.strings
    return [
        (s[a], s[b], s[c], int(line), s[d], bool(e), s[f])
        for a, b, c, d, f, line, e in zip(
            cols.source, cols.target, cols.anchor, cols.alias, cols.raw, cols.line, cols.embed
        )
    ]


def test_columns_make_the_parsed_files_again(tmp_path: Path) -> None:
    write_files(tmp_path, NOTES)
    settings = ParseSettings(use_jieba=False, markdown_links=True)
    files = [parse_file(tmp_path, rel, settings) for rel in sorted(NOTES)]
    assert sum(len(pf.chunks) for pf in files) > len(files)  # a note of several chunks
    assert sum(len(pf.node.links) for pf in files) >= 5
    cols = ParsedColumns.of_files(files)
    assert len(cols) == len(files)
    assert cols.files() == files
    assert pickle.loads(pickle.dumps(cols)).files() == files
    # One chunk and one link per entry, in file order.
    assert cols.chunk_seqs() == [seq for pf in files for seq in range(len(pf.chunks))]
    assert [cols.paths[i] for i in cols.chunk_files()] == [
        c.path for pf in files for c in pf.chunks
    ]
    assert cols.link_sources() == [link.source_path for pf in files for link in pf.node.links]


def test_a_batch_carries_its_files_as_columns(tmp_path: Path) -> None:
    write_files(tmp_path, NOTES)
    settings = ParseSettings(use_jieba=False)
    batch = parse_batch(str(tmp_path), sorted(NOTES), settings)
    again = pickle.loads(pickle.dumps(batch))
    assert again.parsed.files() == [parse_file(tmp_path, rel, settings) for rel in sorted(NOTES)]


def test_links_added_as_columns_read_as_links_added_as_tuples(tmp_path: Path) -> None:
    write_files(tmp_path, NOTES)
    settings = ParseSettings(use_jieba=False, markdown_links=True)
    cols = ParsedColumns.of_files([parse_file(tmp_path, rel, settings) for rel in sorted(NOTES)])
    by_tuples, by_columns = LinkColumnsBuilder(), LinkColumnsBuilder()
    rows = list(
        zip(
            cols.link_sources(),
            cols.link_targets,
            cols.link_anchors,
            cols.link_lines,
            cols.link_aliases,
            cols.link_embeds,
            cols.link_raws,
            strict=True,
        )
    )
    by_tuples.add(rows[:3])  # strings already known, and new ones, in both
    by_columns.add(rows[:3])
    by_tuples.add(rows[3:])
    by_columns.add_columns(*(list(column) for column in zip(*rows[3:], strict=True)))
    assert _links(by_columns.finish()) == _links(by_tuples.finish()) == rows
