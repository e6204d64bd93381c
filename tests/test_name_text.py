"""A note's names (`name_text`) against the rule written out plainly: the file name without
its suffix, `name`, `title`, then the aliases, each stripped, each once, in that order."""

from __future__ import annotations

import posixpath
import random
from typing import Any

from reme_core.models import aliases_of
from reme_core.parse.note_names import name_text


def plain_rule(path: str, frontmatter: dict[str, Any]) -> str:
    names = [posixpath.splitext(posixpath.basename(path))[0]]
    names += [frontmatter[k] for k in ("name", "title") if isinstance(frontmatter.get(k), str)]
    names += aliases_of(frontmatter)
    return "\n".join(dict.fromkeys(n.strip() for n in names if n.strip()))


def test_name_text_follows_the_plain_rule() -> None:
    rng = random.Random(3)
    values: list[Any] = ["", " ", "Solar", " Solar ", "solar", "a,b", None, 3, "x, y ,", "名字"]
    values += [["x", " y ", "", None, "x"], "b", "Note"]
    keys = ["name", "title", "aliases", "Aliases", "ALIASES", "alias", "Alias", "aLiAs", "tags"]
    paths = ["a/b.md", "b.md", "a/x.txt", "x..md", "a/x.md.md", "note", "a/ b .md", "a/ .md"]
    paths += ["a/..md", "a/...md", "a/Note.md", "log.jsonl"]
    for _ in range(20000):
        frontmatter = {rng.choice(keys): rng.choice(values) for _ in range(rng.randint(0, 4))}
        path = rng.choice(paths)
        assert name_text(path, frontmatter) == plain_rule(path, frontmatter), (path, frontmatter)
