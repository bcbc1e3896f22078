"""Find-a-friend between peers: the starter's call is a signed move every peer judges with
the rules core, friends show only as their called cards are played, the audit replays the
call, and a seat that calls wrongly, calls out of turn or pretends to be a friend is refused
and named on every peer."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest
from open_deck import open_decks, run_tables

from tractor import Bury, Hand, Play, Rules
from tractor.actions import Call
from tractor.formats import Format
from tractor.friends import FriendCall, Sides, callable_cards
from tractor.net.deck.errors import DeckError
from tractor.net.deck.local import LocalDeal
from tractor.net.referee.machine import Timing
from tractor.net.table import messages as wire
from tractor.net.table.errors import TableError
from tractor.net.table.hand import TableHand
from tractor.net.table.player import WAIT, RandomPlayer, SeatView, Wait
from tractor.net.table.setup import HandSetup
from tractor.observation import Observation
from tractor.phases import Decision, IllegalAction, Phase
from tractor.scoring import points_of
from tractor.trick import claim_to_make

FIVE = Rules(players=5, mode="friends")


def play(seed: int, setup: HandSetup, players: list[RandomPlayer] | None = None,
         classes: dict[int, type[TableHand]] | None = None) -> list[TableHand]:
    """One hand on the real deck between in-memory peers (errors go up to the caller)."""
    rules = setup.rules
    n = rules.players
    d = LocalDeal(seats=n, decks=rules.decks, hand_size=rules.hand_size, seed=seed,
                  first=setup.first)
    players = players or [RandomPlayer(seed * 10 + s) for s in range(n)]
    tables = [(classes or {}).get(s, TableHand)(setup, d.peers[s], players[s])
              for s in range(n)]
    d.peers = tables  # type: ignore[assignment]  # the tables feed their decks
    d.call_all("start")
    d.run()
    return tables


Tamper = Callable[[int, int, bytes], "bytes | list[bytes] | None"]


def blamed(seed: int, setup: HandSetup, players: list[RandomPlayer],
           classes: dict[int, type[TableHand]] | None = None,
           tamper: Callable[[LocalDeal], Tamper] | None = None,
           collect: list[TableHand] | None = None
           ) -> tuple[list[TableHand], dict[int, Exception]]:
    """One hand on the real deck where every peer goes on alone until it refuses a frame
    (``tamper(deal)`` may rewrite what a seat sends another; ``collect`` is given the
    tables as they are made): each peer's refusal."""
    rules = setup.rules
    n = rules.players
    d = LocalDeal(seats=n, decks=rules.decks, hand_size=rules.hand_size, seed=seed,
                  first=setup.first)
    d.tamper = tamper(d) if tamper is not None else None
    tables = [(classes or {}).get(s, TableHand)(setup, d.peers[s], players[s])
              for s in range(n)]
    if collect is not None:
        collect.extend(tables)
    refused: dict[int, Exception] = {}

    def run(seat: int, move: Callable[[], list[bytes]]) -> None:
        try:
            d.broadcast(seat, move())
        except (TableError, DeckError) as exc:
            refused[seat] = exc
            d.broadcast(seat, exc.outgoing)

    for seat, table in enumerate(tables):
        run(seat, table.start)
    while d.queue:
        _, dst, frame = d.queue.popleft()
        if dst not in refused:
            run(dst, partial(tables[dst].receive, frame))
    return tables, refused


def omniscient(table: TableHand) -> Hand:
    """The rules core's own play of the same deal, trump, burial, call and plays."""
    order = [c % 54 for c in table.deck.deck_order()]
    setup, public = table.setup, table.public
    assert public.sides is not None and table.starter is not None and table.trump is not None
    hand = Hand.dealt(setup.rules, order, setup.levels, setup.first, table.trump,
                      table.starter, None)  # type: ignore[arg-type]  # no team: find-a-friend
    hand.apply(Bury(table.starter, tuple(order[p] for p in table.deck.buried)))
    hand.apply(Call(table.starter, public.sides.calls))
    for rec in table.records:
        cards = rec.attempted if rec.attempted is not None else rec.cards
        hand.apply(Play(rec.seat, tuple(c % 54 for c in cards)))
    return hand


