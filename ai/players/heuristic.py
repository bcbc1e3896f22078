"""The rule-based player: sound Tractor habits, fast enough to be the search's rollout policy.

Habits, in the order they are applied:

- **Trump** and the auction: `tractor.ai.players.trump_choice`.
- **Talon**: keep trumps, pairs, top cards and points; bury the lowest cards of the
  shortest plain suits, so suits go void and can be ruffed. A defender that took the
  kitty (`Rules.kitty_theft`) buries points first.
- **Lead**: what nobody can beat first (top tractors, pairs and singles of a plain suit,
  thrown together when safe), trumps when ahead in trumps, a suit the partner can ruff,
  else a low card from a short suit.
- **Follow**: feed points to a partner who is surely winning; win a trick with the
  cheapest play that surely holds; ruff tricks with points; otherwise play low.
- **Find-a-friend** (`Rules.mode` "friends"): the starter calls its friends
  (`tractor.ai.players.calling`, which also shapes the burial); partners are the seats
  known to share the seat's side and those its belief puts there
  (`tractor.ai.players.allies`); a friend-to-be reveals itself and the side leads to its
  called cards (`tractor.ai.players.revealing`).

Every decision reads only the seat's observation (its hand, the tricks, its `Tracker`),
as `Knowledge`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from tractor.actions import Action, Bury, Call, Declare, Draw, Pass, Play
from tractor.ai.players.base import ObservingStrategy
from tractor.ai.players.calling import choose_calls, keep_a_lead_to_the_friend
from tractor.ai.players.friend_belief import FriendBelief
from tractor.ai.players.revealing import drop_wasting, follow_reveal, friend_leads, wasting
from tractor.ai.players.tracker import Tracker
from tractor.ai.players.trump_choice import (
    best_suit,
    choose_bid,
    choose_declaration,
    choose_show,
    choose_theft,
    choose_trump_suit,
    trump_strength,
)
from tractor.ai.players.worlds import Knowledge
from tractor.cards import FACE_POINTS
from tractor.follow import follow_error, legal_follows
from tractor.formats import PAIR, SINGLE, TRACTOR, Format, tractors_in
from tractor.observation import Observation
from tractor.phases import BID, CALL, DEAL, DECLARE, NAME, SHOW, TALON, THEFT
from tractor.rules import Rules
from tractor.scoring import points_of
from tractor.trick import winner_of
from tractor.trump import TRUMP, Ladder

# --- talon ----------------------------------------------------------------------------------

#: What a point of a card adds to keeping it, when burying: a declarer keeps points (the
#: buried ones count for the defenders if they win the last trick).
KEEP_POINTS = 2.5
#: The same for a defender that took the kitty: points first into the kitty, where the
#: declarers cannot win them and they count multiplied for the defenders if they win the
#: last trick. Measured in 2,000 deal pairs played as bench/theft.py plays them, against
#: the same player keeping points as a declarer does (theft margin 0.15 then): +0.19
#: levels (95% CI +0.14 to +0.24) and +7.6 points a pair; at -3: +0.16, 0: +0.10, -20:
#: +0.20.
DEFENDER_KEEP_POINTS = -8.0


def choose_burial(know: Knowledge, tracker: Tracker | None = None) -> list[int]:
    """The talon's number of cards to bury: the cheapest cards of the shortest plain
    suits; trumps, pairs, top cards and points are kept (a defender that took the kitty
    buries points first)."""
    ladder = know.ladder
    assert ladder is not None
    tr = tracker or Tracker(know)
    obs = know.obs
    mine = list(obs.hand)
    defender = obs.declarers is not None and obs.seat not in obs.declaring
    per_point = DEFENDER_KEEP_POINTS if defender else KEEP_POINTS
    es, order = ladder.esuit, ladder.order
    counts: dict[int, int] = {}
    lengths = [0] * 5
    for f in mine:
        counts[f] = counts.get(f, 0) + 1
        lengths[es[f]] += 1

    def keep(f: int) -> float:
        if es[f] == TRUMP:
            return 1000 + order[f]
        v = order[f] + 3.0 * lengths[es[f]]
        if counts[f] >= 2:
            v += 30
        if tr.is_top(f):
            v += 35
        v += per_point * FACE_POINTS[f]
        return v

    ranked = sorted(mine, key=lambda f: (keep(f), f))
    if know.rules.mode == "friends":
        return keep_a_lead_to_the_friend(know.rules, ladder, know.obs.trump_rank, ranked)
    return ranked[: know.rules.talon_size]


# --- costs ----------------------------------------------------------------------------------

class _Costs:
    """Per-decision card costs: what it loses to part with a card."""

    __slots__ = ("order", "es", "counts", "lengths", "top")

    def __init__(self, mine: Sequence[int], ladder: Ladder, tr: Tracker) -> None:
        self.order, self.es = ladder.order, ladder.esuit
        counts: dict[int, int] = {}
        lengths = [0] * 5
        for f in mine:
            counts[f] = counts.get(f, 0) + 1
            lengths[ladder.esuit[f]] += 1
        self.counts, self.lengths = counts, lengths
        self.top = {f: tr.is_top(f) for f in counts}

    def keep_value(self, f: int) -> float:
        """Value of keeping ``f`` apart from its points (rank, top card, pair)."""
        v = float(self.order[f])
        if self.es[f] == TRUMP:
            v += 12
        if self.top[f]:
            v += 10
        if self.counts[f] >= 2:
            v += 6
        return v

    def give(self, play: Sequence[int]) -> float:
        """Cost of giving ``play`` away to the other team (points weigh most)."""
        return sum(self.keep_value(f) + 5.0 * FACE_POINTS[f] for f in play)

    def discard(self, f: int) -> float:
        """Cost of discarding ``f`` off-suit: like ``give``, short suits cheaper (voids)."""
        v = self.keep_value(f) + 5.0 * FACE_POINTS[f]
        if self.es[f] == TRUMP:
            return v + 25
        return v + 1.5 * self.lengths[self.es[f]]

    def feed(self, f: int) -> float:
        """Lower is better when the partner surely wins: points first, cheap cards next."""
        v = self.keep_value(f) - 8.0 * FACE_POINTS[f]
        if self.es[f] == TRUMP:
            v += 25
        return v


# --- following ------------------------------------------------------------------------------

def _pick(pool: Sequence[int], k: int, key: Callable[[int], float]) -> list[int]:
    return sorted(pool, key=lambda f: (key(f), f))[:k]


def _pair_faces(faces: Sequence[int]) -> list[int]:
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    return [f for f, c in counts.items() for _ in range(c // 2)]


def structured_follow(hand_s: list[int], lead: Format, key: Callable[[int], float]) -> list[int]:
    """``lead.size`` cards of the suit with as many pairs as owed, chosen by ``key``."""
    n = lead.size
    pairs = _pair_faces(hand_s)
    want = min(lead.pairs, len(pairs))
    chosen: list[int] = []
    for f in sorted(pairs, key=lambda f: (key(f), f))[:want]:
        chosen += [f, f]
    rest = list(hand_s)
    for f in chosen:
        rest.remove(f)
    return chosen + _pick(rest, n - len(chosen), key)


def ruff_candidates(trumps: list[int], lead: Format, ladder: Ladder) -> list[list[int]]:
    """Plays of trumps with the lead's shape (those that can win a plain-suit trick)."""
    n = lead.size
    if len(trumps) < n:
        return []
    if lead.kind == SINGLE:
        return [[f] for f in sorted(set(trumps))]
    if lead.kind == PAIR:
        return [[f, f] for f in sorted(set(_pair_faces(trumps)))]
    if lead.kind == TRACTOR:
        return [t for t in tractors_in(trumps, ladder) if len(t) == n]
    # A throw: tractors, then the highest pairs, then the lowest singles.
    order = ladder.order
    left = list(trumps)
    play: list[int] = []
    for comp in lead.components:
        if comp.kind == TRACTOR:
            runs = [t for t in tractors_in(left, ladder) if len(t) == len(comp.faces)]
            if not runs:
                return []
            run = max(runs, key=lambda t: order[t[0]])
        elif comp.kind == PAIR:
            pairs = _pair_faces(left)
            if not pairs:
                return []
            f = max(pairs, key=lambda f: (order[f], f))
            run = [f, f]
        else:
            continue
        for f in run:
            left.remove(f)
        play += run
    singles = n - len(play)
    play += sorted(left, key=lambda f: (order[f], f))[:singles]
    return [play] if len(play) == n else []


