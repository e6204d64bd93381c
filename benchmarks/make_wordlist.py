"""Regenerate ``words_en.txt``: English words from docstrings and comments of installed code.

There is no system dictionary on the benchmark machine, so the corpus draws from the prose in
the standard library and a few documented scientific packages. Words are kept in descending
frequency order, which is the rank order the corpus generator's Zipf law follows. The file is
committed, so the corpus does not depend on what is installed; this script only documents
where it came from (``python -m benchmarks.make_wordlist``).
"""

from __future__ import annotations

import collections
import importlib.util
import io
import re
import sysconfig
import tokenize
from pathlib import Path

PACKAGES = ("numpy", "scipy", "docutils", "pygments", "textual", "rich", "hypothesis")
SKIP_PARTS = {"test", "tests", "idle_test", "site-packages", "vendored", "_vendor"}
MAX_WORDS = 20_000
_WORD = re.compile(r"(?<![\w.])[A-Za-z][a-z]{1,17}(?![\w(])")
OUT = Path(__file__).with_name("words_en.txt")


def _roots() -> list[Path]:
    roots = [Path(sysconfig.get_paths()["stdlib"])]
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec and spec.submodule_search_locations:
            roots.append(Path(next(iter(spec.submodule_search_locations))))
    return roots


def _prose(path: Path) -> list[str]:
    """Docstrings and comments of one source file (code identifiers are not English)."""
    try:
        src = path.read_text("utf-8")
        tokens = list(tokenize.generate_tokens(io.StringIO(src).readline))
    except (OSError, UnicodeDecodeError, SyntaxError, tokenize.TokenError):
        return []
    out = []
    for tok in tokens:
        if tok.type == tokenize.COMMENT or (
            tok.type == tokenize.STRING and tok.string.lstrip("rbuRBU").startswith(('"""', "'''"))
        ):
            out.append(tok.string)
    return out


def collect() -> list[str]:
    """Distinct lower-case words seen at least twice, most frequent first (ties by spelling)."""
    counts: collections.Counter[str] = collections.Counter()
    for root in _roots():
        for path in sorted(root.rglob("*.py")):
            if SKIP_PARTS & set(path.relative_to(root).parts):
                continue
            for text in _prose(path):
                counts.update(w.lower() for w in _WORD.findall(text))
    ranked = sorted((w for w, n in counts.items() if n >= 2), key=lambda w: (-counts[w], w))
    return ranked[:MAX_WORDS]


if __name__ == "__main__":
    words = collect()
    OUT.write_text("\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT}")
