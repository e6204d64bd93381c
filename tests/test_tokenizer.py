"""Tokenizer: the same terms for documents and queries, in both CJK modes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.segmenter_check import DEMO, han_runs, mismatches, random_runs
from reme_core.text import tokenizer as tokenizer_module
from reme_core.text.tokenizer import Tokenizer, est_tokens

# The folder holding the reme_core package this test imported, for the subprocess checks.
PACKAGE_ROOT = Path(os.path.abspath(tokenizer_module.__file__)).parents[2]
JIEBA = Tokenizer(use_jieba=True)
LEARNING_RECORD = Path("/work/vaults/Learning-Record-Write-By-Obsidian.orig")
BIGRAMS = Tokenizer(use_jieba=False)


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )


@pytest.mark.parametrize("tok", [JIEBA, BIGRAMS])
def test_english_lower_cased_words(tok: Tokenizer) -> None:
    text = "The Quick-Brown fox: v2.0 (2026) isn't HERE!"
    assert tok.tokenize(text) == [
        "the",
        "quick",
        "brown",
        "fox",
        "v2",
        "0",
        "2026",
        "isn",
        "t",
        "here",
    ]


def test_accents_are_kept_and_normalised() -> None:
    assert JIEBA.tokenize("Café CRÈME naïve") == ["café", "crème", "naïve"]
    # A decomposed accent (e + combining acute) is the same term as the composed one.
    assert JIEBA.tokenize("cafe\u0301") == ["café"]
    assert JIEBA.tokenize("Ｆｕｌｌ ｗｉｄｔｈ") == ["full", "width"]


def test_underscores_join_words_but_edges_are_dropped() -> None:
    assert JIEBA.tokenize("snake_case __init__ __bold__ ___ a__b") == [
        "snake_case",
        "init",
        "bold",
        "a__b",
    ]
    assert JIEBA.tokenize("é_x _é_") == ["é_x", "é"]


def test_digits_are_words() -> None:
    assert JIEBA.tokenize("2026-06-20 L9-L10 0x1F") == ["2026", "06", "20", "l9", "l10", "0x1f"]


def test_punctuation_only_gives_nothing() -> None:
    for text in ["", "   ", "!!! ... ---", "，。！？「」", "\n\t*#>"]:
        assert JIEBA.tokenize(text) == []
        assert BIGRAMS.tokenize(text) == []
        assert JIEBA.query_terms(text) == []


def test_chinese_query_jieba_vs_bigrams() -> None:
    assert JIEBA.tokenize("想去海边玩") == ["想", "去", "海边", "玩"]
    assert BIGRAMS.tokenize("想去海边玩") == ["想去", "去海", "海边", "边玩"]
    # Search mode also yields the sub-words of a long word.
    assert {"中华", "人民", "共和国", "中华人民共和国"} <= set(JIEBA.tokenize("中华人民共和国"))


def test_lone_cjk_character_stays_one_token() -> None:
    assert BIGRAMS.tokenize("海") == ["海"]
    assert BIGRAMS.tokenize("好，ok 海!") == ["好", "ok", "海"]
    assert JIEBA.tokenize("海") == ["海"]


def test_mixed_cjk_and_latin_in_reading_order() -> None:
    text = "检索regression在v2版本，Café咖啡"
    assert BIGRAMS.tokenize(text) == ["检索", "regression", "在", "v2", "版本", "café", "咖啡"]
    assert JIEBA.tokenize(text) == ["检索", "regression", "在", "v2", "版本", "café", "咖啡"]


def test_kana_and_hangul_are_bigrams_in_both_modes() -> None:
    for tok in (JIEBA, BIGRAMS):
        assert tok.tokenize("カタカナ 한국어") == ["カタ", "タカ", "カナ", "한국", "국어"]


def test_query_terms_deduplicate_in_order() -> None:
    assert JIEBA.query_terms("the cat and THE dog, the cat") == ["the", "cat", "and", "dog"]
    assert BIGRAMS.query_terms("海边 海边玩") == ["海边", "边玩"]


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab_Zé 中文海边,。1\u0301カ한!"), max_size=40))
def test_deterministic_and_well_formed(text: str) -> None:
    for tok in (JIEBA, BIGRAMS):
        first = tok.tokenize(text)
        assert first == tok.tokenize(text) == Tokenizer(tok.use_jieba).tokenize(text)
        for term in first:
            assert term and term == term.lower()
            assert any(ch.isalnum() for ch in term)
            assert not term.startswith("_") and not term.endswith("_")
        # Query terms are a subset of what the same text indexes as.
        assert set(tok.query_terms(text)) == set(first)


def test_est_tokens_counts_latin_words_and_cjk_characters() -> None:
    assert est_tokens("") == 0
    assert est_tokens("hello, world") == 2
    assert est_tokens("café au lait") == 3
    assert est_tokens("我想去海边玩 with friends") == 8
    assert est_tokens("海边hello，世界!") == 5
    assert est_tokens("!!! ，。") == 0


def test_segmenter_loads_lazily_and_quietly() -> None:
    code = (
        "import sys\n"
        "from reme_core.text import segmenter\n"
        "from reme_core.text.tokenizer import Tokenizer\n"
        "t = Tokenizer()\n"
        "assert t.tokenize('plain english, café') == ['plain', 'english', 'café']\n"
        "assert 'jieba' not in sys.modules and 'rjieba' not in sys.modules\n"
        "assert t.tokenize('想去海边玩') == ['想', '去', '海边', '玩']\n"
        "assert segmenter.backend == 'rjieba' and 'jieba' not in sys.modules\n"
        "assert t.warm_up()\n"
    )
    assert run_python(code).stderr == ""


def test_without_rjieba_jieba_gives_the_same_terms() -> None:
    """The fallback (and reference) path: rjieba missing, jieba loads, terms unchanged."""
    text = "我想去海边玩，研究生命的起源，中华人民共和国成立了"
    code = (
        "import sys\n"
        "sys.modules['rjieba'] = None\n"
        "from reme_core.text import segmenter\n"
        "from reme_core.text.tokenizer import Tokenizer\n"
        f"print(Tokenizer().tokenize({text!r}))\n"
        "assert segmenter.backend == 'jieba'\n"
    )
    assert run_python(code).stdout.strip() == repr(JIEBA.tokenize(text))


def test_rjieba_cuts_every_demo_run_as_jieba_does() -> None:
    """rjieba is used only because it equals jieba here; a new release that differs fails."""
    runs = han_runs(DEMO)
    assert len(runs) > 500
    assert mismatches(runs) == []
    assert mismatches(random_runs(2000)) == []


@pytest.mark.skipif(not LEARNING_RECORD.is_dir(), reason="public Chinese vault not on this machine")
def test_rjieba_cuts_the_public_chinese_vault_as_jieba_does() -> None:
    runs = han_runs(LEARNING_RECORD)
    assert len(runs) > 10_000
    assert mismatches(runs) == []


def test_missing_jieba_falls_back_to_bigrams() -> None:
    code = (
        "import sys\n"
        "sys.modules['jieba'] = sys.modules['rjieba'] = None\n"
        "from reme_core.text.tokenizer import Tokenizer\n"
        "t = Tokenizer()\n"
        "assert not t.warm_up()\n"
        "assert t.tokenize('想去海边玩') == ['想去', '去海', '海边', '边玩']\n"
    )
    assert run_python(code).stderr == ""


@pytest.mark.parametrize(("note", "loaded"), [("plain words only", False), ("想去海边玩", True)])
def test_a_workspace_warms_the_segmenter_up_only_for_han_terms(
    tmp_path: Path, note: str, loaded: bool
) -> None:
    """The browser warms the segmenter up after its start-up diff: its dictionary load holds
    the interpreter 0.14-0.19 s, which a workspace without Han, kana or Hangul never needs."""
    (tmp_path / "notes").mkdir()
    for i in range(300):  # above the parse pool's threshold: the index is built as at size
        (tmp_path / "notes" / f"n{i}.md").write_text(f"# Note {i}\n\nword{i}\n", "utf-8")
    (tmp_path / "notes" / "last.md").write_text(f"# Last\n\n{note}\n", "utf-8")
    code = (
        "import sys\n"
        "from reme_core import Workspace\n"
        f"ws = Workspace.open({str(tmp_path)!r})\n"
        "ws.close()\n"
        f"ws = Workspace.open({str(tmp_path)!r})\n"
        "print(ws.warm_up_segmenter(), 'rjieba' in sys.modules or 'jieba' in sys.modules)\n"
    )
    assert run_python(code).stdout.split() == [str(loaded), str(loaded)]
