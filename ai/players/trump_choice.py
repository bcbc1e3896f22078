"""The heuristic player's choices before the cards are played: declaring trump during the
deal, and the auction's bid, card shown and trump named (seed 001).

- **Declare** a suit when the cards it would make trumps (jokers, rank cards, the suit)
  are clearly more than a fair third of the hand; overcall an opponent with a pair when
  much stronger; never overcall the partner.
- **Steal the kitty** (`Rules.kitty_theft`) from an opponent unless the standing trump
  suits this hand much better than the overcall's (an overcall also takes away the trump
  the opponents chose and buried for, and the thief buries its points); from the partner
  only with an overcall that suits the hand at least as well.
- **Bid** while the hand's best suit makes it stronger than average; **show** the
  highest card as a declarer, the lowest as a defender; **name** the strongest suit.

Each reads only the seat's observation (`Knowledge`).
"""

from __future__ import annotations

from collections.abc import Sequence

from tractor.actions import Action, Bid, Declare, NameTrump, Pass, Show
from tractor.ai.players.worlds import Knowledge
from tractor.cards import RANKS, SUITS
from tractor.dealing import declared_trump
from tractor.phases import DECLARE
from tractor.rules import team_of
from tractor.trump import Trump

#: Share of the cards that are trumps when a suit is named (36 of 108): the fair share.
FAIR_TRUMP_SHARE = 1 / 3
#: How strong a suit must make the hand for a declaration in a later hand's final window.
FINAL_NEED = 0.36


