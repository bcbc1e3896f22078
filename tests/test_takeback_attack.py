"""Take-backs between peers attacked as a hostile peer would (`net.table.takebacks`): a
taker that equivocates, a next seat that lies, and every frame order of one race. Every
peer must end the same, blame only the seat at fault, and never wait on an honest one
for good."""

from __future__ import annotations

from collections import deque

import pytest
from helpers import pump, sender, transcript
from memnet import resign
from test_takeback_table import (
    RULES,
    Held,
    _at_second_play,
    _finish,
    _same_everywhere,
    _table,
    _until,
)

from tractor import Rules
from tractor.actions import Bury, Call, Play
from tractor.actions import TakeBack as CoreTakeBack
from tractor.formats import THROW, classify_faces
from tractor.hand import Hand
from tractor.net.deck.errors import Equivocation, ViewMismatch
from tractor.net.deck.local import LocalDeal
from tractor.net.table.errors import TableError
from tractor.net.table.hand import TableHand
from tractor.net.table.messages import Chat, LetBack, to_wire
from tractor.net.table.messages import TakeBack as TakeBackMessage
from tractor.net.table.player import RandomPlayer
from tractor.net.table.session import GameSession
from tractor.net.table.setup import HandSetup
from tractor.net.table.spectator import Spectator


def _deliver_all(deal: LocalDeal, tables: list[TableHand]) -> list[TableError]:
    """Run the queue to the end, collecting each peer's refusal instead of stopping."""
    refused: list[TableError] = []
    while deal.queue:
        _src, dst, frame = deal.queue.popleft()
        try:
            deal.broadcast(dst, tables[dst].receive(frame))
        except TableError as exc:
            refused.append(exc)
    return refused


def _order(deal: LocalDeal, first: dict[int, int]) -> None:
    """Reorder the frames in flight: at each peer ``dst`` in ``first``, the frames of seat
    ``first[dst]`` come before the others (each seat's own chain keeps its order)."""
    deal.queue = deque(sorted(deal.queue, key=lambda m: m[0] != first.get(m[1], m[0])))


@pytest.mark.slow
@pytest.mark.parametrize("mask", range(4))
@pytest.mark.parametrize("seen", [False, True])
def test_every_frame_order_of_the_race_gives_one_outcome_on_every_peer(
        mask: int, seen: bool) -> None:
    """The take-back against the next seat's answer, at the two seats that neither sent
    nor answered it, in each of the four orders; the next seat answers blind (its play) or
    after seeing the take-back (its let-stand)."""
    deal, tables, players, taker = _at_second_play()
    nxt = (taker + 1) % 4
    lead = tables[taker].trick.plays[0] if tables[taker].trick else ()
    deal.broadcast(taker, tables[taker].take_back())
    if seen:  # the next seat's peer sees the take-back first: it lets it stand
        mine = [m for m in deal.queue if m[1] == nxt]
        deal.queue = deque(m for m in deal.queue if m[1] != nxt)
        for _src, _dst, frame in mine:
            deal.broadcast(nxt, tables[nxt].receive(frame))
    else:  # it played before the take-back came
        deal.broadcast(nxt, tables[nxt].decide(RandomPlayer(9).play(tables[nxt].view())))
    bystanders = [(taker + 2) % 4, (taker + 3) % 4]
    _order(deal, {b: (taker if mask >> i & 1 else nxt) for i, b in enumerate(bystanders)})
    deal.run()
    for t in tables:
        assert t.playing.takebacks.events == [(taker, lead, seen)]
        assert t.trick is not None and len(t.trick.plays) == (0 if seen else 2)
    if seen:
        deal.broadcast(taker, tables[taker].decide(
            RandomPlayer(3).play(tables[taker].view())))
        deal.run()
    _finish(deal, tables, players)
    _same_everywhere(tables)


