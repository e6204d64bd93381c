"""The quick switcher: its ranking on its own, and the real palette in the running browser."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual import events
from textual.command import CommandInput, CommandList
from textual.pilot import Pilot
from textual.widgets import Input
from textual.worker import WorkerState

from reme_core import Changes, Workspace
from reme_tui.app.browser import RemeApp
from reme_tui.services import ranker_for
from reme_tui.widgets.note_ranking import Kind, NoteEntry, NoteRanker, swaps, typo_distance
from reme_tui.widgets.switcher import NoteSwitcher, SwitcherPalette
from tests.helpers import parts
from tests.helpers import until as wait_until
from tests.test_tui_app import SIZE, settle


def ranked_paths(ranker: NoteRanker, query: str, recent: list[str] | None = None) -> list[str]:
    return [r.entry.path for r in ranker.rank(query, 50, recent or [])]


def levenshtein_in(query: str, text: str) -> int:
    """Reference: fewest edits turning query into some substring of text (plain table)."""
    prev = list(range(len(query) + 1))
    best = prev[-1]
    for ch in text:
        cur = [0]
        for i in range(1, len(query) + 1):
            cur.append(min(prev[i - 1] + (query[i - 1] != ch), prev[i] + 1, cur[i - 1] + 1))
        best = min(best, cur[-1])
        prev = cur
    return best


@settings(max_examples=400, deadline=None)
@given(st.text("abcd", min_size=1, max_size=9), st.text("abcde", max_size=14))
def test_typo_distance_equals_the_plain_table(query: str, text: str) -> None:
    assert typo_distance(query, text, 2) == min(levenshtein_in(query, text), 3)


def test_swaps_are_neighbour_exchanges() -> None:
    assert swaps("rnak") == ["nrak", "rank", "rnka"]
    assert swaps("aab") == ["aba"]


NOTES = [
    NoteEntry("wiki/rank fusion.md"),
    NoteEntry("wiki/reciprocal rank.md"),
    NoteEntry("wiki/Rank.md"),
    NoteEntry("wiki/ranking notes.md"),
    NoteEntry("daily/2026-06-01.md", description="Ranked the plan for June"),
    NoteEntry("wiki/rrf.md", name="Reciprocal Rank Fusion", aliases=("RRF",)),
    NoteEntry("ops/runbook.md", title="Frank's runbook"),
]


def test_exact_name_then_prefix_then_substring_then_description() -> None:
    ranker = NoteRanker(NOTES)
    got = ranker.rank("RANK", 50)
    assert [r.entry.path for r in got] == [
        "wiki/Rank.md",  # exact, whatever the case
        "wiki/rank fusion.md",  # prefixes, shorter name first
        "wiki/ranking notes.md",
        "ops/runbook.md",  # inside a name ("frank's runbook"), shorter first
        "wiki/reciprocal rank.md",
        "wiki/rrf.md",
        "daily/2026-06-01.md",  # only the description holds it
    ]
    assert [r.kind for r in got[:3]] == [Kind.FILE_NAME, Kind.PREFIX, Kind.PREFIX]
    assert got[-1].kind is Kind.DESCRIPTION


def test_the_file_name_beats_other_languages_aliases() -> None:
    """A multilingual vault: each translation of `Callouts.md` carries "Callouts" as an alias
    (and sorts before `en/` by path); the note named so is the one asked for."""
    notes = [
        NoteEntry(f"{lang}/Editing and formatting/{name}.md", aliases=("Callouts",))
        for lang, name in [("ar", "وسائل الشرح"), ("bn", "কলআউট"), ("de", "Hinweisboxen")]
    ]
    notes += [
        NoteEntry("en/Editing and formatting/Callouts.md"),
        NoteEntry("en/Callouts plugin.md"),
        NoteEntry("de/Callouts Übersicht.md"),
        NoteEntry("de/Callouts.md"),
    ]
    ranker = NoteRanker(notes)
    got = ranker.rank("callouts", 50)
    assert [r.kind for r in got] == [Kind.FILE_NAME] * 2 + [Kind.EXACT] * 3 + [Kind.PREFIX] * 2
    assert ranked_paths(ranker, "Callouts")[:2] == [
        "de/Callouts.md",
        "en/Editing and formatting/Callouts.md",
    ]
    # from a note under en/: en's file first, then de's; en's prefix before de's prefix
    near = [r.entry.path for r in ranker.rank("Callouts", 50, near="en")]
    assert near[:2] == ["en/Editing and formatting/Callouts.md", "de/Callouts.md"]
    assert [p.split("/")[0] for p in near[2:5]] == ["ar", "bn", "de"]  # aliases, by path
    assert near[5:] == ["en/Callouts plugin.md", "de/Callouts Übersicht.md"]
    # from a note under de/: its aliases before the other languages' ones
    de = [r.entry.path for r in ranker.rank("Callouts", 50, near="de")]
    assert de[:3] == [
        "de/Callouts.md",
        "en/Editing and formatting/Callouts.md",
        "de/Editing and formatting/Hinweisboxen.md",
    ]


def test_frontmatter_name_and_alias_match_exactly() -> None:
    ranker = NoteRanker(NOTES)
    assert ranked_paths(ranker, "rrf")[0] == "wiki/rrf.md"
    assert ranked_paths(ranker, "reciprocal rank fusion")[0] == "wiki/rrf.md"
    assert ranked_paths(ranker, "  Reciprocal   RANK ")[0] == "wiki/reciprocal rank.md"


def test_typos_and_letters_in_order_come_last_among_names() -> None:
    ranker = NoteRanker(NOTES)
    assert ranked_paths(ranker, "reciprical rank")[:2] == ["wiki/reciprocal rank.md", "wiki/rrf.md"]
    assert ranker.rank("reciprical", 50)[0].kind is Kind.TYPO
    assert ranked_paths(ranker, "rnak")[0] == "wiki/Rank.md"  # a swap, exact otherwise
    assert ranked_paths(ranker, "fusoin")[:2] == ["wiki/rank fusion.md", "wiki/rrf.md"]
    in_order = ranker.rank("rnkfsn", 50)
    assert [r.entry.path for r in in_order] == ["wiki/rank fusion.md", "wiki/rrf.md"]
    assert {r.kind for r in in_order} == {Kind.IN_ORDER}
    assert ranked_paths(ranker, "zzz") == []
    assert ranked_paths(ranker, "ra")[0] == "wiki/Rank.md"  # no typos for two letters


def test_recent_notes_first_on_empty_input_and_within_a_kind() -> None:
    ranker = NoteRanker(NOTES)
    recent = ["wiki/ranking notes.md", "gone.md", "ops/runbook.md"]  # newest first
    assert ranked_paths(ranker, "", recent)[:2] == ["wiki/ranking notes.md", "ops/runbook.md"]
    assert len(ranked_paths(ranker, "", recent)) == len(NOTES)
    assert ranked_paths(ranker, "rank", recent)[:3] == [
        "wiki/Rank.md",  # an exact name still beats a recent prefix
        "wiki/ranking notes.md",
        "wiki/rank fusion.md",
    ]


def test_exact_name_first_among_thousands_of_near_names() -> None:
    """At switcher size: 5,000 names, hundreds sharing the query as prefix or with a typo."""
    rng = random.Random(15)
    words = ["solar", "panel", "grid", "inverter", "cell", "module", "wafer", "price"]
    entries = [
        NoteEntry(f"f{n % 40}/{' '.join(rng.choice(words) for _ in range(3))} {n}.md")
        for n in range(5000)
    ]
    entries.append(NoteEntry("wiki/Solar Panel.md"))
    entries.append(NoteEntry("wiki/x.md", aliases=("solar panels",)))
    ranker = NoteRanker(entries)
    got = ranker.rank("solar panel", 50)
    assert got[0].entry.path == "wiki/Solar Panel.md"
    assert got[1].entry.path == "wiki/x.md"  # the shortest of the prefix matches
    assert all(r.kind is Kind.PREFIX for r in got[1:])
    typo = ranker.rank("solra panel", 50)
    assert typo[0].entry.path == "wiki/Solar Panel.md"
    assert typo[0].kind is Kind.TYPO


def test_ranker_is_kept_until_a_name_changes(indexed_demo: Path) -> None:
    ws = Workspace.open(indexed_demo)
    try:
        first = ranker_for(ws)
        assert ranker_for(ws) is first
        assert "digest/wiki/bm25.md" not in ranked_paths(first, "kestrel search")
        note = indexed_demo / "digest/wiki/bm25.md"
        text = note.read_text(encoding="utf-8")
        note.write_text(text.replace("name: BM25\n", "name: Kestrel search\n", 1), "utf-8")
        ws.sync()
        second = ranker_for(ws)
        assert second is not first
        got = second.rank("kestrel search", 5)
        assert (got[0].entry.path, got[0].kind) == ("digest/wiki/bm25.md", Kind.EXACT)
    finally:
        ws.close()


def palette_paths(app: RemeApp) -> list[str]:
    """The paths the open switcher offers, best first ([] while it is not open)."""
    if not isinstance(app.screen, SwitcherPalette) or not app.screen.query(CommandList):
        return []
    options = app.screen.query_one(CommandList)
    commands = (options.get_option_at_index(i) for i in range(options.option_count))
    return [c.hit.command.path for c in commands if hasattr(c, "hit")]  # not "No matches"


async def until(pilot: Pilot, condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll while the app runs. Not `settle`: it waits for the watcher's changes only through
    the condition."""
    await wait_until(pilot, condition, "the switcher's condition", timeout)


