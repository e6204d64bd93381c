"""Moment.js date formats, as Obsidian's daily notes and templates write them (`YYYY-MM-DD`,
`dddd, MMMM Do YYYY`, `YYYY/MM/[Week] ww`…): format a date and parse a name back to one.

Tokens are matched longest first, as Moment does; `[text]` is literal; any other character is
itself (a `/` in a daily-note format makes folders). Names are English (Moment's default
locale). Parsing accepts a text only when formatting its date gives the same text back, so a
name that merely looks like a date (`2026-13-01`, a wrong weekday) is not one.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# Longest first: "MMMM" before "MMM" before "MM" before "M".
_TOKENS = re.compile(
    r"\[[^\]]*\]|MMMM|MMM|MM|Mo|M|YYYY|YY|DDDD|DDD|Do|DD|D|dddd|ddd|dd|d|"
    r"HH|H|hh|h|mm|m|ss|s|A|a|GGGG|gggg|WW|W|ww|w|Q"
)
# What each token reads when parsing, as a named group (None: the token is not read back).
_READ = {
    "YYYY": r"(?P<Y>\d{4})",
    "YY": r"(?P<y>\d{2})",
    "MMMM": "(?P<MMMM>" + "|".join(MONTHS) + ")",
    "MMM": "(?P<MMM>" + "|".join(m[:3] for m in MONTHS) + ")",
    "MM": r"(?P<M>\d{2})",
    "M": r"(?P<M>\d{1,2})",
    "Mo": r"(?P<M>\d{1,2})(?:st|nd|rd|th)",
    "DD": r"(?P<D>\d{2})",
    "D": r"(?P<D>\d{1,2})",
    "Do": r"(?P<D>\d{1,2})(?:st|nd|rd|th)",
}
_GROUP_FIELD = {"Y": "year", "y": "year", "D": "day"}  # the others are the month's
_FIELD = {token: _GROUP_FIELD.get(read[4], "month") for token, read in _READ.items()}


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def _hour12(hour: int) -> int:
    return hour % 12 or 12


def _value(token: str, when: datetime) -> str:
    """One token's text for `when` (a datetime; a date is midnight)."""
    iso_year, iso_week, _ = when.isocalendar()
    simple = {
        "YYYY": f"{when.year:04d}",
        "YY": f"{when.year % 100:02d}",
        "MMMM": MONTHS[when.month - 1],
        "MMM": MONTHS[when.month - 1][:3],
        "MM": f"{when.month:02d}",
        "Mo": _ordinal(when.month),
        "M": str(when.month),
        "DDDD": f"{when.timetuple().tm_yday:03d}",
        "DDD": str(when.timetuple().tm_yday),
        "Do": _ordinal(when.day),
        "DD": f"{when.day:02d}",
        "D": str(when.day),
        "dddd": WEEKDAYS[when.weekday()],
        "ddd": WEEKDAYS[when.weekday()][:3],
        "dd": WEEKDAYS[when.weekday()][:2],
        "d": str((when.weekday() + 1) % 7),  # Sunday is 0
        "HH": f"{when.hour:02d}",
        "H": str(when.hour),
        "hh": f"{_hour12(when.hour):02d}",
        "h": str(_hour12(when.hour)),
        "mm": f"{when.minute:02d}",
        "m": str(when.minute),
        "ss": f"{when.second:02d}",
        "s": str(when.second),
        "A": "AM" if when.hour < 12 else "PM",
        "a": "am" if when.hour < 12 else "pm",
        "GGGG": f"{iso_year:04d}",
        "gggg": f"{iso_year:04d}",  # locale weeks; ISO's in the English default is close
        "WW": f"{iso_week:02d}",
        "W": str(iso_week),
        "ww": f"{iso_week:02d}",
        "w": str(iso_week),
        "Q": str((when.month - 1) // 3 + 1),
    }
    return simple[token]


def format_moment(fmt: str, when: date | datetime) -> str:
    """`when` written in the Moment format `fmt`."""
    moment = when if isinstance(when, datetime) else datetime(when.year, when.month, when.day)
    out: list[str] = []
    last = 0
    for m in _TOKENS.finditer(fmt):
        out.append(fmt[last : m.start()])
        token = m.group()
        out.append(token[1:-1] if token.startswith("[") else _value(token, moment))
        last = m.end()
    out.append(fmt[last:])
    return "".join(out)


def parse_moment(fmt: str, text: str) -> date | None:
    """The date `text` is written for in `fmt`, or None when it is not one (see above)."""
    pattern = _pattern(fmt)
    if pattern is None:
        return None
    m = pattern.fullmatch(text)
    if m is None:
        return None
    found = m.groupdict()
    year = int(found["Y"]) if found.get("Y") else 2000 + int(found["y"]) if found.get("y") else 0
    if found.get("MMMM"):
        month = MONTHS.index(found["MMMM"]) + 1
    elif found.get("MMM"):
        month = [n[:3] for n in MONTHS].index(found["MMM"]) + 1
    else:
        month = int(found.get("M") or 0)
    try:
        day = date(year, month, int(found.get("D") or 0))
    except ValueError:
        return None
    return day if format_moment(fmt, day) == text else None


@lru_cache(maxsize=32)
def _pattern(fmt: str) -> re.Pattern[str] | None:
    """A regex reading `fmt` (None when the format has no year, month and day to read)."""
    parts: list[str] = []
    seen: set[str] = set()  # year, month, day: each read once, later ones only checked
    last = 0
    for m in _TOKENS.finditer(fmt):
        parts.append(re.escape(fmt[last : m.start()]))
        token = m.group()
        field = _FIELD.get(token, "")
        if token.startswith("["):
            parts.append(re.escape(token[1:-1]))
        elif field and field not in seen:
            seen.add(field)
            parts.append(_READ[token])
        else:  # written but not read back: any text it could be (checked by re-formatting)
            parts.append(r"[A-Za-z0-9]+?")
        last = m.end()
    parts.append(re.escape(fmt[last:]))
    return re.compile("".join(parts)) if len(seen) == 3 else None
