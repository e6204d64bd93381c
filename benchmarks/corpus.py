"""A seeded synthetic memory workspace: daily notes and digests that look like real ones.

Why synthetic: the benchmark must be rerunnable anywhere at 1k, 10k or 50k files, and the
same seed must give byte-identical files so two runs (or two machines) measure the same work.
Words follow a Zipf law over ``words_en.txt`` (most frequent first), about one sentence in ten
is Chinese (words from jieba's own dictionary), and every file links to 2–6 others by path,
some with anchors and a few dangling, so the link graph is as busy as a real one. A denser
corpus (``links=DENSE_LINKS``: 4–20 per note) measures link expansion on another link shape.

Corpora are cached under ``benchmarks/.corpus/<N>-<seed>/`` (git-ignored) and written to a
temporary folder first, so an interrupted generation is never mistaken for a finished one.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".corpus"
WORDS_FILE = HERE / "words_en.txt"
ZIPF_S = 1.07
DIGEST_KINDS = ("personal", "procedure", "wiki")
FIRST_DAY = dt.date(2023, 1, 2)
_DONE = ".complete"
_LANGS = ("python", "bash", "yaml", "json", "sql")
# Links per note, as a half-open range: the default corpus, and the dense one (issue 32).
LINKS = (2, 7)
DENSE_LINKS = (4, 21)


@lru_cache(maxsize=1)
def english_words() -> list[str]:
    """The committed English word list, most frequent first."""
    return WORDS_FILE.read_text(encoding="utf-8").split()


@lru_cache(maxsize=1)
def chinese_words() -> list[str]:
    """Two- to four-character Han words from jieba's dictionary, most frequent first."""
    import jieba

    path = Path(jieba.__file__).with_name("dict.txt")
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        word, freq, *_ = line.split(" ")
        if 2 <= len(word) <= 4 and all("\u4e00" <= ch <= "\u9fff" for ch in word):
            entries.append((-int(freq), word))
    entries.sort()
    return [w for _, w in entries[:20_000]]


