"""Claims against a throw between peers: a claim is the claimant's own cards of the throw's
suit, shown through the deck, of the same shape and higher, so a trump shown against a
plain suit is no claim (the table took it, and forced the thrower, before); and the audit
checks every seat's claim part by part, so a seat silent about a part it could beat is
named (the audit used to check only the first claimant)."""

from __future__ import annotations

import pytest
from open_deck import open_decks, run_tables

from tractor import Rules
from tractor.formats import Format
from tractor.net.table.errors import TableError
from tractor.net.table.hand import TableHand
from tractor.net.table.player import RandomPlayer
from tractor.net.table.setup import HandSetup
from tractor.trick import beats_component, claim_to_make
from tractor.trump import TRUMP


class TrumpClaimer(TableHand):
    """Claims a plain-suit single it cannot beat in suit with a trump it holds."""

    tried = 0

    def _my_claim(self, lead: Format, best: int | None) -> list[bytes]:
        ladder = self.ladder
        assert ladder is not None
        mine = self.my_faces()
        suit = [f for f in mine if ladder.esuit[f] == lead.esuit]
        trumps = [f for f in mine if ladder.esuit[f] == TRUMP]
        if lead.esuit != TRUMP and trumps:
            for i, comp in enumerate(lead.components):
                if comp.kind == "single" and not beats_component(comp, suit, ladder) and \
                        claim_to_make(lead, [i], best) is not None:  # it would count
                    positions = self._positions_for([max(trumps, key=ladder.order.__getitem__)])
                    TrumpClaimer.tried += 1
                    return self._show(positions) + self.deck.post({"claim": [[i, positions]]})
        return super()._my_claim(lead, best)


class QuietClaimer(TableHand):
    """Keeps quiet about every part of a throw it could beat."""

    quiet = 0

    def _my_claim(self, lead: Format, best: int | None) -> list[bytes]:
        if claim_to_make(lead, self._parts_i_beat(lead), best) is not None:  # it would count
            QuietClaimer.quiet += 1
            return self.deck.post({"claim": []})
        return super()._my_claim(lead, best)


def _table(cls: type[TableHand], seed: int, liar: int) -> list[TableHand]:
    setup = HandSetup(Rules(), ("2", "2"), 0, 0, 0)
    decks = open_decks(4, 2, 25, 0, seed)
    return [(cls if s == liar else TableHand)(setup, decks[s], RandomPlayer(seed * 10 + s, 0.0))
            for s in range(4)]


@pytest.mark.slow
def test_a_trump_shown_against_a_plain_suit_throw_is_no_claim():
    halted = 0
    for seed in range(40):
        liar = seed % 4
        before = TrumpClaimer.tried
        tables = _table(TrumpClaimer, seed, liar)
        try:
            run_tables(tables)
        except TableError as exc:
            assert exc.seat == liar and "do not" in str(exc), exc
            halted += 1
            continue
        assert TrumpClaimer.tried == before  # it never got the chance in this hand
    assert halted >= 5  # the situation came up, and each time the liar was named


@pytest.mark.slow
def test_a_seat_quiet_about_a_part_it_could_beat_is_found_by_the_audit():
    found = 0
    for seed in range(60):
        liar = seed % 4
        before = QuietClaimer.quiet
        tables = _table(QuietClaimer, seed, liar)
        run_tables(tables)
        if QuietClaimer.quiet == before:
            continue
        violations = tables[(liar + 1) % 4].violations
        assert violations and violations[0].seat == liar, violations
        assert "let" in violations[0].reason
        found += 1
    assert found >= 3


class HigherClaimer(TableHand):
    """Shows a higher part of a throw than the lowest it could beat (shaping the lead)."""

    shaped = 0

    def _my_claim(self, lead: Format, best: int | None) -> list[bytes]:
        able = self._parts_i_beat(lead)
        due = claim_to_make(lead, able, best)
        higher = [i for i in able if i != due and claim_to_make(lead, [i], best) is not None]
        if due is None or not higher:
            return super()._my_claim(lead, best)
        HigherClaimer.shaped += 1
        return self._claim(lead, higher[0])


class PointlessClaimer(TableHand):
    """Shows a part that cannot change the forced lead (to make the table see its cards)."""

    def _my_claim(self, lead: Format, best: int | None) -> list[bytes]:
        able = self._parts_i_beat(lead)
        if best is None or not able or claim_to_make(lead, able, best) is not None:
            return super()._my_claim(lead, best)
        return self._claim(lead, able[0])


@pytest.mark.slow
def test_a_seat_that_shows_a_higher_part_than_it_must_is_found_by_the_audit():
    found = 0
    for seed in range(120):
        liar = seed % 4
        before = HigherClaimer.shaped
        tables = _table(HigherClaimer, seed, liar)
        run_tables(tables)
        if HigherClaimer.shaped == before:
            continue
        violations = tables[(liar + 1) % 4].violations
        assert violations and violations[0].seat == liar, violations
        assert "another part" in violations[0].reason
        found += 1
    assert found >= 2


@pytest.mark.slow
def test_honest_seats_show_one_component_each_and_only_while_it_matters():
    # Before, every other seat showed the lowest beating cards for every part it could
    # beat (about 8 cards against a cheap throw of low singles).
    throws = shown = 0
    for seed in range(60):
        tables = _table(TableHand, seed, 0)
        run_tables(tables)
        for trick in tables[0].tricks:
            if trick.attempted is None:
                continue
            throws += 1
            assert all(len(c) == 1 for c in trick.claims.values())
            assert len(trick.answers) <= 3
            shown += sum(len(faces) for c in trick.claims.values() for _, faces in c)
    assert throws >= 10 and shown / throws <= 2.5, (throws, shown)