def test_a_take_back_sent_to_the_next_seat_only_stands_once_it_is_relayed() -> None:
    """An equivocating taker sends its take-back to the next seat only: the others wait on
    the next seat (its let-stand names a take-back they lack) until the relay brings the
    take-back, then apply it like the rest."""
    deal, tables, players, taker = _at_second_play()
    nxt = (taker + 1) % 4
    deal.broadcast(taker, tables[taker].take_back())
    withheld = deque(m for m in deal.queue if m[1] != nxt)
    deal.queue = deque(m for m in deal.queue if m[1] == nxt)
    deal.run()
    for t in tables:
        if t.me not in (taker, nxt):
            assert t.trick is not None and len(t.trick.plays) == 1
            assert t.waiting_on() == {nxt: "play"}
    deal.queue.extend(withheld)  # the relay (`net.mesh.relay`) brings it
    deal.run()
    assert all(t.trick is not None and t.trick.plays == [] for t in tables)
    deal.broadcast(taker, tables[taker].decide(RandomPlayer(3).play(tables[taker].view())))
    deal.run()
    _finish(deal, tables, players)
    _same_everywhere(tables)


def test_a_take_back_sent_twice_counts_twice_and_stands_once() -> None:
    deal, tables, players, taker = _at_second_play()
    deal.broadcast(taker, tables[taker].take_back())
    last = tables[taker].playing.takebacks.last_play[taker]
    assert last is not None
    deal.broadcast(taker, tables[taker].deck.post(to_wire(TakeBackMessage(*last))))
    assert _deliver_all(deal, tables) == []
    for t in tables:
        assert t.trick is not None and t.trick.plays == []
        assert t.playing.takebacks.sent[taker] == 2
        assert [stood for _s, _f, stood in t.playing.takebacks.events] == [True, False]
    deal.broadcast(taker, tables[taker].decide(RandomPlayer(3).play(tables[taker].view())))
    deal.run()
    _finish(deal, tables, players)
    _same_everywhere(tables)


def test_a_next_seat_that_lets_stand_and_moves_too_has_its_move_held_to_the_new_turn() -> None:
    """The next seat lets the take-back stand without having seen it, and plays as well:
    the three other peers apply the take-back alike, and its play waits in its chain for
    its turn after the taker's play made again (where the rules judge it anew)."""
    deal, tables, players, taker = _at_second_play()
    nxt = (taker + 1) % 4
    lead = tables[taker].trick.plays[0] if tables[taker].trick else ()
    follow = RandomPlayer(9).play(tables[nxt].view())
    deal.broadcast(taker, tables[taker].take_back())
    deal.queue = deque(m for m in deal.queue if m[1] != nxt)  # it claims to have seen it
    frames = tables[nxt].deck.post(to_wire(LetBack(1, 0)))
    frames += tables[nxt].decide(follow)  # and plays all the same
    deal.broadcast(nxt, frames)
    assert _deliver_all(deal, tables) == []
    honest = [t for t in tables if t.me != nxt]
    for t in honest:
        assert t.trick is not None and t.trick.plays == []
        assert t.playing.takebacks.events == [(taker, lead, True)]
    again = tables[taker].decide(RandomPlayer(3).play(tables[taker].view()))
    deal.broadcast(taker, again)
    deal.queue = deque(m for m in deal.queue if m[1] != nxt)
    _deliver_all(deal, tables)
    plays = {repr(t.trick.plays) if t.trick else "" for t in honest}
    assert len(plays) == 1


def test_a_let_stand_that_names_another_play_is_refused_alone() -> None:
    deal, tables, players, taker = _at_second_play()
    nxt = (taker + 1) % 4
    deal.broadcast(taker, tables[taker].take_back())
    deal.queue = deque(m for m in deal.queue if m[1] != nxt)
    deal.broadcast(nxt, tables[nxt].deck.post(to_wire(LetBack(0, 0))))
    refused = _deliver_all(deal, tables)
    assert refused and {e.seat for e in refused} == {nxt}
    assert "another play" in str(refused[0])


def _play_by_hand(deal: LocalDeal, tables: list[TableHand], seed: int) -> int:
    """The seat to act plays at random (a person's play); every frame is delivered.
    Returns the seat that played."""
    seat = tables[0].public.to_act()
    assert seat is not None
    deal.broadcast(seat, tables[seat].decide(RandomPlayer(seed).play(tables[seat].view())))
    deal.run()
    return seat