class Watcher(RandomPlayer):
    """Random decisions, keeping every observation it was shown."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seen: list[Observation] = []

    def play(self, view: SeatView) -> Play:
        self.seen.append(view.observation)
        return super().play(view)

    def call(self, view: SeatView) -> Call:
        self.seen.append(view.observation)
        return super().call(view)


def friends_from_plays(rules: Rules, obs: Observation) -> tuple[int | None, ...]:
    """Who each call fell to, worked out from the plays the observation shows alone."""
    assert obs.starter is not None
    sides = Sides(rules, obs.starter, obs.calls)
    for trick in obs.tricks:
        for k, faces in enumerate(trick.plays):
            sides.on_play((trick.leader + k) % rules.players, faces)
    for k, faces in enumerate(obs.current):
        sides.on_play((obs.leader + k) % rules.players, faces)
    return sides.friends


@pytest.mark.slow
@pytest.mark.parametrize("rules", [FIVE, Rules(players=7, mode="friends",
                                               friend_join="no_double")])
def test_a_friends_hand_between_peers_is_the_rules_cores_hand(rules):
    n = rules.players
    players = [Watcher(70 + s) for s in range(n)]
    tables = play(7, HandSetup(rules, ("2",) * n, first=2), players)
    assert [t.phase for t in tables] == ["done"] * n
    table = tables[0]
    assert all(t.result == table.result and t.violations == [] for t in tables)
    assert all(len(t.deck.verdicts) == n for t in tables)  # every peer's audit is in
    hand = omniscient(table)
    assert hand.phase == "done" and hand.tricks == table.public.tricks
    assert hand.result == table.result and hand.sides is not None
    assert table.result is not None and table.result.side == hand.sides.side
    assert table.public.sides is not None
    assert table.public.sides.friends == hand.sides.friends
    # The call is public, and a friend shows only when it plays a called card: every
    # observation any seat was shown says exactly what its plays say.
    starter = table.starter
    calls = table.public.sides.calls
    assert len(calls) == rules.friend_calls
    for seat, player in enumerate(players):
        for obs in player.seen:
            if obs.phase == Phase.CALL:
                assert seat == starter and obs.calls == () and obs.declaring == (starter,)
                continue
            assert obs.calls == calls
            assert obs.friends == friends_from_plays(rules, obs)
            assert obs.declaring == (starter, *dict.fromkeys(
                f for f in obs.friends if f is not None and f != starter))
    assert any(p.seen for p in players) and players[starter].seen[0].phase == Phase.CALL


# --- a starter that calls what the rules refuse -----------------------------------------------


class BadCaller(RandomPlayer):
    """Calls what the rules do not allow, in one of three ways."""

    def __init__(self, seed: int, how: str) -> None:
        super().__init__(seed)
        self.how = how

    def call(self, view: SeatView) -> Call:
        obs = view.observation
        assert view.rules is not None and obs.trump is not None
        allowed = callable_cards(view.rules, obs.trump, obs.trump_rank)
        if self.how == "count":  # two friends at a table of five
            return Call(view.seat, tuple(allowed[:2]))
        if self.how == "trump":  # the small joker is always a trump
            return Call(view.seat, (FriendCall(52, 1),))
        return Call(view.seat, (FriendCall(allowed[0].face, 3),))  # a 3rd copy of 2 decks


@pytest.mark.parametrize("how, reason", [
    ("count", "call 1 friend, not 2"),
    ("trump", "cannot be called: the rules allow no trump"),
    ("copy", "there is no 3rd copy of a card with 2 decks"),
])
def test_a_call_the_rules_refuse_is_the_starters_on_every_peer(how, reason):
    starter = 3
    setup = HandSetup(FIVE, ("4", "2", "2", "9", "2"), first=starter, starter=starter)
    players = [RandomPlayer(50 + s) for s in range(5)]
    players[starter] = BadCaller(53, how)
    tables, refused = blamed(5, setup, players)
    assert sorted(refused) == list(range(5))  # every peer, the starter's own too
    for seat, exc in refused.items():
        assert isinstance(exc, TableError) and exc.seat == starter, (seat, exc)
        assert reason in str(exc), exc
        # Refused whole: the hand stands where it was, waiting for the call.
        public = tables[seat].public
        assert public.phase == Phase.CALL and public.sides is None
        assert tables[seat].phase == Phase.CALL


class CallsOutOfTurn(TableHand):
    """A seat that is not the starter posts a call of friends as the starter calls."""

    sent = False

    def step(self) -> list[bytes]:
        out = super().step()
        if self.phase == Phase.CALL and not self.sent:
            self.sent = True
            out += self.deck.post(wire.to_wire(wire.Call((FriendCall(25, 1),))))
        return out


def test_a_call_from_a_seat_that_is_not_the_starter_is_refused_on_every_peer():
    starter, intruder = 1, 4
    setup = HandSetup(FIVE, ("2",) * 5, first=starter, starter=starter)
    tables, refused = blamed(8, setup, [RandomPlayer(80 + s) for s in range(5)],
                             {intruder: CallsOutOfTurn})
    assert sorted(refused) == list(range(5))
    for seat, exc in refused.items():
        assert isinstance(exc, TableError) and exc.seat == intruder, (seat, exc)
        assert "got a call of friends" in str(exc), exc
    # As a message out of turn of any other kind is refused (a bid at a revealing table).
    assert all(t.public.sides is not None for t in tables)  # the starter's call stood


# --- a seat that pretends to be a friend -----------------------------------------------------


class SaysItIsAFriend(TableHand):
    """Edits its own view of the hand, once the starter has called, to be the friend."""

    def step(self) -> list[bytes]:
        out = super().step()
        sides = self.public.sides
        if sides is not None and self.me not in sides.side:
            sides.friends = (self.me,) * len(sides.calls)
            sides.side = (sides.starter, self.me)
        return out


@pytest.mark.slow
def test_a_peer_that_edits_its_observation_is_no_friend_to_the_others():
    liar, starter = 2, 0
    n = FIVE.players
    setup = HandSetup(FIVE, ("2",) * n, first=starter, starter=starter)
    players = [Watcher(20 + s) for s in range(n)]
    tables = play(2, setup, players, {liar: SaysItIsAFriend})
    assert tables[liar].observation().declaring[:2] == (starter, liar)  # what it tells itself
    honest = [t for s, t in enumerate(tables) if s != liar]
    hand = omniscient(honest[0])
    assert hand.sides is not None
    for table in honest:  # the others go by the plays, as the rules core does
        assert table.result == hand.result and table.public.sides is not None
        assert table.public.sides.friends == hand.sides.friends
    for seat, player in enumerate(players):
        if seat != liar:
            assert all(obs.friends == friends_from_plays(FIVE, obs) for obs in player.seen
                       if obs.phase == Phase.PLAY)
    # Nothing on the wire says who is a friend: a message saying so is no table message.
    with pytest.raises(Exception, match="seat 2"):
        wire.table_message(108).read({"friend": 2}, "seat 2")


# --- the audit ---------------------------------------------------------------------------------


class QuietClaimer(TableHand):
    """Keeps quiet about every part of a throw it could beat (its cards stay hidden)."""

    quiet = 0

    def _my_claim(self, lead: Format, best: int | None) -> list[bytes]:
        if claim_to_make(lead, self._parts_i_beat(lead), best) is not None:
            QuietClaimer.quiet += 1
            return self.deck.post({"claim": []})
        return super()._my_claim(lead, best)


@pytest.mark.slow
def test_a_seat_quiet_about_a_throw_is_found_by_every_peers_audit_in_find_a_friend():
    found = 0
    for seed in range(40):
        liar = seed % 5
        setup = HandSetup(FIVE, ("2",) * 5, first=seed % 5, starter=seed % 5)
        decks = open_decks(5, 2, FIVE.hand_size, seed % 5, seed)
        tables = [(QuietClaimer if s == liar else TableHand)(
            setup, decks[s], RandomPlayer(seed * 10 + s, 0.0)) for s in range(5)]
        before = QuietClaimer.quiet
        run_tables(tables)
        if QuietClaimer.quiet == before:
            continue
        found += 1
        violations = tables[0].violations
        assert violations and violations[0].seat == liar and "let" in violations[0].reason
        assert all(t.violations == violations and t.result == tables[0].result
                   for t in tables)
        # Scored as the rules core scores a hand whose audit found the liar.
        public = tables[0].public
        again = public.copy_public()
        again.result, again.phase = None, Phase.PLAY
        order = tables[0].deck.deck_order()
        talon = points_of(order[p] % 54 for p in tables[0].deck.buried)
        assert again.record_score(talon, liar) == tables[0].result
        if found >= 2:
            break
    assert found >= 2


# --- a person's call ------------------------------------------------------------------------------


class WaitsToCall(RandomPlayer):
    """A person: the call waits for the screen."""

    def call(self, view: SeatView) -> Call | Wait:  # type: ignore[override]
        return WAIT


@pytest.mark.slow
def test_the_table_waits_for_a_persons_call_and_takes_only_one_the_rules_allow():
    starter = 4
    setup = HandSetup(FIVE, ("2",) * 5, first=starter, starter=starter)
    players = [RandomPlayer(60 + s) for s in range(5)]
    players[starter] = WaitsToCall(64)
    d = LocalDeal(seats=5, decks=2, hand_size=FIVE.hand_size, seed=6, first=starter)
    tables = [TableHand(setup, d.peers[s], players[s]) for s in range(5)]
    d.peers = tables  # type: ignore[assignment]
    d.call_all("start")
    d.run()
    me = tables[starter]
    assert me.waiting == Decision.CALL and all(t.phase == Phase.CALL for t in tables)
    # The others wait for the starter's call: a person's decision, with a person's deadline.
    assert all(t.waiting_on() == {starter: "call"} for t in tables if t is not me)
    assert Timing().deadline("call") == Timing().move
    obs = me.observation()
    assert obs.trump is not None and obs.declaring == (starter,) and obs.calls == ()
    allowed = callable_cards(FIVE, obs.trump, obs.trump_rank)
    with pytest.raises(IllegalAction, match="call 1 friend, not 2"):
        me.decide(Call(starter, tuple(allowed[:2])))
    with pytest.raises(IllegalAction, match="another seat's move"):
        me.decide(Call(0, tuple(allowed[:1])))
    assert me.waiting == Decision.CALL and me.public.sides is None  # nothing changed
    d.broadcast(starter, me.decide(Call(starter, (allowed[-1],))))
    d.run()
    assert all(t.phase == Phase.DONE and t.result == me.result for t in tables)
    assert all(t.public.sides is not None and t.public.sides.calls == (allowed[-1],)
               for t in tables)


class Revoker(RandomPlayer):
    """Keeps the led suit once, playing other cards instead (found only by the audit)."""

    revoked = False

    def play(self, view: SeatView) -> Play:
        assert view.ladder is not None
        if not self.revoked and view.lead is not None:
            es = view.ladder.esuit
            held = [f for f in view.hand if es[f] == view.lead.esuit]
            other = [f for f in view.hand if es[f] != view.lead.esuit]
            if held and len(other) >= view.lead.size:
                self.revoked = True
                return Play(view.seat, tuple(other[:view.lead.size]))
        return super().play(view)


@pytest.mark.slow
def test_a_revoke_in_find_a_friend_is_found_by_every_peers_audit_and_loses_its_side_the_hand():
    liar = 3
    setup = HandSetup(FIVE, ("2",) * 5, first=0, starter=0)
    players = [RandomPlayer(90 + s) for s in range(5)]
    players[liar] = Revoker(93)
    tables = play(9, setup, players)
    assert players[liar].revoked  # type: ignore[attr-defined]
    found = tables[0].violations
    assert found and found[0].seat == liar and found[0].reason.startswith("you must follow")
    assert all(t.violations == found and t.result == tables[0].result for t in tables)
    res = tables[0].result
    assert res is not None
    # The liar's side at the end loses the hand as badly as the scoring table allows.
    if liar in res.side:
        assert res.gaining_team == 1 and res.defender_points >= FIVE.total_points
    else:
        assert res.gaining_team == 0 and res.defender_points == 0


class CallsTheLiar(RandomPlayer):
    """A starter that calls a card the liar holds (the test knows the liar's hand), of the
    suit it holds most of."""

    liar: TableHand

    def call(self, view: SeatView) -> Call:
        obs = view.observation
        assert view.rules is not None and obs.trump is not None and view.ladder is not None
        allowed = {c.face for c in callable_cards(view.rules, obs.trump, obs.trump_rank)}
        held = [f for f in self.liar.my_faces() if f in allowed]
        if not held:
            return super().call(view)
        suits = [view.ladder.esuit[f] for f in held]
        face = max(held, key=lambda f: (suits.count(view.ladder.esuit[f]), f))
        return Call(view.seat, (FriendCall(face, 1),))


class DodgesTheCall(RandomPlayer):
    """Holds a called card and will not show it: when its suit is led, plays other cards
    (a revoke only the audit can see), so the table does not learn it is a friend."""

    dodged = 0

    def play(self, view: SeatView) -> Play:
        assert view.ladder is not None
        es, lead = view.ladder.esuit, view.lead
        called = {c.face for c in view.observation.calls} & set(view.hand)
        if lead is not None and any(es[f] == lead.esuit for f in called):
            other = [f for f in view.hand if es[f] != lead.esuit]
            if len(other) >= lead.size:
                DodgesTheCall.dodged += 1
                return Play(view.seat, tuple(other[:lead.size]))
        return super().play(view)


@pytest.mark.slow
def test_a_seat_hiding_a_called_card_is_found_by_every_peers_audit():
    found = 0
    for seed in range(40):
        liar, starter = (seed + 2) % 5, seed % 5
        setup = HandSetup(FIVE, ("2",) * 5, first=starter, starter=starter)
        decks = open_decks(5, 2, FIVE.hand_size, starter, seed)
        players = [RandomPlayer(seed * 10 + s, 0.0) for s in range(5)]
        players[liar] = DodgesTheCall(seed * 10 + liar, 0.0)
        caller = players[starter] = CallsTheLiar(seed * 10 + starter, 0.0)
        tables = [TableHand(setup, decks[s], players[s]) for s in range(5)]
        caller.liar = tables[liar]
        before = DodgesTheCall.dodged
        run_tables(tables)
        if DodgesTheCall.dodged == before:
            continue
        found += 1
        violations = tables[starter].violations
        assert violations and violations[0].seat == liar, violations
        assert violations[0].reason.startswith("you must follow")
        assert all(t.violations == violations and t.result == tables[0].result
                   for t in tables)
        if found >= 3:
            break
    assert found >= 3
