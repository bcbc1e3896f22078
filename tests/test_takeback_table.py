"""Take-backs between peers (`net.table.takebacks`): a take-back and the next seat's play
race; the next seat's chain decides, the same on every peer whatever order the frames
arrive in, and every peer ends the hand identical with a clean audit."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers import MemNode, StepExecutor
from memnet import kind_of
from twisted.internet.task import Clock

from tractor import Rules
from tractor.actions import Play, TakeBack
from tractor.ai.hosting.peer import TAKEBACK_GRACE, StrategyPlayer
from tractor.ai.players.strategies import make_strategy
from tractor.cards import format_cards
from tractor.cli.seat.hand_log import table_events
from tractor.cli.seat.seat_log import SeatLog
from tractor.net.deck.local import LocalDeal
from tractor.net.table.errors import TableError
from tractor.net.table.hand import TableHand
from tractor.net.table.messages import LetBack, to_wire
from tractor.net.table.messages import TakeBack as TakeBackMessage
from tractor.net.table.player import WAIT, RandomPlayer, SeatView, Wait
from tractor.net.table.session import GameSession
from tractor.net.table.setup import HandSetup
from tractor.phases import Decision, IllegalAction, Phase

RULES = Rules(takebacks=True)
NAMES = ["South", "West", "North", "East"]


class Held(RandomPlayer):
    """Plays at random the first trick; later plays wait for the test (a person) until
    ``hold`` is cleared."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.hold = True

    def play(self, view: SeatView) -> Play | Wait:
        return WAIT if self.hold and view.observation.tricks else super().play(view)


def _table(seed: int = 2) -> tuple[LocalDeal, list[TableHand], list[Held]]:
    setup = HandSetup(RULES, ("2", "2"), first=0, starter=0, declarers=0)
    deal = LocalDeal(seats=4, decks=2, hand_size=RULES.hand_size, seed=seed, first=0)
    players = [Held(seed * 10 + s) for s in range(4)]
    tables = [TableHand(setup, deal.peers[s], players[s]) for s in range(4)]
    deal.peers = tables  # type: ignore[list-item]  # frames go to the tables
    deal.call_all("start")
    return deal, tables, players


def _until(deal: LocalDeal, tables: list[TableHand], done: Callable[[], bool]) -> None:
    """Deliver frames one at a time until ``done`` (the hand must not be over first)."""
    while not done():
        assert deal.queue, "the table stopped before the moment the test waits for"
        src, dst, frame = deal.queue.popleft()
        deal.broadcast(dst, tables[dst].receive(frame))


def _at_second_play(seed: int = 2) -> tuple[LocalDeal, list[TableHand], list[Held], int]:
    """Every seat holds its plays; the second trick's leader has led, the next seat is to
    play: returns the leader (the seat that may take back)."""
    deal, tables, players = _table(seed)
    _until(deal, tables, lambda: all(len(t.tricks) == 1 for t in tables))
    leader = tables[0].trick.leader if tables[0].trick else 0
    _until(deal, tables, lambda: tables[leader].waiting == Decision.PLAY)
    lead = RandomPlayer(5).play(tables[leader].view())
    deal.broadcast(leader, tables[leader].decide(lead))
    nxt = (leader + 1) % 4
    _until(deal, tables, lambda: all(t.trick is not None and len(t.trick.plays) == 1
                                     for t in tables) and tables[nxt].waiting == Decision.PLAY)
    return deal, tables, players, leader


def _finish(deal: LocalDeal, tables: list[TableHand], players: list[Held]) -> None:
    for p in players:
        p.hold = False
    for t in tables:
        deal.broadcast(t.me, t.step())
    deal.run()


def _same_everywhere(tables: list[TableHand]) -> None:
    assert all(t.phase == Phase.DONE for t in tables)
    assert all(t.violations == [] for t in tables)
    results = {repr(t.result) for t in tables}
    records = {repr(t.records) for t in tables}
    assert len(results) == 1 and len(records) == 1


@pytest.mark.parametrize("taker_first", [True, False])
def test_a_play_made_before_the_take_back_was_seen_wins_in_either_frame_order(
        taker_first: bool) -> None:
    deal, tables, players, taker = _at_second_play()
    nxt = (taker + 1) % 4
    back = tables[taker].take_back()
    follow = RandomPlayer(9).play(tables[nxt].view())
    played = tables[nxt].decide(follow)  # signed before it saw the take-back
    first, second = ((taker, back), (nxt, played)) if taker_first else \
        ((nxt, played), (taker, back))
    deal.broadcast(*first)
    deal.broadcast(*second)
    deal.run()
    for t in tables:  # the take-back is void: the follow stands, on every peer
        assert t.trick is not None and len(t.trick.plays) == 2
        assert t.playing.takebacks.events == [(taker, t.trick.plays[0], False)]
    log = SeatLog([], NAMES, 4)
    log.hand(tables[taker])
    assert log.lines[-1] == (f"{NAMES[taker]}'s take-back of "
                             f"{format_cards(tables[taker].trick.plays[0], True)} came too "
                             "late: the next seat had played")
    _finish(deal, tables, players)
    _same_everywhere(tables)
    assert not any(r.taken_back for r in tables[0].records)