@lru_cache(maxsize=4)
def _zipf_cdf(n: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** ZIPF_S
    cdf = np.cumsum(weights)
    return cdf / cdf[-1]


def zipf_ranks(rng: np.random.Generator, n_words: int, size: int) -> np.ndarray:
    """`size` ranks in [0, n_words) drawn with probability proportional to 1 / (rank+1)^s."""
    return np.searchsorted(_zipf_cdf(n_words), rng.random(size), side="right")


@dataclass(frozen=True, slots=True)
class Plan:
    """Every path of the corpus, known before any file is written so links can target them."""

    paths: list[str]
    n_daily: int


def plan(n_files: int, seed: int) -> Plan:
    """Half daily notes (a few per day), half digests spread over three kinds."""
    rng = np.random.default_rng([seed, 0])
    words = english_words()
    n_daily = n_files // 2
    paths: list[str] = []
    seen: set[str] = set()

    def slug(i: int) -> str:
        while True:
            ranks = zipf_ranks(rng, 4000, 3) + 30
            name = "-".join(words[r] for r in ranks)
            if name not in seen:
                seen.add(name)
                return name

    day, left_today = FIRST_DAY, 0
    for i in range(n_daily):
        if left_today == 0:
            day += dt.timedelta(days=1)
            left_today = int(rng.integers(1, 7))
        left_today -= 1
        paths.append(f"daily/{day.isoformat()}/{slug(i)}.md")
    for i in range(n_files - n_daily):
        kind = DIGEST_KINDS[i % len(DIGEST_KINDS)]
        paths.append(f"digest/{kind}/{slug(i)}.md")
    return Plan(paths, n_daily)


class _Writer:
    """Builds one file's text from its own random stream (so files can be made in parallel)."""

    def __init__(
        self, seed: int, index: int, paths: Sequence[str], links: tuple[int, int] = LINKS
    ) -> None:
        self.n_links = links
        self.rng = np.random.default_rng([seed, 1, index])
        self.en = english_words()
        self.zh = chinese_words()
        self.paths = paths
        self.index = index
        self.words = 0

    def en_words(self, n: int) -> list[str]:
        self.words += n
        return [self.en[r] for r in zipf_ranks(self.rng, len(self.en), n)]

    def sentence(self) -> str:
        if self.rng.random() < 0.1:
            n = int(self.rng.integers(4, 11))
            self.words += n
            return "".join(self.zh[r] for r in zipf_ranks(self.rng, len(self.zh), n)) + "。"
        ws = self.en_words(int(self.rng.integers(6, 19)))
        return " ".join(ws).capitalize() + "."

    def title(self) -> str:
        return " ".join(self.en_words(int(self.rng.integers(2, 6)))).title()

    def link(self) -> str:
        rng = self.rng
        if rng.random() < 0.08:
            target = f"digest/wiki/missing-{int(rng.integers(1_000_000))}.md"
        else:
            j = int(rng.integers(len(self.paths) - 1))
            target = self.paths[j + (j >= self.index)]
        roll = rng.random()
        if roll < 0.15:
            a = int(rng.integers(5, 40))
            target += f"#L{a}-L{a + int(rng.integers(1, 12))}"
        elif roll < 0.25:
            target += "#" + self.title()
        if rng.random() < 0.2:
            target += "|" + self.title()
        return f"[[{target}]]"

    def paragraph(self, links: list[str]) -> str:
        parts = [self.sentence() for _ in range(int(self.rng.integers(2, 6)))]
        while links and self.rng.random() < 0.6:
            parts.insert(int(self.rng.integers(len(parts) + 1)), f"See {links.pop()}.")
        return " ".join(parts)

    def bullets(self, links: list[str]) -> str:
        items = []
        for _ in range(int(self.rng.integers(3, 7))):
            item = self.sentence()
            if links and self.rng.random() < 0.3:
                item += f" {links.pop()}"
            items.append(f"- {item}")
        return "\n".join(items)

    def table(self) -> str:
        head = self.en_words(3)
        rows = [f"| {' | '.join(w.title() for w in head)} |", "| --- | --- | --- |"]
        for _ in range(int(self.rng.integers(3, 7))):
            cells = [" ".join(self.en_words(int(self.rng.integers(1, 4)))) for _ in range(3)]
            rows.append(f"| {' | '.join(cells)} |")
        return "\n".join(rows)

    def code(self) -> str:
        lang = _LANGS[int(self.rng.integers(len(_LANGS)))]
        lines = []
        for _ in range(int(self.rng.integers(3, 9))):
            a, b, c = self.en_words(3)
            lines.append(f"{a}_{b} = {c}({int(self.rng.integers(100))})")
        return f"```{lang}\n" + "\n".join(lines) + "\n```"

    def frontmatter(self, title: str, date: str | None) -> str:
        rng = self.rng
        tags = ", ".join(
            self.en[int(r) + 50] for r in zipf_ranks(rng, 200, int(rng.integers(1, 5)))
        )
        lines = [
            "---",
            f"name: {title}",
            f"description: {self.sentence()}",
            f"tags: [{tags}]",
        ]
        if date:
            lines.append(f"date: {date}")
        return "\n".join([*lines, "---"])

    def text(self, path: str) -> str:
        rng = self.rng
        target = int(rng.integers(300, 801))
        links = [self.link() for _ in range(int(rng.integers(*self.n_links)))]
        date = None
        if path.startswith("digest/") and rng.random() < 0.4:
            date = (FIRST_DAY + dt.timedelta(days=int(rng.integers(0, 900)))).isoformat()
        title = self.title()
        blocks = [self.frontmatter(title, date), f"# {title}", self.paragraph(links)]
        n_sections = int(rng.integers(2, 6))
        for s in range(n_sections):
            blocks.append(f"## {self.title()}")
            blocks.append(self.paragraph(links))
            roll = rng.random()
            if roll < 0.35:
                blocks.append(self.bullets(links))
            elif roll < 0.55:
                blocks.append(self.table())
            elif roll < 0.75:
                blocks.append(self.code())
            share = (target - self.words) // max(n_sections - s, 1)
            while share > 0:
                before = self.words
                blocks.append(self.paragraph(links))
                share -= self.words - before
        if links:
            blocks.append("Related: " + " ".join(links))
        return "\n\n".join(blocks) + "\n"


def render(seed: int, index: int, paths: Sequence[str], links: tuple[int, int] = LINKS) -> str:
    """The text of file number `index` of a corpus (deterministic for the seed)."""
    return _Writer(seed, index, paths, links).text(paths[index])


def _write_range(
    root: str, seed: int, paths: Sequence[str], lo: int, hi: int, links: tuple[int, int]
) -> None:
    base = Path(root)
    for i in range(lo, hi):
        target = base / paths[i]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(seed, i, paths, links), encoding="utf-8")


