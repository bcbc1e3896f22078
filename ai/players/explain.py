"""Why a move: one short, true line for a hint ("ruffs: the trick holds 25 points").

A hint that only names cards leaves the person guessing, and a reason that is not true is
worse than none: every claim here is worked out from the seat's own observation with the
rules core (who wins the trick so far is `tractor.trick.winner_of`, the legal follows are
`tractor.follow.legal_follows`, points are `tractor.scoring.points_of`). What the seat
cannot know is never claimed: "no higher ♠ is out" counts the cards the seat has not
seen (another hand or the talon may hold them), never where they lie, and a plain-suit
lead is never called unbeatable (a void seat may ruff it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import islice

from tractor.actions import Action, Bid, Bury, Call, Declare, NameTrump, Pass, Play, Show
from tractor.ai.players.explain_friends import (
    SideWords,
    call_text,
    friends_note,
    lead_to_friend_text,
    reveal_text,
)
from tractor.ai.players.worlds import Knowledge
from tractor.auction import named_trump
from tractor.cards import SUIT_SYMBOLS, SUITS, format_cards
from tractor.dealing import declaration_options, declared_trump
from tractor.follow import legal_follows
from tractor.formats import PAIR, SINGLE, THROW, TRACTOR, Format, classify_faces
from tractor.observation import Observation
from tractor.phases import BID, DEAL, DECLARE, THEFT
from tractor.rules import Rules, team_of
from tractor.scoring import points_of
from tractor.trick import beats_component, winner_of
from tractor.trump import TRUMP, Ladder, Trump, rules_ladder

#: A reason is written to fit this, and the full screen's message line cuts one longer
#: (`fit`: the line holds it next to the hint's cards); `--plain` shows it whole.
MAX_REASON = 60
#: Legal follows looked at to claim "cannot win"; with more the claim is not made.
FOLLOW_LIMIT = 3000
#: Cards listed in full; a longer play is named by its size.
LISTED = 6
#: Before this share of the hand is dealt, passing is "waiting for more cards".
EARLY_SHARE = 0.3


def reason(obs: Observation, action: Action, rules: Rules | None = None) -> str:
    """A one-line reason for ``action`` by the observing seat, whole (written to fit
    `MAX_REASON` characters; a screen with less room cuts it with `fit`); ``rules``: the
    observation's game's when None, else the defaults."""
    if rules is None:
        rules = obs.game.rules if obs.game is not None else Rules()
    if isinstance(action, Play):
        text = _play_reason(obs, list(action.faces), rules)
    elif isinstance(action, Call):
        text = _call_reason(obs, action, rules)
    elif isinstance(action, Bury):
        text = _bury_reason(obs, list(action.faces), rules)
    elif obs.phase == THEFT and isinstance(action, Declare | Pass):
        text = _theft_reason(obs, action.faces if isinstance(action, Declare) else None, rules)
    elif isinstance(action, Declare):
        text = _declare_reason(obs, action.faces)
    elif isinstance(action, Pass):
        text = _pass_reason(obs, rules)
    elif isinstance(action, Bid):
        text = _bid_reason(obs, action.points, rules)
    elif isinstance(action, Show):
        text = _show_reason(obs, action.faces[0])
    elif isinstance(action, NameTrump):
        text = _name_reason(obs, action.suit)
    else:
        text = ""
    return text


def fit(text: str) -> str:
    """``text`` cut to `MAX_REASON` characters (an ellipsis marks the cut)."""
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


def cards_text(faces: Sequence[int], ladder: Ladder | None = None) -> str:
    """The cards with suit symbols, or "7 ♠ cards" when too many to list."""
    if len(faces) <= LISTED or ladder is None:
        return format_cards(faces, symbols=True)
    es = ladder.suit_of_faces(list(faces))
    return f"{len(faces)} {suit_text(es)} cards" if es is not None else f"{len(faces)} cards"


def suit_text(esuit: int | None) -> str:
    """"trump" or the plain suit's symbol."""
    if esuit is None:
        return "mixed"
    return "trump" if esuit == TRUMP else SUIT_SYMBOLS[SUITS[esuit]]


# --- what the seat has not seen ---------------------------------------------------------------


def unseen_counts(obs: Observation, rules: Rules) -> list[int]:
    """Copies of each face the seat has not seen: not in its hand, not played, not among
    the buried cards it knows. Other hands (and, for a seat that is not the starter, the
    talon) hold exactly these."""
    unseen = [rules.decks] * 54
    seen: list[int] = list(obs.hand)
    for trick in obs.tricks:
        for play in trick.plays:
            seen += play
    for play in obs.current:
        seen += play
    if obs.buried is not None:
        seen += obs.buried
    for f in seen:
        unseen[f] -= 1
    return unseen


