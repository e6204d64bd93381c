"""The words for a workspace's mode and its reason (`reme_core.WorkspaceMode`): one line for
stderr, a short form for the browser's header. The core decides; this says it."""

from __future__ import annotations

from reme_core import ModeReason, WorkspaceMode

_LAYERS_TEXT = "daily/, digest/ and resource/"


def _folders(names: tuple[str, ...]) -> str:
    return ", ".join(f"{n}/" for n in names)


def _left_out(choice: WorkspaceMode) -> str:
    """`notes/, README.md (and 2 more)`: what memory mode does not index at the top."""
    more = f" (and {choice.more_outside} more)" if choice.more_outside else ""
    return ", ".join(choice.outside) + more


def _why(choice: WorkspaceMode) -> str:
    """The reason, in a few words."""
    reason = choice.reason
    if reason is ModeReason.SETTING:
        return f"mode: {choice.mode} in reme.yaml"
    if reason is ModeReason.OBSIDIAN:
        return ".obsidian/ found"
    if reason is ModeReason.MEMORY_LAYERS:
        return f"{_folders(choice.layers)} found"
    if reason is ModeReason.REME_STATE:
        return "ReMe's state in metadata/ found"
    return "no .obsidian/ and no ReMe layer folder"


def mode_line(choice: WorkspaceMode) -> str:
    """One line saying which mode was chosen, why, and how to choose the other."""
    line = f"{choice.mode} mode ({_why(choice)})"
    if choice.mode == "vault":
        line += ": every note is indexed"
        if choice.reason is ModeReason.OBSIDIAN and (choice.layers or choice.reme_state):
            seen = _folders(choice.layers) or "ReMe's metadata/"
            line += f", {seen} included; `mode: memory` in reme.yaml makes it a ReMe workspace"
        return line
    line += f": only {_LAYERS_TEXT} are indexed"
    if choice.outside:
        line += f"; not indexed: {_left_out(choice)}"
        if choice.reason is not ModeReason.SETTING:
            line += " (`mode: vault` in reme.yaml indexes every note)"
    return line


def mode_badge(choice: WorkspaceMode) -> str:
    """The header's short form: `vault, .obsidian/ found`."""
    badge = f"{choice.mode}, {_why(choice)}"
    if choice.outside:
        count = len(choice.outside) + choice.more_outside
        badge += f", {count} top-level {'item' if count == 1 else 'items'} not indexed"
    return badge


def worth_saying(choice: WorkspaceMode) -> bool:
    """Whether a scripted command should say the mode on stderr: when the rule, not the
    owner's `mode:`, left notes out or read folders named like ReMe's as ordinary notes (the
    browser and `--reindex` always say it)."""
    if choice.reason is ModeReason.SETTING:
        return False
    mixed = choice.reason is ModeReason.OBSIDIAN and (choice.layers or choice.reme_state)
    return bool(choice.outside or mixed)
