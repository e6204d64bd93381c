"""Obsidian's core-plugin settings that say where notes go: daily notes
(`.obsidian/daily-notes.json`: `folder`, Moment `format`, `template`) and templates
(`.obsidian/templates.json`: `folder`, `dateFormat`, `timeFormat`).

Read only, bounded, never through a symlink; a missing or unreadable file, or a value of the
wrong type, is Obsidian's default (it behaves the same way with a broken settings file).
Memory mode has no Obsidian settings: ReMe's daily layer is `daily/YYYY-MM-DD.md`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reme_core.files.state_files import SAFE_OPEN

DAILY_SETTINGS = ".obsidian/daily-notes.json"
TEMPLATE_SETTINGS = ".obsidian/templates.json"
DEFAULT_DATE = "YYYY-MM-DD"
DEFAULT_TIME = "HH:mm"
MEMORY_DAILY_FOLDER = "daily"  # ReMe's daily layer (see `edit.note_jobs.DAILY_DIR`)
_MAX_SETTINGS_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class DailyNoteSettings:
    """Where daily notes live: `folder/<date in format>.md`, made from `template` when set."""

    folder: str = ""
    format: str = DEFAULT_DATE
    template: str = ""


@dataclass(frozen=True, slots=True)
class TemplateSettings:
    """The templates folder ("" when the plugin is not set up) and the formats `{{date}}` and
    `{{time}}` are written in."""

    folder: str = ""
    date_format: str = DEFAULT_DATE
    time_format: str = DEFAULT_TIME


def daily_note_settings(root: Path, mode: str) -> DailyNoteSettings:
    """The workspace's daily-note settings: ReMe's layout in memory mode, else Obsidian's."""
    if mode != "vault":
        return DailyNoteSettings(MEMORY_DAILY_FOLDER)
    data = read_settings(root / DAILY_SETTINGS)
    return DailyNoteSettings(
        _folder(data.get("folder")),
        _text(data.get("format")) or DEFAULT_DATE,
        _text(data.get("template")).strip(),
    )


def template_settings(root: Path) -> TemplateSettings:
    """The vault's Templates settings (an empty folder: none)."""
    data = read_settings(root / TEMPLATE_SETTINGS)
    return TemplateSettings(
        _folder(data.get("folder")),
        _text(data.get("dateFormat")) or DEFAULT_DATE,
        _text(data.get("timeFormat")) or DEFAULT_TIME,
    )


def read_settings(path: Path) -> dict[str, Any]:
    """A settings file's JSON object, or {} for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | SAFE_OPEN)
    except OSError:
        return {}
    try:
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read(_MAX_SETTINGS_BYTES + 1)
        data = json.loads(raw.decode("utf-8-sig")) if len(raw) <= _MAX_SETTINGS_BYTES else {}
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _folder(value: object) -> str:
    """A folder setting as a relative path without slashes at the ends ("/" is the root)."""
    return _text(value).strip().strip("/")
