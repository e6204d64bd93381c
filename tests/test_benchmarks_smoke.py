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


def test_every_scenario_produces_numbers(tiny: Context) -> None:
    results = run(list(SCENARIOS), tiny, log=lambda _: None)
    assert [r.scenario for r in results] == list(SCENARIOS)
    for r in results:
        if r.status in OPTIONAL.get(r.scenario, ()):
            assert r.notes, f"{r.scenario} says why it did not run"
            continue
        assert r.status == "ok", f"{r.scenario}: {r.status} {r.notes}"
        assert r.metrics and all(v == v for v in r.metrics.values()), r.scenario
    report = render(results, 30, 3, 1, "python -m benchmarks all --files 30")
    assert "## Targets" in report and "bm25s" in report
