"""The user's browser settings, kept across sessions in `settings.yaml` under the user config
folder (`platformdirs.user_config_path("reme-tui")`): theme, keymap, links-pane and reader
defaults. A bad entry is reported with the file, line and key and left at its default, so a
typo never keeps the browser from opening.

```yaml
theme: nord
keymap:               # binding id: keys (comma-separated), as `reme-tui` names them
  focus_search: ctrl+f
  back: b,alt+left
links_pane: auto      # auto (hidden below 110 columns) | show | hide
reader_mode: source   # source (numbered lines) | rendered
```
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reme_core.config import read_yaml
from reme_core.errors import ConfigError

SETTINGS_NAME = "settings.yaml"
_CHOICES = {"links_pane": ("auto", "show", "hide"), "reader_mode": ("source", "rendered")}
_KEY = re.compile(r"^[^\s,]+$")
TEMPLATE = """\
# reme-tui browser settings (https://yaml.org); the browser writes `theme:` when you change it.
# theme: textual-dark
# keymap:             # binding id: keys, comma-separated
#   focus_search: ctrl+f
# links_pane: auto    # auto | show | hide
# reader_mode: source # source | rendered
"""


def settings_path() -> Path:
    """Where the settings live (`$XDG_CONFIG_HOME/reme-tui/settings.yaml` on Linux)."""
    from platformdirs import user_config_path

    return user_config_path("reme-tui") / SETTINGS_NAME


@dataclass(slots=True)
class UserSettings:
    """What the browser reads at start; `problems` are messages naming file, line and key."""

    path: Path
    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    links_pane: str = "auto"
    reader_mode: str = "source"
    problems: list[str] = field(default_factory=list)


def load_settings(
    path: Path | None = None,
    *,
    binding_ids: Collection[str] = (),
    themes: Collection[str] = (),
) -> UserSettings:
    """Read the settings file (absent: defaults). Keymap ids are checked against
    `binding_ids` and the theme against `themes` when they are given."""
    settings = UserSettings(path or settings_path())
    if not settings.path.is_file():
        return settings
    try:
        data, lines = read_yaml(settings.path)
    except ConfigError as exc:
        settings.problems.append(f"{exc}; using the default settings")
        return settings
    if data is None:
        return settings
    if not isinstance(data, dict):
        settings.problems.append(f"{settings.path}: must be a mapping of settings (key: value)")
        return settings

    def problem(key: str, text: str) -> None:
        where = f"{settings.path}:{lines[key]}" if key in lines else str(settings.path)
        settings.problems.append(f"{where}: {key}: {text}")

    for key, value in data.items():
        if key == "theme":
            if not isinstance(value, str) or (themes and value not in themes):
                problem(key, f"unknown theme {value!r} (the palette's Theme lists them)")
            else:
                settings.theme = value
        elif key == "keymap":
            settings.keymap = _keymap(value, binding_ids, problem)
        elif key in _CHOICES:
            if value not in _CHOICES[key]:
                problem(key, f"must be one of {', '.join(_CHOICES[key])}, got {value!r}")
            else:
                setattr(settings, key, value)
        else:
            problem(str(key), "unknown key (known: theme, keymap, links_pane, reader_mode)")
    return settings


def _keymap(value: Any, binding_ids: Collection[str], problem: Any) -> dict[str, str]:
    """The valid entries of a keymap mapping; each bad one reported on its own line."""
    if not isinstance(value, dict):
        problem("keymap", "must be a mapping of binding id: keys")
        return {}
    keymap: dict[str, str] = {}
    for binding_id, keys in value.items():
        name = f"keymap.{binding_id}"
        if binding_ids and binding_id not in binding_ids:
            problem(name, f"unknown binding id (known: {', '.join(sorted(binding_ids))})")
        elif not isinstance(keys, str) or not all(_KEY.match(k) for k in keys.split(",")):
            problem(name, f"expected keys such as ctrl+f or f6,alt+left, got {keys!r}")
        else:
            keymap[binding_id] = keys
    return keymap


def save_setting(path: Path, key: str, value: str) -> None:
    """Set one top-level scalar setting, keeping the rest of the file (comments included):
    its line is replaced, or appended. Written to a temporary file, then renamed over."""
    import yaml

    line = yaml.safe_dump({key: value}, default_flow_style=True, allow_unicode=True)
    line = line.strip().removeprefix("{").removesuffix("}") + "\n"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = TEMPLATE
    pattern = re.compile(rf"^{re.escape(key)}\s*:.*$\n?", re.MULTILINE)
    if pattern.search(text):
        text = pattern.sub(lambda _: line, text, count=1)
    else:
        text = text + ("" if not text or text.endswith("\n") else "\n") + line
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def ensure_settings_file(path: Path) -> Path:
    """The settings file, created from the commented template when it does not exist yet."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(TEMPLATE, encoding="utf-8")
    return path