def _highest_throw(table: TableHand) -> tuple[int, ...] | None:
    """Two singles of one suit, the highest this hand has: a throw nobody claims against
    early, so every other seat answers it."""
    ladder = table.public.ladder
    assert ladder is not None
    faces = sorted(set(table.my_faces()), key=lambda f: -ladder.order[f])
    for i, a in enumerate(faces):
        for b in faces[i + 1:]:
            if ladder.esuit[a] == ladder.esuit[b] and \
                    classify_faces([a, b], ladder).kind == THROW:
                return (a, b)
    return None


def test_a_throw_led_before_the_take_back_was_seen_voids_it_and_blames_nobody() -> None:
    """The trick's last play is taken back, and the trick's winner, not having seen it,
    leads a throw: the throw is its move, so the take-back came too late. The taker's
    claim against the throw follows its take-back in its chain: it must be taken, not
    refused as "expected a claim, got a take-back" (the taker did nothing wrong)."""
    deal, tables, players = _table(2)
    _until(deal, tables, lambda: all(len(t.tricks) == 1 for t in tables))
    for k in range(200):
        taker = _play_by_hand(deal, tables, k)
        winner = tables[0].public.to_act()
        if not tables[0].public.current and winner != taker and \
                _highest_throw(tables[winner]) is not None:
            break
    else:
        pytest.fail("no trick ended with another seat winning it")
    assert winner is not None
    taken_back = tables[taker].take_back()
    throw = _highest_throw(tables[winner])
    assert throw is not None
    thrown = tables[winner].decide(Play(winner, throw))  # signed before it saw the take-back
    deal.broadcast(winner, thrown)
    deal.broadcast(taker, taken_back)
    assert _deliver_all(deal, tables) == []
    for t in tables:
        assert [(s, stood) for s, _f, stood in t.playing.takebacks.events] == [(taker, False)]
        assert t.trick is not None and len(t.trick.plays) == 1  # the forced lead
    _finish(deal, tables, players)
    _same_everywhere(tables)


def test_a_forged_take_back_of_the_hands_last_card_neither_stalls_nor_splits_the_audit(
        ) -> None:
    """The hand's last card cannot be taken back (it is scored at once, every key goes out
    for the audit); a seat that sends a take-back of it all the same changes nothing: every
    peer finishes the hand alike."""
    deal, tables, players = _table(2)
    _until(deal, tables, lambda: all(len(t.tricks) == 1 for t in tables))
    for k in range(200):
        if sum(len(t.my_faces()) for t in tables) == 1:
            break
        _play_by_hand(deal, tables, k)
    last = tables[0].public.to_act()
    assert last is not None
    turn = (len(tables[last].public.tricks), len(tables[last].public.current))
    frames = tables[last].decide(RandomPlayer(1).play(tables[last].view()))
    frames += tables[last].deck.post(to_wire(TakeBackMessage(*turn)))
    deal.broadcast(last, frames)
    refused = _deliver_all(deal, tables)
    assert refused == []
    _same_everywhere(tables)


def _trick_ended_by(deal: LocalDeal, tables: list[TableHand], same_winner: bool) -> tuple[
        int, int]:
    """Play by hand until a trick's last play is won by (``same_winner``) or lost by the
    seat that made it: (that seat, the trick's winner)."""
    for k in range(200):
        taker = _play_by_hand(deal, tables, k)
        winner = tables[0].public.to_act()
        if not tables[0].public.current and (winner == taker) == same_winner:
            assert winner is not None
            return taker, winner
    pytest.fail("no such trick")