def gathering(app: RemeApp) -> bool:
    """The switcher is asking its provider (the palette's search worker runs)."""
    group = SwitcherPalette._GATHER_COMMANDS_GROUP
    return any(w.group == group and w.state is WorkerState.RUNNING for w in app.workers)


async def test_keys_typed_with_the_opening_key_are_kept(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#note").focus()
        await pilot.press("o", *"polysilicon")
        assert isinstance(app.screen, SwitcherPalette)
        assert app.screen.query_one(CommandInput).value == "polysilicon"
        await until(pilot, lambda: palette_paths(app)[:1] == ["digest/wiki/polysilicon.md"])
        await pilot.press("enter")
        await until(pilot, lambda: app.main.reader.path == "digest/wiki/polysilicon.md")


async def test_keys_arriving_in_one_burst_are_kept(indexed_demo: Path) -> None:
    """As a terminal delivers them: "o" and the next keys in one read, nothing in between."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#note").focus()
        await pilot.pause()
        for key in "orrf":
            event = events.Key(key, key)
            event.set_sender(app)
            app._driver.send_message(event)
        await until(pilot, lambda: palette_paths(app)[:1] == ["digest/wiki/rrf.md"])
        assert app.screen.query_one(CommandInput).value == "rrf"
        # and no letter binding of the screen below acted on them ("r" renames a note)
        assert [type(s) for s in app.screen_stack[1:]] == [SwitcherPalette]


async def opened_switcher(pilot: Pilot) -> tuple[SwitcherPalette, NoteSwitcher]:
    """The switcher opened from the reader (`o`), with its notes provider."""
    app = pilot.app
    await settle(pilot)
    app.query_one("#note").focus()
    await pilot.press("o")
    palette = app.screen
    assert isinstance(palette, SwitcherPalette)
    return palette, next(p for p in palette._providers if isinstance(p, NoteSwitcher))


async def test_a_search_cancelled_as_the_notes_arrive_does_not_lose_them(
    indexed_demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under load a keystroke can cancel the search that awaited the notes' first read in the
    very moment the read ends: the notes must still reach the next search (they were dropped,
    and the switcher listed nothing until the index changed)."""
    release = threading.Event()
    opened = SwitcherPalette.__init__

    def held_reads(palette: SwitcherPalette, notes: Callable[[], NoteRanker], *rest: str) -> None:
        def held() -> NoteRanker:  # the real read, once the test lets it go
            release.wait(10)
            return notes()

        opened(palette, held, *rest)

    monkeypatch.setattr(SwitcherPalette, "__init__", held_reads)
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        palette, provider = await opened_switcher(pilot)
        await until(pilot, lambda: provider._reading is not None)
        palette._cancel_gather_commands()  # the palette's own search gives up meanwhile
        await until(pilot, lambda: not gathering(app))

        async def first_hit(query: str) -> str | None:
            async for hit in provider.search(query):
                return hit.command.path  # type: ignore[attr-defined]
            return None

        search = asyncio.create_task(first_hit("rrf"))
        reading = provider._reading
        assert reading is not None
        for _ in range(5):  # the search's first step awaits the read, which is held
            await asyncio.sleep(0)
        assert not search.done()
        # the search's wake-up is queued as the read ends; cancel it before it runs
        reading.add_done_callback(lambda _: search.cancel())
        release.set()
        with contextlib.suppress(asyncio.CancelledError):
            await search
        assert search.cancelled()
        assert await first_hit("rrf") == "digest/wiki/rrf.md"


async def test_a_search_that_finds_the_read_ended_but_not_yet_adopted_answers(
    indexed_demo: Path,
) -> None:
    """A read's done-callback (`_adopt`) runs a loop turn after the read ends; a keystroke's
    search running in between found the read done, awaited it (which returns at once) and
    looped without yielding: the browser froze at full CPU (seen under load). A timer signal
    turns that spin into a failure instead of a hung test."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        _, provider = await opened_switcher(pilot)
        await wait_until(
            pilot, lambda: provider._reading is None and provider._epoch >= 0, "the first read"
        )
        ended: asyncio.Future[NoteRanker] = asyncio.get_running_loop().create_future()
        ended.add_done_callback(provider._adopt)  # type: ignore[arg-type]
        provider._reading = ended  # type: ignore[assignment]
        ended.set_result(provider.ranker)  # its callbacks are queued, not run

        class Spun(BaseException):  # not an `Exception`: nothing on the way may catch it
            pass

        def spun(signum: int, frame: object) -> None:
            raise Spun("the switcher's search looped without yielding")

        previous = signal.signal(signal.SIGALRM, spun)
        signal.setitimer(signal.ITIMER_REAL, 10)
        try:
            hits = [hit.command.path async for hit in provider.search("rrf")]  # type: ignore[attr-defined]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        assert hits[:1] == ["digest/wiki/rrf.md"]
        assert provider._reading is None


async def test_palette_ranks_exact_typo_and_recent_notes(indexed_demo: Path) -> None:
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#note").focus()
        await pilot.press("o", *"solar")
        solar = ["digest/wiki/solar.md", "daily/2026-06-10/solar-reading.md"]
        await until(pilot, lambda: palette_paths(app)[:2] == solar)
        await pilot.press("escape", "o", *"polysilicno")  # two letters swapped
        await until(pilot, lambda: palette_paths(app)[:1] == ["digest/wiki/polysilicon.md"])
        await pilot.press("enter")
        await until(pilot, lambda: app.main.reader.path == "digest/wiki/polysilicon.md")
        await pilot.press("o")
        # recent first on empty input
        await until(pilot, lambda: palette_paths(app)[:1] == ["digest/wiki/polysilicon.md"])


def multilingual_vault(root: Path) -> Path:
    """Three languages, each translation carrying the English name as an alias."""
    (root / ".obsidian").mkdir(parents=True)
    for lang, name in [("ar", "وسائل الشرح"), ("bn", "কলআউট"), ("de", "Hinweisboxen")]:
        (root / lang).mkdir()
        (root / lang / f"{name}.md").write_text(
            f"---\naliases: [Callouts]\n---\n# {name}\n\n{lang} text\n", "utf-8"
        )
        (root / lang / "Home.md").write_text(f"# Home\n\n{lang} home\n", "utf-8")
    (root / "en" / "Editing").mkdir(parents=True)
    (root / "en" / "Editing" / "Callouts.md").write_text("# Callouts\n\nen text\n", "utf-8")
    (root / "en" / "Home.md").write_text("# Home\n\nsee [[Callouts]]\n", "utf-8")
    return root


async def test_palette_offers_the_file_named_so_and_the_open_notes_language_first(
    tmp_path: Path,
) -> None:
    root = multilingual_vault(tmp_path / "vault")
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main.navigator.open_path("de/Home.md")
        await settle(pilot)
        app.query_one("#note").focus()
        await pilot.press("o", *"Callouts")
        # the file named so first, then the open note's language's alias, then the others
        want = ["en/Editing/Callouts.md", "de/Hinweisboxen.md", "ar/وسائل الشرح.md", "bn/কলআউট.md"]
        await until(pilot, lambda: palette_paths(app) == want)
        await pilot.press("escape")
        app.main.navigator.open_path("en/Home.md")
        await settle(pilot)
        app.query_one("#note").focus()
        await pilot.press("o", *"home")
        # the open note's language, then the one opened before, then by path
        homes = ["en/Home.md", "de/Home.md", "ar/Home.md", "bn/Home.md"]
        await until(pilot, lambda: palette_paths(app) == homes)


async def test_palette_opened_while_a_change_is_applied_lists_it_once_applied(
    tmp_path: Path,
) -> None:
    """Opened within a second of a file change (the watcher running), with the query typed
    at once: the palette used to stay empty for the life of the dialog, its start-up (the
    notes read while the watcher held the index) cancelled by the first keystroke's search.
    The index is held here by the app's own thread while the real watcher applies a real
    file change, so the switcher's read waits as it did then, whatever the machine's speed."""
    root = multilingual_vault(tmp_path / "vault")
    app = RemeApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ws = app.ws
        assert ws is not None
        app.query_one("#note").focus()
        parts(ws).lock.acquire()  # reentrant: the UI thread goes on; worker threads wait for it
        try:
            (root / "en" / "Fresh idea.md").write_text("# Fresh idea\n\nnew\n", "utf-8")
            await pilot.press("o", *"fresh")
            assert isinstance(app.screen, SwitcherPalette)
            await until(pilot, lambda: gathering(app))  # it asks, and waits for the index
            await pilot.pause()
            assert palette_paths(app) == []  # nothing read yet: the index is held
        finally:
            parts(ws).lock.release()
        # the read finishes, the watcher applies the new note, the palette asks again
        await until(pilot, lambda: palette_paths(app)[:1] == ["en/Fresh idea.md"], timeout=20)
        await pilot.press("backspace", *"xx")  # and it keeps answering
        await until(pilot, lambda: palette_paths(app)[:1] == ["en/Fresh idea.md"], timeout=10)
        (root / "en" / "Fresh idea.md").unlink()  # a change while it is open, not typed
        await until(pilot, lambda: palette_paths(app) == [], timeout=20)


async def test_keys_typed_right_after_ctrl_o_in_the_search_box_reach_the_switcher(
    indexed_demo: Path,
) -> None:
    """In one burst, as a busy app (just after a file change) gets them: they went into the
    search box, which had focus when Ctrl+O was read, and the switcher opened empty."""
    app = RemeApp(indexed_demo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        box = app.main.search_pane.query_one("#query", Input)
        box.focus()
        await pilot.pause()
        for key, char in [("ctrl+o", None), *((c, c) for c in "rrf")]:
            event = events.Key(key, char)
            event.set_sender(app)
            app._driver.send_message(event)
        await until(pilot, lambda: palette_paths(app)[:1] == ["digest/wiki/rrf.md"])
        assert app.screen.query_one(CommandInput).value == "rrf"
        assert box.value == ""


async def test_a_note_another_process_writes_reaches_the_open_switcher(tmp_path: Path) -> None:
    """`reme-tui write` commits the note before this browser's watcher sees the file, which
    then finds nothing to apply: the change log tells the browser, and the switcher asks
    again."""
    root = multilingual_vault(tmp_path / "vault")
    app = RemeApp(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#note").focus()
        await pilot.press("o", *"zephyr")
        await until(pilot, lambda: isinstance(app.screen, SwitcherPalette))
        await settle(pilot)  # its search has answered
        assert palette_paths(app) == []
        cmd = [sys.executable, "-m", "reme_tui", "write", "en/Zephyr.md", "--body", "wind"]
        done = await asyncio.to_thread(
            subprocess.run, [*cmd, "-w", str(root)], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        await until(pilot, lambda: palette_paths(app) == ["en/Zephyr.md"], timeout=20)


async def test_the_switchers_cursor_stays_on_its_note_when_the_index_changes(
    make_tree: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """Each index change asks the open switcher's query again; the list painted again keeps
    the cursor on the note it was on (it went back to the first row under every batch)."""
    root = make_tree({f"note{i}.md": f"# Note {i}\n\nalpha\n" for i in range(6)})
    app = RemeApp(root, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ws = app.ws
        assert ws is not None
        app.query_one("#note").focus()
        await pilot.press("o", *"note")
        await until(pilot, lambda: len(palette_paths(app)) == 6 and not gathering(app))
        palette = app.screen
        assert isinstance(palette, SwitcherPalette)
        options = palette.query_one(CommandList)
        await pilot.press("down", "down")
        await until(pilot, lambda: options.highlighted == 2)
        chosen = palette_paths(app)[2]
        epoch = palette.index_epoch
        with open(root / "note5.md", "a", encoding="utf-8") as fh:
            fh.write("beta\n")
        await asyncio.to_thread(ws.apply, Changes(modified=["note5.md"]))
        await until(pilot, lambda: palette.index_epoch > epoch)
        await settle(pilot)  # the query asked again and its list painted
        assert options.highlighted is not None
        assert palette_paths(app)[options.highlighted] == chosen


def test_the_rankers_name_index_is_left_to_reference_counting() -> None:
    """Its per-name lists of notes were ~150k of the objects each full pass of the cyclic
    collector walked at 50k notes; tuples of ints it stops tracking."""
    entries = [NoteEntry(f"d{i % 7}/note-{i}.md", f"Note {i % 50}") for i in range(300)]
    ranker = NoteRanker(entries)
    gc.collect()
    index = [*ranker._exact.values(), *ranker._stems.values()]
    assert index and not any(gc.is_tracked(notes) for notes in index)
    assert [r.entry.path for r in ranker.rank("note-3", 3)][:1] == ["d3/note-3.md"]