def follow_candidates(mine: list[int], lead: Format, ladder: Ladder, costs: _Costs,
                      must_tractor: bool = False) -> list[list[int]]:
    """A handful of legal follows worth considering: the cheapest, the one feeding most
    points, the strongest, and every single, pair, tractor or ruff that might win."""
    n = lead.size
    es = ladder.esuit
    e = lead.esuit
    hand_s = [f for f in mine if es[f] == e]
    out: list[list[int]] = []
    if len(hand_s) <= n:
        k = n - len(hand_s)
        if k == 0:
            return [hand_s]
        others = [f for f in mine if es[f] != e]
        out.append(hand_s + _pick(others, k, costs.discard))
        out.append(hand_s + _pick(others, k, costs.feed))
        if not hand_s and e != TRUMP:
            out += ruff_candidates([f for f in mine if es[f] == TRUMP], lead, ladder)
        return out
    if lead.kind == SINGLE:
        return [[f] for f in sorted(set(hand_s))]
    order = ladder.order
    for key in (costs.keep_value, costs.feed, lambda f: -order[f]):
        out.append(structured_follow(hand_s, lead, key))
    if lead.kind == PAIR:
        out += [[f, f] for f in sorted(set(_pair_faces(hand_s)))]
    elif lead.kind == TRACTOR:
        out += [t for t in tractors_in(hand_s, ladder) if len(t) == n]
    legal = []
    seen: set[tuple[int, ...]] = set()
    for play in out:
        key_t = tuple(sorted(play))
        if key_t in seen:
            continue
        seen.add(key_t)
        if follow_error(mine, lead, play, ladder, must_tractor) is None:
            legal.append(play)
    if not legal:
        legal.append(next(legal_follows(mine, lead, ladder, must_tractor)))
    return legal


