"""The full-screen play screen, driven through its keys with a pipe input and no terminal.

Each test runs the real `Application` on its own event loop (``asyncio.run``), sends key
presses through `create_pipe_input`, and waits until the view's state shows the effect;
the assertions read the state (`PlayView`, the client), not the rendered bytes. Games are
seeded: seed 5 asks seat 0 to declare, then to bury; seed 1 has seat 0 follow first.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from local_client import LocalClient
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import DummyInput, create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput

from tractor import Pass, Play, Rules
from tractor.cards import format_cards, parse_faces
from tractor.cli.screen import render
from tractor.cli.screen.app import build_app, capture, view_of
from tractor.cli.screen.panel_text import AUCTION_KEYS, KEYS
from tractor.cli.screen.view import PlayView
from tractor.phases import Decision

LEFT, RIGHT, DOWN, ESC, TAB, ENTER = "\x1b[D", "\x1b[C", "\x1b[B", "\x1b", "\t", "\r"


async def until(cond: Callable[[], Any], timeout: float = 5.0) -> None:
    """Wait for the app to have processed the keys sent (state-based, no fixed sleeps)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError("the screen did not reach the expected state")
        await asyncio.sleep(0.005)


class Output80x24(DummyOutput):
    """No terminal, but the size of one: the screen is drawn at 80x24."""

    def get_size(self) -> Size:
        return Size(rows=24, columns=80)


@asynccontextmanager
async def running(client: Any) -> AsyncIterator[tuple[PlayView, PipeInput]]:
    with create_pipe_input() as inp:
        app = build_app(client, input=inp, output=Output80x24())
        app.ttimeoutlen = 0.01
        task = asyncio.ensure_future(app.run_async())
        await until(lambda: app.is_running)
        try:
            yield view_of(app), inp
        finally:
            inp.send_text("\x11\x11")  # Ctrl-Q asks, Ctrl-Q again quits
            await asyncio.wait_for(task, 5)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def follow_client() -> LocalClient:
    """Seed 1, moved on to seat 0's first follow where it holds the suit led."""
    client = LocalClient(seed=1)
    assert client.decision() == Decision.PLAY and client.observation().current
    return client


def test_tab_completes_from_the_cards_that_can_follow_and_covers_nothing() -> None:
    async def go() -> None:
        client = follow_client()
        obs = client.observation()
        ladder = render.ladder_of(obs)
        led = ladder.esuit[obs.current[0][0]]
        async with running(client) as (view, inp):
            hand = view.hand()
            follow = list(dict.fromkeys(f for f in hand if ladder.esuit[f] == led))
            spades = {f for f in hand if 0 <= f < 13}
            assert spades - set(follow)  # ♠2 is a trump here: it cannot follow ♠
            inp.send_text("s")
            await until(lambda: view.input.text == "s")
            await asyncio.sleep(0.05)
            assert view.input.complete_state is None  # nothing pops up while typing
            inp.send_text(TAB)
            await until(lambda: view.input.complete_state is not None)
            offered = [c.text for c in view.input.complete_state.completions]
            assert offered == [format_cards([f]) + " " for f in follow]
            assert view.input.text == offered[0]  # the first one is typed
            # The choices are listed under the hand; every hand row is still in full view.
            screen = capture(view.app, 80, 24).splitlines()
            choices = next(line for line in screen if line.startswith("Tab: "))
            assert all(render.card_label(f) in choices for f in follow)
            for label, faces in render.hand_groups(client.observation()):
                row = next(line for line in screen if line.startswith(label + " "))
                assert render.cards_label(faces).split() == [
                    t.strip(">*") for t in row[len(label):].split()], row
            inp.send_text(TAB)  # the next one
            await until(lambda: view.input.text == offered[1])
            inp.send_text(ESC)
            await until(lambda: view.input.text == "" and view.input.complete_state is None)
            # A card that cannot follow is not offered.
            inp.send_text("d" + TAB)
            await until(lambda: view.info == "No card you hold fits there.")
            assert view.input.text == "d" and view.input.complete_state is None
            # Typing with a suit symbol and a space between cards works the same.
            inp.send_text(ESC)
            await until(lambda: view.input.text == "")
            card = render.card_label(hand[-1])
            inp.send_text(card + " ")
            await until(lambda: view.input.text == card + " ")
            assert view.selected_positions() == {len(hand) - 1}
            # After a typed play, nothing opens; Tab offers only what is still held.
            inp.send_text(ESC + offered[1] + ENTER)
            await until(lambda: view.input.text == "" and len(view.hand()) == len(hand) - 1)
            await asyncio.sleep(0.05)
            assert view.input.complete_state is None
            if client.decision() == Decision.PLAY:
                inp.send_text(TAB)
                await asyncio.sleep(0.05)
                state = view.input.complete_state
                for c in state.completions if state else []:
                    assert parse_faces(c.text)[0] in view.hand()
    run(go())


