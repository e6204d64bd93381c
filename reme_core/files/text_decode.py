"""Bytes to text: every later stage sees LF-only text without a BOM, whatever the file had."""

from __future__ import annotations

import codecs

from reme_core.errors import ConfigError, FileRefused

_SNIFF_BYTES = 8192
_POLICIES = ("replace", "strict")


def looks_binary(data: bytes) -> bool:
    """True when a NUL byte sits in the first 8 KiB: text files practically never hold one."""
    return b"\x00" in data[:_SNIFF_BYTES]


def decode_text(
    data: bytes, path: str, encoding: str = "utf-8", policy: str = "replace"
) -> tuple[str, list[str]]:
    """Decode `data` and normalise newlines so line numbers agree with every reader.

    Returns the text and warnings. `policy="replace"` keeps a file with invalid bytes
    searchable (each bad sequence becomes U+FFFD, a warning names the file); `"strict"`
    raises `FileRefused` instead. A leading BOM is dropped; CRLF and lone CR become LF.
    """
    if policy not in _POLICIES:
        raise ConfigError(f"invalid_encoding_policy must be 'replace' or 'strict', not {policy!r}")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ConfigError(f"unknown encoding {encoding!r}") from None
    warnings: list[str] = []
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        where = f"{path}: invalid {encoding} at byte {exc.start}"
        if policy == "strict":
            raise FileRefused(f"{where} (invalid_encoding_policy is strict)") from None
        text = data.decode(encoding, errors="replace")
        warnings.append(f"{where}; invalid bytes replaced with U+FFFD")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, warnings


UNDECODABLE_NAME = "file name is not valid UTF-8"


def undecodable(name: str) -> bool:
    """True for a file name the OS gave as bytes that are not UTF-8 (`os.fsdecode` keeps them
    as lone surrogates): no database, JSON document or terminal can take it as text."""
    if name.isascii():
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def shown_name(name: str) -> str:
    """A name with its undecodable bytes as `\\xNN` escapes: printable, storable, greppable."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
