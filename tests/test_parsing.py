"""The parsing pool: worker term spaces must give exactly the serial index, and refuse drift."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from reme_core import Workspace
from reme_core.errors import FileRefused
from reme_core.parse.parse_pool import BATCH_FILES, POOL_THRESHOLD
from reme_core.parse.parsing import VANISHED, TermSpaces, parse_batch, read_stable
from reme_core.parse.settings import ParseSettings
from reme_core.text.vocabulary import Vocabulary
from tests.conftest import write_files
from tests.helpers import parts

WORDS = ["solar", "inverter", "memory", "光伏", "逆变器"] + [f"w{i}" for i in range(3000)]


def _corpus(n: int, seed: int = 3) -> dict[str, str | bytes]:
    rng = random.Random(seed)
    files: dict[str, str | bytes] = {}
    for i in range(n):
        words = rng.choices(WORDS, weights=[1 / (r + 1) for r in range(len(WORDS))], k=120)
        body = " ".join(words)
        files[f"daily/2026-06-{i % 28 + 1:02d}/note-{i}.md"] = (
            f"---\nname: note {i}\n---\n# Note {i}\n\n{body}\n\n## More\n\n{body[::-1]}\n"
        )
    return files


def _open(root: Path, workers: int) -> Workspace:
    (root / "reme.yaml").write_text(f"workers: {workers}\n", encoding="utf-8")
    return Workspace.open(root)


def _postings(ws: Workspace) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each chunk's (term id, tf) pairs as stored, in term order."""
    rows = parts(ws).store.conn.execute("SELECT id, term_ids, tfs FROM chunks ORDER BY id")
    return [
        (cid, sorted(zip(np.frombuffer(ids, "<i4").tolist(), np.frombuffer(tfs, "<i4").tolist())))
        for cid, ids, tfs in rows
    ]


def test_pooled_rebuild_equals_serial(tmp_path: Path) -> None:
    n = POOL_THRESHOLD + 3 * BATCH_FILES  # several batches per worker
    pooled_root = write_files(tmp_path / "pooled", _corpus(n))
    outside = tmp_path / "outside.md"
    outside.write_text("# secret\n\nexfiltrated words\n", encoding="utf-8")
    os.symlink(outside, pooled_root / "daily" / "escape.md")
    serial_root = tmp_path / "serial"
    shutil.copytree(pooled_root, serial_root, symlinks=True)

    pooled, serial = _open(pooled_root, 2), _open(serial_root, 1)
    try:
        assert pooled.stats().files == serial.stats().files == n
        # Same terms with the same ids, and the same postings for every chunk.
        assert parts(pooled).index.vocab.terms() == parts(serial).index.vocab.terms()
        assert _postings(pooled) == _postings(serial)
        for query in ["solar inverter", "w7 w1500", "逆变器", "memory w2999"]:
            got = [(h.path, h.start_line, round(h.score, 9)) for h in pooled.search(query).results]
            want = [(h.path, h.start_line, round(h.score, 9)) for h in serial.search(query).results]
            assert got == want and got
        assert pooled.search("exfiltrated").results == []
    finally:
        pooled.close()
        serial.close()


def test_worker_term_space_ships_only_new_terms(make_tree) -> None:
    root = make_tree({"a.md": "alpha beta beta\n", "b.md": "beta gamma\n", "c.md": "delta\n"})
    settings = ParseSettings(use_jieba=False)
    first = parse_batch(str(root), ["a.md"], settings, job="job-1")
    second = parse_batch(str(root), ["b.md"], settings, job="job-1")
    assert first.terms == ["alpha", "beta"] and first.space == (os.getpid(), 0)
    assert second.terms == ["gamma"] and second.space == (os.getpid(), 2)
    assert sorted(second.term_idx.tolist()) == [1, 2]  # beta keeps its worker id

    vocab = Vocabulary(["zeta"])
    spaces = TermSpaces(vocab)
    spaces.ids(first)
    second_ids = spaces.ids(second)
    assert vocab.terms() == ["zeta", "alpha", "beta", "gamma"]
    assert sorted(vocab.term(int(i)) for i in second_ids) == ["beta", "gamma"]
    # Mapping the same batches again (a retried commit) takes a new instance, same answer.
    again = TermSpaces(vocab)
    again.ids(first)
    assert again.ids(second).tolist() == second_ids.tolist()

    fresh = parse_batch(str(root), ["c.md"], settings, job="job-2")  # a new job starts afresh
    assert fresh.terms == ["delta"] and fresh.space == (os.getpid(), 0)


