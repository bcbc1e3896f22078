"""Find-a-friend: one seat's belief over who the starter's friends are, from its own
observation alone.

What is known for sure comes from the public plays (`Observation.friends` and
`Observation.declaring`: a seat joins when it plays a called card). For each call still
waiting the belief asks who will play the copy that answers it:

- the copies left are the ones this seat has not seen: in another hand, or (for a seat
  that did not see the burial) buried, which a starter hardly does with a card it calls;
- a seat that showed it is void in the called card's suit holds no copy;
- the starter chose the call, so it most likely holds no copy beyond those it plays
  first (`STARTER_HOLDS`);
- the seat's own hand: holding a copy it can play as the answering one (the next copy
  played), it is the friend-to-be (`CONTROL`: it chooses when to play it);
- a behaviour cue: a seat not known to be a friend that gave points to a trick the
  starter's side won acts like a friend (`FEED_CUE`).

Each unseen copy is equally likely to be the answering one, so a seat answers a call
with the share of those copies it is expected to hold. `FriendBelief.at_end` combines
the calls: the chance each seat is on the starter's side when the hand ends; `now` is
the side as the table knows it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tractor.ai.players.deductions import Deductions
from tractor.ai.players.hidden_places import BURIED
from tractor.friends import FriendCall
from tractor.observation import Observation
from tractor.rules import Rules
from tractor.scoring import points_of
from tractor.trump import Ladder, rules_ladder

#: Relative chance that the starter holds a copy of its own waiting call (it would rather
#: call a card it lacks).
STARTER_HOLDS = 0.15
#: Relative chance that a copy lies among the buried cards (a starter keeps what it calls).
BURIED_HOLDS = 0.05
#: The chance a seat that can play the answering copy does so (it decides when).
CONTROL = 0.9
#: Likelihood factor for each trick of the starter's side a seat gave 10 points or more to.
FEED_CUE = 1.5
#: The cue factors stop growing here.
CUE_CAP = 3.0


@dataclass(frozen=True)
class CallState:
    """One call as the observing seat sees it: ``friend`` the seat it fell to (None while
    it waits); while it waits, ``played`` copies of its card played so far and ``need``
    copies still to be played for it to fall (1: the next one; both 0 once it fell);
    ``mine`` copies in the seat's own hand, ``unseen`` copies it has not seen."""

    call: FriendCall
    friend: int | None
    played: int
    need: int
    mine: int
    unseen: int

    @property
    def waiting(self) -> bool:
        return self.friend is None


@dataclass(frozen=True)
class FriendBelief:
    """The observing ``seat``'s belief: ``known`` the side as the table knows it (the
    starter first), ``calls`` each call's state, ``answer[i][s]`` the chance seat ``s``
    answers waiting call ``i``, ``at_end[s]`` the chance ``s`` is on the starter's side
    when the hand ends, ``cues[s]`` the behaviour factor of ``s``."""

    seat: int
    starter: int
    known: tuple[int, ...]
    calls: tuple[CallState, ...]
    answer: tuple[tuple[float, ...], ...]
    at_end: tuple[float, ...]
    cues: tuple[float, ...]

    def now(self, seat: int) -> float:
        """1 for a seat known to be on the starter's side, else 0."""
        return 1.0 if seat in self.known else 0.0

    @property
    def settled(self) -> bool:
        return not any(c.waiting for c in self.calls)

    @property
    def controls(self) -> tuple[int, ...]:
        """Waiting calls the observing seat can answer by playing a copy it holds now."""
        if self.seat == self.starter:
            return ()
        return tuple(i for i, c in enumerate(self.calls) if c.waiting and c.mine >= c.need)

    @property
    def friend_to_be(self) -> bool:
        """The observing seat is not known to be a friend yet but means to become one."""
        return self.seat not in self.known and bool(self.controls)

    def likely_friends(self, threshold: float = 0.5) -> list[int]:
        """Seats not known to be friends whose chance is at least ``threshold``, likeliest
        first (the observing seat left out)."""
        seats = [s for s, p in enumerate(self.at_end)
                 if p >= threshold and s not in self.known and s != self.seat]
        return sorted(seats, key=lambda s: (-self.at_end[s], s))