def test_letters_after_typed_text_are_text_and_chat_takes_everything() -> None:
    async def go() -> None:
        client = follow_client()
        async with running(client) as (view, inp):
            inp.send_text("hello world")  # e, l, o are commands on an empty input only
            await until(lambda: view.input.text == "hello world")
            assert view.panel is None and not view.chatting
            inp.send_text(ENTER)
            await until(lambda: "not a card" in view.error)
            inp.send_text(ESC)
            await until(lambda: view.input.text == "")
            inp.send_text("g")  # on an empty input, a letter is its command
            await until(lambda: view.panel == "log")
            inp.send_text(ESC)
            await until(lambda: view.panel is None)
            # m, and the text typed at once after it, all of it chat (letters, ?, digits).
            inp.send_text("mhello world? 2 pigs, i lost" + ENTER)
            await until(lambda: not view.chatting and client.events()
                        and client.events()[-1].startswith("You:"))
            assert client.events()[-1] == "You: hello world? 2 pigs, i lost"
            assert view.input.text == ""
    run(go())


class LongLogClient(LocalClient):
    """A table with a long log of long plays, and optionally a long banner."""

    def __init__(self, seed: int, banner: str | None = None) -> None:
        super().__init__(seed=seed)
        self._banner = banner
        self.log = [f"seat {k % 4} (AI {k % 4}) plays ♦10 ♦10 ♦9 ♦9 ♣10 ♣10 ♥10 ♥10 #{k}"
                    for k in range(60)]

    def events(self) -> list[str]:
        return list(self.log)

    def banner(self) -> str | None:
        return self._banner


def log_pane(screen: str) -> list[str]:
    """The log's lines: right of the table's separator (100 columns and more), else the
    newest events under the table's "latest" rule, down to the hand's separator."""
    lines = screen.splitlines()
    beside = [line.split("│", 1)[1] for line in lines if "│" in line]
    if beside:
        return beside
    start = next(i for i, line in enumerate(lines) if line.startswith("── latest"))
    end = next(i for i, line in enumerate(lines) if line.startswith("─" * 40))
    return lines[start + 1:end]


def test_the_log_pane_keeps_the_newest_lines_and_wraps_between_cards() -> None:
    client = LongLogClient(seed=1)
    app = build_app(client, input=DummyInput(), output=DummyOutput())
    words = " ".join(client.log).split()
    for width, height in ((100, 30), (80, 24), (120, 40), (80, 24)):  # resized
        pane = log_pane(capture(app, width, height))
        shown = " ".join(pane).split()
        assert shown and shown == words[len(words) - len(shown):], (width, pane)
        assert [line for line in pane if line.strip()][-1].endswith("#59")  # the newest
        assert all(line.startswith(("seat", "  ")) for line in pane if line.strip())


def test_the_log_panel_shows_the_newest_and_scrolls() -> None:
    async def go() -> None:
        client = LongLogClient(seed=1)
        async with running(client) as (view, inp):
            inp.send_text("g")
            await until(lambda: view.panel == "log")
            screen = capture(view.app, 80, 24)
            assert "#59" in screen and "#0 " not in screen + " "
            assert "Esc closes" in screen
            inp.send_text("\x1b[5~")  # PgUp
            await until(lambda: view.log_back > 0)
            older = capture(view.app, 80, 24)
            assert "#59" not in older and "lines " in older
            inp.send_text("\x1b[H")  # Home: the oldest
            await until(lambda: "#0 " in capture(view.app, 80, 24).replace("\n", " "))
            inp.send_text("\x1b[6~" + "\x1b[B" * 200)  # PgDn, then down to the end
            await until(lambda: view.log_back == 0)
            assert "#59" in capture(view.app, 80, 24)
    run(go())


