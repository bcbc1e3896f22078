"""Find-a-friend in the card play: when a friend-to-be reveals itself, how the starter's
side finds its friends, and which plays would waste a call.

- A seat holding the copy that answers a waiting call (`FriendBelief.controls`) plays it
  when it wins the trick, or when a seat known to be on the starter's side is surely
  winning it; it leads it when nobody can beat it. Waiting too long lets another seat's
  copy answer first.
- The starter's side leads a low card of a called suit it holds none of the called card
  in: the friend wins the trick with it and is known.
- A seat already on the side does not play the answering copy of a waiting call when it
  has another play: the call would be spent on it (`Rules.friend_join` unrestricted) and
  the side stay smaller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tractor.ai.players.friend_belief import FriendBelief
from tractor.ai.players.tracker import Tracker
from tractor.rules import Rules
from tractor.trump import TRUMP

#: Lead scores (the heuristic's scale: a safe top card scores 100 and more).
REVEAL_TOP = 140.0
REVEAL_RISKY = 90.0
REVEAL_LOW = 30.0
FIND_FRIEND = 70.0


def answering(play: Sequence[int], belief: FriendBelief) -> bool:
    """Whether ``play`` by the observing seat answers a call it controls (makes it a
    friend)."""
    return any(play.count(belief.calls[i].call.face) >= belief.calls[i].need
               for i in belief.controls)


def wasting(play: Sequence[int], belief: FriendBelief, rules: Rules) -> bool:
    """Whether ``play`` by a seat already on the starter's side spends a waiting call on
    that side."""
    if belief.seat not in belief.known or rules.friend_join != "unrestricted":
        return False
    return any(c.waiting and play.count(c.call.face) >= c.need for c in belief.calls)


def follow_reveal(cands: Sequence[list[int]], belief: FriendBelief,
                  wins: Sequence[tuple[list[int], bool]], side_winning_surely: bool,
                  cost: Callable[[list[int]], float]) -> list[int] | None:
    """A follow that reveals the seat as a friend when that is worth it: it wins the trick
    (``wins``: candidates that win now, and whether surely), or the starter's side surely
    wins it anyway. None: no such follow (play as usual)."""
    if not belief.friend_to_be:
        return None
    reveal = [c for c in cands if answering(c, belief)]
    if not reveal:
        return None
    winning = [c for c, _ in wins if answering(c, belief)]
    if winning:
        return min(winning, key=cost)
    if side_winning_surely:
        return min(reveal, key=cost)
    return None


def drop_wasting(cands: list[list[int]], belief: FriendBelief, rules: Rules) -> list[list[int]]:
    """The candidates less those that waste a call (all of them when every one does)."""
    kept = [c for c in cands if not wasting(c, belief, rules)]
    return kept or cands


def friend_leads(mine: Sequence[int], belief: FriendBelief, tr: Tracker,
                 risky: Callable[[int], bool],
                 cost: Callable[[list[int]], float]) -> list[tuple[list[int], float]]:
    """Leads find-a-friend adds, with their scores: the friend-to-be's answering copy, the
    starter's side's low card to a called card it lacks. ``risky(e)``: a plain suit ``e``
    that an opponent may ruff."""
    out: list[tuple[list[int], float]] = []
    es = tr.ladder.esuit
    for i in belief.controls:
        state = belief.calls[i]
        face = state.call.face
        play = [face] * state.need
        if mine.count(face) < state.need:
            continue
        if tr.is_top(face) and (es[face] == TRUMP or not risky(es[face])):
            out.append((play, REVEAL_TOP))
        elif tr.is_top(face):
            out.append((play, REVEAL_RISKY))
        else:
            out.append((play, REVEAL_LOW))
    if belief.seat in belief.known:
        for state in belief.calls:
            face = state.call.face
            e = es[face]
            if not state.waiting or e == TRUMP or state.mine or not state.unseen:
                continue
            suit = [f for f in mine if es[f] == e]
            if suit:
                low = min(suit, key=lambda f: (cost([f]), f))
                out.append(([low], FIND_FRIEND - cost([low]) / 10))
    return out