def choose_follow(know: Knowledge, tracker: Tracker | None = None) -> list[int]:
    """The follow: feed a partner who surely wins, win cheaply when it holds, else low."""
    ladder = know.ladder
    lead = know.lead_format
    assert ladder is not None and lead is not None
    obs = know.obs
    tr = tracker or Tracker(know)
    mine = list(obs.hand)
    costs = _Costs(mine, ladder, tr)
    current = [list(p) for p in obs.current]
    pos = len(current)
    players = know.rules.players
    after = [(obs.leader + i) % players for i in range(pos + 1, players)]
    throw_ruff = know.rules.throw_ruff
    win_i = winner_of(current, ladder, throw_ruff=throw_ruff)
    win_seat = (obs.leader + win_i) % players
    trick_pts = sum(points_of(p) for p in current)
    cands = follow_candidates(mine, lead, ladder, costs, know.rules.must_play_tractor)
    if len(cands) == 1:
        return cands[0]
    belief = tr.allies.belief
    if belief is not None:
        cands = drop_wasting(cands, belief, know.rules)
    wins: list[tuple[list[int], bool]] = []
    for c in cands:
        if winner_of(current + [c], ladder, throw_ruff=throw_ruff) == pos:
            wins.append((c, tr.secure(c, lead, after)))
    partner_wins = tr.allies.partner(win_seat)
    if belief is not None and belief.friend_to_be:
        side_surely = win_seat in belief.known and tr.secure(current[win_i], lead, after)
        reveal = follow_reveal(cands, belief, wins, side_surely, costs.give)
        if reveal is not None:
            return reveal
    if partner_wins:
        if tr.secure(current[win_i], lead, after):
            return min(cands, key=lambda c: sum(costs.feed(f) for f in c))
        # The partner may be beaten: take over when a plain card (not a trump) makes the
        # trick ours for sure and it carries points.
        sure = [c for c, s in wins if s]
        if sure and trick_pts > 0:
            best = min(sure, key=lambda c: costs.give(c) - 6.0 * points_of(c))
            if sum(costs.keep_value(f) for f in best) < 30 * len(best):
                return best
        return min(cands, key=costs.give)
    # The other team is winning.
    sure = [c for c, s in wins if s]
    if sure:
        best = min(sure, key=lambda c: sum(costs.keep_value(f) for f in c)
                   - 6.0 * points_of(c))
        # A ruff of a pointless trick only with cheap trumps, or when playing last.
        ruff = ladder.esuit[best[0]] == TRUMP and lead.esuit != TRUMP
        if trick_pts + points_of(best) > 0 or not ruff or not after or _cheap(best, costs):
            return best
    # A win that may not hold is worth trying, with the strongest card, for 10 points.
    if wins and trick_pts >= 10:
        return max(wins, key=lambda w: max(ladder.order[f] for f in w[0]))[0]
    return min(cands, key=costs.give)


def _cheap(play: Sequence[int], costs: _Costs) -> bool:
    return all(not costs.top[f] and FACE_POINTS[f] == 0 for f in play)


# --- leading --------------------------------------------------------------------------------

