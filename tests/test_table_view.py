"""The peer table's view of a hand for its own seat: the rules core's observation format
(so AIs and screens work the same between peers), decisions a person answers later
(`WAIT` / `decide`, refused moves changing nothing), and signed chat."""

from __future__ import annotations

import random

import pytest

from tractor import Bury, Hand, IllegalAction, Pass, Play, Rules
from tractor.follow import random_follow, random_lead
from tractor.net.deck.envelope import Header, seal
from tractor.net.deck.errors import BadMessage
from tractor.net.deck.local import LocalDeal
from tractor.net.table.hand import TableHand
from tractor.net.table.player import WAIT, RandomPlayer
from tractor.net.table.setup import HandSetup
from tractor.observation import Observation

COMPARED = ("seat", "phase", "to_act", "levels", "declarers", "starter", "first", "trump",
            "trump_rank", "hand", "hand_sizes", "talon", "buried", "tricks", "leader",
            "current", "current_attempt", "defender_points", "penalties", "result")


def compared(obs: Observation) -> dict:
    return {k: getattr(obs, k) for k in COMPARED}


class Recorder(RandomPlayer):
    """Random decisions; keeps the observation it was shown at every play."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seen: list[Observation] = []

    def play(self, view):
        self.seen.append(view.observation)
        return super().play(view)


class Person(RandomPlayer):
    """Answers plays and burials later, like a person at a prompt."""

    def bury(self, view, count):
        return WAIT

    def play(self, view):
        return WAIT


def deal(seed: int, players, setup: HandSetup | None = None):
    setup = setup or HandSetup(Rules(), ("2", "2"), first=seed % 4)
    d = LocalDeal(seats=4, seed=seed, first=setup.first)
    tables = [TableHand(setup, d.peers[s], players[s]) for s in range(4)]
    d.peers = tables
    return d, tables


def replay(table: TableHand, plays: int) -> Hand:
    """The rules core's hand after the first ``plays`` plays of the table's hand."""
    order = [c % 54 for c in table.deck.deck_order()]
    s = table.setup
    hand = Hand.dealt(s.rules, order, s.levels, s.first, table.trump, table.starter,
                      table.declarers)
    hand.apply(Bury(table.starter, tuple(order[p] for p in table.deck.buried)))
    for rec in table.records[:plays]:
        cards = rec.attempted if rec.attempted is not None else rec.cards
        hand.apply(Play(rec.seat, tuple(c % 54 for c in cards)))
    return hand


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 4, 9])
def test_every_view_equals_the_rules_core_observation(seed):
    players = [Recorder(seed * 10 + s) for s in range(4)]
    d, tables = deal(seed, players)
    d.call_all("start")
    d.run()
    assert [t.phase for t in tables] == ["done"] * 4
    checked = 0
    for seat, player in enumerate(players):
        for obs in player.seen:
            plays = 4 * len(obs.tricks) + len(obs.current)
            core = replay(tables[seat], plays).observe(seat)
            assert compared(obs) == compared(core)
            checked += 1
        end = tables[seat].observation()
        core = replay(tables[seat], len(tables[seat].records)).observe(seat)
        assert compared(end) == compared(core)
    assert checked == 4 * len(tables[0].tricks)


@pytest.mark.slow
def test_views_during_the_deal_show_only_cards_drawn():
    players = [RandomPlayer(s) for s in range(4)]
    seen = []

    class Watcher(RandomPlayer):
        def declare(self, view, options):
            seen.append(view.observation)
            return Pass(view.seat)

    players[2] = Watcher(2)
    d, tables = deal(5, players)
    d.call_all("start")
    d.run()
    # As in the rules core: the phase is "deal" until the last card is drawn, then the
    # final declare-or-pass window is "declare".
    deal_views = [o for o in seen if o.phase == "deal"]
    assert [o.cards_dealt for o in deal_views] == [4 * (r + 1) for r in range(24)]
    assert [len(o.hand) for o in deal_views] == list(range(1, 25))
    assert all(o.hand_sizes == (r + 1,) * 4 for r, o in enumerate(deal_views))
    final = [o for o in seen if o.phase == "declare"]
    assert final and all(o.cards_dealt == 100 and o.hand_sizes == (25,) * 4
                         for o in final)
    assert seen[-1].phase == "declare"


@pytest.mark.slow
def test_a_person_answers_later_and_a_refused_move_changes_nothing():
    seed = 3
    players = [Person(0), RandomPlayer(1), RandomPlayer(2), RandomPlayer(3)]
    d, tables = deal(seed, players)
    me = tables[0]
    d.call_all("start")
    d.run()
    rng = random.Random(seed)
    refused = 0
    while me.phase != "done":
        assert me.waiting in ("bury", "play"), me.phase
        before = me.observation()
        faces = me.my_faces()
        if me.waiting == "bury":
            with pytest.raises(IllegalAction, match="bury exactly 8"):
                me.decide(Bury(0, tuple(faces[:7])))
            answer = Bury(0, tuple(rng.sample(faces, 8)))
        else:
            lead = me.lead if me.trick.plays else None
            if lead is not None:
                off = [f for f in faces if me.ladder.esuit[f] != lead.esuit]
                on = [f for f in faces if me.ladder.esuit[f] == lead.esuit]
                if on and len(off) >= lead.size:
                    with pytest.raises(IllegalAction):
                        me.decide(Play(0, tuple(off[:lead.size])))
                    refused += 1
                answer = Play(0, tuple(random_follow(faces, lead, me.ladder, rng)))
            else:
                answer = Play(0, tuple(random_lead(faces, me.ladder, rng)))
        with pytest.raises(IllegalAction, match="do not hold"):
            me.decide((Bury if me.waiting == "bury" else Play)(
                0, tuple([f for f in range(54) if f not in faces][:1])))
        assert me.observation() == before and me.waiting is not None
        d.broadcast(0, me.decide(answer))
        d.run()
    assert refused > 0
    assert all(t.result == me.result and t.violations == [] for t in tables)
    with pytest.raises(IllegalAction, match="not your turn"):
        me.decide(Play(0, ()))


def test_chat_reaches_every_peer_in_order_and_bad_chat_is_refused():
    d, tables = deal(6, [Person(0), RandomPlayer(1), RandomPlayer(2), RandomPlayer(3)])
    d.call_all("start")
    d.run()
    assert tables[0].waiting is not None  # mid-hand: chat travels between moves
    d.broadcast(1, tables[1].say("  good\x1b[2J  luck \n all "))
    d.broadcast(3, tables[3].say("thanks"))
    d.run()
    # Each seat's lines keep their order; lines of different seats arrive as they come.
    assert all(sorted(t.chat) == [(1, "good[2J luck all"), (3, "thanks")] for t in tables)
    for bad in ("x" * 281, 5):  # refused as it arrives, naming its seat
        with pytest.raises(BadMessage, match="seat 2: .*chat: not text of 0 to 280"):
            tables[0].receive(signed_by(tables[2], d.signing_keys[2], {"chat": bad}))
    assert len(tables[0].chat) == 2


@pytest.mark.slow
def test_chat_said_during_the_shuffle_waits_for_the_deck_and_the_hand_goes_on():
    d, tables = deal(7, [RandomPlayer(s) for s in range(4)])
    d.call_all("start")
    d.broadcast(2, tables[2].say("good luck"))  # the deck is still shuffling
    assert tables[2]._chat_out == ["good luck"]
    d.run()
    assert [t.phase for t in tables] == ["done"] * 4
    assert all(t.chat == [(2, "good luck")] for t in tables)


def signed_by(table: TableHand, key, data: dict) -> bytes:
    """The next table message of ``table``'s seat, ``data`` as it is, signed with ``key``."""
    deck = table.deck
    views = tuple((len(c.frames), c.hashes[-1]) for c in deck._chains)
    header = Header(deck.config.table, deck.config.hand, deck.me, deck._sent_seq, "app", views)
    return seal(header, {"data": data}, key)


