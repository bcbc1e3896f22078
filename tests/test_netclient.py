"""The person's seat at a peer table (`NetClient`): decisions wait for the screen, refused
moves come back with the rules core's reason and change nothing, the log tells the hand,
and the summary carries the audit verdict. Driven without sockets."""

from __future__ import annotations

import random
import re

import pytest
from twisted.internet.task import Clock

from tractor import Bury, Declare, Pass, Play, Rules
from tractor.ai.hosting.peer import StrategyPlayer
from tractor.ai.players.strategies import make_strategy
from tractor.cli.screen.words import display_names
from tractor.cli.seat.human import HumanPlayer
from tractor.cli.seat.netclient import NetClient, verdict_text
from tractor.net.deck.errors import Equivocation
from tractor.net.deck.local import LocalDeal
from tractor.net.mesh.reachability import Reachability
from tractor.net.mesh.wire import PeerNode
from tractor.net.referee.machine import Timing
from tractor.net.referee.refereeing import SeatGone
from tractor.net.referee.stall import MOVE_DEADLINE, Stalled
from tractor.net.table.errors import TableError
from tractor.net.table.session import GameSession
from tractor.phases import Decision


class FakeReferee:
    """What NetClient reads of a node's referee: its deadlines and this peer's open votes."""

    def __init__(self) -> None:
        self.timing = Timing()
        self.voted: list[tuple[int, str]] = []

    def open_votes(self) -> list[tuple[int, str]]:
        return self.voted


class FakeNode:
    """What NetClient needs of a PeerNode; frames go through a LocalDeal."""

    def __init__(self, deal: LocalDeal, session: GameSession) -> None:
        self.deal, self.session = deal, session
        self.clock = Clock()
        self.halted = None
        self.grace = 120.0
        self.down_since: dict[int, float] = {}
        self.reachability = Reachability(None)
        self.seat = session.seat
        self.on_change = None
        self.refereeing = FakeReferee()

    unreachable = PeerNode.unreachable
    decision_time_left = PeerNode.decision_time_left
    _own_wait = None
    mesh = None  #: not an internet table

    def send(self, frames):
        self.deal.broadcast(self.session.seat, frames)

    def _halt(self, exc):
        self.halted = exc

    def move_failed(self, exc, what):  # as `PeerNode.move_failed` does, without a relay
        if getattr(exc, "outgoing", None):
            self.send(exc.outgoing)
        self._halt(exc)


class Table:
    def __init__(self, seed: int, hands: int = 1) -> None:
        rules = Rules()
        self.deal = LocalDeal(seats=4, seed=seed)
        players = [HumanPlayer()] + [
            StrategyPlayer(make_strategy("heuristic", seed=s), rules, s) for s in (1, 2, 3)]
        self.sessions = [
            GameSession(rules, self.deal.config.table, s, self.deal.signing_keys[s],
                        self.deal.config.public_keys, bytes([seed, s]) * 16, players[s],
                        max_hands=hands) for s in range(4)]
        self.node = FakeNode(self.deal, self.sessions[0])
        hinter = StrategyPlayer(make_strategy("heuristic", seed=9), rules, 9)
        self.client = NetClient(self.node, ["You", "East", "North", "West"], hinter.action)
        self.deal.peers = self.sessions

    def run(self) -> None:
        self.deal.run()
        if self.node.on_change:
            self.node.on_change()


@pytest.mark.slow
def test_a_person_plays_a_whole_hand_through_the_client():
    t = Table(seed=3)
    c = t.client
    redraws = []
    c.on_change = lambda: redraws.append(1)
    t.deal.call_all("start")
    t.run()
    rng = random.Random(1)
    seen = set()
    while c.summary() is None:
        kind = c.decision()
        assert kind in (Decision.DECLARE, Decision.BURY, Decision.PLAY), t.sessions[0].current.phase
        seen.add(kind)
        obs = c.observation()
        if kind == Decision.DECLARE:
            assert c.declaration_options()
            assert c.submit(Declare(0, c.declaration_options()[-1]) if rng.random() < 0.3
                            else Pass(0)) is None
        elif kind == Decision.BURY:
            assert len(obs.talon) == 8
            assert c.submit(Bury(0, (0,))) == "bury exactly 8 cards"
            assert c.observation() == obs
            hint = c.hint()
            assert isinstance(hint, Bury)
            assert c.submit(hint) is None
        else:
            held = set(obs.hand)
            missing = next(f for f in range(54) if f not in held)
            assert "do not hold" in c.submit(Play(0, (missing,)))
            assert c.submit(Bury(0, ())) == "play cards from your hand"
            hint = c.hint()
            assert isinstance(hint, Play) and c.submit(hint) is None
        t.run()
    s = c.summary()
    assert s["audit"] == "4 of 4 peers verified the hand: no rule broken"
    assert s["result"] == t.sessions[1].results[0].to_data()
    assert c.decision() is None and Decision.PLAY in seen and redraws
    log = c.events()
    assert any(re.match(r"trick 1 to (You|East|North|West), \d+ points$", line) for line in log)
    assert any(line.startswith("hand 1 over") for line in log)
    assert c.observation().phase == "done"  # the finished hand stays until dismissed
    c.next_hand()
    assert c.summary() is None


