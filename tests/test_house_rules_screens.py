"""hide_played on the screens: while a hand is played a person sees the trick in play (and
the one just finished until the next lead), no tracker, no plays in the log, no hint for a
play; the full screen and --plain alike. Everything shows again once the hand is over."""

from __future__ import annotations

import asyncio

from local_client import LocalClient

from tractor import Hand, Rules
from tractor.actions import Action, Declare, Draw, Pass, Play
from tractor.cli.screen import render, table_view
from tractor.cli.screen.frame import keys_text
from tractor.cli.screen.hidden_play import LAST_TRICK_HIDDEN, NO_PLAY_HINT, TRACKER_OFF
from tractor.cli.screen.panel_text import declare_text
from tractor.cli.screen.plain import PlainSession
from tractor.cli.screen.view import PlayView
from tractor.phases import Decision, Phase

HIDDEN = Rules(hide_played=True)


def at_my_play(rules: Rules, led: bool) -> LocalClient:
    """A client at seat 0 asked to play, after a finished trick: with ``led``, a trick
    another seat has led (else one seat 0 leads)."""
    for seed in range(40):
        client = LocalClient(rules, seed=seed)
        while client.game.hand_no == 0 and not client.game.over:
            decision = client.decision()
            obs = client.observation()
            if decision == Decision.PLAY and obs.tricks and bool(obs.current) == led:
                return client
            if decision is None:  # the hand is over (the others move at once)
                break
            action = client.hint()
            assert action is not None
            assert client.submit(action) is None
    raise AssertionError("no such position in 40 seeds")


def test_after_the_next_lead_only_the_trick_in_play_shows():
    names = ["You", "AI 1", "AI 2", "AI 3"]
    for rules, hidden in ((Rules(), False), (HIDDEN, True)):
        obs = at_my_play(rules, led=True).observation()
        assert obs.phase == Phase.PLAY and obs.current and obs.tricks
        assert (render.last_trick_text(obs, names) == LAST_TRICK_HIDDEN) is hidden
        assert (render.tracker_text(obs, names, 80) == TRACKER_OFF) is hidden
        below = "\n".join(table_view.below_lines(obs, names, 80))
        assert ("last trick:" in below) is not hidden
        # The table itself shows the trick in play either way.
        assert "trick" in render.table_text(obs, names)


def test_the_trick_just_finished_shows_until_the_next_lead():
    obs = at_my_play(HIDDEN, led=False).observation()
    assert not obs.current and obs.tricks
    assert render.last_trick_text(obs, ["You", "AI 1", "AI 2", "AI 3"]).startswith("Trick ")
    assert render.tracker_text(obs, None, 80) == TRACKER_OFF


def test_no_hint_for_a_play_on_either_screen():
    client = at_my_play(HIDDEN, led=True)
    said: list[str] = []
    PlainSession(client, said.append).handle("hint")
    assert [line.strip() for line in said] == [NO_PLAY_HINT]
    said.clear()  # as `run_plain` asks: the search on a worker thread
    asyncio.run(PlainSession(client, said.append).handle_async("hint"))
    assert [line.strip() for line in said] == [NO_PLAY_HINT]
    view = PlayView(client)
    view.hint()
    assert view.info == NO_PLAY_HINT and not view.hint_pending
    # The key bar offers no hint there either (it said "i hint"), and does elsewhere.
    assert "hint" not in keys_text(client, None, False)
    assert "i hint" in keys_text(at_my_play(Rules(), led=True), None, False)
    # A table without the option hints as before.
    plain = at_my_play(Rules(), led=True)
    said.clear()
    PlainSession(plain, said.append).handle("hint")
    assert said and said[0].startswith("hint: ")


def test_the_summary_shows_everything_again():
    client = at_my_play(HIDDEN, led=True)
    while client.summary() is None:
        action = client.hint()
        assert isinstance(action, Play)
        assert client.submit(action) is None
    obs = client.observation()
    assert obs.phase == Phase.DONE
    assert render.tracker_text(obs, None, 80) != TRACKER_OFF
    assert render.last_trick_text(obs, ["You", "AI 1", "AI 2", "AI 3"]).startswith("Trick ")


def test_the_declare_panel_says_why_ones_own_declaration_cannot_be_reinforced():
    # Seat 0 declares a single; the others never declare. The declaration panel (e), read
    # while the cards keep coming and seat 0's own declaration stands, says why it offers
    # nothing (read from the other seats' turns: the deal goes on at once in-process).
    seen: list[str] = []
    holder: list[LocalClient] = []

    def quiet(hand: Hand, seat: int) -> Action:
        if hand.phase == Phase.DEAL:
            if holder and hand.declaration is not None and hand.declaration[0] == 0:
                seen.append(declare_text(holder[0]))
            return Draw(seat)
        return Pass(seat) if hand.phase == Phase.DECLARE else next(hand.legal_actions(seat))

    for seed in range(20):
        client = LocalClient(Rules(reinforce_own=False), seed=seed, others=quiet)
        holder[:] = [client]
        if client.decision() == Decision.DECLARE:
            assert client.submit(Declare(0, client.declaration_options()[0])) is None
            break
    assert seen and all("Your declaration stands: at this table only another player may "
                        "overcall it." in text for text in seen)
