"""Today's note and its neighbours: the daily note of a day where the workspace keeps them
(`obsidian_settings.daily_note_settings`), created when missing, and the previous or next
existing one from an open daily note.

Memory mode creates ReMe's day page `daily/YYYY-MM-DD.md` as `daily_write` keeps it (its
`notes:auto` list of the day's notes); a vault creates `folder/<format>.md` from the
daily-notes template, filled as Obsidian fills it, with no frontmatter of ours.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from datetime import date, datetime
from typing import TYPE_CHECKING

from reme_core.edit.file_ops import create
from reme_core.edit.note_jobs import refresh_day_index
from reme_core.edit.templates import fill_template, read_template
from reme_core.files.obsidian_settings import (
    DailyNoteSettings,
    TemplateSettings,
    daily_note_settings,
)
from reme_core.moment_dates import format_moment, parse_moment
from reme_core.ports import edit_index

if TYPE_CHECKING:
    from reme_core.ports import Facade


def daily_note_path(settings: DailyNoteSettings, day: date) -> str:
    """The workspace-relative path of `day`'s note."""
    name = f"{format_moment(settings.format, day)}.md"
    return posixpath.normpath(posixpath.join(settings.folder, name)) if settings.folder else name


def daily_note_date(settings: DailyNoteSettings, path: str) -> date | None:
    """The day a path is the daily note of, or None when it is not one."""
    if not path.endswith(".md"):
        return None
    prefix = f"{settings.folder}/" if settings.folder else ""
    if not path.startswith(prefix):
        return None
    return parse_moment(settings.format, path[len(prefix) : -3])


def adjacent_daily_note(
    paths: Iterable[str], settings: DailyNoteSettings, path: str, step: int
) -> str | None:
    """The existing daily note before (`step` -1) or after (+1) the one at `path` (or after /
    before today's date when `path` is no daily note)."""
    here = daily_note_date(settings, path) or date.today()
    dated = [(d, p) for p in paths if (d := daily_note_date(settings, p)) is not None]
    if step < 0:
        earlier = [x for x in dated if x[0] < here]
        return max(earlier)[1] if earlier else None
    later = [x for x in dated if x[0] > here]
    return min(later)[1] if later else None


def open_daily_note(workspace: Facade, day: date | None = None) -> tuple[str, bool]:
    """The path of `day`'s (today's) note, and whether it was created now."""
    ws = edit_index(workspace)
    now = datetime.now()
    day = day or now.date()
    settings = daily_note_settings(ws.root, ws.mode)
    rel = daily_note_path(settings, day)
    if (ws.root / rel).is_file():
        return rel, False
    if ws.mode != "vault":
        return refresh_day_index(workspace, day.isoformat()), True
    body = ""
    if settings.template:
        when = datetime.combine(day, now.time())
        formats = TemplateSettings("", settings.format)  # {{date}} in the daily format
        title = posixpath.basename(rel)[:-3]
        body = fill_template(read_template(ws.root, settings.template), title, when, formats)
    create(ws, rel, body=body)
    return rel, True
