"""Find-a-friend games between peers: hand after hand with a level per player, the next
starter and the game's end as the rules core's `Game` has them (`tractor.game.after_hand`),
a forfeit lost by the offender alone, and a game kept in the journal or carried to a new
table with every player's level."""

from __future__ import annotations

import random

import pytest
from helpers import pump, transcript
from test_resume import crash_and_resume

from tractor import Bury, Hand, Play, Rules
from tractor.actions import Action, Call, Declare
from tractor.ai.hosting.peer import StrategyPlayer
from tractor.ai.players.base import Strategy
from tractor.ai.players.strategies import make_strategy
from tractor.follow import random_follow, random_lead
from tractor.friends import callable_cards, legal_calls
from tractor.game import after_hand, winners_of
from tractor.net.deck.local import LocalDeal
from tractor.net.journal.store import Journal
from tractor.net.table.journaled import game_start, open_session
from tractor.net.table.player import WAIT, Player, RandomPlayer
from tractor.net.table.session import GameSession
from tractor.observation import Observation
from tractor.phases import Phase
from tractor.records import friends_forfeit

FIVE = Rules(players=5, mode="friends")
TABLE = b"friends-table-01"


def sessions(d: LocalDeal, players: list[Player], hands: int, rules: Rules = FIVE,
             carry: tuple[object, ...] | None = None) -> list[GameSession]:
    keys = [k.public_key() for k in d.signing_keys]
    return [GameSession(rules, TABLE, s, d.signing_keys[s], keys, bytes([9, s]) * 16,
                        players[s], max_hands=hands, carry=carry)
            for s in range(rules.players)]


def run(d: LocalDeal, peers: list[GameSession]) -> None:
    d.peers = peers  # type: ignore[assignment]  # the sessions feed their decks
    d.call_all("start")
    d.run()


@pytest.mark.slow
def test_a_five_seat_friends_game_of_ai_and_random_peers_agrees_hand_after_hand():
    d = LocalDeal(seats=5, seed=11)
    players: list[Player] = [
        StrategyPlayer(make_strategy("heuristic", "easy", 1), FIVE, 1), RandomPlayer(2),
        StrategyPlayer(make_strategy("random", "easy", 3), FIVE, 3), RandomPlayer(4),
        StrategyPlayer(make_strategy("heuristic", "easy", 5), FIVE, 5)]
    peers = sessions(d, players, hands=2)
    run(d, peers)
    first = peers[0]
    assert len(first.results) == 2
    assert all(p.results == first.results and p.levels == first.levels for p in peers)
    hands = [h for h in first.played if h.phase == Phase.DONE]
    assert len(hands) == 2
    for seat, peer in enumerate(peers):  # every peer's audit is clean and every verdict in
        for hand in (h for h in peer.played if h.phase == Phase.DONE):
            assert hand.violations == [] and len(hand.deck.verdicts) == 5, seat
    # The levels are the players', moved as the rules core moves them, and each hand began
    # where the one before left the game.
    levels = ["2"] * 5
    for hand, res in zip(hands, first.results, strict=True):
        assert hand.setup.levels == tuple(levels) and hand.setup.declarers is None
        assert res.side and res.gaining and hand.public.sides is not None
        assert res.side == hand.public.sides.side
        _, starter, drawer, _ = after_hand(FIVE, levels, hand.setup.first, res)
    assert first.levels == levels and len(first.levels) == 5
    assert hands[1].setup.starter == first.results[0].next_starter
    assert (first.starter, first.first) == (starter, drawer)
    assert first.carry() == (*levels, None, starter, drawer)


