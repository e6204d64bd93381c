"""Workspace settings: defaults from the spec, overridden by `reme.yaml`, then by the caller."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from reme_core.errors import ConfigError

CONFIG_FILE = "reme.yaml"
MEMORY_LAYERS = ("daily", "digest", "resource")


@dataclass(slots=True)
class SearchSettings:
    """Defaults of `search()` (SPEC §8)."""

    limit: int = 5
    min_score: float = 0.0
    vector_weight: float = 0.7
    candidate_multiplier: float = 5.0
    max_candidates: int = 200
    expand_links: bool = True
    max_links_per_direction: int = 10
    strict_dates: bool = False


@dataclass(slots=True)
class VectorSettings:
    """Optional vector recall (SPEC §7); off by default."""

    enabled: bool = False
    provider: str = "local"
    store: str = "exact"
    model: str = ""
    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    dimensions: int = 0
    batch_size: int = 64
    timeout: float = 30.0


@dataclass(slots=True)
class WatchSettings:
    """The live watcher (SPEC §10)."""

    quiet_ms: int = 300
    force_polling: bool = False


@dataclass(slots=True)
class Config:
    """Everything that decides what is indexed and how; `reme.yaml` may set any field."""

    mode: str = "auto"
    watch_dirs: list[str] | None = None
    watch_suffixes: list[str] = field(default_factory=lambda: [".md"])
    reindex_dirs: list[str] | None = None
    reindex_suffixes: list[str] = field(default_factory=lambda: [".md", ".jsonl"])
    encoding: str = "utf-8"
    invalid_encoding_policy: str = "replace"
    chunk_max_bytes: int = 4096
    max_file_bytes: int = 20 * 1024 * 1024
    use_jieba: bool = True
    link_resolution: str | None = None
    optimize_tombstone_ratio: float = 0.3
    read_max_lines: int = 2000
    workers: int = 0
    exclude: list[str] = field(default_factory=list)
    search: SearchSettings = field(default_factory=SearchSettings)
    vectors: VectorSettings = field(default_factory=VectorSettings)
    watch: WatchSettings = field(default_factory=WatchSettings)

    def resolved_mode(self, root: Path) -> str:
        """`memory` when any memory layer folder exists, else `vault` (unless set explicitly)."""
        if self.mode in ("memory", "vault"):
            return self.mode
        return "memory" if any((root / d).is_dir() for d in MEMORY_LAYERS) else "vault"

    def resolved_link_resolution(self, mode: str) -> str:
        """Obsidian resolution is the default in vault mode only (ReMe keeps literal paths)."""
        if self.link_resolution:
            return self.link_resolution
        return "obsidian" if mode == "vault" else "literal"


_NESTED = {"search": SearchSettings, "vectors": VectorSettings, "watch": WatchSettings}
_CHOICES = {
    "mode": ("auto", "memory", "vault"),
    "invalid_encoding_policy": ("replace", "strict"),
    "link_resolution": ("literal", "obsidian"),
}


def _coerce(name: str, value: Any, default: Any) -> Any:
    """Check a value against the type of its default; YAML ints are accepted where floats are."""
    if name in _CHOICES and value not in _CHOICES[name]:
        raise ConfigError(f"{name}: must be one of {', '.join(_CHOICES[name])}, got {value!r}")
    if value is None:
        return value
    if isinstance(default, bool) and not isinstance(value, bool):
        raise ConfigError(f"{name}: expected true or false, got {value!r}")
    if (
        isinstance(default, float)
        and isinstance(value, (int, float))
        and not isinstance(value, bool)
    ):
        return float(value)
    if (
        isinstance(default, int)
        and not isinstance(default, bool)
        and (not isinstance(value, int) or isinstance(value, bool))
    ):
        raise ConfigError(f"{name}: expected a whole number, got {value!r}")
    if isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"{name}: expected text, got {value!r}")
    if name.endswith(("_dirs", "_suffixes")) or name == "exclude":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{name}: expected a list of strings, got {value!r}")
        if name.endswith("_suffixes"):
            value = [v if v.startswith(".") else f".{v}" for v in value]
    return value


def _apply(target: Any, values: dict[str, Any], where: str) -> None:
    known = {f.name: f for f in fields(target)}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown key {key!r}")
        current = getattr(target, key)
        if key in _NESTED and target.__class__ is Config:
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: {key} must be a mapping")
            _apply(current, value, f"{where}: {key}")
            continue
        setattr(target, key, _coerce(key, value, current))


def load_config(root: Path, overrides: dict[str, Any] | None = None) -> Config:
    """Defaults, then `reme.yaml` at the workspace root, then `overrides` (CLI flags)."""
    config = Config()
    path = root / CONFIG_FILE
    if path.is_file():
        import yaml  # only when there is a file to read: it is a noticeable part of start-up

        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{CONFIG_FILE}: not valid YAML ({exc.__class__.__name__})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{CONFIG_FILE}: must be a mapping of settings")
        _apply(config, data, CONFIG_FILE)
    if overrides:
        _apply(config, overrides, "option")
    return config


def config_to_dict(config: Config) -> dict[str, Any]:
    """Plain dict of the settings (for `stats --json` and stored fingerprints)."""
    return dataclasses.asdict(config)