@pytest.mark.parametrize("same_winner", [pytest.param(False, marks=pytest.mark.slow), True])
def test_the_tricks_last_play_taken_back_and_played_otherwise_is_one_trick_everywhere(
        same_winner: bool) -> None:
    """A take-back of the play that finished a trick reopens it on every peer (the winner
    has not led: its let-stand, or the taker's own chain when it won), and the taker may
    play other cards there: the trick is judged anew, alike everywhere."""
    deal, tables, players = _table(3)
    _until(deal, tables, lambda: all(len(t.tricks) == 1 for t in tables))
    taker, _winner = _trick_ended_by(deal, tables, same_winner)
    done = len(tables[0].tricks)
    played = tables[0].tricks[-1].plays[-1] if tables[0].tricks[-1].plays else ()
    deal.broadcast(taker, tables[taker].take_back())
    assert _deliver_all(deal, tables) == []
    for t in tables:
        assert len(t.tricks) == done - 1 and t.public.to_act() == taker
        assert t.trick is not None and len(t.trick.plays) == 3
    options = [RandomPlayer(s).play(tables[taker].view()) for s in range(40)]
    other = next((p for p in options if sorted(p.faces) != sorted(played)), options[0])
    deal.broadcast(taker, tables[taker].decide(other))
    assert _deliver_all(deal, tables) == []
    assert len({repr(t.tricks[-1]) for t in tables}) == 1
    assert all(len(t.tricks) == done for t in tables)
    _finish(deal, tables, players)
    _same_everywhere(tables)


def _sessions(deal: LocalDeal, seat: int, player: Held) -> GameSession:
    return GameSession(RULES, deal.config.table, seat, deal.signing_keys[seat],
                       deal.config.public_keys, bytes([7, seat]) * 16, player, max_hands=1)


def _sessions_at_a_lead() -> tuple[LocalDeal, list[Held], list[GameSession], int]:
    """Game sessions holding their plays after the first trick; the second trick's leader
    has led (a person's play): returns the leader."""
    deal = LocalDeal(seats=4, seed=5)
    players = [Held(50 + s) for s in range(4)]
    sessions = [_sessions(deal, s, players[s]) for s in range(4)]
    deal.peers = sessions  # type: ignore[assignment]  # frames go to the sessions
    deal.call_all("start")
    pump(deal)
    taker = sessions[0].current.public.to_act()
    assert taker is not None and sessions[0].current.tricks
    deal.broadcast(taker, sessions[taker].decide(RandomPlayer(5).play(
        sessions[taker].current.view())))
    pump(deal)
    return deal, players, sessions, taker


def _crash(deal: LocalDeal, players: list[Held], sessions: list[GameSession],
           victim: int) -> None:
    """``victim``'s process dies: what was in flight to it and what it had just sent are
    lost; it comes back from its journal and the others send all theirs again."""
    players[victim] = Held(50 + victim)
    fresh = _sessions(deal, victim, players[victim])
    deal.queue = type(deal.queue)(m for m in deal.queue if victim not in m[:2])
    journal = sessions[victim].journal()
    sessions[victim] = fresh
    deal.peers[victim] = fresh  # type: ignore[call-overload]
    deal.broadcast(victim, fresh.resume(journal))
    for s in range(4):
        if s != victim:
            deal.queue.extend((s, victim, f) for f in sessions[s].journal() if sender(f) == s)
    pump(deal)


def _finish_sessions(deal: LocalDeal, players: list[Held], sessions: list[GameSession]
                     ) -> None:
    for p in players:
        p.hold = False
    for s in sessions:
        deal.broadcast(s.seat, s.current.step())
    pump(deal)
    assert all(len(s.results) == 1 for s in sessions)
    assert all(s.results == sessions[0].results for s in sessions)
    assert all(transcript(s) == transcript(sessions[0]) for s in sessions)


@pytest.mark.parametrize("crashed", ["taker", pytest.param("next", marks=pytest.mark.slow),
                                     pytest.param("bystander", marks=pytest.mark.slow)])
def test_a_peer_crashed_between_a_take_back_and_its_let_stand_resumes_and_agrees(
        crashed: str) -> None:
    """The take-back is out, the next seat's peer has posted its let-stand, nothing of it
    has reached the crashed peer: it comes back from its journal (the taker's take-back,
    asked of nobody, goes out again from it), and every peer applies the take-back and
    ends the hand alike."""
    deal, players, sessions, taker = _sessions_at_a_lead()
    nxt = (taker + 1) % 4
    victim = {"taker": taker, "next": nxt, "bystander": (taker + 2) % 4}[crashed]
    deal.broadcast(taker, sessions[taker].current.take_back())
    while not any(src == nxt for src, _dst, _f in deal.queue):  # until the let-stand is out
        src, dst, frame = deal.queue.popleft()
        if dst != victim or victim == nxt:
            deal.broadcast(dst, sessions[dst].receive(frame))
    _crash(deal, players, sessions, victim)
    for s in sessions:
        assert s.current.trick is not None and s.current.trick.plays == []
        assert [stood for _s, _f, stood in s.current.playing.takebacks.events] == [True]
    _finish_sessions(deal, players, sessions)