def test_a_long_banner_wraps_instead_of_being_cut() -> None:
    text = ("waiting for seat 2 (Somebody With A Long Name): no connection for 17 s (the "
            "hand ends after 120 s); waiting for seat 3 (Another Long Name): no connection "
            "for 9 s (the hand ends after 120 s)")
    app = build_app(LongLogClient(seed=1, banner=text), input=DummyInput(),
                    output=DummyOutput())
    screen = capture(app, 80, 24).splitlines()
    assert screen[0].startswith(" Tractor")
    banner = []
    for line in screen[1:]:
        if "│" in line or line.startswith("Trump"):
            break
        banner.append(line.strip())
    assert " ".join(banner).split() == text.split()
    assert len(screen) <= 24 and all(len(line) <= 80 for line in screen)


def test_select_by_cursor_and_space() -> None:
    async def go() -> None:
        client = follow_client()
        async with running(client) as (view, inp):
            hand = view.hand()
            assert view.cursor == 0
            inp.send_text(RIGHT + RIGHT)
            await until(lambda: view.cursor == 2)
            inp.send_text(" ")
            await until(lambda: view.input.text != "")
            assert view.selected_positions() == {2}
            assert view.selection() == [hand[2]]
            inp.send_text(LEFT + " ")
            await until(lambda: len(view.selected_positions()) == 2)
            assert view.selected_positions() == {1, 2}
            inp.send_text(" ")  # again: unselect the card under the cursor
            await until(lambda: view.selected_positions() == {2})
            inp.send_text(LEFT + LEFT)  # wraps around to the last card
            await until(lambda: view.cursor == len(hand) - 1)
            inp.send_text(DOWN)  # next suit row wraps to the first row
            await until(lambda: view.cursor == 0)
    run(go())


def test_space_after_a_completion_separates_then_selects_again() -> None:
    # Following ♦8 ♦8, Tab completed KD and Space then selected the card under the cursor
    # ("KD AH": "No card you hold fits there."). Seed 1: seat 0 follows ♠J holding
    # ♠Q ♠10 ♠4 ♠3, the cursor on BJ.
    line = PlayView(follow_client()).hand_line
    assert line.hand()[line.cursor] == parse_faces("BJ")[0]
    line.input.insert_text("3")
    assert line.complete(1) == "" and line.input.text == "3S "  # the one card that fits
    line.space()
    assert line.input.text == "3S "
    line.space()  # a Space more, with no completion since: the card under the cursor
    assert line.input.text == "3S BJ "
    # Several fit: Tab lists them and types the first; Space keeps it, and separates.
    line.place("")
    line.input.insert_text("s")
    line.complete(1)
    assert line.input.complete_state is not None and line.input.text == "QS "
    line.space()
    assert line.input.text == "QS " and line.input.complete_state is None
    line.place("")
    line.input.insert_text("3")
    line.complete(1)
    line.move(1)  # the cursor moved after the completion: Space selects under it
    line.space()
    assert line.input.text == "3S 2S "


def test_illegal_play_keeps_the_input_and_shows_the_reason() -> None:
    async def go() -> None:
        client = follow_client()
        obs = client.observation()
        ladder = render.ladder_of(obs)
        led = ladder.esuit[obs.current[0][0]]
        hand = render.hand_order(obs)
        assert any(ladder.esuit[f] == led for f in hand)
        off = next(f for f in hand if ladder.esuit[f] != led)
        typed = format_cards([off]).lower()
        async with running(client) as (view, inp):
            inp.send_text(typed)
            await until(lambda: view.input.text == typed)
            inp.send_text(ENTER)
            await until(lambda: view.error)
            assert view.error == client.submit(Play(0, (off,)))  # the rules core's reason
            assert view.error.startswith("you must")
            assert view.input.text == typed  # kept, to be corrected
            assert len(client.observation().current) == len(obs.current)
            # A card not held is refused before reaching the table.
            inp.send_text(ESC + "zz" + ENTER)
            await until(lambda: "not a card" in view.error)
            # The legal card goes through: the input is cleared and the hand shrinks.
            follow = next(f for f in hand if ladder.esuit[f] == led)
            inp.send_text(ESC + format_cards([follow]) + ENTER)
            await until(lambda: view.input.text == "" and not view.error)
            assert len(render.hand_order(client.observation())) == len(hand) - 1
            assert f"You plays {render.card_label(follow)}" in client.events()
    run(go())


