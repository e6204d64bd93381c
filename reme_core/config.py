"""Workspace settings: defaults from the spec, overridden by `reme.yaml`, then by the caller."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from reme_core.errors import ConfigError

CONFIG_FILE = "reme.yaml"
MEMORY_LAYERS = ("daily", "digest", "resource")


# The ways the two branches make one ranking (`reme_core.vectors.fusion`), named here so that
# reading a config loads no vector module (nor numpy, before a command sets its BLAS threads).
FUSIONS = ("guarded", "convex", "rrf")
DEFAULT_FUSION = "guarded"


@dataclass(slots=True)
class SearchSettings:
    """Defaults of `search()` (SPEC §8)."""

    limit: int = 5
    min_score: float = 0.0
    vector_weight: float = 0.7  # the vector branch's weight in `rrf` fusion
    fusion: str = DEFAULT_FUSION  # how both branches make one ranking: see vectors/fusion.py
    candidate_multiplier: float = 5.0
    max_candidates: int = 200
    expand_links: bool = True
    max_links_per_direction: int = 10
    name_weight: float = 2.0  # a note's name field, added to its best chunk (0: off)
    property_weight: float = 0.5  # its property values' field, likewise (0: off)
    strict_date_filter: bool = False  # memory mode: a date filter drops undated notes too


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
    stemmer: str = "english"
    link_resolution: str | None = None
    optimize_tombstone_ratio: float = 0.3
    read_max_lines: int = 2000
    workers: int = 0
    exclude: list[str] = field(default_factory=list)
    search: SearchSettings = field(default_factory=SearchSettings)
    vectors: VectorSettings = field(default_factory=VectorSettings)
    watch: WatchSettings = field(default_factory=WatchSettings)

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
    "stemmer": ("english", "none"),
    "search.fusion": FUSIONS,
    "vectors.provider": ("local", "openai"),
    "vectors.store": ("exact", "faiss"),
}


@dataclass(frozen=True, slots=True)
class _Range:
    """The numbers a setting accepts: from `low` (excluded when `strict`) up to `high`."""

    low: float
    high: float | None = None
    strict: bool = False

    def holds(self, value: float) -> bool:
        if value != value:  # NaN compares false with everything
            return False
        above = value > self.low if self.strict else value >= self.low
        return above and (self.high is None or value <= self.high)

    def text(self) -> str:
        if self.high is not None:
            return f"between {self.low:g} and {self.high:g}"
        return f"greater than {self.low:g}" if self.strict else f"at least {self.low:g}"


_POSITIVE, _COUNT, _AT_LEAST_ONE = _Range(0, strict=True), _Range(0), _Range(1)
_RANGES = {
    "chunk_max_bytes": _POSITIVE,
    "max_file_bytes": _POSITIVE,
    "optimize_tombstone_ratio": _Range(0, 1),
    "read_max_lines": _AT_LEAST_ONE,
    "workers": _COUNT,
    "search.limit": _AT_LEAST_ONE,
    "search.vector_weight": _Range(0, 1),
    "search.candidate_multiplier": _POSITIVE,
    "search.max_candidates": _AT_LEAST_ONE,
    "search.max_links_per_direction": _AT_LEAST_ONE,
    "search.name_weight": _COUNT,
    "search.property_weight": _COUNT,
    "vectors.dimensions": _COUNT,
    "vectors.batch_size": _AT_LEAST_ONE,
    "vectors.timeout": _POSITIVE,
    "watch.quiet_ms": _COUNT,
}


def _coerce(name: str, value: Any, default: Any) -> Any:
    """Check a value against the type of its default and its range; YAML ints are accepted
    where floats are. `name` is the dotted key (`search.limit`)."""
    if name in _CHOICES and value not in _CHOICES[name]:
        raise ConfigError(f"{name}: must be one of {', '.join(_CHOICES[name])}, got {value!r}")
    if value is None:
        return value
    if isinstance(default, bool) and not isinstance(value, bool):
        raise ConfigError(f"{name}: expected true or false, got {value!r}")
    if isinstance(default, float) and not isinstance(default, bool):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ConfigError(f"{name}: expected a number, got {value!r}")
        value = float(value)
    if (
        isinstance(default, int)
        and not isinstance(default, bool)
        and (not isinstance(value, int) or isinstance(value, bool))
    ):
        raise ConfigError(f"{name}: expected a whole number, got {value!r}")
    if name in _RANGES and not _RANGES[name].holds(value):
        raise ConfigError(f"{name}: must be {_RANGES[name].text()}, got {value!r}")
    if isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"{name}: expected text, got {value!r}")
    if name == "encoding":
        import codecs

        try:
            codecs.lookup(value)
        except LookupError:
            raise ConfigError(f"{name}: unknown encoding {value!r}") from None
    if name.endswith(("_dirs", "_suffixes")) or name == "exclude":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{name}: expected a list of strings, got {value!r}")
        if name.endswith("_suffixes"):
            value = [v if v.startswith(".") else f".{v}" for v in value]
    return value


def _apply(
    target: Any, values: dict[str, Any], source: str, lines: dict[str, int], prefix: str = ""
) -> None:
    """Set `values` on `target`; an error names `source` (the file or "option"), the line of
    the offending key when known, and the dotted key."""
    known = {f.name: f for f in fields(target)}
    for key, value in values.items():
        name = f"{prefix}{key}"
        where = f"{source}:{lines[name]}" if name in lines else source
        if not isinstance(key, str) or key not in known:
            raise ConfigError(f"{where}: unknown key {name!r}")
        current = getattr(target, key)
        if key in _NESTED and target.__class__ is Config:
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: {name} must be a mapping of settings")
            _apply(current, value, source, lines, f"{name}.")
            continue
        try:
            setattr(target, key, _coerce(name, value, current))
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None


def _key_lines(node: Any, path: Path, prefix: str = "") -> dict[str, int]:
    """Line (1-based) of every mapping key in a composed YAML node, by dotted name; a key given
    twice is an error (YAML would silently keep the last)."""
    import yaml

    lines: dict[str, int] = {}
    if not isinstance(node, yaml.MappingNode):
        return lines
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        name = f"{prefix}{key_node.value}"
        line = key_node.start_mark.line + 1
        if name in lines:
            raise ConfigError(f"{path}:{line}: {name} is given twice (first on line {lines[name]})")
        lines[name] = line
        if not prefix:
            lines.update(_key_lines(value_node, path, f"{name}."))
    return lines


def read_yaml(path: Path) -> tuple[Any, dict[str, int]]:
    """The file's data and the line of each key by dotted name (`search.limit`); a syntax error
    names the file, line and column. Shared with the browser's user settings."""
    import yaml  # only when there is a file to read: it is a noticeable part of start-up

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark, start = exc.problem_mark or exc.context_mark, exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = exc.problem or exc.context or "syntax error"
        if exc.problem and exc.context and start is not None:
            problem += f" ({exc.context} from line {start.line + 1}, column {start.column + 1})"
        raise ConfigError(f"{where}: not valid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    finally:
        loader.dispose()
    return data, _key_lines(node, path)


def load_config(root: Path, overrides: dict[str, Any] | None = None) -> Config:
    """Defaults, then `reme.yaml` at the workspace root, then `overrides` (CLI flags)."""
    config = Config()
    path = root / CONFIG_FILE
    if path.is_file():
        data, lines = read_yaml(path)
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: must be a mapping of settings (key: value lines)")
        _apply(config, data, str(path), lines)
    if overrides:
        _apply(config, overrides, "option", {})
    return config
