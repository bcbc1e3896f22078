"""The search player: determinized Monte Carlo search over the cards a seat cannot see.

For a play with more than one sensible option, it samples worlds consistent with what the
seat knows (`tractor.ai.players.worlds.Knowledge`), plays every candidate in each world and
finishes the hand with a fast rollout policy (the heuristic player, for every seat), and
keeps the candidate with the best average outcome for its team. Every candidate meets the
same worlds (common random numbers), so comparisons are paired: a candidate is dropped
once it trails the leader by a couple of standard errors of the paired differences, at
most half survive each pruning, and the search stops early when two candidates are left
and clearly apart (or alike in every world).

The heuristic's own choice is the baseline: it is always a candidate, never pruned, and
another candidate replaces it only when better by `CHOOSE_Z` standard errors, so sampling
noise alone never changes a sound move (without this the search loses to its own rollout
policy: a few dozen worlds cannot tell close moves apart).

Candidates are a pruned set, never every subset of the hand: for a lead, per suit the top,
second, low and lowest point singles, every pair, the longest tractors and the components
nobody can beat thrown together, plus the heuristic's choice; for a follow, every legal
follow when they are few, else the structured ones (cheapest, feeding points, highest,
each pair or tractor, each ruff) plus the heuristic's choice. Burying, declaring and the
auction are left to the heuristic.

The outcome is scored for the seat's team: the levels it gains (negative: the other team
gains) plus its card points at one level per level band (40 points with two decks), which
smooths the level steps so that close comparisons are less noisy. In find-a-friend it is
scored for the side the seat ended on in each world: the worlds place the called cards as
the seat's belief allows (`Knowledge.sample`), and the rollouts, on the core's own rules,
decide who answers the calls. The search is given only
its seat's observation (`tractor.ai.players.base`), resamples full hands from it and plays
them out on the rules core's own `Hand`, every simulated seat deciding from its own
observation of that world; its randomness comes from ``seed`` and the public position, so
the same observation always gives the same decision.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from itertools import islice
from typing import Protocol

from tractor.actions import Action, Declare, Play
from tractor.ai.players.base import ObservingStrategy, Strategy
from tractor.ai.players.heuristic import HeuristicStrategy, structured_follow
from tractor.ai.players.random_ai import RandomStrategy
from tractor.ai.players.worlds import Knowledge
from tractor.cards import FACE_POINTS
from tractor.follow import follow_error, lead_error, legal_follows
from tractor.formats import SINGLE, Format, classify_faces, tractors_in
from tractor.hand import Hand
from tractor.observation import Observation
from tractor.phases import DONE, PLAY
from tractor.records import HandResult
from tractor.rules import Rules, team_of
from tractor.trump import TRUMP, Ladder

#: Per level: (sampled worlds at most, seconds at most) for one decision.
LEVELS: dict[str, tuple[int, float]] = {
    "easy": (12, 0.25),
    "normal": (400, 0.8),
    "hard": (1200, 1.6),
}
#: Worth of one card point, in levels, for two decks (scaled by the level band).
POINT_WEIGHT = 1 / 40
#: Follows are all tried when there are at most this many.
FOLLOW_CAP = 14
#: A candidate is dropped when it trails the leader by this many standard errors.
PRUNE_Z = 2.0
#: After this many worlds, a candidate scoring exactly like the leader in each is dropped.
SAME_WORLDS = 12
#: Two candidates apart by this many standard errors end the search early.
SETTLED_Z = 3.5
#: The heuristic's choice is overridden only when beaten by this many standard errors.
CHOOSE_Z = 1.5


class _RandomPolicy(RandomStrategy):
    """Random legal play, never a declaration: a cheap rollout policy (for tests)."""

    name = "random-rollout"

    def __init__(self, seed: int) -> None:
        super().__init__(seed, declare_chance=0.0)


class StopFlag(Protocol):
    """Asks a search under way to end (a `threading.Event` set by the process hosting it)."""

    def is_set(self) -> bool:
        ...


def friends_outcome_value(result: HandResult, seat: int, step: int) -> float:
    """`outcome_value` in find-a-friend, for one ``seat`` on the side the hand put it on
    (in a sampled world, as its rollout resolved the sides): levels its side gained (or
    the other side's, negative) and the defenders' points (its own side's, or the other's,
    negative)."""
    gain = result.levels_gained if seat in result.gaining else -result.levels_gained
    points = result.defender_points if seat not in result.side else -result.defender_points
    return gain + points * POINT_WEIGHT * 40 / step


def outcome_value(result: HandResult, team: int, declarers: int, step: int) -> float:
    """A finished hand's worth to ``team``: levels gained (lost when negative) plus the
    defenders' points (for the defenders; minus them for the declarers) at `POINT_WEIGHT`
    per point, scaled to the level band ``step``."""
    gain = result.levels_gained if result.gaining_team == team else -result.levels_gained
    points = result.defender_points if team != declarers else -result.defender_points
    return gain + points * POINT_WEIGHT * 40 / step


class SearchStrategy(ObservingStrategy):
    """Determinized Monte Carlo search for plays; the heuristic for everything else.

    ``iterations`` caps the sampled worlds per decision (deterministic for a fixed seed);
    ``max_seconds`` caps the wall-clock time (default: the level's, unless ``iterations``
    is given alone, which makes the search fully deterministic).
    """

    name = "search"

    def __init__(self, level: str = "normal", seed: int = 0, rollout: Strategy | None = None,
                 iterations: int | None = None, max_seconds: float | None = None) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
        worlds, seconds = LEVELS[level]
        self.level = level
        self.seed = seed
        self.iterations = iterations if iterations is not None else worlds
        if max_seconds is not None:
            self.max_seconds: float | None = max_seconds
        else:
            self.max_seconds = None if iterations is not None else seconds
        #: Declarations, burying and the auction are the heuristic's; its choice of a
        #: play is the search's baseline.
        self.helper = HeuristicStrategy(seed=seed)
        #: Plays every seat of a sampled world to the end (each from its own observation).
        self.rollout: Strategy = rollout or self.helper
        #: Figures of the last search (for benchmarks and tests).
        self.last: dict[str, float] = {}
        #: Set (from another thread) to end a search at its next world (its best play so
        #: far is returned): the search runs in a worker that the process is stopping.
        self.interrupt: StopFlag | None = None

    # --- the Strategy interface -----------------------------------------------------------

    def decide_declaration(self, obs: Observation, rules: Rules) -> Declare | None:
        return self.helper.decide_declaration(obs, rules)

    def decide(self, obs: Observation, rules: Rules) -> Action:
        if obs.phase != PLAY:
            return self.helper.decide(obs, rules)
        return self._play(Knowledge.from_observation(rules, obs))

    # --- search -----------------------------------------------------------------------------

    def _play(self, know: Knowledge) -> Play:
        t0 = time.perf_counter()
        seat = know.seat
        rules = know.rules
        ladder = know.ladder
        lead = know.lead_format
        assert ladder is not None
        mine = list(know.obs.hand)
        if lead is not None:
            forced = list(islice(legal_follows(mine, lead, ladder,
                                               rules.must_play_tractor), 2))
            if len(forced) == 1:
                self.last = {"candidates": 1, "worlds": 0, "seconds": 0.0}
                return Play(seat, tuple(forced[0]))
        rng = random.Random(self._decision_seed(know))
        first = know.sample(rng)
        # The heuristic's choice, from the same observation.
        baseline = self.helper.decide(know.obs, rules)
        prior = baseline.faces if isinstance(baseline, Play) else None
        if lead is not None:
            cands = follow_candidates(mine, lead, ladder, rules.must_play_tractor, prior)
        else:
            cands = lead_candidates(mine, ladder, know, prior)
        self.last = {"candidates": len(cands), "worlds": 0, "seconds": 0.0}
        if len(cands) == 1:
            return Play(seat, tuple(cands[0]))
        keys = [tuple(sorted(c)) for c in cands]
        prior_i = keys.index(tuple(sorted(prior))) if prior is not None and tuple(
            sorted(prior)) in keys else 0
        value = _valuer(know)
        alive = list(range(len(cands)))
        values: list[list[float]] = [[] for _ in cands]
        worlds = 0
        deadline = t0 + self.max_seconds if self.max_seconds is not None else math.inf
        next_prune = 4
        world = first
        while worlds < self.iterations:
            if worlds:
                world = know.sample(rng)
            scores: list[float] = []
            for i in alive:
                w = world.clone()
                w.apply(Play(seat, tuple(cands[i])))
                scores.append(value(self._finish(w)))
                # The first world too: at many seats its rollouts alone outlast a
                # hint's second; cut short, the heuristic's choice is played.
                if self._out_of_time(deadline):
                    break
            else:
                for i, v in zip(alive, scores, strict=True):
                    values[i].append(v)
                worlds += 1
                if worlds >= next_prune and len(alive) > 1:
                    alive = _prune(alive, values, prior_i)
                    next_prune = worlds + max(2, worlds // 2)
                if len(alive) > 1 and not _settled(alive, values) \
                        and not self._out_of_time(deadline):
                    continue
            break
        best = _choose(alive, values, prior_i)
        self.last = {"candidates": len(cands), "worlds": worlds,
                     "seconds": time.perf_counter() - t0}
        return Play(seat, tuple(cands[best]))

    def _out_of_time(self, deadline: float) -> bool:
        return time.perf_counter() > deadline or (
            self.interrupt is not None and self.interrupt.is_set())

    def _finish(self, w: Hand) -> HandResult:
        """Play a world to the end of the hand with the rollout policy for every seat."""
        pol = self.rollout
        while w.phase != DONE:
            s = w.to_act()
            assert s is not None
            w.apply(pol.act(w, s))
        assert w.result is not None
        return w.result

    def _decision_seed(self, know: Knowledge) -> str:
        """Randomness from the seed and the public position only (never the hidden cards),
        so the same knowledge always gives the same decision."""
        o = know.obs
        played = sum(len(t.plays) for t in o.tricks)
        return f"search:{self.seed}:{o.seat}:{played}:{len(o.current)}:{o.hand}"


def _valuer(know: Knowledge) -> Callable[[HandResult], float]:
    """A finished hand's worth to the searching seat: to its team, or in find-a-friend to
    the side each world's play put it on."""
    seat, rules = know.seat, know.rules
    step = rules.level_step
    if rules.mode == "friends":
        return lambda result: friends_outcome_value(result, seat, step)
    team = team_of(seat)
    declarers = know.obs.declarers
    assert declarers is not None
    return lambda result: outcome_value(result, team, declarers, step)


def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of the paired differences a - b (same worlds)."""
    n = len(a)
    if n == 0:
        return 0.0, 0.0
    d = [x - y for x, y in zip(a, b, strict=True)]
    m = sum(d) / n
    if n < 2:
        return m, math.inf
    var = sum((x - m) ** 2 for x in d) / (n - 1)
    return m, math.sqrt(var / n)


def _prune(alive: list[int], values: list[list[float]], prior: int) -> list[int]:
    """Drop candidates clearly worse than the leader (paired over the same worlds), and
    keep at most half of the rest; the heuristic's choice always stays as the baseline."""
    means = {i: sum(values[i]) / len(values[i]) for i in alive}
    lead = max(alive, key=lambda i: (means[i], i == prior, -i))
    keep = []
    same = len(values[lead]) >= SAME_WORLDS
    for i in alive:
        if i == prior or i == lead:
            keep.append(i)
            continue
        m, se = _paired(values[i], values[lead])
        if m + PRUNE_Z * se < 0:
            continue  # clearly worse
        if same and values[i] == values[lead]:
            continue  # no different from the leader in any world so far
        keep.append(i)
    cap = max(2, (len(alive) + 1) // 2)
    if len(keep) > cap:
        ranked = sorted(keep, key=lambda i: (i != prior, i != lead, -means[i], i))
        keep = ranked[:cap]
    return sorted(keep)


def _settled(alive: list[int], values: list[list[float]]) -> bool:
    """Two candidates left whose comparison more worlds would hardly change: equal in
    every world so far, or one ahead by a wide margin."""
    if len(alive) != 2 or len(values[alive[0]]) < SAME_WORLDS:
        return False
    a, b = alive
    if values[a] == values[b]:
        return True
    m, se = _paired(values[a], values[b])
    return abs(m) > SETTLED_Z * se


def _choose(alive: list[int], values: list[list[float]], prior: int) -> int:
    """The best candidate by its mean, but the heuristic's choice unless the best beats it
    with some confidence: noise alone never changes a move."""
    if not values[alive[0]]:
        return prior
    means = {i: sum(values[i]) / len(values[i]) for i in alive}
    best = max(alive, key=lambda i: (means[i], i == prior, -i))
    if best == prior or prior not in alive:
        return best
    m, se = _paired(values[best], values[prior])
    return best if m > CHOOSE_Z * se and m > 0 else prior


# --- candidates ---------------------------------------------------------------------------

def _dedupe(plays: Sequence[Sequence[int]], ok: Callable[[list[int]], bool]) -> list[list[int]]:
    seen: set[tuple[int, ...]] = set()
    out: list[list[int]] = []
    for p in plays:
        key = tuple(sorted(p))
        if key in seen or not p:
            continue
        seen.add(key)
        if ok(list(p)):
            out.append(list(p))
    return out


def _pairs(faces: Sequence[int]) -> list[int]:
    counts: dict[int, int] = {}
    for f in faces:
        counts[f] = counts.get(f, 0) + 1
    return [f for f, c in counts.items() if c >= 2]


def _maximal_tractors(faces: list[int], ladder: Ladder) -> list[list[int]]:
    """The tractors of ``faces`` not contained in a longer one (of one suit)."""
    runs = tractors_in(faces, ladder)
    out = []
    for t in runs:
        st = set(t)
        if not any(len(u) > len(t) and st <= set(u) for u in runs):
            out.append(t)
    return out


def lead_candidates(mine: list[int], ladder: Ladder, know: Knowledge,
                    prior: Sequence[int] | None) -> list[list[int]]:
    """Leads worth trying: per suit the top, second and low singles and the low point
    card, every pair, the longest tractors, the suit's unbeatable components thrown
    together; plus the heuristic's choice."""
    es, order = ladder.esuit, ladder.order
    suits: dict[int, list[int]] = {}
    for f in mine:
        suits.setdefault(es[f], []).append(f)
    unseen = know.unseen
    out: list[list[int]] = []
    if prior is not None:
        out.append(list(prior))
    for e, faces in sorted(suits.items()):
        distinct = sorted(set(faces), key=lambda f: (-order[f], f))
        out.append([distinct[0]])
        if len(distinct) > 1:
            out.append([distinct[-1]])
        if len(distinct) > 2:
            out.append([distinct[1]])
        points = [f for f in distinct if FACE_POINTS[f]]
        if points:
            out.append([points[-1]])
        for f in _pairs(faces):
            out.append([f, f])
        out += _maximal_tractors(faces, ladder)
        # Components no unseen card can beat, thrown together.
        beaters = [f for f in ladder.faces_of[e] for _ in range(unseen.get(f, 0))]
        top = [c for c in classify_faces(faces, ladder).components
               if not _beaten(c.kind, c.pairs, c.top, beaters, ladder)]
        if len(top) > 1:
            out.append([f for c in top for f in c.faces])
    return _dedupe(out, lambda p: lead_error(mine, p, ladder) is None)


def _beaten(kind: str, pairs: int, top: int, beaters: list[int], ladder: Ladder) -> bool:
    """Whether unseen cards of the suit (``beaters``) hold a same-shape component above a
    component (conservative: as if one seat held them all)."""
    order = ladder.order
    if kind == SINGLE:
        return any(order[f] > top for f in beaters)
    counts: dict[int, int] = {}
    for f in beaters:
        counts[f] = counts.get(f, 0) + 1
    paired = [f for f, c in counts.items() if c >= 2 and order[f] > top]
    if pairs == 1 or not paired:
        return bool(paired)
    levels = {ladder.level[f] for f, c in counts.items() if c >= 2}
    return any(all(ladder.level[f] - j in levels for j in range(pairs)) for f in paired)


def _discard_cost(f: int, ladder: Ladder, counts: dict[int, int]) -> float:
    v = float(ladder.order[f]) + 8.0 * FACE_POINTS[f]
    if ladder.esuit[f] == TRUMP:
        v += 30
    if counts.get(f, 0) >= 2:
        v += 6
    return v


def _feed_cost(f: int, ladder: Ladder) -> float:
    v = float(ladder.order[f]) - 10.0 * FACE_POINTS[f]
    if ladder.esuit[f] == TRUMP:
        v += 30
    return v


def _trump_shapes(trumps: list[int], lead: Format, ladder: Ladder) -> list[list[int]]:
    """Trump plays with the lead's shape (the ruffs that can win a plain-suit trick)."""
    n = lead.size
    if len(trumps) < n:
        return []
    order = ladder.order
    if lead.kind == SINGLE:
        return [[f] for f in set(trumps)]
    pairs = _pairs(trumps)
    if lead.kind == "pair":
        return [[f, f] for f in pairs]
    if lead.kind == "tractor":
        return [t for t in tractors_in(trumps, ladder) if len(t) == n]
    # A throw: its pairs as the highest trump pairs, the rest as the lowest trumps.
    want = lead.pairs
    if len(pairs) < want:
        return []
    play: list[int] = []
    for f in sorted(pairs, key=lambda f: -order[f])[:want]:
        play += [f, f]
    left = list(trumps)
    for f in play:
        left.remove(f)
    play += sorted(left, key=lambda f: order[f])[: n - len(play)]
    return [play]


def follow_candidates(mine: list[int], lead: Format, ladder: Ladder, must_tractor: bool,
                      prior: Sequence[int] | None) -> list[list[int]]:
    """Follows worth trying: all of them when few, else the structured ones."""

    def ok(p: list[int]) -> bool:
        return follow_error(mine, lead, p, ladder, must_tractor) is None

    legal = list(islice(legal_follows(mine, lead, ladder, must_tractor), FOLLOW_CAP + 1))
    if len(legal) <= FOLLOW_CAP:
        out = _dedupe(legal, ok)
        if prior is not None and tuple(sorted(prior)) in {tuple(sorted(p)) for p in out}:
            # The heuristic's choice first, so it wins exact ties.
            out.sort(key=lambda p: tuple(sorted(p)) != tuple(sorted(prior)))
        return out
    n = lead.size
    es = ladder.esuit
    counts: dict[int, int] = {}
    for f in mine:
        counts[f] = counts.get(f, 0) + 1
    hand_s = [f for f in mine if es[f] == lead.esuit]
    cands: list[list[int]] = []
    if prior is not None:
        cands.append(list(prior))

    def cheapest(pool: list[int], k: int, key: Callable[[int], float]) -> list[int]:
        return sorted(pool, key=lambda f: (key(f), f))[:k]

    if len(hand_s) <= n:
        k = n - len(hand_s)
        others = [f for f in mine if es[f] != lead.esuit]
        cands.append(hand_s + cheapest(others, k, lambda f: _discard_cost(f, ladder, counts)))
        cands.append(hand_s + cheapest(others, k, lambda f: _feed_cost(f, ladder)))
        if not hand_s and lead.esuit != TRUMP:
            trumps = [f for f in mine if es[f] == TRUMP]
            cands += _trump_shapes(trumps, lead, ladder)[:FOLLOW_CAP]
    else:
        order = ladder.order
        for key in (lambda f: _discard_cost(f, ladder, counts),
                    lambda f: _feed_cost(f, ladder), lambda f: -order[f]):
            cands.append(structured_follow(hand_s, lead, key))
        if lead.kind == "pair":
            cands += [[f, f] for f in _pairs(hand_s)]
        elif lead.kind == "tractor":
            cands += [t for t in tractors_in(hand_s, ladder) if len(t) == n]
    out = _dedupe(cands, ok)
    if not out:
        out = [legal[0]]
    return out