def corpus_dir(n_files: int, seed: int, links: tuple[int, int] = LINKS) -> Path:
    """Where the corpus of this size, seed (and link density, when not the default) is cached."""
    shape = "" if links == LINKS else f"-links{links[0]}-{links[1] - 1}"
    return CACHE / f"{n_files}-{seed}{shape}"


def ensure_corpus(
    n_files: int, seed: int = 7, workers: int | None = None, links: tuple[int, int] = LINKS
) -> Path:
    """The cached corpus folder, generated (in parallel) the first time."""
    final = corpus_dir(n_files, seed, links)
    if (final / _DONE).exists():
        return final
    chinese_words()  # warm the caches before forking workers
    english_words()
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    paths = plan(n_files, seed).paths
    workers = workers or os.cpu_count() or 1
    step = max(1, -(-n_files // (workers * 8)))
    ranges = [(i, min(i + step, n_files)) for i in range(0, n_files, step)]
    if workers > 1 and n_files >= 500:
        with ProcessPoolExecutor(workers) as pool:
            for f in [
                pool.submit(_write_range, str(tmp), seed, paths, a, b, links) for a, b in ranges
            ]:
                f.result()
    else:
        _write_range(str(tmp), seed, paths, 0, n_files, links)
    (tmp / _DONE).write_text(f"{n_files} files, seed {seed}\n")
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    return final


def corpus_paths(root: Path) -> list[str]:
    """Workspace-relative paths of the corpus's Markdown files, sorted."""
    return sorted(p.relative_to(root).as_posix() for p in root.glob("d*/**/*.md"))


def query_sets(seed: int, n: int = 200) -> tuple[list[str], list[str]]:
    """`n` queries of 1–4 corpus words, and `n` that each contain one of the 100 commonest."""
    rng = np.random.default_rng([seed, 2])
    en, zh = english_words(), chinese_words()

    def word() -> str:
        if rng.random() < 0.1:
            return zh[int(zipf_ranks(rng, 3000, 1)[0])]
        return en[int(rng.integers(100, 8000))]

    general = [" ".join(word() for _ in range(int(rng.integers(1, 5)))) for _ in range(n)]
    common = []
    for _ in range(n):
        words = [word() for _ in range(int(rng.integers(0, 4)))]
        words.insert(int(rng.integers(len(words) + 1)), en[int(rng.integers(100))])
        common.append(" ".join(words))
    return general, common


def mixed_queries(seed: int, n: int = 100) -> list[str]:
    """Issue 32's query shape: one of the 60 commonest words and 1–2 words ranked
    300–3,000, so each query matches many notes and the ranking has work to do."""
    rng = np.random.default_rng([seed, 3])
    en = english_words()
    out = []
    for _ in range(n):
        words = [en[int(rng.integers(300, 3000))] for _ in range(int(rng.integers(1, 3)))]
        words.insert(int(rng.integers(len(words) + 1)), en[int(rng.integers(60))])
        out.append(" ".join(words))
    return out
