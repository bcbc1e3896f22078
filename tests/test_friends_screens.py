"""Issue 31: find-a-friend on the screens, at 80x24 and in ``--plain``.

Real hands of the rules core (`tractor.game.Game`, through the in-process `LocalClient`)
at 5 and 6 seats: the starter's call (typed, with the rules core's reasons for a bad one,
and the hint), the calls and who answered them, who is known to be the starter's friend
and that the others are not known yet, each player's own level, the defenders' points as
known, the tracker's calls, and the end-of-hand summary with the sides, the gaining seats
and the levels. What is asserted is what a person reads on the screen.
"""

from __future__ import annotations

import asyncio
import io
import random
import re
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

from local_client import LocalClient
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from tractor import Game, Rules
from tractor.actions import Call
from tractor.cards import format_cards
from tractor.cli.screen import render, table_view, tracker_view
from tractor.cli.screen.app import build_app, capture, view_of
from tractor.cli.screen.panel_text import FRIENDS_KEYS, keys_for, panel_text
from tractor.cli.screen.plain import play_plain
from tractor.cli.screen.view import PlayView
from tractor.friends import FriendCall, Sides, call_error, callable_cards
from tractor.observation import Observation
from tractor.phases import Decision, Phase

ENTER, ESC = "\r", "\x1b"
#: (players, seed) of games where the person (seat 0) becomes the starter and calls.
CALLERS = {5: 3, 6: 0}
NAMES = {5: ["Tess", "AI 1", "Ann Lee", "AI 3", "AI 4"],
         6: ["Tess", "AI 1", "Ann Lee", "AI 3", "AI 4", "AI 5"]}


def friends(players: int) -> Rules:
    return Rules(players=players, mode="friends")


def client_at_call(players: int) -> LocalClient:
    client = LocalClient(friends(players), seat=0, seed=CALLERS[players],
                         names=NAMES[players])
    drive(client, lambda: client.decision() == Decision.CALL)
    assert client.decision() == Decision.CALL
    return client


def drive(client: LocalClient, done: Callable[[], bool]) -> None:
    """The person's moves by the hint until ``done`` (or the hand's summary)."""
    for _ in range(3000):
        if done() or client.summary() is not None:
            return
        assert client.decision() is not None
        action = client.hint()
        assert action is not None and client.submit(action) is None
    raise AssertionError("the hand did not get there")


def trump_card(obs: Observation) -> int:
    """A plain card of the trump suit (the ace, or the king when aces are trump)."""
    assert obs.trump is not None and obs.trump.suit is not None
    suit = "SHDC".index(obs.trump.suit)
    return suit * 13 + (11 if obs.trump.rank == "A" else 12)


# --- the full screen, driven by keys ---------------------------------------------------------


class Output80x24(DummyOutput):
    def get_size(self) -> Size:
        return Size(rows=24, columns=80)


