"""Kitty theft between peers (`Rules.kitty_theft`, `net.table.theft`, `net.deck.kitty`): the
buried cards pass to a later overcaller through the deck, every peer plays the hand the rules
core plays, and a thief or a burier that lies is named on every other peer."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from helpers import pump, transcript
from test_deck_cheats import kind_of, resign, unpack
from test_resume import crash_and_resume
from test_table_friends import blamed, play

from tractor import Bury, Declare, Game, Hand, Pass, Play, Rules
from tractor.ai.hosting.peer import StrategyPlayer
from tractor.ai.players.strategies import make_strategy
from tractor.ai.players.worlds import Knowledge
from tractor.cli.seat.hand_log import table_events
from tractor.cli.seat.human import HumanPlayer
from tractor.dealing import declared_trump
from tractor.net.deck.errors import CheatDetected, TranscriptSplit
from tractor.net.deck.local import LocalDeal
from tractor.net.referee.machine import Timing
from tractor.net.referee.stall import MOVE_DEADLINE
from tractor.net.table.errors import TableError
from tractor.net.table.hand import TableHand
from tractor.net.table.player import WAIT, RandomPlayer, SeatView, Wait
from tractor.net.table.session import GameSession
from tractor.net.table.setup import HandSetup
from tractor.net.table.theft import TheftWindow
from tractor.phases import Phase

RULES = Rules(kitty_theft=True)
SETUP = HandSetup(RULES, ("2", "2"), first=0)
#: Seeds of `Thief` players (below): one theft (seat 0 declares a single 2, seat 1 takes
#: the kitty with a pair of 2s), and two (seat 2's single 2; seat 0's pair; seat 1's jokers).
ONE_THEFT, TWO_THEFTS = 27, 52


class Thief(RandomPlayer):
    """Declares a single now and then while dealing, and takes the kitty with its lowest
    overcall whenever it can; remembers its hand at each burial."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.hands_at_burial: list[list[int]] = []

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> Declare | Pass:
        if view.observation.phase == Phase.THEFT:
            return Declare(view.seat, options[0]) if options else Pass(view.seat)
        singles = [o for o in options if len(o) == 1]
        if singles and self.rng.random() < 0.3:
            return Declare(view.seat, singles[0])
        return Pass(view.seat)

    def bury(self, view: SeatView, count: int) -> Bury:
        self.hands_at_burial.append(list(view.hand))
        return super().bury(view, count)


def thieves(seed: int) -> list[Thief]:
    return [Thief(seed * 10 + s) for s in range(4)]


def core_hand(table: TableHand) -> Hand:
    """The rules core's play of the same deal: the declaration at the first burial, each
    burial, the window's passes and overcalls, then the plays."""
    order = [c % 54 for c in table.deck.deck_order()]
    public, setup = table.public, table.setup
    standing = public.declarations[len(public.declarations) - len(public.thefts) - 1]
    assert public.starter is not None
    hand = Hand.dealt(RULES, order, setup.levels, setup.first,
                      declared_trump(standing[1], public.trump_rank()), public.starter,
                      public.declarers)
    hand.declaration = standing
    buriers = [public.starter, *(seat for seat, _ in public.thefts)]
    for k, (seat, burial) in enumerate(zip(buriers, table.deck.burials, strict=True)):
        hand.apply(Bury(seat, tuple(order[p] for p in burial)))
        while hand.phase == Phase.THEFT and (k == len(public.thefts)
                                             or hand.window_turn != public.thefts[k][0]):
            hand.apply(Pass(hand.window_turn))
        if k < len(public.thefts):
            hand.apply(Declare(*public.thefts[k]))
    for rec in table.records:
        cards = rec.attempted if rec.attempted is not None else rec.cards
        hand.apply(Play(rec.seat, tuple(c % 54 for c in cards)))
    return hand


class Looking(TableHand):
    """Notes which cards of the first burial its peer knows when it first plays (the
    window closed, the kitty lies buried)."""

    known_at_play: set[int] | None = None

    def _my_play(self, trick):
        if self.known_at_play is None:
            self.known_at_play = {p for p in self.deck.burials[0] if p in self.deck.cards}
        return super()._my_play(trick)


@pytest.fixture(scope="module")
def two_thefts() -> tuple[list[TableHand], list[Thief]]:
    """Seat 2 declares a single and buries; seat 0 takes the kitty with a pair of 2s and
    buries; seat 1 takes it with a pair of jokers and buries."""
    players = thieves(TWO_THEFTS)
    return play(TWO_THEFTS, SETUP, players, classes=dict.fromkeys(range(4), Looking)), players