def test_worker_term_counts_are_the_tokenizers_with_words_stemmed_once(make_tree) -> None:
    """Words are looked up before stemming: inflections of one stem are one term, across
    batches of a job too, and each chunk's counts are exactly `Tokenizer.tokenize`'s."""
    from collections import Counter

    from reme_core.parse.parsing import parse_file
    from reme_core.text.tokenizer import tokenizer_for

    texts = {
        "a.md": "# Capacity\n\nTripled capacity, tripling capacities.\n"
        "snake_case 光伏逆变器 __bold__\n",
        "b.md": "capacities TRIPLES Capacity\n\n## Other\n\nrunning runs ran 逆变器\n",
    }
    root = make_tree(texts)
    settings = ParseSettings(use_jieba=False, stemmer="english")
    tok = tokenizer_for(False, "english")
    vocab = Vocabulary()
    spaces = TermSpaces(vocab)
    for name in texts:
        batch = parse_batch(str(root), [name], settings, job="job-stem")
        ids = spaces.ids(batch)
        ends = np.cumsum(batch.doc_nterms)
        starts = ends - batch.doc_nterms
        chunks = parse_file(root, name, settings).chunks
        assert len(chunks) == len(batch.doc_nterms)
        for chunk, a, b in zip(chunks, starts, ends, strict=True):
            got = {vocab.term(int(i)): int(tf) for i, tf in zip(ids[a:b], batch.tfs[a:b])}
            assert got == dict(Counter(tok.tokenize(chunk.text)))
    assert len(vocab.terms()) == len(set(vocab.terms()))
    assert vocab.terms().count("capac") == 1 and "capacities" not in vocab.terms()
    second = parse_batch(str(root), ["b.md"], settings, job="job-stem")
    assert second.terms == []  # every word of b.md was given its term the first time


def test_term_space_out_of_step_is_refused(make_tree) -> None:
    root = make_tree({"a.md": "alpha\n", "b.md": "beta\n"})
    settings = ParseSettings(use_jieba=False)
    parse_batch(str(root), ["a.md"], settings, job="job-3")
    second = parse_batch(str(root), ["b.md"], settings, job="job-3")
    with pytest.raises(RuntimeError, match="out of step"):
        TermSpaces(Vocabulary()).ids(second)  # its first batch was never resolved


def test_batch_reports_gone_and_escaping_files_as_vanished(make_tree, tmp_path: Path) -> None:
    root = make_tree({"a.md": "alpha\n"})
    (tmp_path / "secret.md").write_text("secret\n", encoding="utf-8")
    os.symlink(tmp_path / "secret.md", root / "escape.md")
    batch = parse_batch(str(root), ["a.md", "escape.md", "gone.md"], ParseSettings(use_jieba=False))
    assert batch.parsed.paths == ["a.md"]
    assert batch.skipped == [("escape.md", VANISHED), ("gone.md", VANISHED)]
    assert np.array_equal(np.sort(batch.term_idx), [0])


def test_a_script_read_from_stdin_can_rebuild_a_large_workspace(tmp_path: Path) -> None:
    root = write_files(tmp_path / "ws", _corpus(POOL_THRESHOLD + 10))
    script = (
        "from reme_core import Workspace\n"
        f"ws = Workspace.open({str(root)!r})\n"
        "print(ws.stats().files, ws.search('solar').results[0].path)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-"], input=script, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    count, path = proc.stdout.split()
    assert int(count) == POOL_THRESHOLD + 10 and path.startswith("daily/")


def test_a_file_is_read_whole_through_one_descriptor(tmp_path: Path) -> None:
    data = bytes(random.Random(5).randrange(256) for _ in range(3 << 20))  # past one read
    (tmp_path / "big.bin").write_bytes(data)
    (tmp_path / "empty.md").write_bytes(b"")
    got, st = read_stable(tmp_path / "big.bin", 4 << 20)
    assert got == data and st.st_size == len(data)
    assert read_stable(tmp_path / "empty.md", 10)[0] == b""
    with pytest.raises(FileRefused, match="larger than max_file_bytes"):
        read_stable(tmp_path / "big.bin", 1 << 20)


def test_a_fifo_in_a_files_place_does_not_hang_the_read(tmp_path: Path) -> None:
    """Put there after the walk (which passes regular files only): read as empty, at once."""
    fifo = tmp_path / "note.md"
    os.mkfifo(fifo)
    result: list[bytes] = []
    reader = threading.Thread(target=lambda: result.append(read_stable(fifo, 100)[0]))
    reader.start()
    reader.join(timeout=10)
    hung = reader.is_alive()
    if hung:  # release the blocked open before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join()
    assert not hung
    assert result == [b""]