def unseen_in(unseen: Sequence[int], esuit: int, ladder: Ladder) -> list[int]:
    """The unseen cards of one effective suit, highest first, each copy listed."""
    return [f for f in ladder.faces_of[esuit] for _ in range(unseen[f])]


def shown_voids(obs: Observation, rules: Rules) -> list[set[int]]:
    """Per seat, the effective suits it has shown it lacks: the deductions of
    `tractor.ai.players.worlds.Knowledge` (one place for them), as the tracker shows them."""
    facts = Knowledge.from_observation(rules, obs).public_facts()
    return [set(f.voids) for f in facts]


# --- tricks -----------------------------------------------------------------------------------


def _play_reason(obs: Observation, mine: list[int], rules: Rules) -> str:
    assert obs.trump is not None
    ladder = rules_ladder(obs.trump, rules)
    words = SideWords(obs, rules)
    if obs.current:
        text = _follow_reason(obs, mine, rules, ladder, words)
    else:
        text = _lead_reason(obs, mine, rules, ladder, words)
    note = friends_note(words)
    # Find-a-friend: who the friends are (known or believed), when the line has room.
    if note and note not in text and len(text) + 2 + len(note) <= MAX_REASON:
        return f"{text}; {note}"
    return text


def _follow_reason(obs: Observation, mine: list[int], rules: Rules, ladder: Ladder,
                   words: SideWords) -> str:
    plays = [list(p) for p in obs.current]
    n, seat = obs.players, obs.seat
    lead = classify_faces(plays[0], ladder)
    ruff = rules.throw_ruff
    before = winner_of(plays, ladder, throw_ruff=ruff)
    ahead = (obs.leader + before) % n
    wins = winner_of([*plays, mine], ladder, throw_ruff=ruff) == len(plays)
    total = points_of([f for p in plays for f in p] + mine)
    given = points_of(mine)
    last = len(plays) == n - 1
    follows = list(islice(legal_follows(list(obs.hand), lead, ladder,
                                        rules.must_play_tractor), FOLLOW_LIMIT + 1))
    if len(follows) == 1:
        return "the only legal play" + (f": gives {given} points" if given else "")
    holds = f"the trick holds {total} points" if total else "no points in the trick yet"
    joins = reveal_text(words, mine, wins)
    if joins is not None:
        return joins
    if wins:
        if lead.esuit != TRUMP and ladder.suit_of_faces(mine) == TRUMP:
            if last:
                return f"ruffs and takes the trick: {total} points"
            return f"ruffs: {holds}"
        if words.ally(ahead) and ahead != seat:
            return f"overtakes {words.who(ahead)}: {holds}"
        if last:
            return f"wins the trick: {total} points" if total else "wins the trick"
        return f"beats {cards_text(plays[before], ladder)}: {holds}"
    if words.ally(ahead) and ahead != seat:
        return f"{words.who(ahead)} is winning: " + (
            f"adds {given} points" if given else "adds no points")
    if len(follows) <= FOLLOW_LIMIT:
        if not any(winner_of([*plays, list(f)], ladder, throw_ruff=ruff) == len(plays)
                   for f in follows):
            fewest = min(points_of(f) for f in follows)
            if given == 0:
                return "cannot win: gives no points"
            if given == fewest:
                return f"cannot win: gives {given} points, the fewest it can"
            cheaper = [list(f) for f in follows if points_of(f) < given]
            return f"cannot win: gives {given} points" + _kept(obs.hand, mine, cheaper,
                                                               ladder)
    return f"lets the trick go: gives {given} points" if given else \
        "lets the trick go: gives no points"


def _kept(hand: Sequence[int], mine: list[int], cheaper: list[list[int]],
          ladder: Ladder) -> str:
    """Why a follow gives points when another gives fewer: what every cheaper follow
    would spend that this one keeps (a trump, a pair, a higher card), or nothing."""
    held = Counter(hand)

    def splits(faces: list[int]) -> bool:  # a pair held is no longer held after it
        used = Counter(faces)
        return any(held[f] >= 2 and held[f] - used[f] < 2 for f in used)

    if not any(ladder.esuit[f] == TRUMP for f in mine) and all(
            any(ladder.esuit[f] == TRUMP for f in c) for c in cheaper):
        return " rather than spend a trump"
    if not splits(mine) and all(splits(c) for c in cheaper):
        return " rather than break up a pair"
    top = max(ladder.order[f] for f in mine)
    if all(any(ladder.order[f] > top for f in c) for c in cheaper):
        return " rather than spend a higher card"
    return ""