def test_refusals_out_of_turn_chat_and_banners():
    t = Table(seed=5)
    c = t.client
    t.deal.call_all("start")
    t.run()
    while c.decision() != Decision.PLAY:
        kind = c.decision()
        c.submit(c.hint() if kind == Decision.BURY else Pass(0))
        t.run()
        if c.decision() is None:
            t.run()
            if c.decision() is None:
                break
    assert c.submit(Play(1, (0,))) == "that is another seat's move"
    c.chat("hello table")
    t.run()
    assert all(s.current.chat == [(0, "hello table")] for s in t.sessions)
    assert "You: hello table" in c.events()
    assert c.banner() is None
    t.node.down_since = {2: 0.0}
    t.node.clock.advance(10)
    assert c.banner() == ("no link with seat 2 (North) for 10 s: no answer yet from its "
                          "address (the hand ends after 120 s without it)")
    t.node.reachability.dial_errors[2] = ("tcp:198.18.0.12:4000", "Connection refused")
    t.node.down_since[1] = 9.0  # 1 s is not yet worth a word
    assert c.banner() == ("no link with seat 2 (North) for 10 s: cannot reach it at "
                          "tcp:198.18.0.12:4000: Connection refused (the hand ends after 120 s "
                          "without it)")
    t.node.clock.advance(3)
    assert c.banner().startswith("no link with seat 1 (East) for 4 s: no answer yet from its "
                                 "address; no link with seat 2 (North) for 13 s")
    t.node.seat = 3  # lower seats dial higher ones: seat 1 would dial us
    assert c.banner().startswith("no link with seat 1 (East) for 4 s: it has not connected "
                                 "to this peer; no link with seat 2 (North) for 13 s: cannot")
    # Seats with the same reason are named once (five seats' same words overflowed the
    # banner's lines and hid the next entry); the longest wait is said.
    t.node.seat, t.node.down_since[3] = 0, 10.0
    assert c.banner().startswith("no link with seats 1, 3 (East, West) for 4 s: no answer "
                                 "yet from their addresses; no link with seat 2 (North) for "
                                 "13 s: cannot reach it at tcp:198.18.0.12:4000")
    del t.node.reachability.dial_errors[2]
    assert c.banner() == ("no link with seats 1, 2, 3 (East, North, West) for 13 s: no answer "
                          "yet from their addresses (the hand ends after 120 s without them)")
    del t.node.down_since[3]
    t.node.seat = 3
    assert c.banner() == ("no link with seats 1, 2 (East, North) for 13 s: they have not "
                          "connected to this peer (the hand ends after 120 s without them)")
    t.node.clock.advance(MOVE_DEADLINE - 60)  # this peer's play is still owed at 253 s
    assert c.banner() == ("Decide within 47 s: the other seats end the hand when a seat "
                          "keeps the table waiting 5 minutes")
    t.node.refereeing.voted = [(3, "play")]
    assert c.banner() == ("This seat waited too long for seat 3 (West)'s play and voted so; "
                          "the hand ends if every other seat votes the same, and goes on if "
                          "one of them has it")
    t.node.refereeing.voted = [(1, "gone")]  # its link stayed down past the grace period
    assert c.banner().startswith("This seat waited too long for seat 1 (East) and voted so")
    t.node.refereeing.voted = []
    t.node.halted = SeatGone(2, 120)
    assert c.banner() == ("The table stopped: seat 2 (North) left. No connection for 120 s, "
                          "so this hand ends without a result")  # the seat named once
    assert c.decision() is None and c.submit(Pass(0)) == "it is not your turn"
    bad = verdict_text(TableError(3, "claimed to beat a throw with cards that do not"),
                       c.names)
    assert bad == ("The table halted on signed evidence against seat 3 (West): seat 3: "
                   "claimed to beat a throw with cards that do not")


def test_a_failure_inside_a_move_halts_with_the_evidence_sent_not_a_traceback():
    t = Table(seed=5)
    c = t.client
    t.deal.call_all("start")
    t.run()
    sent = []
    t.node.send = sent.append

    class Broken(TableError):
        pass

    def decide(answer):
        exc = Broken(2, "its buffered message does not check out")
        exc.outgoing = [b"signed-move"]  # made before the refusal was found
        raise exc

    t.sessions[0].decide = decide
    kind = c.decision()
    assert kind is not None
    action = c.hint()
    assert c.submit(action) is None
    assert sent == [[b"signed-move"]]
    assert isinstance(t.node.halted, Broken)
    assert c.banner().startswith("The table halted on signed evidence against seat 2 (North)")


