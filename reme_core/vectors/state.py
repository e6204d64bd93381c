"""Where vector recall stands, as data (`VectorStatus`): `reme_tui.text` says it in words."""

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
