"""Queries of any length cost time linear in their length (issue 26): a long word, many words
and many `x*` prefixes, through the library and the CLI, each in a subprocess whose timeout
turns a hang (the old prefix pattern was quadratic: 200k characters ran for ~9 minutes) into a
failure. The timeouts are generous limits for a hang, not timings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reme_core import Workspace
from reme_core.text.tokenizer import MAX_TERM_CHARS, Tokenizer
from tests.helpers import hits

HANG = 90  # seconds: minutes on the old code, well under a second now
LONG = 200_000


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=HANG, check=False
    )


@pytest.fixture
def built(make_tree) -> Path:
    root = make_tree({f"n{i}.md": f"# Note {i}\n\nalpha beta{i} gamma{i * 7}\n" for i in range(40)})
    Workspace.open(root).close()
    return root


QUERIES = {
    "one word": "a" * LONG,
    "one prefix": "x" * LONG + "*",
    "many words": " ".join(f"beta{i}" for i in range(LONG // 8)),
    "many prefixes": " ".join(f"gamma{i}*" for i in range(LONG // 9)),
    "half prefixes": "b* " * (LONG // 3),
}


@pytest.mark.parametrize("kind", sorted(QUERIES))
def test_a_200k_character_query_through_the_library(built: Path, kind: str) -> None:
    code = (
        "import sys, json; from pathlib import Path; from reme_core import Workspace\n"
        "ws = Workspace.open(Path(sys.argv[1])); q = sys.stdin.read()\n"
        "r = ws.search(q, limit=3); print(json.dumps([h.path for h in r.results]))\n"
    )
    query = QUERIES[kind]
    assert len(query) >= LONG - 8
    done = subprocess.run(
        [sys.executable, "-c", code, str(built)],
        input=query,
        capture_output=True,
        text=True,
        timeout=HANG,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert (found == []) == (kind.startswith("one")), found


def test_a_long_word_on_the_command_line(built: Path) -> None:
    # One argument may not pass 128 KiB (the kernel's MAX_ARG_STRLEN): 120k characters.
    done = _run("-m", "reme_tui", "-w", str(built), "search", "q" * 120_000 + "*")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    done = _run("-m", "reme_tui", "-w", str(built), "search", *["beta1*"] * 30_000, "--json")
    assert done.returncode == 0, done.stderr
    assert any(h["path"] == "n1.md" for h in json.loads(done.stdout)["results"])


def test_words_are_cut_to_the_cap_in_documents_and_queries_alike(make_tree) -> None:
    long_word = "z" * MAX_TERM_CHARS + "tail"
    root = make_tree({"blob.md": f"# Blob\n\n{long_word}\n", "other.md": "# Other\n\nzzz\n"})
    tok = Tokenizer()
    assert tok.words(f"ok {long_word}") == ["ok", "z" * MAX_TERM_CHARS]
    ws = Workspace.open(root)
    try:
        assert hits(ws, long_word) == ["blob.md"]
        assert hits(ws, "z" * MAX_TERM_CHARS + "another tail") == ["blob.md"]
        assert hits(ws, "z" * 40 + "*") == ["blob.md"]
    finally:
        ws.close()


def test_words_of_a_language_are_far_below_the_cap() -> None:
    # The longest words of dictionaries (and chemical names people type) stay whole.
    words = ["pneumonoultramicroscopicsilicovolcanoconiosis", "donaudampfschifffahrt" * 5]
    assert Tokenizer().words(" ".join(words)) == words
