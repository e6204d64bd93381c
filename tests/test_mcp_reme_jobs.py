"""ReMe's file jobs with ReMe's names and parameters, driven by the MCP SDK's own client over
stdio against a real `reme-tui mcp` (issue 31): unknown arguments refused, `list`'s filters
applied, read → write without a second frontmatter block, and the jobs ReMe's skill calls."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("mcp")

from tests.test_mcp import REME_READ_TOOLS, call, session, text

NOTE = "digest/wiki/bm25.md"


async def test_read_then_write_back_keeps_one_frontmatter_block(indexed_demo: Path) -> None:
    async with session(indexed_demo) as client:
        whole = text(await call(client, "read", path=NOTE))
        assert whole.startswith("---\nname: BM25")
        wrote = await call(client, "write", path=NOTE, content=whole + "\nAn appended line.\n")
        assert not wrote.is_error, text(wrote)
        saved = (indexed_demo / NOTE).read_text(encoding="utf-8")
        assert saved.count("\n---\n") == 1 and saved.startswith("---\n")  # one block
        assert saved.count("name: BM25") == 1 and "tags: [retrieval, bm25, search]" in saved
        assert saved.rstrip().endswith("An appended line.")
        # a changed key in the block read back is merged, the others keep their text
        edited = whole.replace("kind: concept", "kind: method")
        await call(client, "write", path=NOTE, content=edited)
        saved = (indexed_demo / NOTE).read_text(encoding="utf-8")
        assert "kind: method" in saved and saved.count("kind:") == 1
        assert saved.count("name: BM25") == 1


async def test_reme_parameter_names_and_unknown_arguments(indexed_demo: Path) -> None:
    async with session(indexed_demo) as client:
        refused = await client.call_tool("list", {"path": "digest", "folder": "x"})
        assert refused.is_error
        assert "'folder'" in text(refused) and "accepted: path, recursive" in text(refused)

        top = await call(client, "list", path="digest")
        assert top.structured_content["items"] == []  # notes are in subfolders
        deep = await call(client, "list", path="digest", recursive=True, limit=500)
        assert len(deep.structured_content["items"]) > 20
        assert text(deep).startswith("Listed ")
        (indexed_demo / "daily/2026-06-22/quick-notes.md").touch()  # the newest now
        newest = await call(client, "list", path="daily", recursive=True, sort_by="mtime")
        assert newest.structured_content["items"][0] == "daily/2026-06-22/quick-notes.md"
        none = await call(client, "list", path="daily", recursive=True, extensions=["jsonl"])
        assert none.structured_content["items"] == [] and text(none).startswith("No files")
        talks = await call(client, "list", path="session/", recursive=True, extensions=[".JSONL"])
        assert len(talks.structured_content["items"]) == 3  # every kind of file, not only notes
        bad_sort = await client.call_tool("list", {"sort_by": "size"})
        assert bad_sort.is_error and "sort_by" in text(bad_sort)
        assert "\n" not in text(bad_sort) and "https://" not in text(bad_sort)

        moved = await call(
            client, "move", src_path="digest/wiki/hnsw.md", dst_path="digest/wiki/hnsw-graph.md"
        )
        assert not moved.is_error, text(moved)
        assert (indexed_demo / "digest/wiki/hnsw-graph.md").is_file()
        both = await client.call_tool("move", {"src": "a.md", "src_path": "a.md", "dst": "b.md"})
        assert both.is_error and "same argument" in text(both)

        seeds = ["digest/wiki/bm25.md", "digest/wiki/rrf.md"]
        walk = await call(client, "traverse", path=seeds, depth=1)
        assert not walk.is_error, text(walk)
        paths = [n["path"] for n in walk.structured_content["nodes"]]
        assert set(seeds) <= set(paths) and len(paths) == len(set(paths))


async def test_the_jobs_reme_s_skill_calls(indexed_demo: Path) -> None:
    async with session(indexed_demo) as client:
        st = await call(client, "stat", path=NOTE)
        assert st.structured_content["type"] == "file"
        assert st.structured_content["frontmatter"]["name"] == "BM25"
        assert text(st).startswith(f"stat: {NOTE} (file, ")
        gone = await call(client, "stat", path="digest/none.md")
        assert gone.structured_content["exists"] is False

        edit = await call(client, "edit", path=NOTE, old="Okapi BM25 ranking", new="zebrafinch")
        assert "Replaced 1 occurrence" not in text(edit)  # that text is in the frontmatter
        assert edit.is_error and "not found in the body" in text(edit)
        edit = await call(client, "edit", path=NOTE, old="keyword half", new="zebrafinch half")
        assert text(edit) == f"Replaced 1 occurrence(s) in {NOTE}"
        hits = await call(client, "search", query="zebrafinch", limit=1)
        assert hits.structured_content["results"][0]["path"] == NOTE  # indexed at once

        whole = (indexed_demo / NOTE).read_text(encoding="utf-8")
        stale = st.structured_content["mtime"]
        refused = await call(client, "save", path=NOTE, content="x", expected_mtime=stale)
        assert refused.is_error and "changed since" in text(refused)
        assert (indexed_demo / NOTE).read_text(encoding="utf-8") == whole  # nothing lost
        fresh = (await call(client, "stat", path=NOTE)).structured_content["mtime"]
        new_text = whole.replace("zebrafinch", "okapi")
        saved = await call(client, "save", path=NOTE, content=new_text, expected_mtime=fresh)
        assert not saved.is_error, text(saved)
        assert (indexed_demo / NOTE).read_text(encoding="utf-8") == new_text

        fm = await call(client, "frontmatter_read", path=NOTE)
        assert fm.structured_content["frontmatter"]["kind"] == "concept"
        await call(client, "frontmatter_update", path=NOTE, metadata={"status": "reviewed"})
        dropped = await call(client, "frontmatter_delete", path=NOTE, keys=["kind", "nope"])
        assert dropped.structured_content["deleted"] == ["kind"]
        assert dropped.structured_content["missing"] == ["nope"]
        fm = (await call(client, "frontmatter_read", path=NOTE)).structured_content
        assert fm["frontmatter"]["status"] == "reviewed" and "kind" not in fm["frontmatter"]

        day = await call(client, "daily_list", date="2026-06-22")
        assert "- path: daily/2026-06-22/trip-recap.md name: " in text(day)
        wrote = await call(
            client,
            "daily_write",
            name="standup",
            description="what we agreed",
            session_id="abc123",
            content="We agreed.",
            date="2026-06-22",
        )
        assert not wrote.is_error, text(wrote)
        listed = (await call(client, "daily_list", date="2026-06-22")).structured_content
        note = next(n for n in listed["notes"] if n["path"].endswith("standup.md"))
        assert note["session_id"] == "abc123"
        assert note["source_conversation"] == "[[session/dialog/abc123.jsonl]]"
        page = (indexed_demo / "daily/2026-06-22.md").read_text(encoding="utf-8")
        assert "- [[daily/2026-06-22/standup.md]] name: standup" in page  # the day index
        bad = await client.call_tool("daily_list", {"date": "22/06/2026"})
        assert bad.is_error and "YYYY-MM-DD" in text(bad)

        assert text(await call(client, "version"))
        health = await call(client, "health_check")
        assert health.structured_content["status"] == "healthy"


async def test_schemas_describe_every_parameter_and_carry_hints(indexed_demo: Path) -> None:
    async with session(indexed_demo, "--allow-delete") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for tool in tools.values():
            schema = tool.input_schema
            assert schema.get("additionalProperties") is False, tool.name
            for name, prop in schema.get("properties", {}).items():
                assert prop.get("description"), (tool.name, name)
            read_only = tool.name in REME_READ_TOOLS | {"version", "health_check"}
            read_only |= tool.name in {"retrieve", "links"}
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is read_only, tool.name
            if not read_only:
                assert tool.annotations.destructive_hint is True, tool.name
        assert tools["traverse"].input_schema["properties"]["direction"]["enum"] == [
            "forward",
            "backward",
            "both",
        ]
        assert tools["search"].input_schema["properties"]["limit"]["minimum"] == 1
        # every answer these tests get was checked by the client against these schemas
        assert {n for n, t in tools.items() if t.output_schema} == set(tools) - {"retrieve"}
