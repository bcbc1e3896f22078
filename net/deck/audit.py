"""The end-of-hand rules audit: once every key is released the whole deck is known, so each
peer replays the hand's plays against the real hands with the rules core.

It finds what nobody could check during the hand: a failure to follow suit (the
player held a card it claimed not to have) and a false claim about a throw (a
seat that could beat a throw let it stand, or a seat claimed to beat it and could
not). Each finding names the seat and the trick (numbered from 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tractor.actions import Bury, Call, Declare, Pass, Play, TakeBack
from tractor.formats import THROW, classify_faces
from tractor.friends import FriendCall
from tractor.hand import Hand
from tractor.phases import THEFT, IllegalAction
from tractor.rules import Rules
from tractor.trick import beats_component, best_claim, claim_to_make, claim_turn
from tractor.trump import Trump


@dataclass(frozen=True, slots=True)
class PlayRecord:
    """One play as the table saw it: physical card ids. For a lead that was a throw,
    ``attempted`` holds the throw and ``claims`` each seat that claimed with the indices
    of the throw's components it showed it beats (empty: nobody claimed, it stood). Or a
    take-back of the seat's last play (``taken_back``)."""

    seat: int
    cards: tuple[int, ...]
    attempted: tuple[int, ...] | None = None
    claims: tuple[tuple[int, tuple[int, ...]], ...] = ()
    #: The seat took back its last play (`Rules.takebacks`; no cards).
    taken_back: bool = False


@dataclass(frozen=True, slots=True)
class Violation:
    seat: int
    trick: int
    reason: str

    def to_data(self) -> list[object]:
        return [self.seat, self.trick, self.reason]


@dataclass(frozen=True, slots=True)
class Thefts:
    """Kitty theft: the declaration standing at the first burial, each overcall that took
    the kitty (seat, faces), and every burial's positions in order (the starter's first,
    then each thief's)."""

    declaration: tuple[int, tuple[int, ...]]
    overcalls: tuple[tuple[int, tuple[int, ...]], ...]
    burials: tuple[tuple[int, ...], ...]


def audit_hand(rules: Rules, deck_order: Sequence[int], levels: Sequence[str], first: int,
               trump: Trump, starter: int, declarers: int | None, buried: Sequence[int],
               plays: Sequence[PlayRecord],
               calls: tuple[FriendCall, ...] | None = None,
               thefts: Thefts | None = None) -> list[Violation]:
    """Replay ``plays`` on the real deal (``deck_order``: physical card per position;
    ``buried``: positions) and list every broken rule. Find-a-friend: ``calls`` are the
    starter's, made after the burial (the replay reveals the friends from the plays, as
    the table did). Kitty theft: ``thefts`` (``trump`` is then the trump at the first
    burial), replayed burial by burial with the window's passes between."""
    faces = [c % 54 for c in deck_order]
    hand = Hand.dealt(rules, faces, levels, first, trump, starter, declarers)
    if thefts is not None:
        hand.declaration = thefts.declaration
        bad = _replay_thefts(hand, faces, starter, thefts)
        if bad is not None:
            return [bad]
    else:
        try:
            hand.apply(Bury(starter, tuple(faces[p] for p in buried)))
        except IllegalAction as exc:
            return [Violation(starter, 0, f"buried cards it did not hold: {exc}")]
    out: list[Violation] = []
    if calls is not None:
        try:
            hand.apply(Call(starter, calls))
        except IllegalAction as exc:  # every peer judged the call already: not expected
            return [Violation(starter, 0, f"called friends the rules refuse: {exc}")]
    for i, rec in enumerate(plays):
        trick = len(hand.tricks) + 1
        cards = tuple(c % 54 for c in rec.cards)
        if rec.taken_back:
            try:
                hand.apply(TakeBack(rec.seat))
            except IllegalAction as exc:  # every peer judged it already: not expected
                return [*out, Violation(rec.seat, trick, f"took back a play: {exc}")]
            continue
        if i + 1 < len(plays) and plays[i + 1].taken_back:
            # Choice: a play taken back is not judged (the seat showed it was its own
            # cards by releasing their keys), only replayed so the take-back can undo it.
            try:
                hand.force_play(rec.seat, cards)
            except IllegalAction as exc:
                return [*out, Violation(rec.seat, trick, f"the audit cannot go on: {exc}")]
            continue
        if rec.attempted is not None and not hand.current:
            out += _check_throw(hand, rec, trick)
            # Go on with what was really played on the table.
            hand.force_play(rec.seat, cards)
            continue
        try:
            hand.apply(Play(rec.seat, cards))
        except IllegalAction as exc:
            out.append(Violation(rec.seat, trick, str(exc)))
            try:
                hand.force_play(rec.seat, cards)
            except IllegalAction as exc2:
                out.append(Violation(rec.seat, trick, f"the audit cannot go on: {exc2}"))
                return out
    return out


def _replay_thefts(hand: Hand, faces: list[int], starter: int,
                   thefts: Thefts) -> Violation | None:
    """Each burial, then the window after it: passes until the thief's overcall (the
    table judged them already; the replay checks the thief held its cards)."""
    buriers = [starter, *(seat for seat, _ in thefts.overcalls)]
    for k, (seat, burial) in enumerate(zip(buriers, thefts.burials, strict=True)):
        try:
            hand.apply(Bury(seat, tuple(faces[p] for p in burial)))
        except IllegalAction as exc:
            return Violation(seat, 0, f"buried cards it did not hold: {exc}")
        if k == len(thefts.overcalls):
            break
        thief, overcall = thefts.overcalls[k]
        try:
            while hand.phase == THEFT and hand.window_turn != thief:
                hand.apply(Pass(hand.window_turn))
            hand.apply(Declare(thief, overcall))
        except IllegalAction as exc:
            return Violation(thief, 0, f"overcalled for the kitty with cards it did not "
                                       f"hold: {exc}")
    while hand.phase == THEFT:
        hand.apply(Pass(hand.window_turn))
    return None


def _check_throw(hand: Hand, rec: PlayRecord, trick: int) -> list[Violation]:
    """Replay the answers to a throw in turn (`tractor.trick.claim_turn`) against the real
    hands: each seat asked had to show the component `claim_to_make` names for its hand,
    or nothing. A seat that showed nothing though it could change the forced lead let the
    throw (or a higher forced part) stand; one that showed another part shaped the lead;
    a seat that was not asked owed nothing."""
    assert rec.attempted is not None and hand.ladder is not None
    ladder = hand.ladder
    attempt = [c % 54 for c in rec.attempted]
    lead = classify_faces(attempt, ladder)
    if lead.kind != THROW:
        return []
    claimed = {seat: indices[0] for seat, indices in rec.claims if indices}
    rule = hand.rules.throw_forced
    answers: list[tuple[int, int | None]] = []
    out = []
    while (seat := claim_turn(lead, answers, rec.seat, hand.players, rule)) is not None:
        suit = [f for f in hand.hands[seat] if ladder.esuit[f] == lead.esuit]
        able = {i for i, c in enumerate(lead.components) if beats_component(c, suit, ladder)}
        due = claim_to_make(lead, able, best_claim(lead, answers), rule)
        said = claimed.get(seat)
        if said is not None and said not in able:
            out.append(Violation(seat, trick, "claimed to beat a throw it could not beat"))
        elif said != due:
            out.append(Violation(seat, trick, "could beat the throw but let it stand"
                                 if said is None else "showed another part of the throw "
                                 "than the lowest it could beat"))
        answers.append((seat, said))
    return out
