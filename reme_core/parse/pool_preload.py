"""Imported once by the pool's forkserver, so forked workers start with the parsing stack loaded.

Each worker used to import reme_core and load jieba's dictionary itself (~1.1 s and ~150 MB per
worker). Loaded here once, the workers get it copy-on-write at fork; `gc.freeze` keeps the
collector from touching (and so copying) those pages in every worker.
"""

from __future__ import annotations

import gc

from reme_core.parse.pool_worker import start_worker  # noqa: F401  (the workers' initializer)
from reme_core.text.tokenizer import tokenizer_for

tokenizer_for(True, "english").tokenize("warm up 预热")  # jieba and the stemmer
gc.freeze()
