"""LinkGraph: edges both ways, dangling targets, removal and traverse."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reme_core.index.link_graph import LinkGraph, TraverseEdge, TraverseNode, link_columns
from reme_core.models import FileLink
from reme_core.parse.wikilinks import find_wikilinks


def links_of(source: str, text: str) -> list[FileLink]:
    """FileLinks the way the indexer builds them from a note (literal path semantics)."""
    return [
        FileLink(source, m.target, m.anchor, m.line, m.alias, m.embed, m.target)
        for m in find_wikilinks(text)
        if m.target
    ]


@pytest.fixture
def graph() -> LinkGraph:
    g = LinkGraph()
    g.set_links("a.md", links_of("a.md", "[[b.md]] then [[c.md#L2]]\n[[b.md#H|again]]"))
    g.set_links("b.md", links_of("b.md", "[[c.md]]"))
    g.set_links("c.md", links_of("c.md", "[[missing.md]] [[#local]]"))
    return g


def test_outlinks_in_source_order(graph: LinkGraph) -> None:
    got = [(link.target_path, link.target_anchor, link.line) for link in graph.outlinks("a.md")]
    assert got == [("b.md", "", 1), ("c.md", "L2", 1), ("b.md", "H", 2)]
    assert graph.outlinks("nothing.md") == []


def test_inlinks_sorted_by_source_then_line(graph: LinkGraph) -> None:
    got = [(link.source_path, link.line) for link in graph.inlinks("c.md")]
    assert got == [("a.md", 1), ("b.md", 1)]
    assert [link.line for link in graph.inlinks("b.md")] == [1, 2]


def test_same_note_anchor_is_not_an_edge(graph: LinkGraph) -> None:
    assert [link.target_path for link in graph.outlinks("c.md")] == ["missing.md"]
    g = LinkGraph()
    g.set_links("x.md", [FileLink("x.md", "", "Heading", 1)])
    assert g.n_edges == 0 and g.has_file("x.md")


def test_counts_and_files(graph: LinkGraph) -> None:
    assert graph.n_files == 3
    assert graph.n_edges == 5
    assert graph.files() == ["a.md", "b.md", "c.md"]
    assert graph.has_file("a.md") and not graph.has_file("missing.md")


def test_set_links_replaces(graph: LinkGraph) -> None:
    graph.set_links("a.md", links_of("a.md", "only [[c.md]]"))
    assert [link.target_path for link in graph.outlinks("a.md")] == ["c.md"]
    assert graph.inlinks("b.md") == []
    assert graph.n_edges == 3
    graph.set_links("a.md", [])
    assert graph.outlinks("a.md") == [] and graph.has_file("a.md")
    assert graph.n_edges == 2


def test_set_links_refuses_foreign_links(graph: LinkGraph) -> None:
    with pytest.raises(ValueError, match="set_links"):
        graph.set_links("a.md", [FileLink("b.md", "c.md")])


def test_dangling_target_becomes_real_when_file_appears(graph: LinkGraph) -> None:
    assert graph.is_dangling("missing.md")
    assert [(link.source_path, link.target_path) for link in graph.dangling()] == [
        ("c.md", "missing.md")
    ]
    graph.set_links("missing.md", [])
    assert not graph.is_dangling("missing.md")
    assert graph.dangling() == []
    assert [link.source_path for link in graph.inlinks("missing.md")] == ["c.md"]


def test_removal_makes_inbound_links_dangling(graph: LinkGraph) -> None:
    graph.remove_file("b.md")
    assert not graph.has_file("b.md")
    assert graph.is_dangling("b.md")
    assert [link.source_path for link in graph.inlinks("b.md")] == ["a.md", "a.md"]
    assert [link.source_path for link in graph.inlinks("c.md")] == ["a.md"]  # b's edge gone
    assert {link.target_path for link in graph.dangling()} == {"b.md", "missing.md"}
    assert graph.n_edges == 4
    graph.remove_file("b.md")  # twice is harmless
    graph.remove_file("never.md")
    assert graph.n_files == 2


def test_attachments_on_disk_are_not_dangling(tmp_path: Path) -> None:
    (tmp_path / "resource").mkdir()
    (tmp_path / "resource" / "report.pdf").write_bytes(b"%PDF-1.4")
    g = LinkGraph(exists=lambda p: (tmp_path / p).is_file())
    g.set_links(
        "digest/x.md",
        links_of("digest/x.md", "![[resource/report.pdf]] and [[resource/gone.pdf]]"),
    )
    assert not g.is_dangling("resource/report.pdf")
    assert g.is_dangling("resource/gone.pdf")
    assert [link.target_path for link in g.dangling()] == ["resource/gone.pdf"]
    nodes, _ = g.traverse("digest/x.md")
    assert [(n.path, n.indexed) for n in nodes] == [
        ("digest/x.md", True),
        ("resource/report.pdf", False),
        ("resource/gone.pdf", False),
    ]


def test_self_links_are_edges() -> None:
    g = LinkGraph()
    g.set_links("s.md", links_of("s.md", "[[s.md#L3]]"))
    assert [link.target_path for link in g.inlinks("s.md")] == ["s.md"]
    nodes, edges = g.traverse("s.md", depth=2)
    assert nodes == [TraverseNode("s.md", 0, True)]
    assert edges == [TraverseEdge("s.md", "s.md", "L3", 1)]


def test_traverse_depth_and_direction(graph: LinkGraph) -> None:
    nodes, edges = graph.traverse("b.md", depth=1)
    assert nodes == [
        TraverseNode("b.md", 0, True),
        TraverseNode("c.md", 1, True),
        TraverseNode("a.md", 1, True),
    ]
    assert edges == [
        TraverseEdge("b.md", "c.md", "", 1),
        TraverseEdge("a.md", "b.md", "", 1),
        TraverseEdge("a.md", "b.md", "H", 1),
    ]

    nodes, edges = graph.traverse("a.md", depth=2, direction="forward")
    assert [(n.path, n.depth, n.indexed) for n in nodes] == [
        ("a.md", 0, True),
        ("b.md", 1, True),
        ("c.md", 1, True),
        ("missing.md", 2, False),
    ]
    assert [(e.source, e.target, e.anchor, e.depth) for e in edges] == [
        ("a.md", "b.md", "", 1),
        ("a.md", "c.md", "L2", 1),
        ("a.md", "b.md", "H", 1),
        ("b.md", "c.md", "", 2),
        ("c.md", "missing.md", "", 2),
    ]

    nodes, _ = graph.traverse("missing.md", depth=5, direction="backward")
    assert [(n.path, n.depth) for n in nodes] == [
        ("missing.md", 0),
        ("c.md", 1),
        ("a.md", 2),
        ("b.md", 2),
    ]
    assert nodes[0].indexed is False

    nodes, edges = graph.traverse("a.md", depth=0)
    assert nodes == [TraverseNode("a.md", 0, True)] and edges == []

    nodes, edges = graph.traverse("a.md", depth=1, direction="backward")
    assert nodes == [TraverseNode("a.md", 0, True)] and edges == []


def test_traverse_rejects_bad_arguments(graph: LinkGraph) -> None:
    with pytest.raises(ValueError, match="direction must be one of both, forward, backward"):
        graph.traverse("a.md", direction="sideways")
    with pytest.raises(ValueError, match="depth"):
        graph.traverse("a.md", depth=-1)


NAMES = [f"n{i}.md" for i in range(8)]
EDGES = st.lists(
    st.tuples(st.sampled_from(NAMES), st.sampled_from([*NAMES, "gone.md"]), st.sampled_from("xy")),
    max_size=40,
)


@settings(max_examples=120, deadline=None)
@given(edges=EDGES, removed=st.lists(st.sampled_from(NAMES), max_size=3))
def test_random_graph_is_consistent(edges: list[tuple[str, str, str]], removed: list[str]) -> None:
    g = LinkGraph()
    by_source: dict[str, list[FileLink]] = {name: [] for name in NAMES}
    for line, (src, dst, anchor) in enumerate(edges, start=1):
        by_source[src].append(FileLink(src, dst, anchor, line))
    for src, links in by_source.items():
        g.set_links(src, links)
    for name in removed:
        g.remove_file(name)
        by_source.pop(name, None)

    live = [link for links in by_source.values() for link in links]
    assert g.n_edges == len(live)
    assert g.n_files == len(by_source)
    for name in [*NAMES, "gone.md"]:
        assert g.outlinks(name) == by_source.get(name, [])
        expected_in = sorted(
            (link for link in live if link.target_path == name),
            key=lambda link: (link.source_path, link.line),
        )
        assert g.inlinks(name) == expected_in
        assert g.is_dangling(name) == (name not in by_source)

        nodes, tr_edges = g.traverse(name, depth=1)
        neighbours = {link.target_path for link in g.outlinks(name)} | {
            link.source_path for link in g.inlinks(name)
        }
        assert nodes[0] == TraverseNode(name, 0, name in by_source)
        assert {n.path for n in nodes[1:]} == neighbours - {name}
        assert len({n.path for n in nodes}) == len(nodes)
        assert all(n.depth == 1 for n in nodes[1:])
        keys = [(e.source, e.target, e.anchor) for e in tr_edges]
        assert len(keys) == len(set(keys))
        assert set(keys) == {
            (link.source_path, link.target_path, link.target_anchor)
            for link in live
            if name in (link.source_path, link.target_path)
        }

    assert {(link.source_path, link.line) for link in g.dangling()} == {
        (link.source_path, link.line) for link in live if link.target_path not in by_source
    }
    assert g.dangling_count() == len(g.dangling())


@settings(max_examples=80, deadline=None)
@given(edges=EDGES, removed=st.lists(st.sampled_from(NAMES), max_size=3), rewired=EDGES)
def test_dangling_count_over_loaded_columns_and_overlay(
    edges: list[tuple[str, str, str]],
    removed: list[str],
    rewired: list[tuple[str, str, str]],
) -> None:
    g = LinkGraph()
    g.load(NAMES, link_columns((s, d, a, i, "", False, d) for i, (s, d, a) in enumerate(edges)))
    for name in removed:
        g.remove_file(name)
    for src in {s for s, _, _ in rewired}:
        lines = enumerate(rewired, start=100)
        g.set_links(src, [FileLink(src, d, a, i) for i, (s, d, a) in lines if s == src])
    assert g.dangling_count() == len(g.dangling())
