"""The heuristic's answer to the kitty-theft window (`trump_choice.choose_theft`; the
search player answers it the same way), from positions a player recognises: North starts
at level 2, declared ♥2 with a single card in the final window and buried; East and West
defend, South is North's partner."""

from __future__ import annotations

from helpers import T, build_deck

from tractor import Hand, Rules
from tractor.actions import Declare, Draw, Pass
from tractor.ai.players.explain import reason
from tractor.ai.players.heuristic import HeuristicStrategy
from tractor.ai.players.search import SearchStrategy
from tractor.phases import TALON, THEFT

RULES = Rules(kitty_theft=True)
NORTH, EAST, SOUTH, WEST = range(4)

#: Long in spades, clubs and diamonds, one heart: ♥ trumps leave it three.
EAST_NO_HEARTS = ("BJ BJ AS KS QS JS 10S 9S 8S 7S AC KC QC JC 10C 9C 8C "
                  "AD KD QD JD 10D 9D 8D 3H")
#: Twelve hearts and three 2s: ♥ trumps suit it far better than jokers alone.
EAST_LONG_HEARTS = ("BJ BJ AH AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 2S 2D 2C "
                    "AS KS QS AC KC QC JC 10C")
#: ♠2 ♠2 and nine more spades, three hearts.
SOUTH_SPADES = "2S 2S AS KS QS JS 10S 9S 8S 7S 6S 3H 4H 5H AC KC QC JC AD KD QD JD 10D 9D 8D"
#: ♠2 ♠2 and three more spades, six hearts: spades would suit it less than North's ♥.
SOUTH_HEARTS = "2S 2S AS KS QS JS 3H 4H 5H 6H 7H 8H AC KC QC JC 10C AD KD QD JD 10D 9D 8D 7D"


def window(hands: dict[int, str]) -> Hand:
    """North declared ♥2, every seat passed, North buried (as the heuristic does): the
    window is open at East."""
    deck = build_deck(RULES, {NORTH: "2H", **hands})
    h = Hand(RULES, deck, ["2", "2"], first=NORTH, starter=NORTH, declarers=0)
    while h.phase == "deal":
        h.apply(Draw(h.next_drawer()))
    h.apply(Declare(NORTH, T("2H")))
    for seat in (EAST, SOUTH, WEST, NORTH):
        h.apply(Pass(seat))
    assert h.phase == TALON
    h.apply(HeuristicStrategy().act(h, NORTH))
    assert (h.phase, h.to_act()) == (THEFT, EAST)
    return h


def answer(h: Hand, seat: int, why: str) -> Declare | Pass:
    """The heuristic's answer for ``seat`` (the search player's too), whose hint says
    ``why``."""
    action = HeuristicStrategy().act(h, seat)
    assert SearchStrategy("easy").act(h, seat) == action  # (the search's is the heuristic's)
    assert isinstance(action, Declare | Pass)
    assert reason(h.observe(seat), action, RULES) == why
    return action


def test_a_defender_with_the_small_jokers_and_no_hearts_takes_the_kitty() -> None:
    h = window({EAST: EAST_NO_HEARTS})
    # Jokers alone are few trumps, but ♥ trumps are North's suit and nearly none of East's.
    assert answer(h, EAST, "take the kitty: their ♥ trumps are 3 of your 25 cards") \
        == Declare(EAST, T("BJ BJ"))
    h.apply(Declare(EAST, T("BJ BJ")))
    assert (h.phase, h.to_act()) == (TALON, EAST)


def test_a_defender_long_in_the_standing_trump_leaves_the_kitty() -> None:
    h = window({EAST: EAST_LONG_HEARTS})
    assert answer(h, EAST, "pass: the ♥ trumps stand, 17 of your 25 cards") == Pass(EAST)


def test_the_partner_takes_the_kitty_with_a_trump_that_suits_it_better() -> None:
    h = window({SOUTH: SOUTH_SPADES})
    h.apply(Pass(EAST))
    assert answer(h, SOUTH, "take the kitty: ♠: you hold 11 of 36 trumps; ♥: 5 of 36") \
        == Declare(SOUTH, T("2S 2S"))


def test_the_partner_leaves_the_kitty_for_a_trump_that_suits_it_less() -> None:
    h = window({SOUTH: SOUTH_HEARTS})
    h.apply(Pass(EAST))
    assert answer(h, SOUTH, "pass: your partner's ♥ trumps stand, 8 of your 25 cards") \
        == Pass(SOUTH)


def test_a_seat_with_no_overcall_is_told_so() -> None:
    h = window({SOUTH: "3S 4S 5S 6S 7S 8S 9S 10S JS QS 3D 4D 5D 6D 7D 8D 9D 10D "
                        "3C 4C 5C 6C 7C 8C 9C"})  # (no pair of 2s, no jokers)
    h.apply(Pass(EAST))
    assert not h.declarable(SOUTH, h.hands[SOUTH])
    assert answer(h, SOUTH, "pass: nothing to overcall with") == Pass(SOUTH)


def test_a_defender_that_took_the_kitty_buries_its_points() -> None:
    h = window({EAST: EAST_NO_HEARTS})
    h.apply(Declare(EAST, T("BJ BJ")))
    # Buried, the kings and tens are out of the declarers' reach (and count for the
    # defenders, multiplied, if they win the last trick).
    burial = HeuristicStrategy().act(h, EAST)
    assert sorted(burial.faces) == sorted(T("10D KD 10S KS 10C 10C KC KC"))
    assert reason(h.observe(EAST), burial, RULES) \
        == "hides 80 points from the declarers, keeps every trump"
