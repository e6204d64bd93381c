"""A search is one typed value, SearchRequest, from the query line to the index."""

from __future__ import annotations

import dataclasses

import pytest

from reme_core import SearchOptions, SearchRequest, Workspace, parse_query

NOTES = {
    "a/solar.md": "# Solar\n\nsolar panels on the roof\n",
    "a/wind.md": "# Wind\n\nsolar panels and a wind turbine\n",
    "a/loose.md": "# Loose\n\npanels of solar glass\n",
    "b/solar.md": "# Elsewhere\n\nsolar panels in the barn\n",
}


@pytest.fixture
def ws(make_tree) -> Workspace:
    workspace = Workspace.open(make_tree(NOTES))
    yield workspace
    workspace.close()


def test_a_plain_string_is_parsed_as_the_search_box_parses_it(ws: Workspace) -> None:
    line = '"solar panels" -wind path:a/'
    by_string = [h.path for h in ws.search(line).results]
    by_request = [h.path for h in ws.search(parse_query(line, typing=False).request()).results]
    assert by_string == by_request == ["a/solar.md"]  # the phrase, the exclusion, the folder


def test_a_request_is_a_value(ws: Workspace) -> None:
    line = 'solar "glass" -wind tag:x [status:done] file:loose line:(roof panels) sort:mtime'
    one, two = (parse_query(line, typing=False).request() for _ in range(2))
    assert one == two and hash(one) == hash(two)
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.text = "other"  # type: ignore[misc]
    assert one.filters.properties == (("status", "done"),)
    assert one.lines == (("roof", "panels"),) and one.options.order == "mtime"
    # The caller's order wins over the line's; the line's is kept otherwise.
    asked = parse_query(line, typing=False).request(SearchOptions(order="name"))
    assert asked.options.order == "name"


def test_options_given_to_search_replace_the_requests(ws: Workspace) -> None:
    request = SearchRequest("solar", options=SearchOptions(limit=1, group=True))
    assert len(ws.search(request).results) == 1
    assert len(ws.search(request, limit=3).results) == 3


def test_cli_flags_narrow_the_line() -> None:
    request = parse_query("solar path:a/ after:2020-01-01", typing=False).request()
    narrowed = request.narrowed("2021-01-01", None, ("b/",), ("t",))
    assert narrowed.filters.paths == ("b/", "a/") and narrowed.filters.tags == ("t",)
    assert narrowed.filters.start_date == "2021-01-01"
