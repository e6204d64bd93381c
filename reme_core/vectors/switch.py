"""Vector recall turned on and off while a workspace is open (`Workspace.toggle_vectors`)."""

from __future__ import annotations

from reme_core.ports import VectorHost
from reme_core.vectors.vector_index import VectorIndex


def switched(
    host: VectorHost, current: VectorIndex | None, enabled: bool | None
) -> VectorIndex | None:
    """The host's vector recall after switching it (`enabled` None flips it), recorded in
    its settings: a new `VectorIndex` started with its health check run here (it may load
    a model), the current one closed, or an unavailable one checked again."""
    if enabled is None:
        enabled = current is None
    if not enabled and current is not None:
        current.close()
        current = None
    elif enabled and current is None:
        current = VectorIndex(host)
        current.start(check_now=True)
    elif enabled and current is not None:
        current.retry()
    host.config.vectors.enabled = enabled
    return current
