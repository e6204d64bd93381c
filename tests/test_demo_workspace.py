"""Checks on the bundled demo workspace (reme_tui/demo/).

These tests read the real files on disk; they do not use the indexer, so they pin down what the
demo workspace *contains* (the fixture other tests and `reme-tui --demo` rely on).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parent.parent / "reme_tui" / "demo"

CJK = re.compile(r"[\u4e00-\u9fff]")
# [[target]], [[target#anchor]], [[target|alias]], [[target#anchor|alias]], ![[embed]];
# inside a table cell the pipe is escaped as \|.
WIKILINK = re.compile(r"!?\[\[([^\[\]|#]+?)(?:#([^\[\]|]*?))?(?:\\?\|[^\[\]]*)?\]\]")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINE_ANCHOR = re.compile(r"L(\d+)(?:-L(\d+))?")

EXPECTED_DANGLING = "digest/wiki/vector-quantization.md"


def notes() -> list[Path]:
    return sorted(p for layer in ("daily", "digest") for p in (DEMO / layer).rglob("*.md"))


def links_of(path: Path) -> list[tuple[int, str, str]]:
    """(line number, target, anchor) for every wikilink outside fenced and inline code.

    The demo's only indented code block (the BM25 formula) holds no wikilink, so indented code
    needs no special case here.
    """
    found = []
    fence: str | None = None
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        for lm in WIKILINK.finditer(INLINE_CODE.sub("", line)):
            found.append((lineno, lm.group(1).strip(), (lm.group(2) or "").strip()))
    return found


def all_links() -> list[tuple[str, int, str, str]]:
    return [
        (p.relative_to(DEMO).as_posix(), lineno, target, anchor)
        for p in notes()
        for lineno, target, anchor in links_of(p)
    ]


def test_demo_folder_exists_and_has_layers():
    for layer in (
        "daily",
        "digest/personal",
        "digest/procedure",
        "digest/wiki",
        "resource",
        "session",
    ):
        assert (DEMO / layer).is_dir(), layer
    assert not (DEMO / "metadata").exists()
    hidden = [p for p in DEMO.rglob("*") if any(part.startswith(".") for part in p.parts[-1:])]
    assert hidden == []


def test_enough_notes_and_enough_chinese():
    md = notes()
    assert len(md) >= 40
    chinese = [p for p in md if CJK.search(p.read_text(encoding="utf-8"))]
    assert len(chinese) >= 10
    mostly_chinese = [
        p
        for p in md
        if len(CJK.findall(t := p.read_text(encoding="utf-8")))
        > len(re.findall(r"[A-Za-z]", t)) / 2
    ]
    assert len(mostly_chinese) >= 10


def test_every_note_is_utf8_and_has_dated_daily_paths():
    for p in notes():
        p.read_bytes().decode("utf-8")  # raises on a bad byte
    daily = [p.relative_to(DEMO / "daily").as_posix() for p in (DEMO / "daily").rglob("*.md")]
    pattern = re.compile(r"^2026-06-(0[1-9]|1\d|2[0-4])(\.md|/[^/]+\.md)$")
    assert daily and all(pattern.match(d) for d in daily), [
        d for d in daily if not pattern.match(d)
    ]


def test_resource_jsonl_is_a_real_conversation():
    jsonl = list((DEMO / "resource").rglob("*.jsonl"))
    assert len(jsonl) == 1
    lines = jsonl[0].read_text(encoding="utf-8").splitlines()
    assert 30 <= len(lines) <= 60
    records = [json.loads(line) for line in lines]
    assert all({"role", "content", "ts"} <= set(r) for r in records)
    assert sum("[[" in r["content"] for r in records) == 1


def test_frontmatter_present_and_one_deliberately_broken():
    yaml = pytest.importorskip("yaml")
    broken = []
    without = []
    for p in notes():
        text = p.read_text(encoding="utf-8")
        if not text.startswith("---\n"):
            without.append(p.relative_to(DEMO).as_posix())
            continue
        block = text[4 : text.index("\n---\n", 4)]
        try:
            data = yaml.safe_load(block)
        except yaml.YAMLError:
            broken.append(p.relative_to(DEMO).as_posix())
            continue
        assert isinstance(data, dict) and data.get("name") and data.get("description"), p
        assert isinstance(data.get("tags"), list), p
    assert without == ["daily/2026-06-22/quick-notes.md"]  # a phone jotting, no frontmatter
    assert broken == ["daily/2026-06-11/broken-frontmatter.md"]


def test_frontmatter_only_stub_has_no_body():
    text = (DEMO / "digest/wiki/hnsw.md").read_text(encoding="utf-8")
    assert text.startswith("---\n") and text.endswith("\n---\n")
    assert text.count("\n---\n") == 1


def test_exactly_one_dangling_link():
    dangling = []
    for source, lineno, target, _anchor in all_links():
        if not (DEMO / target).exists():
            dangling.append((source, lineno, target))
    assert [d[2] for d in dangling] == [EXPECTED_DANGLING], dangling
    assert dangling[0][0] == "daily/2026-06-18/benchmark-run.md"


def test_link_forms_present():
    links = all_links()
    targets = {t for _, _, t, _ in links}
    assert "resource/2026-06-20/report.pdf" in targets
    assert any(t.startswith("session/dialog/") for t in targets)
    assert ("digest/wiki/solar.md", "L9-L10") in {(t, a) for _, _, t, a in links}
    text = "\n".join(p.read_text(encoding="utf-8") for p in notes())
    assert "![[digest/wiki/rrf.md]]" in text
    assert "related:: [[" in text
    assert "[[digest/wiki/longi.md|LONGi]]" in text
    assert "\\|" in text  # an alias inside a table cell


def test_line_anchors_are_within_target_files():
    checked = 0
    for source, lineno, target, anchor in all_links():
        if not anchor:
            continue
        n_lines = len((DEMO / target).read_text(encoding="utf-8").splitlines())
        for part in anchor.split(","):
            m = LINE_ANCHOR.fullmatch(part.strip())
            assert m, (source, lineno, anchor)
            start = int(m.group(1))
            end = int(m.group(2) or start)
            assert 1 <= start <= end <= n_lines, (source, lineno, target, anchor, n_lines)
            checked += 1
    assert checked >= 5


def test_solar_anchor_points_at_the_key_finding():
    lines = (DEMO / "digest/wiki/solar.md").read_text(encoding="utf-8").splitlines()
    assert lines[8].startswith("Key finding (2026-06-10): polysilicon spot prices")
    assert lines[9].startswith("The glut is upstream")


def test_links_inside_code_are_not_counted():
    chunking = DEMO / "digest/wiki/chunking.md"
    raw = chunking.read_text(encoding="utf-8")
    assert "[[digest/wiki/not-a-real-link.md]]" in raw  # present, but inside a ``` fence
    assert "# not a heading" in raw
    assert all(t != "digest/wiki/not-a-real-link.md" for _, t, _ in links_of(chunking))
