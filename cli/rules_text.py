"""The rules summary `tractor rules` prints (the full reference is seeds/README.md), and
the options of one table that differ from the defaults (`table_rules_text`)."""

from __future__ import annotations

from tractor.cli.screen.wrapping import wrap_words
from tractor.net.lobby.table_settings import option_text
from tractor.rules import Rules

RULES_SUMMARY = """\
TRACTOR (Sheng Ji, 拖拉机): the rules this program implements

Players and cards
  4 players in two teams of partners sitting opposite (6 or 8 with more decks).
  Two 52-card decks plus 4 jokers (2 red RJ, 2 black BJ): 108 cards, 25 each, 8
  left as the talon. Kings and tens are worth 10, fives 5: 200 points in all.

Levels and trumps
  Both teams start at level 2 and climb 2, 3, ... 10, J, Q, K, A. The trump rank
  is the declaring team's level. While the cards are drawn anyone may reveal one
  card of the trump rank (its suit becomes trump), a pair of identical rank
  cards (overcalls a single) or a pair of identical jokers (no trump suit, no
  trump rank; cannot be overcalled).
  Nobody declares: in the first hand the cards are dealt again; later the talon
  is turned over until a rank card shows (its suit is trump, else the highest
  card's suit).
  Order of trumps: RJ > BJ > trump-suit rank card > other rank cards (equal) >
  trump suit A..2. Plain suits: A..2 without the rank.

The talon
  The starter (in the first hand, the player whose declaration stood) takes the
  8 talon cards and buries 8 cards face down.

Leads
  single; pair (two identical cards); tractor (two or more pairs in a row of one
  suit, counting trumps as one suit and skipping the rank cards); throw (several
  top cards of one suit at once: it stands only if nobody can beat any part of
  it, else the thrower plays the beatable part and pays 10 points per card taken
  back).

Following
  Play as many cards of the led suit as you can; for pairs and tractors, as many
  pairs of that suit as the lead has, if you hold them; then anything. A plain
  lead is beaten only by the same shape in trumps or higher in its suit; a throw
  only by its whole layout in trumps. Ties go to the card played first. The
  winner leads the next trick.

Scoring
  Only the defenders (the team that did not declare) collect points. If they win
  the last trick they add the buried cards' points x2 per card of that trick's
  lead.
    0        declarers +3 levels       80-115   defenders take over, +0
    5-35     declarers +2              120-155  defenders take over, +1
    40-75    declarers +1              160-195  +2; 200-235 +3; +1 per 40 more
  Declarers keep declaring: the next starter is the last starter's partner.
  Defenders take over: the next starter is the player after the last starter.

End
  The first team to pass Ace wins the game.

Rules options (`--rules name=value,...` of play and host; first value = default)
  decks=2 (1 to 6)
  players=4 (even, 4 to 12; any with mode=friends)
  start_level=2
  win=past_ace|reach_ace
  declaration=reveal|auction (auction: seed 001's bids, then a card-play for the
    starter)
  talon_multiplier=seed|power (x2 per card of the last lead, or x2 to that
    power)
  tractor_across_rank=true|false
  rank_and_jokers_in_tractors=true|false
  must_play_tractor=false|true
  throw_penalty=10 (points per card taken back)
  level_step_points=none (40 with two decks)
  talon_cards=none (8 with 4 players, 2 decks)
  throw_ruff=highest_pair|largest_component: when several seats ruff a throw,
    the highest paired trump wins (the highest trump if the throw has no pair),
    or the ruff whose part matching the throw's largest part (longest tractor,
    else pair, else single) is highest
  throw_forced=lowest|first_claimant: a failed throw leads its smallest, lowest
    part that any seat can beat, or the same among the parts the first seat
    after the thrower able to beat one can beat
  mode=teams|friends (find-a-friend, below)
  friends=none (calls; players/2 - 1)
  friend_cards=no_trump|trump_too|no_highest|no_points (which cards may be
    called)
  friend_join=unrestricted|no_double
  smaller_side_bonus=true|false
  kitty_theft=false|true (reveal only: after each burial the others may overcall
    in turn; the overcaller takes the buried cards, buries again and changes
    trump)

House rules (first value = default)
  throw_penalty_per=card|attempt: a failed throw costs throw_penalty per card
    taken back, or once per failed throw (throw_penalty=0: no penalty)
  must_defend=none, or levels as 5/10/K: a side's gain stops at such a level; it
    passes it only by winning a hand as declarers at it (A too: must_defend=A)
  joker_declare=pair|decks|none: no trump is declared by two identical jokers,
    by as many identical jokers as decks, or never
  reinforce_own=true|false: whether a player may overcall their own declaration
  hide_played=false|true: the screens show only the trick in play (and the last
    one until the next lead): no tracker, no past tricks in the log
  show_talon=false|true: every player sees the buried cards when a hand ends
    (else the starter only, and everyone when the defenders turn the talon over)
  takebacks=false|true: a seat may take back its last play until the next seat
    plays (not a throw, nor the hand's last card; 3 a hand); on at `tractor
    play` (practice tables)

Find a friend (mode=friends, 4 to 12 players, odd too)
  No fixed teams: every player has a level, and the trump rank is the starter's.
  The starter takes the talon, buries, then calls friends by card and copy ("the
  1st ♥A", "the 2nd ♠K"; half the table less one calls by default; no trump by
  default). Whoever plays a called copy joins the starter's side, and everyone
  knows it from that play on. A call that falls to the starter's own side is
  spent (friend_join=no_double: it waits for the next copy), so the starter may
  play alone. Points and levels as above, each player of the gaining side
  gaining (a side smaller than called that wins: one level more); the next
  starter is the next player after the starter on the side that gained.

The auction variant (declaration=auction, seed 001)
  The first dealer is drawn by lot, then the deal passes to the next seat each
  hand. After the deal each seat in turn from the dealer bids points (multiples
  of 5 above the high bid) or passes, out for good; the high bidder's team
  declares (nobody bids: the dealer's; the bid decides only that: scoring is as
  above). Then every seat shows one card; the declarer who shows the highest
  (jokers, then A down to 2) is the starter, names the trump suit or none, takes
  the talon and leads.

Variants (talon doubling per card, must play a tractor when held, other deck
counts) and every choice made where the rule texts are silent: seeds/README.md
in the source tree.
"""


def table_rules_text(rules: Rules, width: int = 80) -> str:
    """The options of a table's ``rules`` that differ from the defaults, as `tractor rules`
    names them (``NAME=VALUE``), in lines of at most ``width``: what the full screen's
    help panel (?) and ``--plain``'s ``rules`` command show during play."""
    default = Rules()
    changed = [f"{n}={option_text(getattr(rules, n))}" for n in Rules.option_names()
               if getattr(rules, n) != getattr(default, n)]
    if not changed:
        return "Rules of this table: every option at its default (see `tractor rules`)."
    head = "Rules of this table that differ from the defaults (see `tractor rules`):"
    return "\n".join([head, *wrap_words("  " + "  ".join(changed), width, "  ")])