def test_a_hand_with_thefts_is_the_rules_cores_hand_on_every_peer(two_thefts):
    tables, players = two_thefts
    table = tables[0]
    assert [t.phase for t in tables] == [Phase.DONE] * 4
    assert [seat for seat, _ in table.public.thefts] == [0, 1]
    assert all(t.violations == [] and t.result == table.result
               and t.public.thefts == table.public.thefts for t in tables)
    core = core_hand(table)
    assert core.result == table.result and core.trump == table.trump
    # Each thief held the cards the seat before it buried, as the deck opened them to it.
    order = table.deck.deck_order()
    for (thief, _), taken in zip(table.public.thefts, table.deck.burials, strict=False):
        held = Counter(players[thief].hands_at_burial[-1])
        assert not Counter(order[p] % 54 for p in taken) - held
    # Cards that passed to a thief were played with its secret, and checked by every peer.
    passed = set(table.deck._dealing.kitty.holdings)
    assert passed and any(p in t.deck.played for t in tables for p in passed)


def test_a_seat_that_neither_buried_nor_took_the_kitty_never_sees_it(two_thefts):
    tables, _ = two_thefts
    first = set(tables[0].deck.burials[0])
    # Seat 2 buried these, seat 0 took them all; seat 1 took only what seat 0 buried again.
    assert tables[2].known_at_play == first == tables[0].known_at_play
    assert tables[3].known_at_play == set()
    again = first & set(tables[0].deck.burials[1])
    assert tables[1].known_at_play == again


class NoOvercall(TheftWindow):
    """Takes the kitty with any single card in its turn (which overcalls nothing)."""

    def options(self) -> list[tuple[int, ...]]:
        if self.public.phase != Phase.THEFT or self.public.window_turn != self.deck.me:
            return []
        return [(f,) for f in self.own.faces()]


class OvercallsNothing(TableHand):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        t = self.theft
        self.theft = NoOvercall(t.deck, t.public, t.schedule, t.inbox, t.own, t.revealed,
                                t.decisions, t.first_trick)


Change = Callable[[LocalDeal, int, dict[str, Any]], "dict[str, Any] | None"]


def rewriting(kind: str, seat: int, change: Change) -> Callable[[LocalDeal], Any]:
    """A tamper: ``seat``'s frames of ``kind`` as ``change(deal, seat, body)`` rewrites
    them (None: unchanged), signed again with its own key (a lie of that seat's)."""
    def tamper(d: LocalDeal) -> Callable[[int, int, bytes], bytes]:
        made: dict[bytes, bytes] = {}

        def rewrite(src: int, dst: int, frame: bytes) -> bytes:
            if src != seat or kind_of(frame) != kind:
                return frame
            if frame not in made:  # the same lie to every peer
                body = change(d, src, unpack(frame)[1])
                made[frame] = frame if body is None else resign(frame, d.signing_keys[src],
                                                                body=body)
            return made[frame]
        return rewrite
    return tamper


#: Seat 0 declares and buries at `ONE_THEFT`; seat 1 takes the kitty.
BURIER, THIEF = 0, 1


def wrong_answer(d: LocalDeal, seat: int, body: dict[str, Any]) -> dict[str, Any]:
    points = body["points"]
    return {**body, "points": [points[1], points[0], *points[2:]]}  # two cards swapped


def failing_proof(d: LocalDeal, seat: int, body: dict[str, Any]) -> dict[str, Any]:
    proofs = [list(q) for q in body["proofs"]]
    proofs[0][2] = proofs[1][2]
    return {**body, "proofs": proofs}


def buries_a_card_of_another(d: LocalDeal, seat: int, body: dict[str, Any]
                             ) -> dict[str, Any] | None:
    if not d.peers[seat]._dealing.kitty.thefts:
        return None  # its own first burial, if any, is honest
    other = next(p for p in range(4) if d.peers[seat].owner[p] != seat)
    return {**body, "positions": [other, *body["positions"][1:]]}


def plays_a_taken_card_with_a_wrong_secret(d: LocalDeal, seat: int, body: dict[str, Any]
                                           ) -> dict[str, Any] | None:
    passed = d.peers[seat]._dealing.kitty.holdings
    at = [i for i, p in enumerate(body["positions"]) if p in passed]
    if not at:
        return None
    keys = list(body["keys"])
    keys[at[0]] = (1).to_bytes(32, "little")
    return {**body, "keys": keys}


