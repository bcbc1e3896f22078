"""What one seat knows about the cards: which are still out, who has shown a void, and
which of its own cards or combinations are currently unbeatable.

Everything here is built from the seat's observation only (its own hand, the tricks, the
current trick, and the buried cards when the seat is the starter), so a strategy that
decides from a `Tracker` decides the same in every world consistent with what the seat
saw. The heuristic player uses it at every decision and the search player reuses it, so
it is rebuilt from scratch in well under a millisecond.
"""

from __future__ import annotations

from collections.abc import Sequence

from tractor.ai.players.allies import allies_of
from tractor.ai.players.hidden_places import TALON_TAKEN
from tractor.ai.players.worlds import Knowledge
from tractor.formats import SINGLE, THROW, Component, Format, classify_faces
from tractor.rules import team_of
from tractor.trick import beats_component
from tractor.trump import TRUMP

#: A seat whose chance of being void in a suit is at least this is treated as void.
VOID_RISK = 0.4


class Tracker:
    """Card counting for the knowing seat: ``unseen[f]`` copies of face ``f`` that the seat
    has not seen (in other hands, or in the talon when the seat is not the starter);
    ``voids[s]`` effective suits seat ``s`` has shown it lacks; ``pairless[s]`` suits in
    which ``s`` has shown it holds no pair."""

    __slots__ = ("seat", "team", "players", "ladder", "unseen", "voids", "pairless",
                 "played_points", "sizes", "hidden", "allies", "_suit_cache", "_void_cache")

    def __init__(self, know: Knowledge) -> None:
        assert know.ladder is not None, "the tracker needs the trump context"
        obs = know.obs
        self.seat = seat = obs.seat
        self.team = team_of(seat)
        self.players = n = know.rules.players
        self.ladder = ladder = know.ladder
        unseen = [know.rules.decks] * 54
        for f in obs.hand:
            unseen[f] -= 1
        if seat == obs.exchanger and obs.phase in TALON_TAKEN and obs.buried:
            for f in obs.buried:
                unseen[f] -= 1
        self.voids: list[set[int]] = [set() for _ in range(n)]
        self.pairless: list[set[int]] = [set() for _ in range(n)]
        pts = 0
        es = ladder.esuit
        for t in obs.tricks:
            pts += t.points
            self._see_trick(t.leader, t.plays, unseen, es)
        if obs.current:
            self._see_trick(obs.leader, obs.current, unseen, es)
        self.unseen = unseen
        self.played_points = pts
        self.sizes = list(obs.hand_sizes)
        self.hidden = sum(unseen)
        self._suit_cache: dict[int, list[int]] = {}
        self._void_cache: dict[int, float] = {}
        #: Who plays with this seat (its team; in find-a-friend, surely or by belief).
        self.allies = allies_of(obs, know.rules, ladder, self.voids, unseen)

    def _see_trick(self, leader: int, plays: Sequence[Sequence[int]], unseen: list[int],
                   es: Sequence[int]) -> None:
        lead = plays[0]
        for f in lead:
            unseen[f] -= 1
        if not lead:
            return
        e = es[lead[0]]
        size = len(lead)
        n = self.players
        if size == 1:  # most tricks: no pairs to follow, a void shows at once
            for i in range(1, len(plays)):
                f = plays[i][0]
                unseen[f] -= 1
                if es[f] != e:
                    s = (leader + i) % n
                    self.voids[s].add(e)
                    self.pairless[s].add(e)
            return
        lead_pairs = _pairs(lead)
        for i in range(1, len(plays)):
            play = plays[i]
            s = (leader + i) % self.players
            in_suit = []
            for f in play:
                unseen[f] -= 1
                if es[f] == e:
                    in_suit.append(f)
            if len(in_suit) < size:
                self.voids[s].add(e)
                self.pairless[s].add(e)
            elif lead_pairs and _pairs(in_suit) < lead_pairs:
                self.pairless[s].add(e)

    # --- queries -------------------------------------------------------------------------

    def unseen_in(self, esuit: int) -> list[int]:
        """Unseen cards of an effective suit as a multiset, highest first."""
        got = self._suit_cache.get(esuit)
        if got is None:
            unseen = self.unseen
            got = [f for f in self.ladder.faces_of[esuit] for _ in range(unseen[f])]
            self._suit_cache[esuit] = got
        return got

    def trumps_out(self) -> int:
        """Trumps not yet seen by the seat."""
        return len(self.unseen_in(TRUMP))

    def is_top(self, face: int) -> bool:
        """No unseen card of the same effective suit ranks above ``face``."""
        order = self.ladder.order
        top = order[face]
        for f in self.unseen_in(self.ladder.esuit[face]):
            return order[f] <= top  # the list is highest first
        return True

    def beatable(self, comp: Component, esuit: int) -> bool:
        """Whether the unseen cards of ``esuit`` hold a same-shape component above ``comp``
        (conservative: as if one seat held every unseen card)."""
        return beats_component(comp, self.unseen_in(esuit), self.ladder)

    def top_components(self, faces: list[int]) -> list[Component]:
        """Components of ``faces`` (one effective suit) that nobody can beat in that suit."""
        if not faces:
            return []
        e = self.ladder.esuit[faces[0]]
        return [c for c in classify_faces(faces, self.ladder).components
                if not self.beatable(c, e)]

    def safe_lead(self, faces: list[int]) -> bool:
        """A lead (a throw included) none of whose components any other seat can beat in
        its suit: a throw that cannot fail."""
        fmt = classify_faces(faces, self.ladder)
        return not any(self.beatable(c, fmt.esuit) for c in fmt.components)

    def void_chance(self, seat: int, esuit: int) -> float:
        """Chance that ``seat`` holds no card of ``esuit``, if the unseen cards were dealt at
        random (1 when it has shown a void)."""
        if esuit in self.voids[seat]:
            return 1.0
        key = seat * 8 + esuit
        got = self._void_cache.get(key)
        if got is None:
            hidden = self.hidden
            rest = hidden - len(self.unseen_in(esuit))
            got = 1.0
            for i in range(self.sizes[seat]):
                if rest - i <= 0:
                    got = 0.0
                    break
                got *= (rest - i) / (hidden - i)
            self._void_cache[key] = got
        return got

    def may_be_void(self, seat: int, esuit: int, threshold: float = VOID_RISK) -> bool:
        """Whether ``seat`` is void in ``esuit`` (shown, or likely enough to plan for): only
        a void seat can ruff, since a play mixing suits never wins."""
        return self.void_chance(seat, esuit) >= threshold

    def secure(self, win: list[int], lead: Format, after: Sequence[int]) -> bool:
        """Whether the play ``win``, winning the trick now, stays winning against the
        seats ``after`` that still play (only seats of the other side are threats)."""
        ladder = self.ladder
        es = ladder.esuit
        # Callers ask about their own side's play: only the other side threatens it.
        threats = [s for s in after if not self.allies.partner(s)]
        if not threats:
            return True
        e = lead.esuit
        win_e = es[win[0]]
        order = ladder.order
        top = max(order[f] for f in win)
        trumps = self.unseen_in(TRUMP)
        if lead.kind == THROW:
            if win_e != TRUMP or e == TRUMP:
                # The leader's throw stands unless a void seat ruffs the whole layout.
                if e == TRUMP:
                    return True
                return not any(self.may_be_void(s, e) and len(trumps) >= lead.size
                               for s in threats)
            return not any(self.may_be_void(s, e) and trumps
                           and order[trumps[0]] > top for s in threats)
        comp = classify_faces(win, ladder).components[0]
        for s in threats:
            if e not in self.voids[s]:
                if win_e == e and self._beats_here(comp, e, s):
                    return False
            if e != TRUMP and self.may_be_void(s, e):
                if win_e == TRUMP:
                    if self._beats_here(comp, TRUMP, s):
                        return False
                elif self._trump_shape(comp, s):
                    return False
        return True

    def _beats_here(self, comp: Component, esuit: int, seat: int) -> bool:
        if comp.kind != SINGLE and esuit in self.pairless[seat]:
            return False
        return self.beatable(comp, esuit)

    def _trump_shape(self, comp: Component, seat: int) -> bool:
        """Whether unseen trumps could make a play of ``comp``'s shape (a ruff)."""
        if TRUMP in self.voids[seat]:
            return False
        trumps = self.unseen_in(TRUMP)
        if comp.kind == SINGLE:
            return bool(trumps)
        if TRUMP in self.pairless[seat]:
            return False
        low = Component(comp.kind, comp.faces, comp.pairs, -1)
        return beats_component(low, trumps, self.ladder)


def _pairs(faces: Sequence[int]) -> int:
    seen: dict[int, int] = {}
    for f in faces:
        seen[f] = seen.get(f, 0) + 1
    return sum(c // 2 for c in seen.values())

