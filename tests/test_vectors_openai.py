"""The OpenAI-compatible provider against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from reme_core.errors import ConfigError, EmbedderUnavailable
from reme_core.vectors import OpenAIEmbedder, make_embedder

DIM = 6


def fake_embedding(text: str, dim: int) -> list[float]:
    """Deterministic, text-dependent and deliberately not unit length."""
    rng = np.random.default_rng(sum(text.encode()) + len(text))
    return (rng.normal(size=dim) * 3).tolist()


@dataclass
class Server:
    """What the endpoint should do next, and what it has seen."""

    url: str = ""
    failures: list[tuple[int, dict[str, str], bytes]] = field(default_factory=list)
    always: tuple[int, bytes] | None = None
    delay: float = 0.0
    raw_answer: bytes | None = None
    requests: list[tuple[str, dict[str, str], dict]] = field(default_factory=list)


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """A client that timed out and hung up is expected here, not an error to print."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # keep pytest output clean
            pass

        def reply(self, status: int, body: bytes, headers: dict[str, str] | None = None):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append((self.path, dict(self.headers), payload))
            if state.delay:
                time.sleep(state.delay)
            if state.failures:
                status, headers, body = state.failures.pop(0)
                return self.reply(status, body, headers)
            if state.always:
                return self.reply(*state.always)
            if state.raw_answer is not None:
                return self.reply(200, state.raw_answer)
            dim = payload.get("dimensions", DIM)
            data = [
                {"object": "embedding", "index": i, "embedding": fake_embedding(t, dim)}
                for i, t in enumerate(payload["input"])
            ]
            data.reverse()  # servers may answer out of order; `index` says where each goes
            self.reply(200, json.dumps({"object": "list", "data": data}).encode())

    httpd = QuietServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


def embedder(server: Server, **kw) -> OpenAIEmbedder:
    kw.setdefault("backoff", 0.01)
    return OpenAIEmbedder(
        model="test-embed", base_url=server.url, api_key_env="REME_TEST_KEY", **kw
    )


def test_batching_order_normalisation_and_auth(server, monkeypatch):
    monkeypatch.setenv("REME_TEST_KEY", "sk-local-123")
    texts = ["alpha", "beta", "gamma", "delta", "epsilon"]
    vecs = embedder(server, batch_size=2).embed(texts)
    assert vecs.shape == (5, DIM) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-6)
    expected = np.array([fake_embedding(t, DIM) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vecs, expected, rtol=1e-5)
    assert [r[2]["input"] for r in server.requests] == [texts[0:2], texts[2:4], texts[4:]]
    for path, headers, payload in server.requests:
        assert path == "/v1/embeddings"
        assert headers["Authorization"] == "Bearer sk-local-123"
        assert payload["model"] == "test-embed" and "dimensions" not in payload


def test_dimensions_and_no_key(server, monkeypatch):
    monkeypatch.delenv("REME_TEST_KEY", raising=False)
    emb = embedder(server, dimensions=4)
    assert emb.name == "openai:test-embed@4" and emb.dim == 4
    assert emb.embed(["x"]).shape == (1, 4)
    _, headers, payload = server.requests[0]
    assert payload["dimensions"] == 4 and "Authorization" not in headers


def test_dim_is_learned_from_the_server(server):
    emb = embedder(server)
    assert emb.name == "openai:test-embed"
    assert emb.dim == DIM  # probes the endpoint once
    emb.health_check()
    assert len(server.requests) == 2
    assert emb.embed([]).shape == (0, DIM)


def test_a_server_error_is_retried(server):
    server.failures = [(500, {}, b'{"error": {"message": "model warming up"}}')]
    vecs = embedder(server).embed(["one", "two"])
    assert vecs.shape == (2, DIM) and len(server.requests) == 2


def test_rate_limit_honours_retry_after(server):
    server.failures = [(429, {"Retry-After": "0"}, b'{"error": "slow down"}')] * 2
    assert embedder(server, backoff=5.0).embed(["x"]).shape == (1, DIM)  # no 5 s backoff
    assert len(server.requests) == 3


def test_permanent_failure_is_unavailable(server):
    server.always = (503, b'{"error": {"message": "no GPU available"}}')
    with pytest.raises(EmbedderUnavailable) as info:
        embedder(server).health_check()
    message = str(info.value)
    assert "HTTP 503: no GPU available" in message and "after 3 tries" in message
    assert "Traceback" not in message and len(server.requests) == 3


def test_auth_failure_is_not_retried(server, monkeypatch):
    monkeypatch.delenv("REME_TEST_KEY", raising=False)
    server.always = (401, b'{"error": {"message": "Incorrect API key"}}')
    with pytest.raises(EmbedderUnavailable, match=r"HTTP 401.*\$REME_TEST_KEY: it is not set"):
        embedder(server).embed(["x"])
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (b"<html>oops</html>", "not JSON"),
        (b'{"data": [{"index": 0}]}', "no data"),
        (b'{"data": []}', "asked for 1 embeddings"),
        (b'{"data": [{"index": 0, "embedding": ["one"]}]}', "no data"),
        (b'{"data": [{"index": 0, "embedding": [1, NaN]}]}', "non-finite"),
    ],
)
def test_malformed_answers(server, answer, reason):
    server.raw_answer = answer
    with pytest.raises(EmbedderUnavailable, match=reason):
        embedder(server).embed(["x"])


def test_changed_dimension_is_refused(server):
    emb = embedder(server)
    emb.embed(["x"])
    server.raw_answer = json.dumps({"data": [{"index": 0, "embedding": [1.0, 2.0]}]}).encode()
    with pytest.raises(EmbedderUnavailable, match="expected 6-dim vectors, got 2"):
        emb.embed(["y"])


def test_timeout(server):
    server.delay = 0.5
    with pytest.raises(EmbedderUnavailable, match=r"no answer within 0\.1 s"):
        embedder(server, timeout=0.1, max_tries=2).embed(["x"])


def test_connection_refused():
    probe = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = probe.server_address[1]
    probe.server_close()  # nothing listens there now
    emb = OpenAIEmbedder(model="m", base_url=f"http://127.0.0.1:{port}/v1", backoff=0.01)
    with pytest.raises(EmbedderUnavailable, match="cannot connect"):
        emb.health_check()


def test_make_embedder_from_settings(server):
    emb = make_embedder(
        {
            "enabled": True,
            "provider": "openai",
            "store": "exact",
            "model": "test-embed",
            "base_url": server.url + "/",
            "api_key_env": "REME_TEST_KEY",
            "dimensions": 0,
            "batch_size": 3,
            "timeout": 5,
        }
    )
    assert isinstance(emb, OpenAIEmbedder)
    assert emb.embed(["a", "b", "c", "d"]).shape == (4, DIM)
    assert [len(r[2]["input"]) for r in server.requests] == [3, 1]


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"provider": "openai", "model": ""}, "vectors.model"),
        ({"provider": "openai", "model": "m", "batch_size": -2}, "vectors.batch_size"),
        ({"provider": "openai", "model": "m", "timeout": "soon"}, "vectors.timeout"),
        ({"provider": "cohere"}, "vectors.provider"),
        ({"provider": "local", "model": "bge-m3"}, "vectors.model"),
    ],
)
def test_bad_settings(settings, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        make_embedder(settings)
