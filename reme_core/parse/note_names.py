"""A note's names (what a person types to find it), its property values, and the terms the
Latin fields keep of them: one rule for the pool workers of a rebuild and for the index."""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reme_core.models import aliases_of
from reme_core.parse.parsed_columns import ParsedColumns
from reme_core.text.tokenizer import has_cjk, without_cjk

# Texts to their terms, one list per text (`Tokenizer.tokenize_many`).
Tokenize = Callable[[list[str]], list[list[str]]]
_FIELDS = ("name", "title")


def names_of(path: str, frontmatter: dict[str, Any]) -> list[str]:
    """The names a note goes by: its file name (without `.md`), `name`, `title`, aliases;
    each stripped, non-empty and once. The one rule for the name field, the phrase check
    and unlinked mentions.

    Every name of every note is built when the field is (50k of them after a rebuild), so
    the common shapes are quick: a Markdown file name loses its suffix by a slice, and a note
    whose only name is its file name is answered before any de-duplication.
    """
    base = path[path.rfind("/") + 1 :]
    if base.endswith(".md") and len(base) > 3 and base[0] != ".":
        stem = base[:-3]  # what `posixpath.splitext` gives for such a name
    else:
        stem = posixpath.splitext(base)[0]
    names = [v for k in _FIELDS if isinstance(v := frontmatter.get(k), str)]
    if frontmatter:
        names += aliases_of(frontmatter)  # stripped, non-empty strings
    if not names:
        stem = stem.strip()
        return [stem] if stem else []
    kept = [n for n in map(str.strip, [stem, *names]) if n]
    return list(dict.fromkeys(kept)) if len(kept) > 1 else kept


def name_text(path: str, frontmatter: dict[str, Any]) -> str:
    """The names of a note (`names_of`), one per line: the text of its name field."""
    return "\n".join(names_of(path, frontmatter))


# Keys the name field holds already (`name_text`: `name`, `title` as written, aliases in
# the spellings `aliases_of` reads): not a property value twice.
_ALIAS_KEYS = frozenset(["aliases", "alias"])
_MAX_DEPTH = 8  # nested mappings and lists looked into (bounded work for any YAML)


def property_text(path: str, frontmatter: dict[str, Any]) -> str:
    """The values of a note's frontmatter properties, one per line: every key but those of
    its names (`description`, `status: draft`, tags, dates, numbers; lists and mappings
    flattened). ``path`` is unused: the signature is `name_text`'s, so one field builder
    serves both."""
    if not frontmatter:
        return ""
    values: list[str] = []
    for key, value in frontmatter.items():
        if key in _FIELDS or (isinstance(key, str) and key.lower() in _ALIAS_KEYS):
            continue
        _flatten(value, values, 0)
    return "\n".join(values)


def property_values(frontmatter: dict[str, Any]) -> dict[str, list[str]]:
    """Every property of a note by its lower-case key, with its values as text (lists and
    mappings flattened; an empty property has none): what `[prop:value]` looks into."""
    out: dict[str, list[str]] = {}
    for key, value in frontmatter.items():
        values = out.setdefault(str(key).strip().lower(), [])
        _flatten(value, values, 0)
    return out


def _flatten(value: Any, out: list[str], depth: int) -> None:
    if value is None or value == "" or depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        for v in value.values():
            _flatten(v, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _flatten(v, out, depth + 1)
    else:
        out.append(str(value).strip())


def latin_name_terms(tokenize: Tokenize, texts: list[str]) -> list[list[str]]:
    """The Latin name field's terms of each name text: its CJK characters left out, so a
    Latin query never waits for jieba's dictionary to tokenise Chinese file names."""
    return tokenize(list(map(without_cjk, texts)))


@dataclass(slots=True)
class NameTerms:
    """The Latin name field's terms of some files, in their order: what a rebuild's pool
    workers send beside each batch, so the parent does not tokenise 50k names at the end."""

    terms: list[str]  # every file's terms, one after the other
    lengths: list[int]  # how many of them each file has
    cjk_free: bool  # no name of these files holds a CJK character


def name_terms_of(
    tokenize: Tokenize, files: ParsedColumns, text: Callable[[str, dict[str, Any]], str] = name_text
) -> NameTerms:
    """The name terms (or, ``text=property_text``, the property terms) of parsed files,
    tokenised together: one stemmer call."""
    texts = list(map(text, files.paths, files.frontmatter))
    per_file = latin_name_terms(tokenize, texts)
    return NameTerms(
        list(itertools.chain.from_iterable(per_file)),
        list(map(len, per_file)),
        not any(map(has_cjk, texts)),
    )
