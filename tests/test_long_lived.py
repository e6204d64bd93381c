"""Freezing the browser's long-lived structures for the collector must not keep a replaced
one alive: the files tree's folders form reference cycles that only the collector frees."""

from __future__ import annotations

import gc
import uuid

from reme_tui.long_lived import freeze_built
from reme_tui.widgets.files.model import FilesModel, Folder


def _folders_under(prefix: str) -> int:
    return sum(1 for o in gc.get_objects() if type(o) is Folder and o.path.startswith(prefix))


def test_a_replaced_files_tree_is_freed_at_the_next_freeze() -> None:
    prefix = f"leak-{uuid.uuid4().hex}"
    model = FilesModel((f"{prefix}/d{i % 40}/n{i}.md", 1.0) for i in range(1000))
    model.prepare()
    freeze_built()
    try:
        gc.unfreeze()
        assert _folders_under(prefix) > 40  # frozen with the model, and found
        gc.freeze()
        del model
        freeze_built()  # the next build: the old tree's cycles are collected, not frozen
        gc.unfreeze()
        assert _folders_under(prefix) == 0
    finally:
        gc.unfreeze()
