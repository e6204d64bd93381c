"""Where vector recall stands, as data (`VectorStatus`), and the one sentence made from it."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class VectorState(enum.Enum):
    """The phases of vector recall: off, starting (health check), embedding (searches use
    vectors while the backfill runs), on, unavailable (keyword search only)."""

    OFF = "off"
    STARTING = "starting"
    EMBEDDING = "embedding"
    ON = "on"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True, slots=True)
class VectorStatus:
    """A `VectorState` with its progress (chunks with a vector of live chunks), the
    provider and store kind, and why it is unavailable."""

    state: VectorState
    done: int = 0
    total: int = 0
    provider: str = ""
    store: str = ""
    reason: str = ""

    @property
    def ok(self) -> bool:
        """Whether nothing is wrong (off, starting, embedding or on)."""
        return self.state is not VectorState.UNAVAILABLE


OFF = VectorStatus(VectorState.OFF)


def describe_vectors(status: VectorStatus) -> str:
    """The status as one line for the header and the CLI."""
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
