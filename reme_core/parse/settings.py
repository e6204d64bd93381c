"""What a parse of one file depends on besides its bytes: small, picklable, and importable
without the parsers (a search that parses nothing never loads them)."""

from __future__ import annotations

from dataclasses import dataclass

from reme_core.config import Config

_DEFAULTS = Config()  # the config owns the defaults, also those of settings made without one


@dataclass(frozen=True, slots=True)
class ParseSettings:
    """The parts of the config a worker needs (small and picklable)."""

    encoding: str = _DEFAULTS.encoding
    invalid_encoding_policy: str = _DEFAULTS.invalid_encoding_policy
    chunk_max_bytes: int = _DEFAULTS.chunk_max_bytes
    max_file_bytes: int = _DEFAULTS.max_file_bytes
    use_jieba: bool = _DEFAULTS.use_jieba
    stemmer: str = _DEFAULTS.stemmer
    markdown_links: bool = False  # Obsidian semantics: Markdown links are edges, `#tags` tags
    # Bumped when the same bytes parse to different nodes, so indexes built before rebuild
    # (it is part of the stored fingerprint). 2: inline `#tags` in vaults. 3: words cut to
    # MAX_TERM_CHARS.
    parse_version: int = 3

    @classmethod
    def from_config(cls, config: Config, markdown_links: bool) -> ParseSettings:
        """The parse settings a workspace's config gives (the config owns the defaults)."""
        return cls(
            encoding=config.encoding,
            invalid_encoding_policy=config.invalid_encoding_policy,
            chunk_max_bytes=config.chunk_max_bytes,
            max_file_bytes=config.max_file_bytes,
            use_jieba=config.use_jieba,
            stemmer=config.stemmer,
            markdown_links=markdown_links,
        )