def test_a_taker_crashed_after_playing_again_resumes_with_the_same_plays() -> None:
    """Its journal holds the play, the take-back and the other play made in its place:
    replayed in that order, on its own peer as on the others."""
    deal, players, sessions, taker = _sessions_at_a_lead()
    first = sessions[taker].current.trick
    assert first is not None
    lead = first.plays[0]
    deal.broadcast(taker, sessions[taker].current.take_back())
    pump(deal)
    view = sessions[taker].current.view()
    options = [RandomPlayer(s).play(view) for s in range(40)]
    other = next((p for p in options if sorted(p.faces) != sorted(lead)), options[0])
    deal.broadcast(taker, sessions[taker].decide(other))
    pump(deal)
    _crash(deal, players, sessions, taker)
    for s in sessions:
        assert s.current.trick is not None and s.current.trick.plays == [other.faces]
    _finish_sessions(deal, players, sessions)


@pytest.mark.slow
def test_a_play_that_revealed_a_friend_taken_back_hides_the_friend_again_everywhere() -> None:
    """Find-a-friend: the play of a called card shows a friend on every screen; taken back,
    the friend is unknown again on every peer, and the hand ends as the rules core plays
    the same moves."""
    rules = Rules(players=5, mode="friends", takebacks=True)
    setup = HandSetup(rules, ("2",) * 5, first=2)
    deal = LocalDeal(seats=5, decks=rules.decks, hand_size=rules.hand_size, seed=7, first=2)
    players = [Held(70 + s) for s in range(5)]
    tables = [TableHand(setup, deal.peers[s], players[s]) for s in range(5)]
    deal.peers = tables  # type: ignore[list-item]  # frames go to the tables
    deal.call_all("start")
    deal.run()
    sides = tables[0].public.sides
    assert sides is not None and tables[0].tricks

    def friends() -> set[tuple[int | None, ...]]:
        return {tuple(t.public.sides.friends) for t in tables if t.public.sides is not None}

    for k in range(300):
        before = friends()
        taker = _play_by_hand(deal, tables, k)
        if friends() != before and tables[taker].takeback_refusal() is None:
            break
        if tables[0].public.to_act() is None:
            pytest.fail("no friend was found by a play that may be taken back")
    else:
        pytest.fail("no friend was found by a play that may be taken back")
    public = tables[0].public
    played = public.current[-1] if public.current else public.tricks[-1].plays[-1]
    deal.broadcast(taker, tables[taker].take_back())
    assert _deliver_all(deal, tables) == []
    assert friends() == before and len(before) == 1
    for t in tables:
        assert t.playing.takebacks.events == [(taker, played, True)]
    deal.broadcast(taker, tables[taker].decide(RandomPlayer(1).play(tables[taker].view())))
    assert _deliver_all(deal, tables) == []
    for p in players:
        p.hold = False
    for t in tables:
        deal.broadcast(t.me, t.step())
    deal.run()
    _same_everywhere(tables)
    assert _rules_core_hand(tables[0]).result == tables[0].result


def _rules_core_hand(table: TableHand) -> Hand:
    """The rules core's own play of the table's deal, burial, call, plays and take-backs
    (`test_table_friends.omniscient`, which knows no take-backs)."""
    order = [c % 54 for c in table.deck.deck_order()]
    public = table.public
    assert public.sides is not None and table.starter is not None and table.trump is not None
    hand = Hand.dealt(table.setup.rules, order, table.setup.levels, table.setup.first,
                      table.trump, table.starter, None)  # type: ignore[arg-type]  # friends
    hand.apply(Bury(table.starter, tuple(order[p] for p in table.deck.buried)))
    hand.apply(Call(table.starter, public.sides.calls))
    for rec in table.records:
        if rec.taken_back:
            hand.apply(CoreTakeBack(rec.seat))
            continue
        cards = rec.attempted if rec.attempted is not None else rec.cards
        hand.apply(Play(rec.seat, tuple(c % 54 for c in cards)))
    return hand