def trump_strength(faces: Sequence[int], rank: str | None, suit: str | None) -> float:
    """How strong ``faces`` would be in trumps with this rank and suit, per card held:
    trump count plus bonuses for pairs and jokers (about 1/3 is an average hand)."""
    if not faces:
        return 0.0
    suit_i = SUITS.index(suit) if suit is not None else -1
    counts: dict[int, int] = {}
    for f in faces:
        if f >= 52 or (rank is not None and RANKS[f % 13] == rank) or f // 13 == suit_i:
            counts[f] = counts.get(f, 0) + 1
    n = sum(counts.values())
    pairs = sum(c // 2 for c in counts.values())
    jokers = counts.get(52, 0) + 1.5 * counts.get(53, 0)
    return (n + 0.6 * pairs + 0.3 * jokers) / len(faces)


def best_suit(faces: Sequence[int], rank: str | None) -> tuple[str, float]:
    """The suit that would make ``faces`` strongest in trumps, and that strength."""
    return max(((s, trump_strength(faces, rank, s)) for s in SUITS), key=lambda x: x[1])


def choose_declaration(know: Knowledge) -> Declare | None:
    """A declaration when the suit it names is strong for this seat, else None."""
    options = know.legal_declarations()
    if not options:
        return None
    obs = know.obs
    seat = obs.seat
    mine = obs.hand
    rank = obs.trump_rank
    final = obs.phase == DECLARE
    size = know.rules.hand_size
    progress = len(mine) / size
    if not final and progress < 0.3:
        return None  # too few cards to judge
    current = obs.declarations[-1] if obs.declarations else None
    first_hand = obs.starter is None
    if final:
        need = 0.0 if first_hand else FINAL_NEED
    else:
        need = 0.5 - 0.1 * progress
    if current is not None and current[0] == seat:
        # Reinforce one's own single with the pair of the same face (only an opponent's
        # joker pair can then overcall).
        for d in options:
            if len(d.faces) == 2 and d.faces[0] == current[1][0]:
                return d
        return None
    if current is not None and know.rules.mode != "friends" \
            and team_of(current[0]) == team_of(seat):
        return None  # never overcall the partner (find-a-friend has none in the deal)
    best: Declare | None = None
    best_val = -1.0
    jokers: Declare | None = None
    for d in options:
        if d.faces[0] >= 52:
            jokers = d
            continue
        suit = SUITS[d.faces[0] // 13]
        val = trump_strength(mine, rank, suit) + 0.02 * len(d.faces)
        if val > best_val:
            best, best_val = d, val
    if current is not None:
        # Overcalling an opponent: worth it only for a clearly better suit for us.
        theirs = current[1][0]
        their_val = (trump_strength(mine, None, None) if theirs >= 52
                     else trump_strength(mine, rank, SUITS[theirs // 13]))
        if best is not None and best_val >= need - 0.04 and best_val > their_val + 0.08:
            return best
        if jokers is not None and their_val < FAIR_TRUMP_SHARE - 0.08 and progress > 0.6:
            return jokers
        return None
    if best is not None and best_val >= need:
        return best
    return None


#: How much weaker an overcall's trump may leave the hand than the standing one, each
#: measured above its fair share (`above_fair`), for the heuristic to take an opponent's
#: kitty: the overcall also takes away the trump the opponents chose and buried for (their
#: long suit, the voids they made), and the thief buries its points out of their reach
#: (`heuristic.choose_burial`). `python bench/theft.py --branches` (8,000 hands, each
#: chance played out both ways): a defender taking the kitty gained +15 to +71 points a
#: hand in every band down to 0.25 weaker (+17, 95% CI +2 to +32, at 0.2 to 0.25); below,
#: +13 (-14 to +40, 43 chances). In deal pairs: this margin over 0.15, +0.018 levels a pair
#: (95% CI +0.004 to +0.032); stealing at any margin over this one, -0.002 (-0.008 to
#: +0.004).
OPPONENT_MARGIN = 0.25
#: The same for the partner's kitty (its trump is the side's own): only an overcall that
#: makes the hand at least as strong; measured there +8 to +23 points a hand, and from
#: -14 to +17 below (jokers lost from 0.05 weaker on).
PARTNER_MARGIN = 0.0


def fair_share(trump: Trump) -> float:
    """The share of a deck that ``trump`` makes trumps (18 of 54 with a rank and a suit,
    the 2 jokers alone with neither): what an average hand holds."""
    count = 2 + (4 if trump.rank is not None else 0) + (12 if trump.suit is not None else 0)
    return count / 54


def above_fair(faces: Sequence[int], trump: Trump) -> float:
    """How strong ``faces`` are in ``trump`` (`trump_strength`) above an average hand, so
    that a trump of jokers alone compares with one of a suit."""
    return trump_strength(faces, trump.rank, trump.suit) - fair_share(trump)


def choose_theft(know: Knowledge) -> Declare | None:
    """Kitty theft: the overcall that takes the kitty, or None to pass (see the module
    docstring): the overcall whose trump suits the hand best, when it leaves the hand no
    more than `OPPONENT_MARGIN` weaker than the standing trump (`PARTNER_MARGIN` for the
    partner's kitty)."""
    options = know.legal_declarations()
    obs = know.obs
    holder = obs.exchanger
    if not options or obs.trump is None or holder is None:
        return None
    partner = know.rules.mode != "friends" and team_of(holder) == team_of(obs.seat)
    mine, rank = obs.hand, obs.trump_rank

    def value(d: Declare) -> float:
        return above_fair(mine, declared_trump(d.faces, rank))

    best = max(options, key=value)
    margin = PARTNER_MARGIN if partner else OPPONENT_MARGIN
    if value(best) >= above_fair(mine, obs.trump) - margin:
        return best
    return None


def choose_bid(know: Knowledge) -> Action:
    """Auction: outbid while the hand's best suit makes it stronger than average."""
    obs = know.obs
    seat = obs.seat
    high = know.public.high_bid()
    _, val = best_suit(obs.hand, obs.levels[team_of(seat)])
    cap = 5 * int((60 + 300 * (val - FAIR_TRUMP_SHARE)) / 5)
    cap = min(cap, know.rules.total_points)
    # A pass leaves the auction for good: over a partner's bid, stay in only with a hand
    # clearly stronger than the bid says (else the team's best hand may be shut out).
    if obs.bids and team_of(obs.bids[-1][0]) == team_of(seat) and high + 20 > cap:
        return Pass(seat)
    if val >= FAIR_TRUMP_SHARE and high + 5 <= cap:
        return Bid(seat, high + 5)
    return Pass(seat)


def _show_key(face: int) -> int:
    return 100 + face if face >= 52 else face % 13


def choose_show(know: Knowledge) -> Show:
    """Auction card-play: a declarer shows its highest card (to become the starter);
    a defender its lowest (its card does not count)."""
    seat = know.seat
    mine = know.obs.hand
    if team_of(seat) == know.obs.declarers:
        return Show(seat, (max(mine, key=_show_key),))
    return Show(seat, (min(mine, key=_show_key),))


def choose_trump_suit(know: Knowledge) -> NameTrump:
    """Auction: name the suit that makes the starter's hand strongest."""
    suit, _ = best_suit(know.obs.hand, know.obs.trump_rank)
    return NameTrump(know.seat, suit)