@pytest.mark.slow
@pytest.mark.parametrize(("bad", "why"), [
    ({"play": []}, "play: not a list of 1 to 108"), ({"play": [3, 3]}, "play: a value repeats"),
    ({"throw": []}, "throw: not a list"), ({"play": [108]}, "play: item 0: not a whole"),
    ({"w": 0, "d": [1, 1]}, "d: a value repeats"), ({"bid": "80"}, "bid: not a whole"),
    ({"name": "X"}, "name: not one of"), ({"agree": "all"}, "agree: not one of"),
    ({"claim": [[0, [3]], [1, [4]]]}, "claim: not a list of 0 to 1"),
    ({"show": [1, 2]}, "show: not a list of 1 to 1"), ({"play": [1], "x": 3}, "exactly 'play'"),
    ({"chat": "hi", "bid": 0}, "a map holding one of"), ({"pass": True}, "a map holding one of"),
])
def test_a_malformed_table_message_is_refused_as_it_arrives_naming_its_seat(bad, why):
    """Not at its seat's turn: the seat whose turn it is not yet (seat 2, while the person
    at seat 0 is to play) is blamed the moment its message arrives, with the signed frame
    as the evidence, and nothing of it is kept."""
    players = [Person(0), RandomPlayer(1), RandomPlayer(2), RandomPlayer(3)]
    d, tables = deal(3, players)
    d.call_all("start")
    d.run()
    me = tables[0]
    if me.waiting == "bury":  # the person is the starter: it buries, then leads
        d.broadcast(0, me.decide(Bury(0, tuple(me.my_faces()[:me.rules.talon_size]))))
        d.run()
    assert me.waiting == "play"
    frame = signed_by(tables[2], d.signing_keys[2], bad)
    pending = [dict(p) for p in me.deck._pending]
    with pytest.raises(BadMessage, match=f"seat 2: a malformed table message: .*{why}") as info:
        me.receive(frame)
    assert info.value.seat == 2 and info.value.frames == (frame,)
    assert [dict(p) for p in me.deck._pending] == pending and not me._queues[2]
    assert me.waiting == "play"
