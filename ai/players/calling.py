"""Find-a-friend: which friends the starter calls (`tractor.friends`), and the burial that
goes with the calls.

A call names "the nth copy of a card played in the hand"; whoever plays it joins the
starter. The starter wants a friend it can find early and who wins tricks for it, so the
best calls are, in order:

- the **1st copy of the highest plain card of a short suit the starter holds none of**
  (the ace, or the king when aces are trump): the starter leads a low card of that suit,
  the friend wins it with the called card and is known from the first round of the suit;
- the **copy after the ones the starter holds** of a top card (the 2nd ace when it holds
  one): the starter leads its own ace first, and the next one played is its friend;
- lower cards and later copies only when the rules leave nothing better.

A call is never made of a card whose every copy the starter holds or buried (it would fall
to the starter or never), nor of an nth copy that cannot be played. Every choice is legal
by the rules core (`tractor.friends.call_error`); the reason for it is `call_reason`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tractor.cards import FACE_POINTS, SUIT_SYMBOLS, SUITS, format_cards
from tractor.friends import FriendCall, call_error, callable_cards, legal_calls, ordinal
from tractor.rules import Rules
from tractor.trump import TRUMP, Ladder

#: Worth of a called card by its place in its plain suit (0: the highest).
_HEIGHT_WORTH = (10.0, 6.0, 3.0)
#: How much better the calls must get to keep a card to lead rather than bury it.
_SWAP_GAIN = 0.5
#: Below this a call is not worth making when a better one exists (a fallback only).
_POOR = -50.0


@dataclass(frozen=True)
class CallFacts:
    """What the starter's own cards say about one call: ``held`` copies in hand,
    ``buried`` copies buried, ``suit_length`` cards of its suit in hand, ``height`` its
    place in the plain suit (0: the highest; -1: a trump)."""

    call: FriendCall
    held: int
    buried: int
    suit_length: int
    height: int
    decks: int

    @property
    def others(self) -> int:
        """Copies the other seats hold (some may be buried by nobody: the talon is the
        starter's, so every copy not held or buried is in another hand)."""
        return self.decks - self.held - self.buried

    @property
    def playable(self) -> bool:
        """The call can fall to another seat: enough copies exist outside the starter's
        hand and burial, counting the starter's own copies played first."""
        return self.others > 0 and self.call.nth > self.held and \
            self.call.nth <= self.decks - self.buried

    @property
    def other_copy(self) -> int:
        """Which of the other seats' copies answers the call when the starter plays its own
        copies first (1: the first one another seat plays)."""
        return self.call.nth - self.held

    def worth(self) -> float:
        """How good a call this is for the starter (higher is better)."""
        if not self.playable:
            return _POOR * 2
        if self.height < 0:
            value = 2.0  # a trump: the friend is found only when trumps are led
        else:
            value = _HEIGHT_WORTH[self.height] if self.height < len(_HEIGHT_WORTH) else 0.0
        if self.held == 0 and self.call.nth == 1 and self.height >= 0:
            length = self.suit_length
            # A low card to lead to the friend is the point; a void cannot lead it.
            value += 1.0 if length == 0 else max(0.0, 3.5 - 0.5 * length)
        elif self.held and self.other_copy == 1:
            # The starter must play its own copies first: safe only with top cards.
            value += 2.5 if self.height == 0 else -3.0
        value -= 6.0 * (self.other_copy - 1)
        return value


def call_facts(call: FriendCall, hand: Sequence[int], buried: Sequence[int], ladder: Ladder,
               decks: int) -> CallFacts:
    """The facts of ``call`` for a starter holding ``hand`` that buried ``buried``."""
    f = call.face
    held = Counter(hand)[f]
    esuit = ladder.esuit[f]
    if esuit == TRUMP:
        return CallFacts(call, held, Counter(buried)[f], 0, -1, decks)
    length = sum(1 for g in hand if ladder.esuit[g] == esuit)
    height = ladder.faces_of[esuit].index(f)
    return CallFacts(call, held, Counter(buried)[f], length, height, decks)


def choose_calls(rules: Rules, ladder: Ladder, starter_level: str, hand: Sequence[int],
                 buried: Sequence[int]) -> tuple[FriendCall, ...]:
    """The starter's calls: the best ones by `CallFacts.worth`, different suits and cards
    preferred (one seat holding two called cards answers both, and the side is smaller);
    always a set the rules accept."""
    want = rules.friend_calls
    trump = ladder.trump
    options = [call_facts(c, hand, buried, ladder, rules.decks)
               for c in callable_cards(rules, trump, starter_level)]
    chosen: list[CallFacts] = []
    for _ in range(want):
        left = [o for o in options if o not in chosen]
        if not left:
            break
        chosen.append(max(left, key=lambda o: (_worth_beside(o, chosen), -o.call.nth,
                                               -o.call.face)))
    calls = tuple(o.call for o in chosen)
    if call_error(rules, trump, starter_level, calls) is None:
        return calls
    # Only under rules that leave almost nothing to call: any legal set.
    return next(legal_calls(rules, trump, starter_level))


def keep_a_lead_to_the_friend(rules: Rules, ladder: Ladder, starter_level: str,
                              ranked: Sequence[int]) -> list[int]:
    """The burial (``ranked``: the starter's cards, cheapest to keep first): the cheapest
    cards, unless keeping one low card of a plain suit the burial would empty (burying the
    next cheapest card of another plain suit instead) makes for better calls: a low card
    to lead to a friend holding that suit's top card."""
    size = rules.talon_size
    es, order = ladder.esuit, ladder.order
    best = list(ranked[:size])
    best_worth = plan_worth(rules, ladder, starter_level, ranked[size:], best)
    kept_suits = {es[f] for f in ranked[size:]}
    for suit in sorted({es[f] for f in ranked[:size]} - kept_suits - {TRUMP}):
        low = min((f for f in ranked[:size] if es[f] == suit), key=lambda f: (order[f], f))
        others = [f for f in ranked[size:] if es[f] not in (suit, TRUMP)]
        # A point card buried is worth the talon bonus to the defenders: the cheapest
        # other card without points, if any.
        swap = next((f for f in others if not FACE_POINTS[f]), others[0] if others else None)
        if swap is None:
            continue
        burial = list(ranked[:size])
        burial.remove(low)
        burial.append(swap)
        kept = list(ranked[size:])
        kept.remove(swap)
        kept.append(low)
        worth = plan_worth(rules, ladder, starter_level, kept, burial)
        if worth > best_worth + _SWAP_GAIN:
            best, best_worth = burial, worth
    return best


def plan_worth(rules: Rules, ladder: Ladder, starter_level: str, hand: Sequence[int],
               buried: Sequence[int]) -> float:
    """How good the calls a starter with ``hand`` that buried ``buried`` would make are."""
    calls = choose_calls(rules, ladder, starter_level, hand, buried)
    return sum(call_facts(c, hand, buried, ladder, rules.decks).worth() for c in calls)


def _worth_beside(option: CallFacts, chosen: list[CallFacts]) -> float:
    value = option.worth()
    for other in chosen:
        if other.call.face == option.call.face:
            value -= 4.0
        elif other.height >= 0 and option.height >= 0 and \
                other.call.face // 13 == option.call.face // 13:
            value -= 2.0
    return value


# --- why ------------------------------------------------------------------------------------

def call_reason(calls: Sequence[FriendCall], hand: Sequence[int], buried: Sequence[int],
                ladder: Ladder, decks: int) -> str:
    """Why these calls, in a few words each, from the starter's own cards (true for any
    calls, not only the ones the AI would make); several calls in the short form."""
    facts = [call_facts(c, hand, buried, ladder, decks) for c in calls]
    if len(facts) == 1:
        return f"calls {_one_reason(facts[0])}"
    return "calls " + ", ".join(_short_reason(f) for f in facts)


def _short_reason(facts: CallFacts) -> str:
    call = facts.call
    card = format_cards([call.face], symbols=True)
    name = f"{ordinal(call.nth)} {card}"
    if not facts.playable:
        return f"{name} (yours)"
    if facts.height < 0:
        return f"{name} (trump)"
    if facts.held:
        return f"{name} (after yours)"
    suit = SUIT_SYMBOLS[SUITS[call.face // 13]]
    return f"{name} (you: {facts.suit_length} {suit})"


def _one_reason(facts: CallFacts) -> str:
    call = facts.call
    card = format_cards([call.face], symbols=True)
    name = f"the {ordinal(call.nth)} {card}"
    if not facts.playable:
        if facts.others <= 0:
            return f"{name}: every copy is yours"
        if call.nth > facts.decks - facts.buried:
            return f"{name}: you buried a copy, it may never fall"
        return f"{name}: you hold {facts.held}, it may fall to you"
    if facts.height < 0:
        return f"{name}, a trump"
    suit = SUIT_SYMBOLS[SUITS[call.face // 13]]
    if facts.held:
        return f"{name}: you play your own {card} first"
    if facts.suit_length == 0:
        return f"{name}: you hold none and no {suit}"
    return f"{name}: you hold none, {facts.suit_length} {suit} to lead"
