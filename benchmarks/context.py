"""What every benchmark scenario shares: the corpus context, a result, the CLI, timing."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.corpus import LINKS, ensure_corpus
from benchmarks.measure import percentile


@dataclass(slots=True)
class Context:
    """What every scenario needs: the corpus, how hard to try, and earlier results."""

    n_files: int
    seed: int = 7
    runs: int = 3
    quick: bool = False
    scratch: Path = Path("/tmp/reme-bench")
    links: tuple[int, int] = LINKS  # links per note (corpus.DENSE_LINKS: the dense corpus)
    results: dict[str, Result] = field(default_factory=dict)
    _root: Path | None = None

    @property
    def root(self) -> Path:
        """The cached corpus, generated on first use."""
        if self._root is None:
            self._root = ensure_corpus(self.n_files, self.seed, links=self.links)
        return self._root

    def indexed_root(self) -> Path:
        """The corpus with a persisted index (built in-process when missing)."""
        from reme_core import Workspace

        root = self.root
        if not (root / "metadata" / "index.sqlite").exists():
            Workspace.open(root).close()
        return root

    def copy(self, name: str) -> Path:
        """A fresh, indexed copy of the corpus that a scenario may modify."""
        src = self.indexed_root()
        dst = self.scratch / f"{self.root.name}-{name}"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(src, dst)
        return dst


@dataclass(slots=True)
class Result:
    """One scenario's numbers (name -> value) and notes; `status` is ok, skipped or pending."""

    scenario: str
    metrics: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    status: str = "ok"


def cli() -> list[str]:
    """The real `reme-tui` entry point: the script installed beside this interpreter (what a
    venv runs; a version manager's shim on PATH, such as pyenv's, adds its own start-up), else
    the one on PATH, else the module."""
    beside = Path(sys.executable).with_name("reme-tui")
    exe = str(beside) if beside.is_file() else shutil.which("reme-tui")
    return [exe] if exe else [sys.executable, "-m", "reme_tui"]


def lat(prefix: str, seconds: list[float], out: dict[str, float]) -> None:
    ms = [s * 1000 for s in seconds]
    out[f"{prefix}_p50_ms"] = percentile(ms, 50)
    out[f"{prefix}_p95_ms"] = percentile(ms, 95)


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0