@pytest.mark.parametrize("liar, tamper, error, words", [
    (THIEF, None, TableError, "overcall"),
    (BURIER, rewriting("give", BURIER, wrong_answer), CheatDetected, "kitty answer"),
    (BURIER, rewriting("give", BURIER, failing_proof), CheatDetected, "kitty answer"),
    (THIEF, rewriting("bury", THIEF, buries_a_card_of_another), CheatDetected,
     "does not hold"),
    (THIEF, rewriting("reveal", THIEF, plays_a_taken_card_with_a_wrong_secret),
     CheatDetected, "wrong secret"),
], ids=["no-overcall", "wrong-answer", "failing-proof", "buries-others", "wrong-secret"])
def test_a_lying_thief_or_burier_is_named_on_every_other_peer(liar, tamper, error, words):
    classes = {THIEF: OvercallsNothing} if tamper is None else None
    _, refused = blamed(ONE_THEFT, SETUP, thieves(ONE_THEFT), classes, tamper)
    others = set(range(4)) - {liar}
    assert others <= set(refused)
    for seat in others:
        assert isinstance(refused[seat], error) and refused[seat].seat == liar, refused[seat]
        assert words in str(refused[seat])



def test_a_thief_that_sends_two_versions_of_its_requests_splits_the_table():
    """Seat 2 receives other requests than the burier answered: its check finds the split
    (signed evidence then names the thief), not a failed proof of the honest burier."""
    def tamper(d: LocalDeal) -> Callable[[int, int, bytes], bytes]:
        lie = rewriting("take", THIEF, lambda d, seat, body: {
            **body, "points": [body["points"][1], body["points"][0], *body["points"][2:]]})(d)
        return lambda src, dst, frame: lie(src, dst, frame) if dst == 2 else frame

    _, refused = blamed(ONE_THEFT, SETUP, thieves(ONE_THEFT), tamper=tamper)
    assert isinstance(refused[2], TranscriptSplit), refused[2]
    assert "kitty requests" in str(refused[2])
    assert not any(isinstance(e, CheatDetected) for e in refused.values())


def dropping(kind: str, seat: int) -> Callable[[LocalDeal], Any]:
    """A tamper that loses every ``kind`` frame of ``seat`` (a seat that stalls)."""
    def tamper(d: LocalDeal) -> Callable[[int, int, bytes], bytes | None]:
        return lambda src, dst, frame: None if src == seat and kind_of(frame) == kind \
            else frame
    return tamper


@pytest.mark.parametrize("kind, seat, owed", [("take", THIEF, "kitty request"),
                                               ("give", BURIER, "kitty answer")])
def test_a_stalled_theft_is_owed_by_the_seat_that_holds_it_up(kind, seat, owed):
    """What the stall deadlines watch (`Owed`): the thief's requests, then the burier's
    answers; nobody else is waited for."""
    tables: list[TableHand] = []
    _, refused = blamed(ONE_THEFT, SETUP, thieves(ONE_THEFT), tamper=dropping(kind, seat),
                        collect=tables)
    assert not refused
    for t in tables:
        if t.me != seat:
            assert t.phase == Phase.TALON and t.waiting_on() == {seat: owed}



class Thinking(Thief):
    """A person who takes its time over the window."""

    def declare(self, view: SeatView, options: list[tuple[int, ...]]) -> Declare | Pass | Wait:
        if view.observation.phase == Phase.THEFT:
            return WAIT
        return super().declare(view, options)


def test_the_window_turn_is_owed_as_a_persons_decision():
    """The seat whose turn it is owes its overcall or pass with a person's deadline (a
    step the protocol makes by itself has a minute; a person thinking would be blamed)."""
    players = thieves(ONE_THEFT)
    players[THIEF] = Thinking(ONE_THEFT * 10 + THIEF)
    tables: list[TableHand] = []
    _, refused = blamed(ONE_THEFT, SETUP, players, collect=tables)
    assert not refused
    for t in tables:
        assert t.phase == Phase.THEFT
        if t.me != THIEF:
            assert t.waiting_on() == {THIEF: "declaration window"}
    assert Timing().deadline("declaration window") == MOVE_DEADLINE

# --- the seats -----------------------------------------------------------------------------

def test_a_world_sampled_after_a_theft_is_built_for_every_seat():
    """The AI seat between peers samples a world for each decision: after a theft the
    buried cards are the thief's, not the starter's (the world was refused: out of range)."""
    game, rng = Game(RULES, seed=37), random.Random(37)
    while not (game.hand.thefts and game.hand.phase == Phase.TALON):
        game.apply(game.random_action(rng))
    for seat in range(4):
        world = Knowledge.from_observation(RULES, game.hand.observe(seat)).sample(rng)
        assert sorted(world.hands[seat]) == sorted(game.hand.hands[seat])


