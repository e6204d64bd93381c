"""The local graph's layout, drawing and hub folding (issue 30): pure, deterministic, no overlap."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from rich.cells import cell_len

from reme_core import Workspace
from reme_tui.services import local_graph
from reme_tui.widgets.graph.canvas import draw
from reme_tui.widgets.graph.layout import Layout, LayoutNode, layout, nearest
from tests.conftest import write_files


def _nodes(count: int) -> list[LayoutNode]:
    """A centre, a quarter on ring one (five folders), the rest on ring two."""
    nodes = [LayoutNode("c", "The centre note", 0)]
    first = max(1, count // 4)
    nodes += [
        LayoutNode(f"a{i}", f"Note number {i} 笔记", 1, f"f{i % 5}/{i}", weight=i % 7)
        for i in range(first)
    ]
    nodes += [
        LayoutNode(f"b{i}", f"Second ring {i}", 2, parent=f"a{i % first}")
        for i in range(count - 1 - first)
    ]
    return nodes


def _cells(result: Layout) -> list[tuple[int, int]]:
    return [(p.y, x) for p in result.placed.values() for x in range(p.x, p.x + cell_len(p.text))]


def test_labels_never_overlap_and_stay_inside() -> None:
    for count, (width, height) in [(12, (80, 22)), (200, (160, 43)), (200, (80, 22))]:
        result = layout(_nodes(count), width, height)
        cells = _cells(result)
        assert len(cells) == len(set(cells)), "two labels share a cell"
        assert all(0 <= y < height and 0 <= x < width for y, x in cells)
        assert len(result.placed) + len(result.hidden) == count
        assert result.placed["c"].text == "The centre note"


def test_small_graph_places_every_label_whole_around_the_centre() -> None:
    result = layout(_nodes(9), 80, 22)
    assert not result.hidden
    assert all(p.text.endswith("笔记") for k, p in result.placed.items() if k.startswith("a"))
    cx, cy = result.placed["c"].centre
    assert abs(cx - 40) <= 1 and abs(cy - 10) <= 1


def test_same_nodes_same_picture() -> None:
    nodes = _nodes(120)
    first = layout(nodes, 120, 40)
    again = layout(list(reversed(nodes)), 120, 40)
    assert first.placed == again.placed and sorted(first.hidden) == sorted(again.hidden)


def test_nearest_moves_the_way_asked() -> None:
    result = layout(
        [
            LayoutNode("c", "centre", 0),
            *(LayoutNode(k, k, 1, o) for k, o in [("n", "0"), ("e", "1"), ("s", "2"), ("w", "3")]),
        ],
        80,
        22,
    )
    assert nearest(result.placed, "c", "up") == "n"
    assert nearest(result.placed, "c", "right") == "e"
    assert nearest(result.placed, "c", "down") == "s"
    assert nearest(result.placed, "c", "left") == "w"
    assert nearest(result.placed, "n", "up") is None


def test_drawing_puts_labels_over_braille_edges() -> None:
    nodes = [LayoutNode("c", "centre", 0), LayoutNode("x", "→ far", 1)]
    result = layout(nodes, 40, 12)
    rows = draw(result, [("c", "x", "out")], {"c": "centre"})
    assert len(rows) == 12
    text = "\n".join(r.text for r in rows)
    assert "centre" in text and "→ far" in text
    assert any("\u2800" < ch <= "\u28ff" for ch in text), "an edge of braille dots"
    assert any(name == "edge-out" for r in rows for _, _, name in r.spans)


def test_layout_timings_printed() -> None:
    """Median layout times (printed, not asserted: a shared machine's timings vary)."""
    for count in (50, 200, 1000):
        nodes = _nodes(count)
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            layout(nodes, 160, 43)
            runs.append(time.perf_counter() - start)
        print(f"layout of {count} nodes: {statistics.median(runs) * 1000:.1f} ms (median of 5)")


def test_hub_folds_its_neighbours_by_folder(tmp_path: Path) -> None:
    files = {"Hub.md": "# Hub\n"}
    for i in range(60):
        folder = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"][i % 7]
        front = "---\ntags: [red/dark]\n---\n" if i % 10 == 3 else ""
        files[f"{folder}/n{i:02}.md"] = f"{front}# n{i}\n\n[[Hub]]" + (" [[n00]]" if i % 5 else "")
    root = write_files(tmp_path / "vault", files)
    (root / ".obsidian").mkdir()
    ws = Workspace.open(root)
    try:
        graph = local_graph(ws, "Hub.md", 1, "", limit=10)
        ring = [n for n in graph.nodes if n.ring == 1]
        notes = [n for n in ring if n.path]
        folds = [n for n in ring if n.folded]
        assert len(notes) == 10
        assert notes[0].path == "alpha/n00.md"
        assert sum(n.folded for n in folds) == 50
        assert folds[-1].label.startswith("+") and folds[-1].label.endswith("more")
        assert all(n.direction == "in" for n in notes)
        tagged = local_graph(ws, "Hub.md", 1, "beta/", limit=10)
        assert {n.folder for n in tagged.nodes if n.ring == 1} == {"beta"}
        red = local_graph(ws, "Hub.md", 1, "tag:red", limit=10)
        assert sorted(n.path for n in red.nodes if n.ring == 1) == sorted(
            f"{['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta'][i % 7]}/n{i:02}.md"
            for i in range(3, 60, 10)
        ), "a tag filter keeps the notes with the tag or a sub-tag"
    finally:
        ws.close()