def test_declare_panel_then_bury_eight() -> None:
    async def go() -> None:
        client = LocalClient(seed=5)
        assert client.decision() == Decision.DECLARE
        async with running(client) as (view, inp):
            assert view.panel == "declare"
            assert "1) ♥2" in view.panel_text()
            inp.send_text("abc")  # typing is swallowed while a panel is open
            inp.send_text("1")
            await until(lambda: client.decision() == Decision.BURY)
            assert view.panel is None and view.input.text == ""
            assert "You declares ♥2" in client.events()
            obs = client.observation()
            assert obs.starter == 0 and obs.talon
            assert render.talon_size(obs) == 8
            # Three cards are not enough: the reason is shown, nothing changes.
            inp.send_text(" " + RIGHT + " " + RIGHT + " ")
            await until(lambda: len(view.selected_positions()) == 3)
            inp.send_text(ENTER)
            await until(lambda: "exactly 8" in view.error)
            assert view.error == "Choose exactly 8 cards to bury (3 chosen)."
            assert client.decision() == Decision.BURY
            # The hint preselects eight; Enter buries them.
            inp.send_text(ESC + "i")
            await until(lambda: len(view.selected_positions()) == 8)
            chosen = view.selection()
            inp.send_text(ENTER)
            await until(lambda: client.decision() != Decision.BURY)
            assert client.game.hand.buried == chosen
            assert client.game.hand.phase == "play"
            assert sum(1 for e in client.events() if "You buries 8 cards" in e) == 1
    run(go())


def test_pass_on_a_declaration() -> None:
    async def go() -> None:
        client = LocalClient(seed=5)
        async with running(client) as (view, inp):
            inp.send_text(ESC)  # hide the panel: the decision stays
            await until(lambda: view.panel is None)
            assert client.decision() == Decision.DECLARE
            inp.send_text("e")
            await until(lambda: view.panel == "declare")
            inp.send_text("p")
            await until(lambda: client.decision() != Decision.DECLARE)
            assert not any("You declares" in e for e in client.events())
    run(go())


def test_whole_hand_by_hints_ends_in_the_summary_then_next_hand() -> None:
    async def go() -> None:
        client = LocalClient(seed=5)
        async with running(client) as (view, inp):
            for _ in range(60):
                if client.summary() is not None:
                    break
                decision = client.decision()
                before = len(client.events())
                if decision == Decision.DECLARE:
                    inp.send_text("p")
                else:
                    inp.send_text("i")
                    await until(lambda: view.info.startswith("Hint"))
                    inp.send_text(ENTER)
                await until(lambda b=before, d=decision: client.summary() is not None
                            or len(client.events()) > b or client.decision() != d)
            assert client.summary() is not None
            await until(lambda: view.panel == "summary")
            text = view.panel_text()
            assert "Hand 1 is over." in text and "Audit: played in-process" in text
            # Information panels open over the summary and come back to it.
            inp.send_text("l")
            await until(lambda: view.panel == "last")
            inp.send_text(ESC)
            await until(lambda: view.panel == "summary")
            inp.send_text(ENTER)
            await until(lambda: client.summary() is None)
            assert view.panel in (None, "declare")
            assert client.observation().game.hand_no == 1
    run(go())


def test_panels_help_tracker_last_log_and_chat() -> None:
    async def go() -> None:
        client = follow_client()
        async with running(client) as (view, inp):
            inp.send_text("?")
            await until(lambda: view.panel == "help")
            for key, what in KEYS:  # the auction's keys only at an auction table
                shown = key in view.panel_text() and what in view.panel_text()
                assert shown == (key not in AUCTION_KEYS), key
            inp.send_text("as")  # swallowed
            inp.send_text(ESC)
            await until(lambda: view.panel is None)
            assert view.input.text == ""
            inp.send_text("o")
            await until(lambda: view.panel == "tracker")
            assert "Still out" in view.panel_text()
            inp.send_text("o")  # the same key closes it
            await until(lambda: view.panel is None)
            inp.send_text("l")
            await until(lambda: view.panel == "last")
            inp.send_text(ENTER)
            await until(lambda: view.panel is None)
            inp.send_text("g")
            await until(lambda: view.panel == "log")
            inp.send_text("q")
            await until(lambda: view.panel is None)
            inp.send_text("m")
            await until(lambda: view.chatting)
            inp.send_text("good luck, all" + ENTER)
            await until(lambda: not view.chatting)
            assert client.events()[-1] == "You: good luck, all"
            assert view.input.text == ""  # chat text never reached the card input
    run(go())


