"""What crash recovery did, as data: an operation finished or rolled back (`Recovered`, with
the files it could not bring where it meant to), a journal it would not run
(`JournalRefused`). A leaf: `ports` names these types, `journal_recovery` makes them, and
`reme_tui.text.recovery` says them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from reme_core.edit.journal_files import TEMPS_ONLY


@dataclass(frozen=True, slots=True)
class RecoveryProblem:
    """A file recovery could not bring where it meant to: `left` as it is, `not_moved` from
    `path` to `other`, `not_put_back` from the journal's copy; `reason` says why."""

    kind: Literal["left", "not_moved", "not_put_back"]
    path: str
    reason: str
    other: str = ""


@dataclass(slots=True)
class Recovered:
    """What recovery did with one interrupted operation (its `label` is the journal's)."""

    kind: str
    label: str
    finished: bool
    info: Mapping[str, Any] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    problems: list[RecoveryProblem] = field(default_factory=list)

    @property
    def temps_only(self) -> bool:
        """Whether the operation only ever wrote a temp file (its note is whole either way)."""
        return self.kind in TEMPS_ONLY


@dataclass(frozen=True, slots=True)
class JournalRefused:
    """A journal recovery would not run; no file was changed. `not_regular`: the journal is
    `what` (removed); `invalid`: not a journal (removed); `foreign`: an entry it names,
    `entry`, is `what`, so it was set aside as `aside` and nothing outside was touched."""

    kind: Literal["not_regular", "invalid", "foreign"]
    journal: str
    what: str = ""
    entry: str = ""
    aside: str = ""


RecoveryNote = Recovered | JournalRefused
