"""Errors a caller can catch and show: each carries a message meant for a person."""

from __future__ import annotations


class RemeError(Exception):
    """Base of every error reme_core raises on purpose."""


class ConfigError(RemeError):
    """`reme.yaml` or an option is invalid (an unknown key, a wrong type)."""


class PathRefused(RemeError):
    """A path is absolute, escapes the workspace, or is otherwise not allowed."""


class FileRefused(RemeError):
    """A file cannot be indexed or read as asked (binary, too large, strict-mode encoding)."""


class RangeError(RemeError):
    """A requested line range does not fit the file."""


class NotIndexed(RemeError):
    """The path is not a file of this workspace's index."""


class EmbedderUnavailable(RemeError):
    """The embedding provider cannot be used; vector recall turns off and BM25 keeps working."""