def test_hint_preselects_and_the_cursor_follows() -> None:
    async def go() -> None:
        client = follow_client()
        async with running(client) as (view, inp):
            inp.send_text("i")
            await until(lambda: view.info.startswith("Hint"))
            hinted = client.hint()
            assert hinted is not None
            assert view.selection() == list(hinted.faces)
            assert view.hand()[view.cursor] == hinted.faces[0]
    run(go())


class BrokenClient(LocalClient):
    """A client whose table fails: the screen must show a message, not a traceback."""

    def submit(self, action: Any) -> str | None:
        raise RuntimeError("the table fell over")

    def banner(self) -> str | None:
        return "seat 2 is gone: waiting for it to come back"


def test_failures_become_messages_and_the_banner_shows() -> None:
    async def go() -> None:
        client = BrokenClient(seed=1)
        async with running(client) as (view, inp):
            inp.send_text("i" + ENTER)
            await until(lambda: view.error.startswith("error:"))
            assert "the table fell over" in view.error
    run(go())
    app = build_app(BrokenClient(seed=1), input=DummyInput(), output=DummyOutput())
    assert "seat 2 is gone" in capture(app).splitlines()[1]


def test_on_change_redraws_and_capture_fits_80x24() -> None:
    client = follow_client()
    app = build_app(client, input=DummyInput(), output=DummyOutput())
    view = view_of(app)
    assert client.on_change == view.changed
    text = capture(app, 80, 24)
    lines = text.splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    assert lines[0].startswith(" Tractor · hand 1 · trick 1 · trump ♣2 · your turn: follow")
    assert lines[1].startswith("Trump ♣2 · declarers team 1 lv 2 · defenders team 0 lv 2")
    assert any(line.startswith("trumps") for line in lines)
    assert lines[-2].startswith("play>")
    # A change pushed by the table (here: a chat line) reaches the log pane.
    client.chat("hello table")
    assert "You: hello table" in capture(app, 80, 24)
    # Declaration decisions open their panel when the table asks.
    declaring = LocalClient(seed=5)
    app2 = build_app(declaring, input=DummyInput(), output=DummyOutput())
    assert view_of(app2).panel == "declare"
    assert "You may declare:" in capture(app2)


def test_no_color_means_a_monochrome_screen(monkeypatch: Any) -> None:
    from prompt_toolkit.output import ColorDepth

    monkeypatch.setenv("NO_COLOR", "1")
    app = build_app(follow_client(), input=DummyInput(), output=DummyOutput())
    assert app.color_depth == ColorDepth.DEPTH_1_BIT
    assert not any("ansi" in rule for _cls, rule in app.style.style_rules)
    monkeypatch.delenv("NO_COLOR")
    app = build_app(follow_client(), input=DummyInput(), output=DummyOutput())
    assert any("ansired" in rule for _cls, rule in app.style.style_rules)


class SlowHintClient(LocalClient):
    """A client whose advice is worked out on whatever thread runs it (as a network seat's
    search is), says which thread that was, and comes only when the test lets it
    (``release``): the screen is checked while the hint is still thinking, however slow the
    machine. A test that fails before releasing it leaves the thread after ten seconds."""

    def __init__(self, seed: int) -> None:
        import threading

        super().__init__(seed=seed)
        self.threads: list[str] = []
        self.release = threading.Event()

    def advisor(self) -> Any:
        import threading

        advice = self.advice()

        def slow() -> Any:
            self.threads.append(threading.current_thread().name)
            self.release.wait(10)
            return advice
        return slow


def test_a_slow_hint_thinks_off_the_screen_and_enter_meanwhile_plays_it() -> None:
    import threading

    async def go() -> None:
        client = SlowHintClient(seed=1)
        async with running(client) as (view, inp):
            hinted = client.hint()
            assert hinted is not None
            before = client.observation().hand_sizes[0]
            inp.send_text("i")
            await until(lambda: view.hint_pending)
            assert view.info.startswith("Hint: thinking")
            # The screen still takes keys while the search thinks.
            cursor = view.cursor
            inp.send_text(RIGHT)
            await until(lambda: view.cursor != cursor)
            assert view.hint_pending
            inp.send_text(ENTER)  # before the hint came: it is played when it comes
            await until(lambda: "played when it comes" in view.info)
            assert client.observation().hand_sizes[0] == before
            client.release.set()
            await until(lambda: client.observation().hand_sizes[0] < before)
            assert not view.hint_pending and view.error == ""
            assert client.threads and client.threads[0] != threading.main_thread().name
    run(go())