async def until(cond: Callable[[], Any], timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError("the screen did not reach the expected state")
        await asyncio.sleep(0.005)


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
            inp.send_text("\x11\x11")
            await asyncio.wait_for(task, 5)


def screen(view: PlayView) -> str:
    assert view.app is not None
    return capture(view.app, 80, 24)


def test_the_call_on_the_full_screen_typed_refused_with_reasons_then_made() -> None:
    async def go() -> None:
        client = client_at_call(6)
        obs = client.observation()
        trump = format_cards([trump_card(obs)])
        async with running(client) as (view, inp):
            shown = screen(view)
            assert "your turn: call your friends" in shown.splitlines()[0]
            assert "\ncall>" in shown
            assert "Call 2 friends: type 2 cards and Enter" in shown
            assert "Allowed: any card but a trump." in shown
            assert "you call 2 friends by card" in shown and "? · lv 2" in shown
            # Too few calls: the rules core's reason, the typed text kept.
            inp.send_text("AS" + ENTER)
            await until(lambda: view.error)
            assert view.error == "call 2 friends, not 1" in screen(view)
            assert view.input.text == "AS"
            # A trump: refused with the rules' words, whatever the hand holds.
            inp.send_text(ESC + f"2:{trump} 2nd ♠K" + ENTER)
            await until(lambda: "cannot be called" in view.error)
            reason = call_error(client.rules, obs.trump, "2", (
                FriendCall.parse(f"2:{trump}"), FriendCall.parse("2:KS")))
            assert view.error == reason
            assert reason.startswith(f"a trump ({render.card_label(trump_card(obs))}) "
                                     "cannot be called: the rules allow no trump")
            assert reason in screen(view).replace("\n", " ")  # the message line, wrapped
            # Not a card at all.
            inp.send_text(ESC + "2:XX" + ENTER)
            await until(lambda: "not a friend call" in view.error)
            # The typed calls mark no card of the hand (a called card is anybody's).
            inp.send_text(ESC + "AS")
            await until(lambda: view.input.text == "AS")
            assert view.selected_positions() == set()
            # The hint fills in a call the rules allow; Enter makes it.
            inp.send_text(ESC + "i")
            await until(lambda: view.info.startswith("Hint: call "))
            hinted = view.input.text
            assert client.hint() == Call.of(0, hinted)
            inp.send_text(ENTER)
            await until(lambda: client.decision() != Decision.CALL)
            after = client.observation()
            assert after.calls == Call.of(0, hinted).calls
            assert f"Tess calls {' and '.join(str(c) for c in after.calls)}" in client.events()
            shown = screen(view)
            for call in after.calls:
                assert f"call {str(call).removeprefix('the ')} → ?" in shown
            assert "as known" in shown
    asyncio.run(go())


def outside_calls(client: LocalClient) -> Call:
    """Calls of first copies of cards the person neither holds nor buried (so another
    seat answers them), highest first."""
    obs = client.observation()
    assert obs.trump is not None
    mine = set(obs.hand) | set(obs.buried or ())
    cards = [c for c in callable_cards(client.rules, obs.trump, obs.levels[0])
             if c.nth == 1 and c.face not in mine and c.face < 52]
    cards.sort(key=lambda c: -(c.face % 13))
    return Call(0, tuple(cards[:client.rules.friend_calls]))


def reveal_client(players: int) -> tuple[LocalClient, int]:
    """A hand where the person calls cards it does not hold, played by hints until the
    first friend is revealed; and the revealing trick's number (the rules core's
    `Sides`)."""
    client = client_at_call(players)
    assert client.submit(outside_calls(client)) is None
    drive(client, lambda: any(f is not None for f in client.observation().friends)
          and client.decision() is not None)
    obs = client.observation()
    sides = Sides(client.rules, 0, obs.calls)
    for number, trick in enumerate([*obs.tricks, None], 1):
        plays = trick.plays if trick else obs.current
        leader = trick.leader if trick else obs.leader
        if any(sides.on_play((leader + k) % players, p) for k, p in enumerate(plays)):
            return client, number
    raise AssertionError("no friend revealed")


def friends_side(obs: Observation, seat: int) -> str:
    """What a seat's side must read: the starter (seat 0 here), a revealed friend, a
    defender once every call fell, else not known."""
    if seat == obs.starter:
        return "start"
    if seat in obs.declaring:
        return "friend"
    return "def" if all(f is not None for f in obs.friends) else "?"


def test_a_friend_revealed_shows_at_its_place_with_the_calls_and_levels() -> None:
    for players in (5, 6):
        client, trick = reveal_client(players)
        obs = client.observation()
        names = client.names
        pane = render.to_text(table_view.table_pane(obs, names, client.events(), 80, 18,
                                                    color=False))
        friend = next(f for f in obs.friends if f is not None)
        header = pane.splitlines()[0]
        assert f"→ {names[friend]}" in header
        tags = {s: " ".join(render.to_text(line) for line in
                            table_view.seat_lines(obs, names, s, 30, {}))
                for s in range(players)}
        for s, text in tags.items():
            assert f"{friends_side(obs, s)} · lv {obs.levels[s]} · " in text, text
        # The log says who the friend is, in the trick it was revealed.
        said = [e for e in client.events() if e.startswith(f"{names[friend]} is Tess's friend")]
        assert said, client.events()
        # Plain mode's table: the call, its trick, and every seat's own row.
        text = render.table_text(obs, names)
        assert f"played by {names[friend]} in trick {trick}" in text
        lines = text.splitlines()
        header = next(i for i, line in enumerate(lines) if line.startswith("  name"))
        for s, row in enumerate(lines[header + 1:header + 1 + players]):
            side = friends_side(obs, s)
            assert re.match(rf"^. {re.escape(names[s])}.*\s{re.escape(side)}\*?\s+"
                            rf"{obs.levels[s]}\s+{obs.hand_sizes[s]}\b", row), row


def test_each_player_shows_its_own_level_in_a_later_hand() -> None:
    """After a hand the gaining seats' levels differ from the others': each seat's place
    and row show its own."""
    rules = friends(5)
    game, rng = Game(rules, seed=11), random.Random(11)
    while game.hand_no == 0 or game.hand.phase != Phase.PLAY or len(game.hand.tricks) < 3:
        game.apply(game.random_action(rng))
    obs = game.observe(1)
    assert len(set(obs.levels)) > 1  # the first hand moved some seats on
    names = ["AI 0", "Tess", "AI 2", "AI 3", "AI 4"]
    text = render.table_text(obs, names).splitlines()
    header = next(i for i, line in enumerate(text) if line.startswith("  name"))
    for s, row in enumerate(text[header + 1:header + 6]):
        m = re.match(r"^. (.{13})(.{7})(.{2}) (.{5})", row)
        assert m is not None, row
        assert m.group(1).strip().startswith(names[s]), row
        assert (m.group(3).strip(), int(m.group(4))) == (obs.levels[s], obs.hand_sizes[s])
    text = "\n".join(text)
    pane = render.to_text(table_view.table_pane(obs, names, [], 80, 20, color=False))
    for s in range(5):
        assert f"lv {obs.levels[s]}" in pane
    assert "team" not in pane and "team" not in text
    assert "Trump" in pane.splitlines()[0]


def test_summary_at_80x24_tells_sides_gaining_seats_and_levels() -> None:
    for players in (5, 6):
        client = client_at_call(players)
        drive(client, lambda: False)
        summary = client.summary()
        assert summary is not None
        res = summary["result"]
        names = client.names
        with create_pipe_input() as inp:
            app = build_app(client, input=inp, output=DummyOutput())
            shown = capture(app, 80, 24)
        text = shown.replace("\n", " ")
        assert "Hand 1 is over." in shown
        side = [names[s] for s in res["side"]]
        assert f"Starter's side: {side[0]}" in text
        for s in res["gaining"]:
            assert names[s] in text
        levels = next(line for line in shown.splitlines() if line.startswith("Levels: "))
        for s in range(players):
            before = client.observation().levels[s]
            after = summary["levels"][s]
            assert (f"{names[s]} {before} → {after}" if before != after
                    else f"{names[s]} {before}") in levels + text
        assert f"Next starter: {names[res['next_starter']]}." in text
        assert "Game so far" in shown and "team" not in shown
        assert len(shown.splitlines()) <= 24


def test_tracker_tells_the_calls_and_where_their_cards_are() -> None:
    client = client_at_call(5)
    assert client.submit(Call.of(0, "2:AS")) is None
    obs = client.observation()
    text = panel_text("tracker", client, 80, 40)
    ace = FriendCall.parse("AS").face
    out, mine = tracker_view.out_counts(obs)[ace], obs.hand.count(ace)
    assert f"Calls: the 2nd ♠A, not played yet (♠A: {out} out, {mine} in your hand)" in text
    assert "No friend of Tess is known yet; 1 call not played yet" in text


def test_help_lists_the_call_keys_and_the_sides_only_at_friends_tables() -> None:
    assert all(k in keys_for(friends(5)) for k in FRIENDS_KEYS)
    assert not any(k in keys_for(Rules()) for k in FRIENDS_KEYS)
    client = client_at_call(5)
    text = panel_text("help", client, 80, 40)
    assert "starter: call friends by card" in text and "? = side not known yet" in text
    teams = LocalClient(seed=1)
    assert "Find-a-friend" not in panel_text("help", teams, 80, 40)


# --- plain mode ------------------------------------------------------------------------------


def plain_script(client: LocalClient, bad: list[str]) -> Iterator[str]:
    """Answer a hand: at the call, the ``bad`` lines first, then the hint accepted."""
    called = False
    while True:
        if client.summary() is not None:
            yield "tracker"
            yield "quit"
            return
        decision = client.decision()
        if decision == Decision.DECLARE:
            yield "1" if client.declaration_options() else "pass"
        elif decision == Decision.CALL and not called:
            called = True
            yield from bad
            yield "hint"
            yield ""
        else:
            action = client.hint()
            assert action is not None
            yield format_cards(action.faces)


def test_plain_call_prompt_reasons_and_a_whole_hand() -> None:
    client = LocalClient(friends(6), seat=0, seed=CALLERS[6], names=NAMES[6])
    out = io.StringIO()
    probe = client_at_call(6).observation()
    trump = format_cards([trump_card(probe)])
    bad = ["pass", "AS", f"{trump} 2:KS", "AS AS", "3:KS AS", "AS XX"]
    code = play_plain(client, plain_script(client, bad), out)
    text = out.getvalue()
    assert code == 0
    asked = text[text.index("Call 2 friends: type 2 cards and Enter"):]
    assert "call> " in asked
    assert "Call 2 friends by card: AH = whoever plays the 1st ♥A; 2:AH = the 2nd ♥A " \
        "played (copies 1 to 2). Allowed: any card but a trump (friend_cards=no_trump)." \
        in asked
    replies = dict(re.findall(r"^call> (.*)\n(.*)$", text, re.MULTILINE))
    assert replies["pass"] == "Call your friends by card (e.g. AH): the starter cannot pass."
    assert replies["AS"] == "Refused: call 2 friends, not 1"
    assert replies[f"{trump} 2:KS"].startswith(
        f"Refused: a trump ({render.card_label(trump_card(probe))}) cannot be called: the "
        "rules allow no trump (friend_cards=no_trump)")
    assert replies["AS AS"] == "Refused: each call must be different"
    assert replies["3:KS AS"] == "Refused: there is no 3rd copy of a card with 2 decks"
    assert replies["AS XX"].startswith("not a friend call: 'XX'")
    assert replies["hint"].startswith("hint: call the ")
    calls = client.game.hands_played[0].sides.calls
    assert f"· Tess calls {' and '.join(str(c) for c in calls)}" in text
    summary = text[text.index("Hand 1 is over."):]
    res = client.game.hands_played[0].result
    assert "Starter's side: Tess" in summary and "Levels: Tess 2" in summary
    assert f"Next starter: {NAMES[6][res.next_starter]}." in summary
    assert re.search(r"Defender points( \(the seats not known to be on the starter's "
                     r"side\))?: \d+", text)
    assert "? " in text and "start*" in text and "team" not in text.replace("teams", "")


def test_history_marks_find_a_friend_games_only(tmp_path) -> None:
    from tractor.cli.history import history_lines
    from tractor.net.journal.records import GameStart
    from tractor.net.journal.store import Journal

    journal = Journal(str(tmp_path / "journal.sqlite"))
    for game, rules in (("teams-1", Rules()), ("friends-1", friends(5))):
        journal.add_game(game, GameStart(0, b"k" * 32, b"s" * 32, rules, b"t" * 16,
                                         tuple(b"p" * 32 for _ in range(rules.players)), 0))
    teams, found = history_lines(journal)
    assert "find-a-friend" not in teams and teams.endswith("  unfinished in hand 1 (tractor "
                                                           "resume)")
    assert "  find-a-friend, 5 players  unfinished in hand 1" in found


def friends_moments(players: int) -> Iterator[tuple[str, LocalClient]]:
    """A hand of find-a-friend where the person starts: the call, the first lead, a trick
    after a friend is revealed, the summary (the client as it is then)."""
    client = client_at_call(players)
    yield "call", client
    assert client.submit(outside_calls(client)) is None
    yield "first trick", client
    drive(client, lambda: any(f is not None for f in client.observation().friends)
          and client.decision() is not None)
    yield "revealed", client
    drive(client, lambda: False)
    yield "summary", client


def test_no_friends_screen_breaks_a_word_a_card_or_a_name() -> None:
    """The checks of issue 28 (`test_screens_80`) on find-a-friend's screens: the table,
    every panel and plain mode at 80x24 and 100x32, at 5 and 6 seats."""
    from test_screens_80 import plain_problems, screens_problems

    problems: list[str] = []
    for players in (5, 6):
        for label, client in friends_moments(players):
            problems += [f"{players} seats, {label}: {p}"
                         for p in screens_problems(client, client.names)]
            problems += [f"{players} seats, {label}: {p}"
                         for p in plain_problems(client, client.names)]
    assert not problems, "\n".join(problems)


def test_game_over_names_the_winning_seats_in_view_at_80x24() -> None:
    """A whole game of find-a-friend by hints: the last summary names the seats that won
    (the rules core's `Game.winners`) where the next starter stood, in view at 80x24;
    a winner already at A reads "A → past A"; the strip's early hands keep one line."""
    client = LocalClient(friends(5), seat=0, seed=1, names=NAMES[5])
    hands = 0
    while not (client.summary() or {}).get("game_over"):
        if client.summary() is not None:
            hands += 1
            client.next_hand()
            continue
        assert client.submit(client.hint()) is None
    winners = [NAMES[5][s] for s in client.game.winners]
    said = " and ".join(winners)
    with create_pipe_input() as inp:
        shown = capture(build_app(client, input=inp, output=DummyOutput()), 80, 24)
    assert f"Game over: {said} win{'s' if len(winners) == 1 else ''}!" in shown
    assert "Next starter" not in shown
    levels = next(line for line in shown.splitlines() if line.startswith("Levels: "))
    before = client.observation().levels
    for s in client.game.winners:
        if before[s] == "A":
            assert f"{NAMES[5][s]} A → past A" in levels
    early = next(line for line in shown.splitlines() if line.startswith("  hands 1–"))
    assert len(early) <= 80 and early.endswith(NAMES[5][client.game.hands_played[-2].starter])
    assert client.events()[-1].startswith(f"game over: {said} win")
    assert hands > 5
