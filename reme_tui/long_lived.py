"""Large structures the browser keeps, left out of the cyclic collector's full passes.

The collector's full pass walks every container object the process holds, with the GIL held:
at 50k notes the index, the switcher's ranker (50k entries and their word lists) and the files
tree made it 0.3 s idle and 2.5-3 s under load, every few of the watcher's batches. Once such
a structure is built it is frozen (`gc.freeze`): reference counting still frees it when it is
replaced (none of them holds a reference cycle), only the full passes skip it.
"""

from __future__ import annotations

import gc


def built() -> None:
    """A long-lived structure was just built: freeze what the process holds now."""
    gc.freeze()