def test_a_lead_taken_back_and_led_again_as_a_throw_is_judged_alike_everywhere() -> None:
    """The play made again may be of another kind: a throw, answered by every other seat's
    claims as any throw, then final."""
    deal, tables, players, taker = _at_second_play()
    deal.broadcast(taker, tables[taker].take_back())
    deal.run()
    throw = _highest_throw(tables[taker])
    assert throw is not None
    deal.broadcast(taker, tables[taker].decide(Play(taker, throw)))
    assert _deliver_all(deal, tables) == []
    for t in tables:
        assert t.trick is not None and len(t.trick.plays) == 1
        assert t.trick.attempted is not None and sorted(t.trick.attempted) == sorted(throw)
    assert tables[taker].takeback_refusal() is not None
    _finish(deal, tables, players)
    _same_everywhere(tables)


def test_a_next_seat_that_withholds_its_answer_is_the_only_seat_waited_on() -> None:
    """The take-back reached every peer; the next seat sends neither its let-stand nor its
    move: every peer, the taker's too, waits on it alone (its stall deadline names it)."""
    deal, tables, players, taker = _at_second_play()
    nxt = (taker + 1) % 4
    deal.broadcast(taker, tables[taker].take_back())
    deal.queue = deque(m for m in deal.queue if m[1] != nxt)  # its peer keeps quiet
    deal.run()
    for t in tables:
        if t.me != nxt:
            assert t.waiting_on() == {nxt: "play"}
            assert t.trick is not None and len(t.trick.plays) == 1


def test_a_take_back_equivocated_with_a_chat_line_is_the_takers_once_the_evidence_is_in(
        ) -> None:
    """The taker signs two versions of one message: its take-back to two peers, a chat line
    to the third. The third finds the next seat's let-stand reporting other messages of
    the taker than it holds (`ViewMismatch`, which names the reporter only until the
    evidence is checked); the next seat's copy of the take-back is the evidence, and the
    taker, alone, is named."""
    deal, tables, players, taker = _at_second_play()
    nxt, odd = (taker + 1) % 4, (taker + 3) % 4
    back = tables[taker].take_back()
    assert len(back) == 1
    chat = resign(back[0], deal.signing_keys[taker], {"data": to_wire(Chat("hello"))})
    deal.broadcast(taker, back)
    deal.queue = deque((s, d, chat if d == odd else f) for s, d, f in deal.queue)
    mismatches: list[ViewMismatch] = []
    while deal.queue:
        _src, dst, frame = deal.queue.popleft()
        try:
            deal.broadcast(dst, tables[dst].receive(frame))
        except ViewMismatch as exc:
            assert dst == odd
            mismatches.append(exc)
    assert [(m.seat, m.about) for m in mismatches] == [(nxt, taker)]
    seq = mismatches[0].count - 1
    evidence = tables[nxt].deck.evidence(taker, seq)
    with pytest.raises(Equivocation) as found:
        tables[odd].deck.check_evidence(evidence)
    assert found.value.seat == taker


@pytest.mark.parametrize("order", ["by seat", pytest.param("by seat, last first",
                                                             marks=pytest.mark.slow)])
def test_a_watcher_fed_the_transcript_in_any_order_sees_the_take_back_as_the_seats_do(
        order: str) -> None:
    """A watcher replays the seats' signed frames (`Spectator`) in whatever order they
    come: the take-back, its let-stand and the play made again end the same for it."""
    deal, players, sessions, taker = _sessions_at_a_lead()
    deal.broadcast(taker, sessions[taker].current.take_back())
    pump(deal)
    deal.broadcast(taker, sessions[taker].decide(
        RandomPlayer(3).play(sessions[taker].current.view())))
    pump(deal)
    seats = list(range(4)) if order == "by seat" else list(range(3, -1, -1))
    frames = [f for s in seats for f in sessions[s].journal() if sender(f) == s]
    watcher = Spectator(RULES, deal.config.table, deal.config.public_keys)
    for frame in frames:
        assert watcher.take(frame)
    seen, seat = watcher.current, sessions[0].current
    assert seen.playing.takebacks.events == seat.playing.takebacks.events != []
    assert seen.trick is not None and seat.trick is not None
    assert seen.trick.plays == seat.trick.plays and seen.records == seat.records


