"""A whole hand over the committed-shuffle deck, then the audit with the rules core: an honest
hand audits clean on every peer; a failure to follow suit and a throw let stand by a seat that
could beat it are found, naming the seat and the trick."""

from __future__ import annotations

import random

import pytest

from tractor import Bury, Hand, Play, Rules, Trump
from tractor.formats import THROW, classify_faces
from tractor.net.deck.audit import PlayRecord, audit_hand
from tractor.net.deck.errors import TranscriptSplit
from tractor.net.deck.local import LocalDeal
from tractor.trick import beats_component, best_claim, claim_to_make, claim_turn

RULES = Rules()
TRUMP = Trump("2", "H")
LEVELS = ["2", "2"]


Claims = tuple[tuple[int, tuple[int, ...]], ...]


def honest_claims(hand: Hand, seat: int, attempt: list[int]) -> Claims:
    """What honest seats claim against a throw: in turn, the one component each shows
    (`claim_to_make`) until the forced lead is settled."""
    ladder = hand.ladder
    lead = classify_faces(attempt, ladder)
    answers: list[tuple[int, int | None]] = []
    while (s := claim_turn(lead, answers, seat, hand.players)) is not None:
        suit = [f for f in hand.hands[s] if ladder.esuit[f] == lead.esuit]
        able = [i for i, c in enumerate(lead.components) if beats_component(c, suit, ladder)]
        answers.append((s, claim_to_make(lead, able, best_claim(lead, answers))))
    return tuple((s, (i,)) for s, i in answers if i is not None)


def able_to_beat(hand: Hand, seat: int, attempt: list[int]) -> list[int]:
    ladder = hand.ladder
    lead = classify_faces(attempt, ladder)
    if lead.kind != THROW:
        return []
    out = []
    for s in range(hand.players):
        suit = [f for f in hand.hands[s] if ladder.esuit[f] == lead.esuit]
        if s != seat and any(beats_component(c, suit, ladder) for c in lead.components):
            out.append(s)
    return out


def play_hand(seed: int, cheat: str | None = None):
    """Deal over the deck protocol, play random legal moves through reveals (with one cheat if
    asked), audit. Returns (table, records, violations per peer, the cheat's (seat, trick))."""
    rng = random.Random(seed)
    table = LocalDeal(seats=4, decks=2, hand_size=25, seed=seed)
    table.setup()
    table.deal_all(starter=0)
    # The test driver sees everything: each position's card as its owner knows it.
    cards = {}
    for peer in table.peers:
        cards.update(peer.hand())
    order = [cards[p] for p in range(table.config.size)]
    hand = Hand.dealt(RULES, [c % 54 for c in order], LEVELS, 0, TRUMP, starter=0, declarers=0)
    positions = {s: {p for p in range(table.config.size) if table.peers[s].owner[p] == s}
                 for s in range(4)}
    buried = rng.sample(sorted(positions[0]), RULES.talon_size)
    table.call(0, "bury", buried)
    table.run()
    hand.apply(Bury(0, tuple(order[p] % 54 for p in buried)))
    positions[0] -= set(buried)
    records: list[PlayRecord] = []
    cheated = None
    while hand.phase == "play":
        seat = hand.to_act()
        action = hand.random_action(rng)
        faces = list(action.faces)
        trick = len(hand.tricks) + 1
        attempted = None
        claimed: Claims = ()
        if not hand.current and classify_faces(faces, hand.ladder).kind == THROW:
            attempted = faces
            able = able_to_beat(hand, seat, faces)
            claimed = honest_claims(hand, seat, faces)
            if cheat == "throw" and cheated is None and able:
                # The table let the throw stand although a seat could beat it.
                claimed = ()
                cheated = (able, trick)
                hand.force_play(seat, faces)
                faces_played = faces
            else:
                hand.apply(action)
                faces_played = list(hand.current[0])  # the throw, or the forced part
        elif (cheat == "follow" and cheated is None and hand.current
              and _can_revoke(hand, seat, faces)):
            faces_played = _revoke(hand, seat, faces)
            cheated = (seat, trick)
            hand.force_play(seat, faces_played)
        else:
            hand.apply(Play(seat, tuple(faces)))
            faces_played = faces
        chosen = []
        for f in faces_played:
            p = next(p for p in sorted(positions[seat]) if order[p] % 54 == f and p not in chosen)
            chosen.append(p)
        positions[seat] -= set(chosen)
        table.call(seat, "reveal", chosen, "play")
        table.run()
        records.append(PlayRecord(seat, tuple(order[p] for p in chosen),
                                  tuple(order[p] for p in _positions_of(attempted, positions,
                                                                        seat, order, chosen))
                                  if attempted is not None else None, claimed))
    table.call_all("audit")
    table.run()
    verdicts = []
    for peer in table.peers:
        deck = peer.deck_order()
        assert deck == order
        verdicts.append(audit_hand(RULES, deck, LEVELS, 0, TRUMP, 0, 0, peer.buried, records))
    return table, records, verdicts, cheated


