"""The English embedder option (`vectors.model: wordllama-l2-supercat`, the `wordllama` extra):
offline from the wheel's own files, selectable in reme.yaml, the default unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reme_core import Workspace
from reme_core.errors import ConfigError, EmbedderUnavailable
from reme_core.vectors import make_embedder
from reme_core.vectors.wordllama_embedder import MODEL, WordLlamaEmbedder

SETTINGS = {"provider": "local", "model": MODEL}


def test_the_model_is_chosen_by_name_and_the_default_is_unchanged() -> None:
    emb = make_embedder(SETTINGS)
    assert isinstance(emb, WordLlamaEmbedder)
    assert (emb.name, emb.dim) == (f"local:{MODEL}", 256)  # known without loading
    assert make_embedder({"provider": "local"}).name == "local:use-multilingual-v3"
    with pytest.raises(ConfigError, match=r"offers 'use-multilingual-v3' .* 'wordllama-l2"):
        make_embedder({"provider": "local", "model": "wordllama"})


def test_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)  # makes `import wordllama` fail
    with pytest.raises(EmbedderUnavailable, match=r"pip install 'reme-tui\[wordllama\]'"):
        WordLlamaEmbedder().health_check()


@pytest.fixture(scope="module")
def wordllama() -> WordLlamaEmbedder:
    pytest.importorskip("wordllama", reason="the `wordllama` extra is not installed")
    emb = make_embedder(SETTINGS)
    assert isinstance(emb, WordLlamaEmbedder)
    emb.health_check()
    return emb


def test_related_english_texts_are_nearer(wordllama: WordLlamaEmbedder) -> None:
    vecs = wordllama.embed(
        [
            "How to rebuild the search index after adding notes",
            "Reindexing documents so that new files show up in search results",
            "A recipe for braised pork belly with rock sugar",
        ]
    )
    assert vecs.shape == (3, 256) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    assert float(vecs[0] @ vecs[1]) > float(vecs[0] @ vecs[2]) + 0.1


def test_batch_equals_single(wordllama: WordLlamaEmbedder) -> None:
    texts = ["short", "a much longer English sentence about searching notes by meaning", "x y"]
    together = wordllama.embed(texts)
    alone = np.concatenate([wordllama.embed([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    assert wordllama.embed([]).shape == (0, 256)


def test_loads_offline_from_the_wheel(tmp_path: Path) -> None:
    """A fresh process with no network and an empty home: no cache written, nothing fetched."""
    pytest.importorskip("wordllama", reason="the `wordllama` extra is not installed")
    home = tmp_path / "home"
    home.mkdir()
    code = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('no network in this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from reme_core.vectors import make_embedder\n"
        f"print(make_embedder({SETTINGS!r}).embed(['offline']).shape)\n"
    )
    env = {**os.environ, "HOME": str(home), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(1, 256)"
    assert list(home.iterdir()) == []  # no ~/.cache/wordllama


def test_a_workspace_searches_with_it(tmp_path: Path, wordllama: WordLlamaEmbedder) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    (root / "reme.yaml").write_text(
        f"vectors:\n  enabled: true\n  model: {MODEL}\n", encoding="utf-8"
    )
    (root / "kettle.md").write_text("# Kettle\n\nBoil water for the tea.\n", encoding="utf-8")
    (root / "garden.md").write_text("# Garden\n\nTomatoes need sun.\n", encoding="utf-8")
    ws = Workspace.open(root)
    try:
        assert ws.wait_for_vectors(300), ws.vector_status()
        # no word of the query is in either note: only the vectors can answer
        result = ws.search("heating liquid to make hot drinks", limit=2, expand_links=False)
        assert result.counts["keyword"] == 0 and result.counts["vector"] > 0
        assert result.results[0].path == "kettle.md"
    finally:
        ws.close()
