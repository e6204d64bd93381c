"""What the browser's header, the CLI's status lines and their warnings say about where the
workspace stands: vector recall, from the core's `VectorStatus`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reme_core import VectorStatus


def vectors_line(status: VectorStatus) -> str:
    """The status as one line for the header and the CLI."""
    from reme_core import VectorState  # the enum only: its module loads nothing else

    match status.state:
        case VectorState.OFF:
            return "vectors off"
        case VectorState.UNAVAILABLE:
            return f"vectors unavailable: {status.reason}"
        case VectorState.STARTING:
            return f"vectors: starting {status.provider}"
        case VectorState.EMBEDDING:
            return f"vectors: embedding {status.done}/{status.total}"
    return f"vectors on ({status.provider}, {status.store})"


def keyword_only_warning(status: VectorStatus) -> str:
    """The CLI's warning when a search asked for vectors and could not have them."""
    return f"reme-tui: warning: {vectors_line(status)}; keyword search only"


VECTORS_SWITCHING = "vectors: switching…"
"""The header's word while a toggle of vector recall runs (it may load a model)."""