def test_a_declaration_let_pass_is_offered_again_in_the_next_hand():
    from dataclasses import replace

    from tractor import Game
    from tractor.net.table.player import WAIT, SeatView

    person = HumanPlayer()
    dealing = Game(seed=1).observe(0)

    def view(dealt):
        return SeatView(0, [], None, None, None, "2", replace(dealing, cards_dealt=dealt))

    assert person.declare(view(8), [(0,)]) is WAIT
    person.declined.add((0,))
    assert person.declare(view(12), [(0,)]) == Pass(0)  # same hand: not asked again
    assert person.declare(view(4), [(0,)]) is WAIT  # a new hand


def test_every_kind_of_halt_reads_plainly():
    from tractor.net.deck.errors import KeyTimeout
    from tractor.net.mesh.intake import ProcessingFailure

    names = ["You", "East", "North", "West"]
    assert verdict_text(KeyTimeout(1, [4, 5]), names) == (
        "The table stopped: seat 1 (East) did not release its keys for positions [4, 5] in "
        "time; the hand ends without a result")
    assert verdict_text(Stalled(2, "shuffle", 70.2), names) == (
        "The table stopped: seat 2 (North) sent no shuffle for 70 s while connected, even "
        "after the other seats complained (every one of them voted so, signed); the hand "
        "ends without a result")
    assert verdict_text(Equivocation(3, "signed two different messages number 4"), names) == (
        "The table halted: seat 3 (West) signed two different versions of one message and "
        "sent them to different seats; both signed frames are the evidence")
    text = verdict_text(ProcessingFailure(3, KeyError("x")), names)
    assert text.startswith("The table stopped: this peer could not process messages after "
                           "a frame from seat 3")



def test_seats_that_share_a_name_read_differently():
    # Two people who kept their default name were both "You" on every screen.
    assert display_names(["ann", "AI 1", "ann", "AI 2"]) == ["ann", "AI 1", "ann 2", "AI 2"]
    assert display_names(["x", "x 2", "x"]) == ["x", "x 2", "x 3"]
    t = Table(seed=5)
    t.client.rebind(t.node, ["bo", "bo", "AI", "AI"])
    assert t.client.names == ["bo", "bo 2", "AI", "AI 2"]


@pytest.mark.slow
def test_the_log_tells_the_game_in_order_and_a_resumed_seat_tells_it_the_same():
    """Each trick's winner right after its last play, chat where it was said; a seat
    resumed from its journal (everything replayed at once) shows the same log, earlier
    hands and chat included."""
    t = Table(seed=5, hands=2)
    c = t.client
    t.deal.call_all("start")
    t.run()
    plays, said = [0, 0], {}  # plays in hand 1 and in hand 2; chat line -> its place
    while not (len(t.sessions[0].results) == 1 and plays[1] >= 4):
        kind = c.decision()
        if c.summary() is not None:
            c.next_hand()
        elif kind is None:
            t.run()
        else:
            if kind == Decision.PLAY:
                this = len(t.sessions[0].results)
                plays[this] += 1
                if plays[this] in (2, 3):
                    seat = plays[this] % 2 * 2  # the seat across, then me
                    text = f"note {len(said)} from seat {seat}"
                    said[text] = len(c.events())  # said now: the next line of the log
                    if seat == 0:
                        c.chat(text)
                    else:
                        t.deal.broadcast(seat, t.sessions[seat].say(text))
                    t.run()
            assert c.submit(c.hint() if kind != Decision.DECLARE else Pass(0)) is None
            t.run()
    log = c.events()
    for text, at in said.items():
        assert log[at].endswith(f": {text}"), log[at - 3:at + 3]
    hand = []
    for line in log:
        if line.startswith("hand 1 over"):
            hand = []
        elif re.search(r" (plays|leads|throws) ", line):
            hand.append(line)
        elif line.startswith("trick "):
            assert len(hand) % 4 == 0 and hand, (line, hand[-5:])  # after all 4 plays
    fresh = GameSession(Rules(), t.deal.config.table, 0, t.deal.signing_keys[0],
                        t.deal.config.public_keys, bytes([5, 0]) * 16, HumanPlayer(),
                        max_hands=2)
    fresh.resume(t.sessions[0].journal())
    resumed = NetClient(FakeNode(t.deal, fresh), ["You", "East", "North", "West"])
    # Less the prompts of the live seat ("you may declare ♥2 now"): not the table's.
    assert resumed.events() == [line for line in log if not line.startswith("you may declare")]
