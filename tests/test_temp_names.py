"""Editor temp names are told by string tests: they agree with the glob patterns they stand
for (SPEC §1), checked against fnmatch over names made of the patterns' own characters."""

from __future__ import annotations

import random
from fnmatch import fnmatchcase

from reme_core.files.paths import is_temp_name

PATTERNS = ("*~", "*.swp", "*.swo", "*.swx", "*.tmp", "#*#", "4913")
ALPHABET = "ab#~.swpotmx4913\n"


def test_temp_names_agree_with_their_glob_patterns() -> None:
    rng = random.Random(7)
    names = ["#", "##", "#a#", "a~", "x.swp", "4913", "49133", "a.tmp", "note.md", "a.swpx"]
    names += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 7))) for _ in range(20000)]
    for name in names:
        assert is_temp_name(name) == any(fnmatchcase(name, p) for p in PATTERNS), name
