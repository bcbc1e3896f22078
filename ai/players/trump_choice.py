"""The heuristic player's choices before the cards are played: declaring trump during the
deal, and the auction's bid, card shown and trump named (seed 001).

- **Declare** a suit when the cards it would make trumps (jokers, rank cards, the suit)
  are clearly more than a fair third of the hand; overcall an opponent with a pair when
  much stronger; never overcall the partner.
- **Steal the kitty** (`Rules.kitty_theft`) with an overcall only when the trump it makes
  is strong for this hand (as strong as a final-window declaration needs) and clearly
  stronger than the trump standing; never the partner's kitty.
- **Bid** while the hand's best suit makes it stronger than average; **show** the
  highest card as a declarer, the lowest as a defender; **name** the strongest suit.

Each reads only the seat's observation (`Knowledge`).
"""

from __future__ import annotations

from collections.abc import Sequence

from tractor.actions import Action, Bid, Declare, NameTrump, Pass, Show
from tractor.ai.players.worlds import Knowledge
from tractor.cards import RANKS, SUITS
from tractor.phases import DECLARE
from tractor.rules import team_of

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


#: How much stronger than the standing trump an overcall's trump must make the hand for the
#: heuristic to take the kitty (the 8 cards it gains are mostly the burier's worst).
THEFT_MARGIN = 0.1


def choose_theft(know: Knowledge) -> Declare | None:
    """Kitty theft: the overcall that takes the kitty, or None to pass (see the module
    docstring)."""
    options = know.legal_declarations()
    obs = know.obs
    holder = obs.exchanger
    if not options or obs.trump is None or holder is None:
        return None
    if know.rules.mode != "friends" and team_of(holder) == team_of(obs.seat):
        return None  # the partner buried for the side: leave its kitty alone
    mine, rank = obs.hand, obs.trump_rank
    standing = trump_strength(mine, obs.trump.rank, obs.trump.suit)

    def value(d: Declare) -> float:
        face = d.faces[0]
        return trump_strength(mine, None, None) if face >= 52 else trump_strength(
            mine, rank, SUITS[face // 13])

    best = max(options, key=value)
    if value(best) >= FINAL_NEED and value(best) > standing + THEFT_MARGIN:
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