def test_a_take_back_seen_before_the_next_seat_plays_stands_on_every_peer() -> None:
    deal, tables, players, taker = _at_second_play()
    nxt = (taker + 1) % 4
    lead = tables[taker].trick.plays[0] if tables[taker].trick else ()
    before = sorted(tables[taker].my_faces())
    deal.broadcast(taker, tables[taker].take_back())
    # The take-back reaches the last seat before the next seat's answer does.
    deal.queue = type(deal.queue)(sorted(deal.queue, key=lambda m: m[1] != (taker + 3) % 4))
    deal.run()
    for t in tables:
        assert t.trick is not None and t.trick.plays == []
        assert t.playing.takebacks.events == [(taker, lead, True)]
        assert t.public.to_act() == taker
    assert sorted(tables[taker].my_faces()) == sorted([*before, *lead])
    with pytest.raises(IllegalAction, match="not your turn"):
        tables[nxt].decide(RandomPlayer(9).play(tables[nxt].view()))
    # The same play again, needing no new reveal, is final.
    again = tables[taker].decide(Play(taker, lead))
    assert [kind_of(f) for f in again] == ["app"]  # the play alone: no second reveal
    deal.broadcast(taker, again)
    deal.run()
    with pytest.raises(IllegalAction, match="final"):
        tables[taker].take_back()
    cards = format_cards(lead, True)
    lines = [e.line for e in table_events(tables[nxt], NAMES.__getitem__)][-3:]
    assert lines == [f"{NAMES[taker]} leads {cards}", f"{NAMES[taker]} took back {cards}",
                     f"{NAMES[taker]} leads {cards}"]
    _finish(deal, tables, players)
    _same_everywhere(tables)
    assert [r.taken_back for r in tables[0].records].count(True) == 1


def test_a_take_back_that_names_another_play_is_refused_on_every_peer() -> None:
    deal, tables, players, taker = _at_second_play()
    other = (taker + 2) % 4
    forged = tables[other].deck.post(to_wire(TakeBackMessage(1, 0)))  # the taker's lead
    deal.broadcast(other, forged)
    refused: list[TableError] = []
    while deal.queue:
        src, dst, frame = deal.queue.popleft()
        try:
            deal.broadcast(dst, tables[dst].receive(frame))
        except TableError as exc:
            refused.append(exc)
    assert {e.seat for e in refused} == {other} and len(refused) == 3
    assert "another play than its last" in str(refused[0])


def test_a_let_stand_of_a_take_back_nobody_sent_holds_its_own_seat_to_account() -> None:
    deal, tables, players, taker = _at_second_play()
    nxt = (taker + 1) % 4
    deal.broadcast(nxt, tables[nxt].deck.post(to_wire(LetBack(1, 0))))
    deal.run()
    for t in tables:
        if t.me != nxt:  # the table waits: on the seat that let it stand, for its move
            assert t.trick is not None and len(t.trick.plays) == 1
            assert t.waiting_on() == {nxt: "play"}


def test_no_take_back_when_the_rules_allow_none() -> None:
    setup = HandSetup(Rules(), ("2", "2"), first=0, starter=0, declarers=0)
    deal = LocalDeal(seats=4, decks=2, hand_size=25, seed=1, first=0)
    table = TableHand(setup, deal.peers[0], RandomPlayer(1))
    with pytest.raises(IllegalAction, match="takebacks=false"):
        table.decide(TakeBack(0))


@pytest.mark.parametrize("wait", [TAKEBACK_GRACE, 0.0])
def test_an_ai_seat_after_a_person_gives_time_to_take_back(wait: float) -> None:
    # With --takeback-wait 0 the AI plays as soon as it has its answer: the take-back is late.
    deal = LocalDeal(seats=4, seed=3)
    executor = StepExecutor()
    ai = StrategyPlayer(make_strategy("random", seed=1), RULES, 1, executor, people=[0],
                        takeback_wait=wait)
    players = [Held(30), ai, RandomPlayer(32), RandomPlayer(33)]
    sessions = [GameSession(RULES, deal.config.table, s, deal.signing_keys[s],
                            deal.config.public_keys, bytes([3, s]) * 16, players[s],
                            max_hands=1) for s in range(4)]
    node = MemNode(deal, sessions[1])
    node.clock = Clock()  # type: ignore[attr-defined]  # the node's reactor time
    deal.peers = [sessions[0], node, sessions[2], sessions[3]]  # type: ignore[list-item]
    ai.serve(node)
    deal.call_all("start")
    person = sessions[0]

    for _ in range(1000):  # everybody plays at once until the person's lead is asked
        table = person.current
        if table.waiting == Decision.PLAY and not table.public.current:
            break
        if table.waiting == Decision.PLAY:
            deal.broadcast(0, person.decide(RandomPlayer(4).play(table.view())))
        deal.run()
        if executor.queue:
            executor.step()
            node.clock.advance(TAKEBACK_GRACE)
    assert person.current.waiting == Decision.PLAY, person.current.phase
    lead = RandomPlayer(5).play(person.current.view())
    deal.broadcast(0, person.decide(lead))
    deal.run()
    executor.step()  # the AI has its answer, and holds it (without a wait: plays it)
    deal.run()
    table = sessions[1].current
    if not wait:
        assert len(table.public.current) == 2
        with pytest.raises(IllegalAction, match="before the next seat plays"):
            person.current.take_back()
        return
    assert len(table.public.current) == 1
    deal.broadcast(0, person.current.take_back())  # a mis-click seen in time
    deal.run()
    node.clock.advance(TAKEBACK_GRACE)
    deal.run()
    assert table.public.current == [] and table.public.to_act() == 0
    assert table.playing.takebacks.events == [(0, lead.faces, True)]