class PassHintClient(SlowHintClient):
    """A slow hint that says pass (seed 5: seat 0 is asked to declare); the moves sent are
    kept."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.sent: list[Any] = []

    def advice(self) -> Any:
        from tractor.cli.seat.client import Hint

        return Hint(Pass(self.seat), "a single is easily overcalled")

    def submit(self, action: Any) -> str | None:
        self.sent.append(action)
        return super().submit(action)


def test_enter_accepts_a_hinted_pass_in_the_declaration_panel() -> None:
    # The hint said "pass ... (press p)" and Enter did nothing there (elsewhere Enter
    # accepts the hint): a tester's table stalled 5 minutes.
    async def go(early: bool) -> None:
        client = PassHintClient(seed=5)
        assert client.decision() == Decision.DECLARE
        async with running(client) as (view, inp):
            assert view.panel == "declare"
            inp.send_text("i")
            await until(lambda: view.hint_pending)
            if early:  # Enter while it thinks: the pass is sent when it comes
                inp.send_text(ENTER)
                await until(lambda: "played when it comes" in view.info)
            client.release.set()
            if not early:
                await until(lambda: view.info.startswith("Hint: pass"))
                assert view.info.endswith("(Enter to accept)") and not client.sent
                inp.send_text(ENTER)
            await until(lambda: bool(client.sent))
            assert client.sent == [Pass(0)] and client.decision() != Decision.DECLARE
    run(go(early=False))
    run(go(early=True))


def test_a_hint_for_a_position_gone_by_is_dropped() -> None:
    async def go() -> None:
        client = SlowHintClient(seed=1)
        async with running(client) as (view, inp):
            hinted = client.hint()
            assert hinted is not None
            inp.send_text("i")
            await until(lambda: view.hint_pending)
            assert client.submit(Play(0, tuple(hinted.faces))) is None  # moved on
            client.release.set()  # the hint comes after the move
            await until(lambda: not view.hint_pending)
            assert view.input.text == "" and not view.info.startswith("Hint")
    run(go())


def test_ctrl_q_asks_then_quits_and_another_key_only_takes_the_question_back() -> None:
    from tractor.cli.screen.quitting import QUIT_QUESTION

    async def go() -> None:
        client = follow_client()
        with create_pipe_input() as inp:
            app = build_app(client, input=inp, output=Output80x24())
            app.ttimeoutlen = 0.01
            task = asyncio.ensure_future(app.run_async())
            await until(lambda: app.is_running)
            view = view_of(app)
            view.hint()  # a selection waits in the input
            await until(lambda: bool(view.input.text))
            typed = view.input.text
            inp.send_text("\x11")
            await until(lambda: view.quit_pending)
            assert render.to_text(view.message_fragments()) == QUIT_QUESTION.format(
                key="Ctrl-Q")
            inp.send_text(ENTER)  # takes the question back, and plays nothing
            await until(lambda: not view.quit_pending)
            assert view.input.text == typed and client.decision() == Decision.PLAY
            inp.send_text("\x03")  # Ctrl-C asks too, and the question names it
            await until(lambda: view.quit_pending)
            assert "Quit? Ctrl-C again leaves" in render.to_text(view.message_fragments())
            inp.send_text("x")
            await until(lambda: not view.quit_pending)
            inp.send_text("\x11\x11")
            await asyncio.wait_for(task, 5)
            assert view.quit_requested
    run(go())


def test_a_panel_taller_than_the_screen_scrolls() -> None:
    # The help is taller than 80x24 leaves it; drawing it (at the size it would like, then
    # at its real one) once reset its scroll, so PgDn did nothing.
    async def go() -> None:
        async with running(follow_client()) as (view, inp):
            inp.send_text("?")
            await until(lambda: view.panel == "help")
            await asyncio.sleep(0.1)
            first = capture(view.app, 80, 24)
            assert "── lines 1-" in first, first
            inp.send_text("\x1b[6~")  # PgDn
            await until(lambda: view.panel_top > 0)
            assert capture(view.app, 80, 24) != first
            inp.send_text("\x1b[5~")  # PgUp
            await until(lambda: view.panel_top == 0)
    run(go())


def test_letters_are_commands_after_a_hint_or_a_space_selection() -> None:
    # After a hint its cards stood in the input, and the letters were text: o typed an
    # "o" after them instead of opening the tracker.
    async def go() -> None:
        client = follow_client()
        async with running(client) as (view, inp):
            inp.send_text("i")
            await until(lambda: view.input.text.strip() != "")
            hinted = view.input.text
            inp.send_text("o")
            await until(lambda: view.panel == "tracker")
            assert view.input.text == hinted  # the hint's cards stay selected
            inp.send_text(ESC)
            await until(lambda: view.panel is None)
            inp.send_text(ESC)  # clear, then select a card with Space
            await until(lambda: view.input.text == "")
            inp.send_text(" ")
            await until(lambda: view.input.text != "")
            inp.send_text("l")
            await until(lambda: view.panel == "last")
            inp.send_text(ESC + ESC)
            await until(lambda: view.panel is None and view.input.text == "")
            inp.send_text("1")  # typed by the person: now letters are text
            await until(lambda: view.input.text == "1")
            inp.send_text("o")
            await until(lambda: view.input.text == "1o")
            assert view.panel is None
    run(go())


def test_the_help_lists_the_auction_keys_at_an_auction_table_only() -> None:
    from tractor.cli.screen.panel_text import keys_for

    auction = [key for key, _ in keys_for(Rules(declaration="auction"))]
    reveal = [key for key, _ in keys_for(Rules())]
    assert AUCTION_KEYS <= set(auction) and not AUCTION_KEYS & set(reveal)
    assert len(auction) == len(KEYS) == len(reveal) + len(AUCTION_KEYS)


def test_a_declaration_by_its_number_typed_then_enter():
    # "1" then Enter did nothing: Enter was not bound while the declaration panel was open,
    # and a typed number was not a card.
    from local_client import LocalClient

    from tractor.phases import Decision

    seed = next(s for s in range(40) if _offers(LocalClient(seed=s)))
    client = LocalClient(seed=seed)
    _offers(client)

    async def go() -> None:
        async with running(client) as (view, inp):
            await until(lambda: view.panel == "declare")
            inp.send_text(ENTER)  # nothing typed: told what to do
            await until(lambda: "Press the number of a declaration" in view.info)
            inp.send_text(ESC)  # the panel hidden: "1" is text now
            await until(lambda: view.panel is None)
            option = client.declaration_options()[0]
            inp.send_text("1")
            await until(lambda: view.input.text == "1")
            inp.send_text(ENTER)
            await until(lambda: any(tuple(sorted(f)) == tuple(sorted(option))
                                    for s, f in client.observation().declarations if s == 0))
            assert (client.decision() != Decision.DECLARE
                    or option not in client.declaration_options())
    run(go())


def _offers(client) -> bool:
    """Pass on until the client offers a declaration (False if the deal ends first)."""
    from tractor import Pass
    from tractor.phases import Decision

    while client.decision() == Decision.DECLARE and client.observation().phase == "deal":
        if client.declaration_options():
            return True
        client.submit(Pass(0))
    return False



def test_typing_pass_at_a_bid_passes_once_on_enter_and_spills_nothing() -> None:
    # The trial: "pass" typed at the bid prompt passed on its p (a command key) and left
    # "ass" in the next prompt. A pass is final: at a bid it is text, and Enter sends it.
    from test_screens_80 import FrozenClient, auction_moments

    from tractor import Pass
    from tractor.phases import Decision

    class Bidder(FrozenClient):
        sent: list[Any]

        def submit(self, action: Any) -> str | None:
            self.sent.append(action)
            self.wanted = None  # the auction goes on without this seat
            return None

    async def go() -> None:
        frozen = dict(auction_moments(4))["auction bid"]
        client = Bidder(frozen.obs, frozen.names, Decision.BID, frozen.seat)
        client.sent = []
        async with running(client) as (view, inp):
            inp.send_text("pass")
            await until(lambda: view.input.text == "pass")
            await asyncio.sleep(0.05)
            assert client.sent == []  # nothing sent before Enter (before: a Pass at once)
            inp.send_text(ENTER)
            await until(lambda: bool(client.sent))
            assert client.sent == [Pass(client.seat)]
            await asyncio.sleep(0.05)
            assert view.input.text == ""  # nothing spilled into the next question

    run(go())
