"""Large structures the browser keeps, left out of the cyclic collector's full passes.

The collector's full pass walks every container object the process holds, with the GIL held:
at 50k notes the index, the switcher's ranker (50k entries and their word lists) and the files
tree made it 0.3 s idle and 2.5-3 s under load, every few of the watcher's batches. Once such
a structure is built it is frozen (`gc.freeze`), so the collector's own passes skip it.

Frozen objects are never collected, and a structure replaced later can hold reference cycles
(the files tree's folders point at their parents): each freeze first thaws what the last one
froze and collects once, so a replaced structure is freed at the next build instead of kept
for the life of the process. One full pass per build, in the worker that built it.
"""

from __future__ import annotations

import gc


def freeze_built() -> None:
    """A long-lived structure was just built: collect what died since the last freeze, then
    freeze what the process holds now."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
