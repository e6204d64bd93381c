"""Obsidian's core Templates: the notes of the templates folder, and their placeholders filled
as the plugin fills them: `{{title}}` (the new note's name), `{{date}}` and `{{time}}` (in the
settings' `dateFormat` / `timeFormat`), `{{date:FORMAT}}` and `{{time:FORMAT}}` (Moment formats).
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path

from reme_core.errors import RemeError
from reme_core.files.obsidian_settings import TemplateSettings, template_settings
from reme_core.files.paths import resolve_inside
from reme_core.moment_dates import format_moment

MAX_TEMPLATES = 500
MAX_TEMPLATE_DEPTH = 8
MAX_TEMPLATE_BYTES = 1024 * 1024
_PLACEHOLDER = re.compile(r"\{\{\s*(title|date|time)\s*(?::([^}]*))?\}\}", re.IGNORECASE)


def fill_template(text: str, title: str, when: datetime, settings: TemplateSettings) -> str:
    """`text` with its placeholders replaced (unknown `{{...}}` stay as written)."""

    def value(m: re.Match[str]) -> str:
        what, fmt = m.group(1).lower(), m.group(2)
        if what == "title":
            return title
        default = settings.date_format if what == "date" else settings.time_format
        return format_moment(fmt.strip() if fmt and fmt.strip() else default, when)

    return _PLACEHOLDER.sub(value, text)


def list_templates(root: Path, settings: TemplateSettings) -> list[str]:
    """The Markdown files under the templates folder (workspace-relative, sorted; bounded in
    count and depth; dot-names and symlinks skipped)."""
    if not settings.folder:
        return []
    try:
        base = resolve_inside(root, settings.folder)
    except RemeError:  # a folder setting outside the vault is no folder
        return []
    found: list[str] = []
    for folder, dirs, files in os.walk(base):
        depth = len(Path(folder).relative_to(base).parts)
        deeper = depth < MAX_TEMPLATE_DEPTH
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if deeper else []
        for name in sorted(files):
            full = Path(folder) / name
            if name.endswith(".md") and not name.startswith(".") and not full.is_symlink():
                found.append(full.relative_to(root).as_posix())
                if len(found) >= MAX_TEMPLATES:
                    return sorted(found)
    return sorted(found)


def read_template(root: Path, rel: str) -> str:
    """A template's text ("" when it cannot be read: a missing template makes an empty note,
    as in Obsidian)."""
    if not rel.endswith(".md"):
        rel += ".md"
    try:
        full = resolve_inside(root, rel)
        if full.is_symlink() or not full.is_file():
            return ""
        with full.open("rb") as fh:
            data = fh.read(MAX_TEMPLATE_BYTES)
        return data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n")
    except (OSError, RemeError):
        return ""


def template_body(root: Path, template: str, title: str, when: datetime | None = None) -> str:
    """A new note's text from the vault template `template`, for a note titled `title`."""
    settings = template_settings(root)
    return fill_template(read_template(root, template), title, when or datetime.now(), settings)