def choose_lead(know: Knowledge, tracker: Tracker | None = None) -> list[int]:
    """The lead: safe winners first (a safe throw when possible), trumps when ahead in
    trumps, a suit the partner can ruff, else a cheap card of a short suit."""
    ladder = know.ladder
    assert ladder is not None
    tr = tracker or Tracker(know)
    mine = list(know.obs.hand)
    es = ladder.esuit
    suits: dict[int, list[int]] = {}
    for f in mine:
        suits.setdefault(es[f], []).append(f)
    allies = tr.allies
    opps = allies.opponents()
    partners = allies.partners()
    trumps = suits.get(TRUMP, [])
    trumps_out = tr.trumps_out()
    declarer = allies.declaring
    costs = _Costs(mine, ladder, tr)
    best: list[int] | None = None
    best_score = float("-inf")

    def consider(play: list[int], score: float) -> None:
        nonlocal best, best_score
        if score > best_score:
            best, best_score = play, score

    for e, faces in suits.items():
        tops = tr.top_components(faces)
        if not tops:
            continue
        play = [f for c in tops for f in c.faces]
        if len(tops) > 1 and not tr.safe_lead(play):
            play = list(max(tops, key=lambda c: (len(c.faces), c.top)).faces)
        if e == TRUMP:
            ahead = len(trumps) >= trumps_out or (declarer and 2 * len(trumps) >= trumps_out)
            if trumps_out == 0:
                consider(play, 60 + len(play))
            elif ahead:
                consider(play, 80 + 5 * len(play))
            continue
        risky = trumps_out > 0 and any(
            tr.may_be_void(s, e) and TRUMP not in tr.voids[s] for s in opps)
        score: float = 100 + 10 * len(play) + points_of(play)
        if risky:
            score -= 90 + 3 * points_of(play)
        consider(play, score)
    if allies.belief is not None:
        def risky_suit(e: int) -> bool:
            return trumps_out > 0 and any(
                tr.may_be_void(s, e) and TRUMP not in tr.voids[s] for s in opps)

        for play, score in friend_leads(mine, allies.belief, tr, risky_suit, costs.give):
            consider(play, score)
    # A suit the partner has shown void in (and may ruff), the opponents not.
    for e, faces in suits.items():
        if e == TRUMP:
            continue
        low = min(faces, key=lambda f: (costs.give([f]), f))
        for p in partners:
            if e in tr.voids[p] and TRUMP not in tr.voids[p] and not any(
                    e in tr.voids[s] for s in opps):
                consider([low], 50 - costs.give([low]) / 10)
    # Otherwise a cheap card, preferably of a short plain suit.
    for e, faces in suits.items():
        low = min(faces, key=lambda f: (costs.give([f]), f))
        score = -costs.give([low]) - 2.0 * len(faces)
        if e == TRUMP:
            score -= 40
        pairs = [f for f in sorted(set(_pair_faces(faces))) if not costs.top[f]]
        if pairs:
            p = min(pairs, key=lambda f: (costs.give([f, f]), f))
            pscore = 5 - costs.give([p, p]) / 2 - 2.0 * len(faces)
            if e == TRUMP:
                pscore -= 40
            consider([p, p], pscore)
        consider([low], score)
    assert best is not None
    if allies.belief is not None and wasting(best, allies.belief, know.rules):
        return _unwasted_lead(mine, allies.belief, know.rules, costs) or best
    return best


def _unwasted_lead(mine: list[int], belief: FriendBelief, rules: Rules,
                   costs: _Costs) -> list[int] | None:
    """The cheapest single that spends no call on the starter's side (None: none)."""
    singles = [[f] for f in sorted(set(mine)) if not wasting([f], belief, rules)]
    return min(singles, key=costs.give) if singles else None


# --- the strategy ---------------------------------------------------------------------------

class HeuristicStrategy(ObservingStrategy):
    """Rule-based play; deterministic for a given observation (``seed`` is kept for the
    interface and for tie-breaks a subclass may want)."""

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def decide_declaration(self, obs: Observation, rules: Rules) -> Declare | None:
        return choose_declaration(Knowledge.from_observation(rules, obs))

    def decide(self, obs: Observation, rules: Rules) -> Action:
        know = Knowledge.from_observation(rules, obs)
        phase = obs.phase
        seat = obs.seat
        if phase in (DEAL, DECLARE):
            decl = choose_declaration(know)
            if decl is not None:
                return decl
            return Draw(seat) if phase == DEAL else Pass(seat)
        if phase == THEFT:
            return choose_theft(know) or Pass(seat)
        if phase == BID:
            return choose_bid(know)
        if phase == SHOW:
            return choose_show(know)
        if phase == NAME:
            return choose_trump_suit(know)
        tr = Tracker(know)
        if phase == TALON:
            return Bury(seat, tuple(choose_burial(know, tr)))
        if phase == CALL:
            assert know.ladder is not None
            return Call(seat, choose_calls(rules, know.ladder, obs.levels[seat], obs.hand,
                                           obs.buried or ()))
        if obs.current:
            return Play(seat, tuple(choose_follow(know, tr)))
        return Play(seat, tuple(choose_lead(know, tr)))


__all__ = [
    "HeuristicStrategy", "trump_strength", "best_suit", "choose_declaration", "choose_bid",
    "choose_show", "choose_trump_suit", "choose_burial", "follow_candidates",
    "ruff_candidates", "choose_follow", "choose_lead",
]