def test_the_tricks_last_play_taken_back_too_late_for_the_winners_lead_stands_everywhere(
        ) -> None:
    """The winner of the trick leads the next one before the take-back of the trick's last
    play reached it: the take-back is void on every peer, whichever frame each gets first."""
    deal, tables, players = _table(3)
    _until(deal, tables, lambda: all(len(t.tricks) == 1 for t in tables))
    taker, winner = _trick_ended_by(deal, tables, same_winner=False)
    back = tables[taker].take_back()
    led = tables[winner].decide(RandomPlayer(4).play(tables[winner].view()))
    deal.broadcast(winner, led)
    deal.broadcast(taker, back)
    _order(deal, {d: (taker if d % 2 else winner) for d in range(4)})  # half get each first
    assert _deliver_all(deal, tables) == []
    done = len(tables[0].tricks)
    for t in tables:
        assert [(s, stood) for s, _f, stood in t.playing.takebacks.events] == [(taker, False)]
        assert len(t.tricks) == done and t.trick is not None and len(t.trick.plays) == 1
    _finish(deal, tables, players)
    _same_everywhere(tables)


def test_a_next_seat_crashed_after_its_move_beat_the_take_back_resumes_and_agrees() -> None:
    """The next seat played before the take-back reached it, then crashed: replaying, its
    peer holds the take-back from the start, yet its journaled play comes first in its
    chain: the take-back stays void on every peer."""
    deal, players, sessions, taker = _sessions_at_a_lead()
    nxt = (taker + 1) % 4
    back = sessions[taker].current.take_back()
    deal.broadcast(nxt, sessions[nxt].decide(RandomPlayer(9).play(sessions[nxt].current.view())))
    deal.broadcast(taker, back)
    pump(deal)
    _crash(deal, players, sessions, nxt)
    for s in sessions:
        assert [stood for _s, _f, stood in s.current.playing.takebacks.events] == [False]
        assert s.current.trick is not None and len(s.current.trick.plays) == 2
    _finish_sessions(deal, players, sessions)


def test_a_play_and_its_take_back_sent_to_the_next_seat_only_stand_once_relayed() -> None:
    """The taker sends its lead and its take-back to the next seat alone: the let-stand
    reaches the others before the play it names; they wait (on the next seat, or for the
    taker's play) and, once the relay brings the two frames, apply both alike."""
    deal, tables, players = _table(2)
    _until(deal, tables, lambda: all(len(t.tricks) == 1 for t in tables))
    taker = tables[0].trick.leader if tables[0].trick else 0
    _until(deal, tables, lambda: tables[taker].waiting is not None)
    assert not deal.queue
    nxt = (taker + 1) % 4
    lead = RandomPlayer(5).play(tables[taker].view())
    deal.broadcast(taker, tables[taker].decide(lead))
    deal.broadcast(taker, tables[taker].take_back())
    withheld = deque(m for m in deal.queue if m[1] != nxt)
    deal.queue = deque(m for m in deal.queue if m[1] == nxt)
    assert _deliver_all(deal, tables) == []
    assert tables[nxt].playing.takebacks.events == [(taker, lead.faces, True)]
    deal.queue.extend(withheld)  # the relay
    assert _deliver_all(deal, tables) == []
    for t in tables:
        assert t.playing.takebacks.events == [(taker, lead.faces, True)]
        assert t.trick is not None and t.trick.plays == [] and t.public.to_act() == taker
    deal.broadcast(taker, tables[taker].decide(RandomPlayer(3).play(tables[taker].view())))
    deal.run()
    _finish(deal, tables, players)
    _same_everywhere(tables)
