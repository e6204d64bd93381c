"""Work-arounds for Textual bugs the browser meets, each named by its upstream issue.

Each applies only where the bug's shape is found, so a Textual that fixed it is left alone.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any


def unpin_styles_caches() -> bool:
    """Stop Textual's colour cache from keeping dead widgets' rendered lines alive.

    Textual issue #6665: `StylesCache.get_inner_outer` is an instance method under
    `lru_cache(1024)`, so the cache's keys hold the last 1,024 `StylesCache`s, each with its
    widget's rendered lines (`Strip`s, each with its own small caches). Every results list,
    dialog and reader the browser drops stays pinned: most of what a full GC pass walks at
    small sizes, and memory that only grows. The answer depends on the two colours alone, so
    they alone are the key here. Returns whether the fix was applied (now or before).
    """
    try:
        from textual._styles_cache import StylesCache
    except ImportError:  # a Textual that moved its private module: nothing to fix there
        return False
    cached = StylesCache.__dict__.get("get_inner_outer")
    if getattr(cached, "_reme_unpinned", False):
        return True
    original: Callable[..., Any] | None = getattr(cached, "__wrapped__", None)
    if original is None or not hasattr(cached, "cache_clear"):
        return False  # not the cached instance method of #6665
    if list(inspect.signature(original).parameters) != ["cls", "base_background", "background"]:
        return False  # another shape: its body may use the instance

    @functools.lru_cache(1024)
    def by_colours(base_background: Any, background: Any) -> Any:
        return original(None, base_background, background)

    def get_inner_outer(self: Any, base_background: Any, background: Any) -> Any:
        return by_colours(base_background, background)

    get_inner_outer._reme_unpinned = True  # type: ignore[attr-defined]
    StylesCache.get_inner_outer = get_inner_outer  # type: ignore[method-assign,assignment]
    cached.cache_clear()  # type: ignore[union-attr]
    return True
