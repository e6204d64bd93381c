"""The benchmark suite runs end to end at a tiny size, so it cannot rot (no timing asserts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import corpus, open_scenarios
from benchmarks.report import render
from benchmarks.scenarios import SCENARIOS, Context, run

# Scenarios that may legitimately have nothing to measure on a given setup.
OPTIONAL = {
    "tui": {"pending"},
    "tui_load": {"skipped"},
    "vectors": {"skipped"},
    "bm25s": {"skipped"},
}


@pytest.fixture()
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Context:
    monkeypatch.setattr(corpus, "CACHE", tmp_path / "corpus")
    vault = tmp_path / "vaults" / open_scenarios.PUBLIC_VAULT  # the public vault's stand-in
    (vault / ".obsidian").mkdir(parents=True)
    for i in range(5):
        (vault / f"Note {i}.md").write_text(f"# Note {i}\n\nsee [[Note {i + 1}]]\n", "utf-8")
    monkeypatch.setattr(open_scenarios, "VAULTS", vault.parent)
    return Context(n_files=30, seed=3, runs=1, quick=True, scratch=tmp_path / "scratch")


def test_corpus_is_deterministic_and_shaped(tiny: Context) -> None:
    root = tiny.root
    paths = corpus.corpus_paths(root)
    assert len(paths) == 30
    assert any(p.startswith("daily/") for p in paths)
    assert {p.split("/")[1] for p in paths if p.startswith("digest/")} <= set(corpus.DIGEST_KINDS)
    planned = corpus.plan(30, 3).paths
    text = (root / planned[0]).read_text(encoding="utf-8")
    assert text.startswith("---\nname: ") and "\n## " in text and "[[" in text
    assert text == corpus.render(3, 0, planned)


# The scenarios that launch the browser run on their own, so parallel workers share them (one
# test of all of them held a worker for two minutes on a loaded machine); the rest run together,
# in the suite's order (the floor reads the reindex's numbers).
ALONE = [["open_warm"], ["open_warm_vault"], ["open_first", "open_first_vault"], ["tui"]]
TOGETHER = [name for name in SCENARIOS if all(name not in group for group in ALONE)]


def test_the_groups_run_every_scenario_once() -> None:
    assert sorted(n for group in [TOGETHER, *ALONE] for n in group) == sorted(SCENARIOS)


@pytest.mark.parametrize(
    "names", [TOGETHER, *ALONE], ids=["together", *("+".join(g) for g in ALONE)]
)
def test_every_scenario_produces_numbers(tiny: Context, names: list[str]) -> None:
    results = run(names, tiny, log=lambda _: None)
    assert [r.scenario for r in results] == names
    for r in results:
        if r.status in OPTIONAL.get(r.scenario, ()):
            assert r.notes, f"{r.scenario} says why it did not run"
            continue
        assert r.status == "ok", f"{r.scenario}: {r.status} {r.notes}"
        assert r.metrics and all(v == v for v in r.metrics.values()), r.scenario
    report = render(results, 30, 3, 1, "python -m benchmarks all --files 30")
    assert "## Targets" in report
    assert all(f"### {r.scenario} ({r.status})" in report for r in results)
    if "bm25s" in names:
        assert "bm25s" in report