class Complaining(StrategyPlayer):
    """An AI seat that keeps the failures it would log (then decides at random)."""

    failures: list[object] = []

    def _complain(self, failure) -> None:
        self.failures.append(failure)


def test_ai_seats_take_the_kitty_and_finish_the_hand_between_peers():
    seed, n = 5, 4  # the random seat 0 takes the kitty from seat 3
    d = LocalDeal(seats=n, seed=seed)
    names = ["random", "heuristic", "random", "heuristic"]
    sessions = [GameSession(RULES, d.config.table, s, d.signing_keys[s], d.config.public_keys,
                            bytes([seed, s]) * 16,
                            Complaining(make_strategy(names[s], "easy", seed + s), RULES,
                                        seed + s), max_hands=1) for s in range(n)]
    d.peers = sessions  # type: ignore[assignment]  # the sessions feed their decks
    d.call_all("start")
    d.run()
    hands = [s.played[0] for s in sessions]
    assert hands[0].public.thefts and all(h.violations == [] for h in hands)
    assert all(s.results == sessions[0].results and len(s.results) == 1 for s in sessions)
    assert not Complaining.failures


def test_a_person_is_asked_in_the_window_though_it_let_the_pair_pass_while_dealing():
    person = HumanPlayer()
    window = replace(Game(seed=1).observe(0), phase=Phase.THEFT)
    view = SeatView(0, [0, 0], None, None, None, "2", window)
    person.declined.add((0, 0))  # let pass while the cards came
    assert person.declare(view, [(0, 0)]) is WAIT
    assert person.declare(view, []) == Pass(0)


def test_the_log_tells_each_theft_and_burial_in_order(two_thefts):
    tables, _ = two_thefts
    names = ["North", "East", "South", "West"]
    lines = [e.line for e in table_events(tables[1], names.__getitem__)]
    kitty = [line for line in lines if "buries" in line or "kitty" in line]
    assert kitty[0] == "South buries 8 cards"
    assert kitty[1] == "North overcalls with ♠2♠2 and takes the kitty"
    assert kitty[2] == "North buries 8 cards"
    assert kitty[3] == "East overcalls with RJRJ and takes the kitty"
    assert kitty[4].startswith("East buries ♣") and len(kitty) == 5  # East sees its own


# --- a crash in the middle of a theft ------------------------------------------------------

#: A game (`GameSession`) where seat 1 takes the kitty from seat 0, then seat 2 from seat 1.
RESUMED = 8
TABLE = b"resume-table-001"


def thief_session(d: LocalDeal, seat: int) -> GameSession:
    return GameSession(RULES, TABLE, seat, d.signing_keys[seat], d.config.public_keys,
                       bytes([RESUMED, seat]) * 16, Thief(RESUMED * 10 + seat), max_hands=1)


def crash_point(where: str) -> Callable[[TableHand], bool]:
    """Where seat 1 rests (its own moves follow one another at once): its overcall and
    requests sent, the answers not in; its burial sent, the next window open; owing its
    answers to the next thief (whose requests came)."""
    def reached(t: TableHand) -> bool:
        theft = t.deck.kitty.pending
        return {"taking": theft is not None and theft.thief == 1,
                "window": t.phase == Phase.THEFT and len(t.public.thefts) == 1,
                "answering": theft is not None and theft.burier == 1}[where]
    return reached


@pytest.mark.slow  # as the other resumes (tests/test_resume.py)
@pytest.mark.parametrize("where", ["taking", "window", "answering"])
def test_a_seat_that_crashes_during_a_theft_resumes_from_its_journal(where):
    """Seat 1 takes the kitty from seat 0, then seat 2 from seat 1. Seat 1 crashes at each
    point where it rests during the thefts, comes back from its journal (its overcall,
    requests, burial and answers sent again unchanged), and the hand ends as on every
    other peer."""
    d = LocalDeal(seats=4, seed=RESUMED)
    d.peers = [thief_session(d, s) for s in range(4)]  # type: ignore[misc]
    d.call_all("start")
    reached = crash_point(where)
    while d.queue and not reached(d.peers[1].current):
        pump(d, 1)
    assert reached(d.peers[1].current)
    fresh = thief_session(d, 1)
    crash_and_resume(d, 1, fresh)
    pump(d)
    sessions = d.peers
    assert all(len(s.results) == 1 and s.results == sessions[0].results for s in sessions)
    assert all(transcript(s) == transcript(sessions[0]) for s in sessions)
    assert [seat for seat, _ in sessions[1].played[0].public.thefts] == [1, 2]