def _lead_reason(obs: Observation, mine: list[int], rules: Rules, ladder: Ladder,
                 words: SideWords) -> str:
    # The hint line shows the cards already: the reason does not repeat them (a tractor's
    # cards left no room for why, and the reason was cut).
    fmt = classify_faces(mine, ladder)
    unseen = unseen_counts(obs, rules)
    out = unseen_in(unseen, fmt.esuit, ladder)
    beaten = [beats_component(c, out, ladder) for c in fmt.components]
    suit = suit_text(fmt.esuit)
    if fmt.kind == THROW:
        # A throw fails only when another hand beats a part in its own suit.
        return f"throws {len(mine)} {suit} cards: " + (
            "it cannot fail" if not any(beaten) else "it may fail")
    unbeaten = not beaten[0]
    if fmt.esuit == TRUMP:
        safe = ": nobody can beat it"
    else:
        safe = f": no higher {suit} is out" if fmt.kind == SINGLE else \
            f": no higher {suit} {_shape(fmt)} is out"
    if fmt.kind == TRACTOR:
        return f"leads a {suit} tractor of {fmt.length} pairs" + (safe if unbeaten else "")
    if fmt.kind == PAIR:
        return f"leads the pair {cards_text(mine, ladder)}" + (safe if unbeaten else "")
    shown = cards_text(mine, ladder)
    if unbeaten:
        return f"leads the top {shown}{safe}"
    joins = reveal_text(words, mine, False)
    if joins is not None:
        return joins
    to_friend = lead_to_friend_text(words, mine, ladder)
    if to_friend is not None:
        return to_friend
    voids = shown_voids(obs, rules)
    partners = words.partners()
    if fmt.esuit != TRUMP and any(fmt.esuit in voids[s] for s in partners):
        void = [s for s in partners if fmt.esuit in voids[s]]
        if words.belief is not None:
            who = f"{words.who(void[0])} has"
        else:
            who = "partner has" if len(partners) == 1 else "a partner has"
        return f"leads {shown}: {who} no {suit} left"
    held = [f for f in obs.hand if ladder.esuit[f] == fmt.esuit]
    if fmt.esuit == TRUMP:
        return f"leads trump {shown}: {len(out)} trumps unseen"
    if len(held) == 1:
        return f"leads {shown}, your only {suit}"
    if all(ladder.order[f] >= ladder.order[mine[0]] for f in held):
        return f"leads {shown}, your lowest {suit} (you hold {len(held)})"
    return f"leads {shown} from your {len(held)} {suit}"


def _shape(fmt: Format) -> str:
    return "pair" if fmt.kind == PAIR else "tractor"


def _call_reason(obs: Observation, action: Call, rules: Rules) -> str:
    if obs.trump is None:
        return f"calls {len(action.calls)} friends"
    ladder = rules_ladder(obs.trump, rules)
    return call_text(obs, action.calls, ladder, rules, MAX_REASON)


# --- the talon --------------------------------------------------------------------------------


def _bury_reason(obs: Observation, faces: list[int], rules: Rules) -> str:
    if obs.trump is None:
        return f"buries {len(faces)} cards"
    ladder = rules_ladder(obs.trump, rules)
    es = ladder.esuit
    points = points_of(faces)
    trumps = sum(es[f] == TRUMP for f in faces)
    left = list(obs.hand)
    for f in faces:
        if f in left:
            left.remove(f)
    emptied = [e for e in range(4) if any(es[f] == e for f in faces)
               and not any(es[f] == e for f in left)]
    # (A defender that took the kitty buries points for its side: `heuristic.choose_burial`.)
    defender = obs.declarers is not None and obs.seat not in obs.declaring
    parts = [(f"hides {points} points from the declarers" if defender
              else f"buries {points} points") if points else "buries no points"]
    if emptied:
        parts.append("empties " + " ".join(suit_text(e) for e in emptied))
    parts.append("keeps every trump" if not trumps else f"{trumps} trumps")
    return ", ".join(parts)


# --- trump ------------------------------------------------------------------------------------


def trumps_with(held: Sequence[int], trump: Trump, rules: Rules | None = None) -> int:
    """How many of ``held`` are trumps under ``trump`` (the rules core's card order)."""
    esuit = rules_ladder(trump, rules).esuit
    return sum(esuit[f] == TRUMP for f in held)


