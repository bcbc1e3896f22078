"""Claims against a throw between peers: a claim is the claimant's own cards of the throw's
suit, shown through the deck, of the same shape and higher, so a trump shown against a
plain suit is no claim (the table took it, and forced the thrower, before); and the audit
checks every seat's claim part by part, so a seat silent about a part it could beat is
named (the audit used to check only the first claimant)."""

from __future__ import annotations

from open_deck import open_decks, run_tables

from tractor import Rules
from tractor.formats import Format
from tractor.net.table import HandSetup, RandomPlayer, TableError, TableHand
from tractor.trick import beats_component
from tractor.trump import TRUMP


class TrumpClaimer(TableHand):
    """Claims a plain-suit single it cannot beat in suit with a trump it holds."""

    tried = 0

    def _my_claim(self, lead: Format) -> list[bytes]:
        ladder = self.ladder
        assert ladder is not None
        mine = self.my_faces()
        suit = [f for f in mine if ladder.esuit[f] == lead.esuit]
        trumps = [f for f in mine if ladder.esuit[f] == TRUMP]
        if lead.esuit != TRUMP and trumps:
            for i, comp in enumerate(lead.components):
                if comp.kind == "single" and not beats_component(comp, suit, ladder):
                    positions = self._positions_for([max(trumps, key=ladder.order.__getitem__)])
                    TrumpClaimer.tried += 1
                    return self._show(positions) + self.deck.post({"claim": [[i, positions]]})
        return super()._my_claim(lead)


class QuietClaimer(TableHand):
    """Keeps quiet about every part of a throw it could beat."""

    quiet = 0

    def _my_claim(self, lead: Format) -> list[bytes]:
        ladder = self.ladder
        assert ladder is not None
        suit = [f for f in self.my_faces() if ladder.esuit[f] == lead.esuit]
        if any(beats_component(c, suit, ladder) for c in lead.components):
            QuietClaimer.quiet += 1
            return self.deck.post({"claim": []})
        return super()._my_claim(lead)


def _table(cls: type[TableHand], seed: int, liar: int) -> list[TableHand]:
    setup = HandSetup(Rules(), ("2", "2"), 0, 0, 0)
    decks = open_decks(4, 2, 25, 0, seed)
    return [(cls if s == liar else TableHand)(setup, decks[s], RandomPlayer(seed * 10 + s, 0.0))
            for s in range(4)]


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
