"""Frontmatter: where it is, what it holds, and that bad YAML never stops a note."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from reme_core.parse.frontmatter import Frontmatter, split_frontmatter


def test_mapping_and_end_line() -> None:
    fm = split_frontmatter("---\nname: Indexing\ndescription: how\n---\n# Body\n")
    assert fm == Frontmatter({"name": "Indexing", "description": "how"}, 4, None)


def test_no_frontmatter_unless_line_one_is_the_fence() -> None:
    assert split_frontmatter("# Title\n---\na: 1\n---\n") == Frontmatter({}, 0, None)
    assert split_frontmatter("\n---\na: 1\n---\n").end_line == 0
    assert split_frontmatter("---x\na: 1\n---\n").end_line == 0


def test_unclosed_block_is_not_frontmatter() -> None:
    assert split_frontmatter("---\na: 1\nstill body\n") == Frontmatter({}, 0, None)
    assert split_frontmatter("---") == Frontmatter({}, 0, None)


def test_trailing_spaces_and_dots_close() -> None:
    assert split_frontmatter("---  \na: 1\n...\nbody").data == {"a": 1}
    assert split_frontmatter("---\na: 1\n--- \t\nbody").end_line == 3


def test_empty_block() -> None:
    assert split_frontmatter("---\n---\n") == Frontmatter({}, 2, None)


def test_broken_yaml_gives_empty_data_and_a_short_warning() -> None:
    fm = split_frontmatter("---\nname: [unclosed\ndescription: x\n---\nbody\n")
    assert fm.data == {}
    assert fm.end_line == 4
    assert fm.warning is not None
    assert fm.warning.startswith("broken YAML frontmatter")
    assert "Traceback" not in fm.warning
    assert "\n" not in fm.warning


def test_invalid_date_is_a_warning_not_a_crash() -> None:
    fm = split_frontmatter("---\ndate: 2024-13-45\n---\n")
    assert fm.data == {}
    assert fm.warning is not None


def test_non_mapping_gives_a_warning() -> None:
    fm = split_frontmatter("---\n- a\n- b\n---\nbody")
    assert fm.data == {}
    assert fm.warning is not None
    assert "list" in fm.warning
    assert split_frontmatter("---\njust text\n---\n").warning is not None


def test_values_become_json_safe() -> None:
    fm = split_frontmatter(
        "---\n"
        "date: 2026-06-20\n"
        "when: 2026-06-20 10:30:00\n"
        "2: two\n"
        "yes: flag\n"
        "~: nothing\n"
        "nested: {2024-01-02: [2024-01-03, .nan]}\n"
        "tags: !!set {a, b}\n"
        "source_conversation: [[session/dialog/abc.jsonl]]\n"
        "---\n"
    )
    assert fm.warning is None
    assert fm.data == {
        "date": "2026-06-20",
        "when": "2026-06-20T10:30:00",
        "2": "two",
        "true": "flag",
        "null": "nothing",
        "nested": {"2024-01-02": ["2024-01-03", "nan"]},
        "tags": ["a", "b"],
        "source_conversation": [["session/dialog/abc.jsonl"]],
    }
    json.dumps(fm.data, allow_nan=False)


def test_recursive_aliases_are_cut() -> None:
    fm = split_frontmatter("---\na: &x [1, *x]\n---\n")
    assert fm.data == {"a": [1, "<recursive>"]}


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ["---", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    fm = split_frontmatter("\n".join([*lines, "---", "body"]))
    assert fm.data == {}
    assert fm.warning is not None
    assert fm.end_line == len(lines) + 1


def test_simple_lines_and_yaml_agree_on_dates_and_keywords() -> None:
    fm = split_frontmatter("---\ndate: 2026-02-30\n---\n")
    assert fm.data == {} and fm.warning is not None  # the fast path leaves bad dates to YAML
    fm = split_frontmatter("---\ntags: [no, maybe]\ndraft: off\nname: no way\n---\n")
    assert fm.data == {"tags": [False, "maybe"], "draft": False, "name": "no way"}


KEYS = st.sampled_from(["name", "description", "tags", "date", "yes", "on", "_x", "a-b", "n"])
SCALARS = st.one_of(
    st.sampled_from(["no", "True", "null", "2026-06-20", "2026-13-01", "12", "1e3", ".nan"]),
    st.sampled_from(["Kestrel index", "检索 回归", 'it\'s "quoted"', "a: b", "x #c", "é"]),
    st.text(alphabet="ab :#,[]{}'\"-!&*|>%@`\t中", max_size=12),
)
VALUES = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(KEYS, st.sampled_from([" ", "  ", "\t"]), VALUES), max_size=6))
def test_fast_path_matches_yaml(entries: list[tuple[str, str, str]]) -> None:
    """The shortcut for simple lines reads what YAML reads (a comment line forces YAML)."""
    source = "".join(f"{key}:{gap}{value}\n" for key, gap, value in entries)
    fast = split_frontmatter(f"---\n{source}---\n")
    slow = split_frontmatter(f"---\n{source}# forces the YAML parser\n---\n")
    assert fast.data == slow.data
    assert (fast.warning is None) == (slow.warning is None)
    json.dumps(fast.data, allow_nan=False)