def _declared_suit(faces: Sequence[int]) -> str | None:
    return None if faces[0] >= 52 else SUITS[faces[0] // 13]


def _declare_reason(obs: Observation, faces: Sequence[int]) -> str:
    held = obs.hand
    count = trumps_with(held, declared_trump(faces, obs.trump_rank))
    return (f"declare {format_cards(faces, symbols=True)}: {count} of your {len(held)} "
            "cards would be trumps")


def _trump_name(trump: Trump) -> str:
    return SUIT_SYMBOLS[trump.suit] if trump.suit is not None else "jokers"


def _all_trumps(trump: Trump, rules: Rules) -> int:
    """How many cards of the game are trumps under ``trump``."""
    return trumps_with(range(54), trump, rules) * rules.decks


def _theft_reason(obs: Observation, faces: Sequence[int] | None, rules: Rules) -> str:
    """The kitty-theft window: how many of the seat's cards the standing trump makes
    trumps, against the overcall's (``faces``; None: a pass), and whose kitty it is."""
    standing = obs.trump
    if standing is None or obs.exchanger is None:
        return "passes"
    held = obs.hand
    have = trumps_with(held, standing, rules)
    name = _trump_name(standing)
    partner = rules.mode != "friends" and team_of(obs.exchanger) == team_of(obs.seat)
    if faces is None:
        if not obs.declarations or not declaration_options(
                held, obs.trump_rank, obs.declarations[-1][1], rules.no_trump_jokers):
            return "pass: nothing to overcall with"
        whose = "your partner's" if partner else "the"
        return f"pass: {whose} {name} trumps stand, {have} of your {len(held)} cards"
    new = declared_trump(faces, obs.trump_rank)
    if partner:  # (jokers alone are few trumps: a share of all of them says more)
        return (f"take the kitty: {_trump_name(new)}: you hold {trumps_with(held, new, rules)} "
                f"of {_all_trumps(new, rules)} trumps; {name}: {have} of "
                f"{_all_trumps(standing, rules)}")
    whose = "the" if rules.mode == "friends" else "their"  # (no sides yet in find-a-friend)
    return f"take the kitty: {whose} {name} trumps are {have} of your {len(held)} cards"


def _bid_reason(obs: Observation, points: int, rules: Rules) -> str:
    """What a bid does (the highest bid makes its team the declarers; the points bid are
    no target: the seeds' results table is missing, see seeds/README.md), and the hand
    behind it: its best trump suit at the team's level (the starter names the suit after
    the card-play)."""
    held = obs.hand
    rank = obs.levels[team_of(obs.seat)]
    best = max(SUITS, key=lambda s: trumps_with(held, Trump(rank, s), rules))
    count = trumps_with(held, Trump(rank, best), rules)
    return (f"if it stands, your team declares; best trump {SUIT_SYMBOLS[best]}: "
            f"{count} of {len(held)}")


def _show_reason(obs: Observation, face: int) -> str:
    """The card-play: only the declaring team's cards count for the starter (order RJ,
    BJ, A … 2, suits equal)."""
    def height(f: int) -> int:
        return 100 + f if f >= 52 else f % 13

    held = [height(f) for f in obs.hand]
    which = ("your highest" if height(face) == max(held) else
             "your lowest" if height(face) == min(held) else "a middle card")
    if obs.declarers is not None and team_of(obs.seat) != obs.declarers:
        return f"a defender's card does not count: {which}"
    return f"the declarers' highest card makes the starter: {which}"


def _pass_reason(obs: Observation, rules: Rules) -> str:
    if obs.phase == BID:
        return "pass: the bid to beat is more than your hand is worth"
    if obs.phase not in (DEAL, DECLARE):
        return "passes"
    standing = obs.declarations[-1] if obs.declarations else None
    options = declaration_options(obs.hand, obs.trump_rank,
                                  standing[1] if standing else None, rules.no_trump_jokers)
    if standing is not None and standing[0] == obs.seat:
        return "pass: your own declaration stands"
    if standing is not None and rules.mode != "friends" \
            and team_of(standing[0]) == team_of(obs.seat):
        return "pass: your partner's declaration stands"
    if not options:
        return "pass: nothing to declare"
    held = obs.hand
    if obs.phase == DEAL and len(held) < EARLY_SHARE * rules.hand_size:
        return f"wait: only {len(held)} of {rules.hand_size} cards dealt"
    suit, count = max(((_declared_suit(o),
                        trumps_with(held, declared_trump(o, obs.trump_rank), rules))
                       for o in options), key=lambda sc: sc[1])
    named = SUIT_SYMBOLS[suit] if suit is not None else "jokers"
    return f"pass: {named} trumps would be {count} of your {len(held)} cards"


def _name_reason(obs: Observation, suit: str | None) -> str:
    held = obs.hand
    rank = obs.trump_rank
    count = trumps_with(held, named_trump(suit, rank))
    if suit is None:
        return f"names no suit: {count} of your cards are trumps (the jokers)"
    return f"names {SUIT_SYMBOLS[suit]}: {count} of your {len(held)} cards become trumps"


__all__ = ["MAX_REASON", "reason", "fit", "cards_text", "suit_text", "unseen_counts",
           "unseen_in", "shown_voids", "trumps_with"]