@pytest.mark.slow
def test_a_friends_game_ends_when_a_player_passes_ace():
    # A game carried to this table with every level at Ace: the first hand a side gains in
    # ends it, and its seats win it.
    d = LocalDeal(seats=5, seed=12)
    peers = sessions(d, [RandomPlayer(20 + s) for s in range(5)], hands=3,
                     carry=("A", "A", "A", "A", "A", None, 2, 2))
    run(d, peers)
    first = peers[0]
    assert first.over and all(p.over for p in peers)
    res = first.results[-1]
    before = list(first.played[-1].setup.levels)
    winners = winners_of(FIVE, before, res)
    assert winners and first.winners == winners and first.winner == winners[0]
    assert set(winners) <= set(res.gaining)
    assert all((p.winner, p.winners, p.results) == (first.winner, winners, first.results)
               for p in peers)


def test_a_forfeit_in_find_a_friend_is_lost_by_the_offender_alone():
    d = LocalDeal(seats=5, seed=13)
    peers = sessions(d, [RandomPlayer(30 + s) for s in range(5)], hands=1,
                     carry=("2", "3", "4", "5", "6", None, 1, 1))
    d.peers = peers  # type: ignore[assignment]
    d.call_all("start")
    while d.queue and not all(len(p.current.public.tricks) >= 2 for p in peers):
        pump(d, 1)
    results = [p.forfeit(3) for p in peers]  # every peer names seat 3 on the same evidence
    res = results[0]
    assert res is not None and all(r == res for r in results)
    public = peers[0].played[-1].public
    assert public.starter == 1
    assert res == friends_forfeit(FIVE, 3, 1, (public.starter,))  # the side all peers know
    assert res.gaining == (0, 1, 2, 4) and 3 not in res.gaining
    gain = res.levels_gained
    assert gain > 0 and all(p.levels == peers[0].levels for p in peers)
    expected = ["2", "3", "4", "5", "6"]
    for s in res.gaining:
        expected[s] = "23456789"[("23456789".index(expected[s]) + gain)]
    assert peers[0].levels == expected
    assert peers[0].starter == res.next_starter == 1


