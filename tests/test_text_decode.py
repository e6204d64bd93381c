"""Decoding real bytes: newlines, BOM, invalid UTF-8 under both policies, binary sniffing."""

from __future__ import annotations

import pytest

from reme_core.errors import ConfigError, FileRefused
from reme_core.files.text_decode import decode_text, looks_binary


def test_crlf_and_lone_cr_become_lf() -> None:
    text, warnings = decode_text(b"a\r\nb\rc\n\r\nd", "daily/x.md")
    assert text == "a\nb\nc\n\nd"
    assert warnings == []


def test_leading_bom_is_dropped_but_not_an_inner_one() -> None:
    text, _ = decode_text("\ufeff# Title\n\ufeffx".encode(), "x.md")
    assert text == "# Title\n\ufeffx"


def test_invalid_utf8_replaced_keeps_the_text_and_names_the_file() -> None:
    text, warnings = decode_text(b"caf\xe9 ok\r\nnext", "digest/bad.md")
    assert text == "caf\ufffd ok\nnext"
    assert len(warnings) == 1
    assert "digest/bad.md" in warnings[0]
    assert "U+FFFD" in warnings[0]


def test_invalid_utf8_strict_refuses_naming_the_file() -> None:
    with pytest.raises(FileRefused, match=r"digest/bad\.md"):
        decode_text(b"caf\xe9", "digest/bad.md", policy="strict")


def test_other_encodings() -> None:
    text, warnings = decode_text("日本語\r\n".encode("gbk"), "x.txt", encoding="gbk")
    assert (text, warnings) == ("日本語\n", [])
    text, _ = decode_text("\ufeffhé".encode("utf-16"), "x.txt", encoding="utf-16")
    assert text == "hé"


def test_bad_settings_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="no-such-codec"):
        decode_text(b"x", "x.md", encoding="no-such-codec")
    with pytest.raises(ConfigError, match="ignore"):
        decode_text(b"x", "x.md", policy="ignore")


def test_looks_binary_only_in_first_8_kib() -> None:
    assert looks_binary(b"PNG\x00\x01")
    assert not looks_binary("plain 文字\n".encode())
    assert not looks_binary(b"a" * 8192 + b"\x00")
    assert looks_binary(b"a" * 8191 + b"\x00")