def call_states(obs: Observation, rules: Rules, unseen: Sequence[int]) -> tuple[CallState, ...]:
    """Each call's state from the observation (``unseen[f]``: copies of face ``f`` the
    seat has not seen)."""
    friends = obs.friends or (None,) * len(obs.calls)
    waiting = {c.face for c, f in zip(obs.calls, friends, strict=True) if f is None}
    # Only the waiting calls' cards are counted: once the calls are answered (most of a
    # hand) nothing is (the heuristic asks at every play of every rollout).
    played: Counter[int] = Counter()
    if waiting:
        plays = [p for t in obs.tricks for p in t.plays]
        plays += obs.current
        played.update(f for p in plays for f in p if f in waiting)
    mine = Counter(obs.hand)
    out = []
    for call, friend in zip(obs.calls, friends, strict=True):
        if friend is not None:
            out.append(CallState(call, friend, 0, 0, mine[call.face], unseen[call.face]))
            continue
        copies = played[call.face]
        # Past its copy a waiting call waits for a seat not on the side yet
        # (friend_join=no_double): the next copy such a seat plays.
        need = call.nth - copies if copies < call.nth else 1
        out.append(CallState(call, friend, copies, need, mine[call.face], unseen[call.face]))
    return tuple(out)


def starter_limits(obs: Observation) -> dict[int, int]:
    """A soft belief for sampled worlds: the most copies of each called card (with a call
    still waiting) the starter holds now. It called the copy after those it held (the
    1st when it held none), so it holds at most ``nth - 1`` less those it has played;
    neither did it bury one (the buried cards hold none: `Observation.buried` aside)."""
    n = obs.players
    starter = obs.starter
    if starter is None or not obs.calls:
        return {}
    played: Counter[int] = Counter()
    for trick in obs.tricks:
        k = (starter - trick.leader) % n
        if k < len(trick.plays):
            played.update(trick.plays[k])
    k = (starter - obs.leader) % n
    if k < len(obs.current):
        played.update(obs.current[k])
    friends = obs.friends or (None,) * len(obs.calls)
    waiting = {c.face for c, f in zip(obs.calls, friends, strict=True) if f is None}
    limits: dict[int, int] = {}
    for call in obs.calls:
        if call.face in waiting:
            cap = max(0, call.nth - 1 - played[call.face])
            limits[call.face] = min(cap, limits.get(call.face, cap))
    return limits


def feeding_cues(obs: Observation, side: Sequence[int]) -> list[float]:
    """Per seat, the behaviour factor: `FEED_CUE` for each finished trick won by a seat of
    the known ``side`` to which it (not on the side) gave 10 points or more."""
    n = obs.players
    cues = [1.0] * n
    for trick in obs.tricks:
        if trick.winner not in side:
            continue
        for k, play in enumerate(trick.plays):
            s = (trick.leader + k) % n
            if s not in side and s != trick.winner and points_of(play) >= 10:
                cues[s] = min(CUE_CAP, cues[s] * FEED_CUE)
    return cues