class Person(RandomPlayer):
    """A person at a prompt: the burial, the call and the plays wait (WAIT) until the test
    answers them."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed, declare_chance=0.0)
        self.asked: list[str] = []

    def bury(self, view, count):
        self.asked.append("bury")
        return WAIT

    def call(self, view):
        self.asked.append("call")
        return WAIT

    def play(self, view):
        self.asked.append("play")
        return WAIT


def starter_at_its_call(seed: int, starter: int, player_seed: int, rng: random.Random
                        ) -> tuple[LocalDeal, list[Player]]:
    """A 5-seat hand whose ``starter`` is a `Person` (the others random players), played
    until that person buried (``rng``'s cards) and is asked for its call. The deal's peers
    are the sessions; ``carry_for(starter)`` is their carry."""
    d = LocalDeal(seats=5, seed=seed)
    players: list[Player] = [RandomPlayer(player_seed + s) for s in range(5)]
    players[starter] = Person(1)
    peers = sessions(d, players, hands=1, carry=carry_for(starter))
    d.peers = peers  # type: ignore[assignment]  # the sessions feed their decks
    d.call_all("start")
    me = peers[starter]
    pump(d)
    assert me.current.waiting == "bury"
    d.broadcast(starter, me.decide(Bury(starter, tuple(rng.sample(
        me.current.my_faces(), FIVE.talon_size)))))
    pump(d)
    assert me.current.waiting == "call"
    return d, players


def carry_for(starter: int) -> tuple[object, ...]:
    """A game's first hand at level 2 everywhere, ``starter`` starting and drawing first."""
    return ("2",) * 5 + (None, starter, starter)


@pytest.mark.slow
def test_a_starter_resumed_after_its_call_is_not_asked_to_call_again():
    starter = 0
    rng = random.Random(3)
    d, players = starter_at_its_call(14, starter, 40, rng)
    me = d.peers[starter]  # type: ignore[attr-defined]
    obs = me.current.observation()
    assert obs.trump is not None
    calls = tuple(rng.sample(callable_cards(FIVE, obs.trump, obs.trump_rank), 1))
    d.broadcast(starter, me.decide(Call(starter, calls)))
    pump(d, 3)
    fresh = sessions(d, players, hands=1, carry=carry_for(starter))[starter]
    again = Person(2)
    fresh.player = fresh.current.player = again
    crash_and_resume(d, starter, fresh)
    while not fresh.results:
        pump(d)
        table = fresh.current
        if table.waiting is None:
            break
        assert table.waiting == "play"
        faces = table.my_faces()
        lead = table.lead if table.trick is not None and table.trick.plays else None
        assert table.ladder is not None
        pick = (random_follow(faces, lead, table.ladder, rng) if lead is not None
                else random_lead(faces, table.ladder, rng))
        d.broadcast(starter, fresh.decide(Play(starter, tuple(pick))))
    # Its burial and its call were read back from its journal: asked only for its plays.
    assert set(again.asked) == {"play"}
    assert fresh.played[-1].public.sides is not None
    assert fresh.played[-1].public.sides.calls == calls
    assert all(p.results == fresh.results for p in d.peers)
    assert all(transcript(p) == transcript(fresh) for p in d.peers)


def test_a_friends_game_in_the_journal_keeps_every_players_level(tmp_path):
    d = LocalDeal(seats=5, seed=15)
    carry = ("3", "5", "2", "K", "2", None, 3, 3)
    session = sessions(d, [RandomPlayer(s) for s in range(5)], hands=1, carry=carry)[1]
    journal = Journal(str(tmp_path / "journal.db"))
    journal.add_game("g", game_start(session, d.signing_keys[1], bytes([9, 1]) * 16))
    journal.set_meta("g", {"carry": list(carry)})  # as `take_seat` keeps it (JSON)
    again, _ = open_session(journal, "g", RandomPlayer(1))
    assert again.levels == ["3", "5", "2", "K", "2"] and again.carry() == carry
    assert again.current.setup.levels == ("3", "5", "2", "K", "2")
    assert again.current.setup.rank == "K"  # the starter's level is the trump rank
    # A carry of two teams' levels is no carry of a table of five.
    with pytest.raises(ValueError, match="5 levels"):
        sessions(d, [RandomPlayer(s) for s in range(5)], hands=1,
                 carry=("3", "5", None, 3, 3))


class CallsFirstLegal:
    """A strategy that makes the first calls the rules allow, and otherwise plays as
    ``inner`` does."""

    name = "calls-first"

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.calls: list[Call] = []

    def decide(self, obs: Observation, rules: Rules) -> Action:
        if obs.phase != Phase.CALL:
            return self.inner.decide(obs, rules)
        assert obs.trump is not None
        call = Call(obs.seat, next(legal_calls(rules, obs.trump, obs.trump_rank)))
        self.calls.append(call)
        return call

    def decide_declaration(self, obs: Observation, rules: Rules) -> Declare | None:
        return self.inner.decide_declaration(obs, rules)

    def act(self, hand: Hand, seat: int) -> Action:
        return self.decide(hand.observe(seat), hand.rules)

    def declare(self, hand: Hand, seat: int) -> Declare | None:
        return self.decide_declaration(hand.observe(seat), hand.rules)


def test_an_ai_starter_calls_as_its_strategy_decides_from_its_own_view():
    starter = 2
    d = LocalDeal(seats=5, seed=16)
    strategies = [CallsFirstLegal(make_strategy("random", "easy", s)) for s in range(5)]
    players: list[Player] = [StrategyPlayer(strategies[s], FIVE, s) for s in range(5)]
    run(d, sessions(d, players, hands=1, carry=("7",) * 5 + (None, starter, starter)))
    hand = d.peers[0].played[-1]  # type: ignore[attr-defined]
    assert hand.phase == Phase.DONE and hand.violations == []
    (call,) = strategies[starter].calls
    assert hand.public.sides.calls == call.calls
    assert all(not strategies[s].calls for s in range(5) if s != starter)
