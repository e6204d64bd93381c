"""Which files belong to the index: memory layers or a whole vault, minus ignored paths."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from reme_core.config import Config
from reme_core.files.excludes import Excludes
from reme_core.files.folder_cache import FolderCache
from reme_core.files.folder_walk import FolderWalk, Hook
from reme_core.files.paths import CASELESS, MAX_DEPTH, state_dir_name
from reme_core.files.scope import Found, Listing, Scope
from reme_core.files.text_decode import shown_name
from reme_core.files.workspace_mode import WorkspaceMode, choose_mode

WATCH_LAYERS = ("daily", "digest")
REINDEX_LAYERS = ("daily", "digest", "resource")


def scopes_for(root: Path, config: Config) -> tuple[WorkspaceMode, Scope, Scope]:
    """(mode and why, live/start-up scope, rebuild scope) for a workspace (SPEC §1, §14)."""
    chosen = choose_mode(root, config)
    mode = chosen.mode
    state = state_dir_name(mode)
    # A vault's .gitignore is its owner's word on what is not notes; a ReMe workspace has none.
    excludes = Excludes.for_workspace(root, config.exclude, gitignore=mode == "vault")
    watch_dirs: Sequence[str]
    rebuild_dirs: Sequence[str]
    if mode == "memory":
        watch_dirs, suffixes = config.watch_dirs or WATCH_LAYERS, config.watch_suffixes
        rebuild_dirs, rebuild_suffixes = (
            config.reindex_dirs or REINDEX_LAYERS,
            config.reindex_suffixes,
        )
    else:
        watch_dirs, suffixes = config.watch_dirs or ("",), config.watch_suffixes
        rebuild_dirs, rebuild_suffixes = config.reindex_dirs or ("",), config.watch_suffixes
    watch = Scope(tuple(watch_dirs), tuple(suffixes), state, excludes)
    rebuild = Scope(tuple(rebuild_dirs), tuple(rebuild_suffixes), state, excludes)
    return chosen, watch, rebuild


def scan(
    root: Path, scope: Scope, *, when_many: tuple[int, Callable[[], None]] | None = None
) -> Found:
    """Walk the scope's folders; follow symlinks only while their real path stays inside.

    ``when_many`` is (n, fn): ``fn`` is called once, as soon as n files are found (a rebuild
    starts its process pool's server then, so it loads while the walk goes on).
    """
    return list_files(root, scope, when_many=when_many).found()


def list_files(
    root: Path,
    scope: Scope,
    *,
    when_many: tuple[int, Callable[[], None]] | None = None,
    every: tuple[int, Callable[[Listing], None]] | None = None,
    cache: FolderCache | None = None,
) -> Listing:
    """`scan` as a `Listing`; ``every`` is (n, fn): ``fn(listing so far)`` is called each
    time n more files were found (the scan ahead sends its listing in parts). With a
    ``cache``, an unchanged folder is not read again, and the folders read are recorded in
    it (the caller saves it): the listing is the same either way."""
    found = Listing()
    hooks = []
    if when_many is not None:
        n, fn = when_many
        hooks.append(Hook(n, 0, lambda _found: fn()))
    if every is not None:
        hooks.append(Hook(every[0], every[0], every[1]))
    walk = FolderWalk(root.resolve(), scope, found, hooks, cache)
    for top in sorted(set(scope.dirs)):
        start = root / top if top else root
        if top and (scope.ignores(top) or _excluded_dir(scope, top)):
            continue  # every path below it is ignored
        if top.count("/") >= MAX_DEPTH:
            found.too_deep.append(shown_name(top))
            continue
        if start.is_dir():
            walk.walk(str(start), top)
    if when_many is not None and hooks[0].at <= len(found.paths):  # reached in the last folder
        hooks[0].fn(found)
    return found


def list_files_cached(root: Path, scope: Scope) -> Listing:
    """`list_files` through the folder cache of ``scope``, saved after the walk."""
    cache = folder_cache(root, scope)
    found = list_files(root, scope, cache=cache)
    cache.save()
    return found


def folder_cache(root: Path, scope: Scope) -> FolderCache:
    """The folder cache of walks of ``scope`` in ``root``: one made by walks of another
    scope (folders, suffixes, state folder, excludes) is not used."""
    rules = scope.excludes.patterns if scope.excludes is not None else ()
    choices = [scope.dirs, scope.suffixes, scope.state_dir, rules, MAX_DEPTH, CASELESS]
    return FolderCache.load(root, scope.state_dir, json.dumps(choices))


def _excluded_dir(scope: Scope, rel: str) -> bool:
    return scope.excludes is not None and scope.excludes.excludes(rel, is_dir=True)