def friend_belief(obs: Observation, rules: Rules, ladder: Ladder,
                  voids: Sequence[set[int] | frozenset[int]],
                  unseen: Sequence[int]) -> FriendBelief:
    """The belief of ``obs``'s seat (``voids[s]``: effective suits seat ``s`` showed it
    lacks; ``unseen[f]``: copies of ``f`` the seat has not seen)."""
    n = rules.players
    starter = obs.starter if obs.starter is not None else obs.seat
    known = obs.declaring or (starter,)
    calls = call_states(obs, rules, unseen)
    if all(not c.waiting for c in calls):  # the sides are known: nothing to believe
        return _settled(obs.seat, starter, known, calls, n)
    cues = feeding_cues(obs, known)
    stock = rules.talon_size if obs.phase in BURIED and obs.buried is None else 0
    answer = []
    for state in calls:
        if not state.waiting:
            answer.append(tuple(1.0 if s == state.friend else 0.0 for s in range(n)))
            continue
        answer.append(_answer_chances(obs, state, starter, ladder, voids, cues, stock))
    at_end = []
    for s in range(n):
        if s in known:
            at_end.append(1.0)
            continue
        miss = 1.0
        for state, chances in zip(calls, answer, strict=True):
            if state.waiting:
                miss *= 1.0 - chances[s]
        at_end.append(1.0 - miss)
    return FriendBelief(obs.seat, starter, tuple(known), calls, tuple(answer), tuple(at_end),
                        tuple(cues))


def _settled(seat: int, starter: int, known: Sequence[int], calls: tuple[CallState, ...],
             players: int) -> FriendBelief:
    """The belief once every call is answered: the sides are public."""
    at_end = tuple(1.0 if s in known else 0.0 for s in range(players))
    answer = tuple(tuple(1.0 if s == c.friend else 0.0 for s in range(players))
                   for c in calls)
    return FriendBelief(seat, starter, tuple(known), calls, answer, at_end, (1.0,) * players)


def _answer_chances(obs: Observation, state: CallState, starter: int, ladder: Ladder,
                    voids: Sequence[set[int] | frozenset[int]], cues: Sequence[float],
                    stock: int) -> tuple[float, ...]:
    """Per seat, the chance it plays the copy that answers a waiting call."""
    me = obs.seat
    suit = ladder.esuit[state.call.face]
    weights = []
    for s, size in enumerate(obs.hand_sizes):
        if s == me or not size or suit in voids[s]:
            weights.append(0.0)
            continue
        w = size * cues[s]
        if s == starter:
            w *= STARTER_HOLDS
        weights.append(w)
    total = sum(weights) + stock * BURIED_HOLDS
    m, u = state.mine, state.unseen
    if me == starter:
        mine_share = 0.0  # it plays its own copies first (they only count towards the call)
    elif m >= state.need:
        mine_share = CONTROL
    elif m + u:
        mine_share = m / (m + u)
    else:
        mine_share = 0.0
    others = (1.0 - mine_share) if u and total else 0.0
    out = [others * w / total if total else 0.0 for w in weights]
    if me != starter:
        out[me] = mine_share
    return tuple(out)


@dataclass(frozen=True)
class SideChances:
    """Per seat, the chance it is on the starter's side ``now`` (as the table knows it:
    1 or 0) and ``at_end`` of the hand (the seat's belief)."""

    now: tuple[float, ...]
    at_end: tuple[float, ...]


def side_chances(obs: Observation, rules: Rules) -> SideChances:
    """The observing seat's belief over who is on the starter's side, from its observation
    alone (find-a-friend; with fixed teams, or before the calls, the side known now)."""
    known = obs.declaring
    now = tuple(1.0 if s in known else 0.0 for s in range(obs.players))
    if rules.mode != "friends" or obs.trump is None or not obs.calls:
        return SideChances(now, now)
    ladder = rules_ladder(obs.trump, rules)
    played: list[list[int]] = [[] for _ in range(obs.players)]
    unseen = [rules.decks] * 54
    for leader, plays in [*((t.leader, t.plays) for t in obs.tricks),
                          (obs.leader, tuple(obs.current))]:
        for k, play in enumerate(plays):
            played[(leader + k) % obs.players].extend(play)
    for f in [*obs.hand, *(f for p in played for f in p), *(obs.buried or ())]:
        unseen[f] -= 1
    voids = Deductions(rules, obs, ladder, played).voids
    belief = friend_belief(obs, rules, ladder, voids, unseen)
    return SideChances(now, belief.at_end)