def _positions_of(attempted, positions, seat, order, chosen):
    """Positions holding the attempted throw (played ones first, then still in hand)."""
    out, pool = [], list(chosen) + sorted(positions[seat])
    for f in attempted:
        p = next(p for p in pool if order[p] % 54 == f and p not in out)
        out.append(p)
    return out


def _can_revoke(hand: Hand, seat: int, faces: list[int]) -> bool:
    ladder = hand.ladder
    suit = hand.lead_format.esuit
    held = [f for f in hand.hands[seat] if ladder.esuit[f] == suit]
    others = [f for f in hand.hands[seat] if ladder.esuit[f] != suit]
    return bool(held) and len(others) >= len(faces)


def _revoke(hand: Hand, seat: int, faces: list[int]) -> list[int]:
    ladder = hand.ladder
    suit = hand.lead_format.esuit
    return [f for f in hand.hands[seat] if ladder.esuit[f] != suit][:len(faces)]


@pytest.mark.parametrize("seed", [1, 2])
def test_an_honest_hand_audits_clean_on_every_peer(seed):
    table, records, verdicts, _ = play_hand(seed)
    assert sum(len(r.cards) for r in records) == 4 * 25
    assert verdicts == [[], [], [], []]
    for seat in range(4):
        table.call(seat, "verdict", [])
    table.run()
    hashes = {peer.transcript() for peer in table.peers}
    assert len(hashes) == 1  # every peer holds the same hand, and every verdict signs it
    (transcript,) = hashes
    assert all(peer.verdicts == {s: {"violations": [], "transcript": transcript}
                                 for s in range(4)} for peer in table.peers)


def test_a_failure_to_follow_suit_is_found_naming_seat_and_trick():
    _, _, verdicts, (seat, trick) = play_hand(3, cheat="follow")
    assert verdicts[0] == verdicts[1] == verdicts[2] == verdicts[3]
    first = verdicts[0][0]
    assert (first.seat, first.trick) == (seat, trick)
    assert first.reason.startswith("you must follow")


def test_a_throw_let_stand_by_a_seat_that_could_beat_it_is_found():
    for seed in range(4, 40):
        _, _, verdicts, cheated = play_hand(seed, cheat="throw")
        if cheated is not None:
            break
    able, trick = cheated
    found = [v for v in verdicts[0] if v.trick == trick]
    assert {v.seat for v in found} == set(able)
    assert all(v.reason == "could beat the throw but let it stand" for v in found)
    assert verdicts[0] == verdicts[3]


def test_a_verdict_that_signs_another_transcript_does_not_count():
    # Seat 3 judged (or claims to have judged) another hand than the others hold: its
    # verdict is refused, so the hand's result never counts on a split transcript.
    table, _, _, _ = play_hand(1)
    genuine = table.peers[3].transcript()
    table.peers[3].transcript = lambda: bytes(32)  # type: ignore[method-assign]
    table.call(3, "verdict", [])
    with pytest.raises(TranscriptSplit) as caught:
        table.run()
    assert caught.value.seat == 3 and "another transcript" in str(caught.value)
    assert genuine != bytes(32) and 3 not in table.peers[0].verdicts
